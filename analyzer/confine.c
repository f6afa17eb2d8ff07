/*
 * analyzer/confine.c - what a libclang worker may open, enforced by the
 * kernel (Landlock).
 *
 * bounded.c's watchdog sees a device or a FIFO only once open(2) has run
 * (the driver has run: a tape rewound, /dev/watchdog armed).  Landlock
 * refuses the open itself: the worker's parsing thread, and the threads
 * libclang starts from it, may open for reading only what is beneath the
 * read roots (the tree, ptscope's cache, the system header folders of
 * util.c's list, a prefix such as "/usr/lib/llvm-" taken as each folder it
 * begins) and the few files the clang driver reads on every parse to learn
 * the distribution and the CPUs; nothing may be written, created, removed,
 * renamed or truncated anywhere, no TCP port bound or connected.  libclang
 * then says "cannot open file 'PATH': Permission denied" and parse.c turns
 * that into a refusal naming the including line.
 *
 * Landlock restricts the calling thread and its later children only: the
 * worker's watchdog, started before, keeps reading /proc; the parent is
 * never restricted.  The ABI is asked of the kernel; rights it does not
 * know are left out (Landlock ABI 1 is Linux 5.13).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyzer/internal.h"

/* The kernel's struct landlock_ruleset_attr as of ABI 4 (the installed
 * header may be older: fields are only ever added at the end). */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
};

enum {
	FS_ABI1 = (1 << 13) - 1,        /* EXECUTE .. MAKE_SYM */
	FS_REFER = 1 << 13,             /* ABI 2 */
	FS_TRUNCATE = 1 << 14,          /* ABI 3 */
	FS_IOCTL_DEV = 1 << 15,         /* ABI 5 */
	NET_TCP = (1 << 0) | (1 << 1),  /* ABI 4: bind, connect */
	READ_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
};

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* Files read on every parse outside the read roots: the clang driver's
 * distribution (its defaults follow it), the CPUs online, and the C
 * library's overcommit setting (malloc reads it to give memory back). */
static const char *const driver_files[] = {
	"/etc/os-release", "/etc/debian_version", "/etc/lsb-release", "/sys/devices/system/cpu/online",
	"/proc/sys/vm/overcommit_memory",
};

int confine_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : 0;
}

/* Allow rights beneath path (a folder, or a file for its file rights); a
 * path that is not there is no error. */
static int allow(int ruleset, const char *path, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= LANDLOCK_ACCESS_FS_READ_FILE;
	struct landlock_path_beneath_attr rule = { .allowed_access = rights, .parent_fd = fd };
	int status = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
	int saved = errno;
	close(fd);
	errno = saved;
	return status;
}

/* A prefix ("/usr/lib/llvm-"): every folder beside it whose name begins so. */
static int allow_prefix(int ruleset, const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%.*s", slash && slash != prefix ? (int)(slash - prefix) : 1, prefix);
	const char *begins = slash ? slash + 1 : prefix;
	DIR *folder = opendir(parent);
	int status = 0;
	for (struct dirent *entry; status == 0 && folder && (entry = readdir(folder)); ) {
		if (strncmp(entry->d_name, begins, strlen(begins)) || entry->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", strcmp(parent, "/") ? parent : "", entry->d_name);
		status = allow(ruleset, path, READ_RIGHTS);
		free(path);
	}
	if (folder)
		closedir(folder);
	return status;
}

static int add_rules(int ruleset, const struct read_roots *roots)
{
	int status = 0;
	if (roots->tree)
		status |= allow(ruleset, roots->tree, READ_RIGHTS);
	if (roots->cache)
		status |= allow(ruleset, roots->cache, READ_RIGHTS);
	/* a precompiled header's build (pch.c): libclang writes KEY.pch-XXXXXXXX and renames it */
	if (roots->writable)
		status |= allow(ruleset, roots->writable, READ_RIGHTS | LANDLOCK_ACCESS_FS_WRITE_FILE |
				LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE);
	for (size_t i = 0; i < read_roots_system_count; i++) {
		const char *folder = read_roots_system[i];
		status |= folder[strlen(folder) - 1] == '-' ? allow_prefix(ruleset, folder)
							     : allow(ruleset, folder, READ_RIGHTS);
	}
	for (size_t i = 0; i < sizeof(driver_files) / sizeof(driver_files[0]); i++)
		status |= allow(ruleset, driver_files[i], LANDLOCK_ACCESS_FS_READ_FILE);
	return status ? -1 : 0;
}

int confine_prepare(const struct read_roots *roots)
{
	int abi = confine_abi();
	if (abi < 1) {
		errno = ENOSYS;
		return -1;
	}
	struct ruleset_attr attr = {
		.handled_access_fs = FS_ABI1 | (abi >= 2 ? FS_REFER : 0) | (abi >= 3 ? FS_TRUNCATE : 0) |
				     (abi >= 5 ? FS_IOCTL_DEV : 0),
		.handled_access_net = abi >= 4 ? NET_TCP : 0,
	};
	size_t size = abi >= 4 ? sizeof(attr) : sizeof(attr.handled_access_fs);
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0 || add_rules(ruleset, roots) == 0)
		return ruleset;
	int saved = errno;
	close(ruleset);
	errno = saved;
	return -1;
}

int confine_enter(int ruleset)
{
	int status = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (status == 0)
		status = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
	int saved = errno;
	close(ruleset);
	errno = saved;
	return status;
}

int confine_reads(const struct read_roots *roots)
{
	int ruleset = confine_prepare(roots);
	return ruleset < 0 ? -1 : confine_enter(ruleset);
}
