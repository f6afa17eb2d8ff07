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
 * Inside the tree only regular files may be read (and folders listed): a
 * device or a FIFO the tree holds is refused like one outside it.  Landlock
 * grants by place, not by kind, so a walk of the tree (confine_walk, once a
 * process, before the first cold parse; getdents' d_type, no stat per file)
 * finds the folders with anything beneath them that is not a regular file,
 * a folder or a symlink.  A folder with nothing such is granted whole; in
 * one that has some, each regular file and each clean subfolder gets a rule
 * of its own, and the walk goes on into the others.  A symlink needs no
 * rule: Landlock judges the place it leads to.  The cache folder is granted
 * only where libclang reads (the shim and the precompiled headers), so a
 * tree unpacked beneath it is judged by its own walk.
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

/* What libclang reads in ptscope's cache folder (sources.c, pch.c). */
static const char *const cache_read[] = { "shim", "pch" };

int confine_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : 0;
}

/* Allow rights beneath fd's place (a folder, or a file for its file rights). */
static int allow_fd(int ruleset, int fd, uint64_t rights)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = rights, .parent_fd = fd };
	int status = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
	int saved = errno;
	close(fd);
	errno = saved;
	return status;
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
	return allow_fd(ruleset, fd, rights);
}

/* ---- the walk of the tree ------------------------------------------------ */

/* Rules past this many are refused, not made.  Only the regular files and
 * clean folders beside something special cost a rule each (a folder full
 * of FIFOs costs none), and every worker makes them again as it starts (an
 * O_PATH open and a landlock_add_rule each, and kernel memory for each
 * worker's domain: 4,200 rules took 9.5 ms a worker).  A real tree holds
 * nothing special; one special file in each of Debian 6.1's two largest
 * folders (arch/arm/boot/dts, 2,545 entries; include/linux, 1,466) costs
 * those 4,200; a tree past the bound is refused whole, in a message naming
 * a special file, rather than confined by a hundred thousand rules. */
enum { RULES_MAX = 16384, WALK_DEPTH_MAX = 256 };
enum { CLEAN, SPECIAL, TOO_MANY };   /* a folder, as the walk found it, in growing order */

struct tree_rule {
	char *path;
	bool folder;                /* READ_FILE and READ_DIR beneath it, else READ_FILE on the file */
};

/* The last walk, kept for the workers the process forks after it. */
static struct {
	char *tree;                 /* the tree walked, NULL: none */
	struct tree_rule *rules;
	size_t count, capacity;
	char *refused;              /* why it cannot be confined, or NULL */
} walked;

struct walk {
	char path[PATH_MAX];        /* the folder being walked */
	size_t length;
	char *first_special;        /* "PATH, a FIFO": for the refusal */
};

const char *confine_file_kind(unsigned mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* An entry's type as getdents gives it (fstatat only where the file system
 * does not say); DT_UNKNOWN, counted as special, when it cannot be known. */
static unsigned char entry_type(int folder, const struct dirent *entry)
{
	struct stat st;
	if (entry->d_type != DT_UNKNOWN)
		return entry->d_type;
	return fstatat(folder, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? IFTODT(st.st_mode) : DT_UNKNOWN;
}

static int note_special(struct walk *walk, const char *name, unsigned char type)
{
	if (!walk->first_special)
		walk->first_special = xasprintf("%s/%s, %s", walk->path, name, confine_file_kind(DTTOIF(type)));
	return SPECIAL;
}

/* A rule for name in the folder walked (NULL: the folder itself). */
static bool add_tree_rule(const struct walk *walk, const char *name, bool folder)
{
	if (walked.count >= RULES_MAX)
		return false;
	ARRAY_RESERVE(walked.rules, walked.capacity, walked.count + 1);
	walked.rules[walked.count++] = (struct tree_rule){
		.path = name ? xasprintf("%s/%s", walk->path, name) : xstrdup(walk->path), .folder = folder };
	return true;
}

/* A folder with something special beneath it: a rule for each of its
 * regular files and each clean subfolder.  SPECIAL, or TOO_MANY. */
static int grant_beside(const struct walk *walk, DIR *folder, const struct cg_list *clean)
{
	for (size_t i = 0; i < clean->count; i++)
		if (!add_tree_rule(walk, clean->items[i], true))
			return TOO_MANY;
	rewinddir(folder);
	for (struct dirent *entry; (entry = readdir(folder)); )
		if (entry_type(dirfd(folder), entry) == DT_REG && !add_tree_rule(walk, entry->d_name, false))
			return TOO_MANY;
	return SPECIAL;
}

static int walk_folder(struct walk *walk, int fd, unsigned depth);

/* The subfolder name of folder: CLEAN, SPECIAL (also when it cannot be
 * entered, or is too deep: nothing in it is granted) or TOO_MANY. */
static int walk_child(struct walk *walk, int folder, const char *name, unsigned depth)
{
	size_t length = walk->length, name_length = strlen(name);
	int fd = depth + 1 >= WALK_DEPTH_MAX || length + 1 + name_length >= sizeof(walk->path) ? -1
		 : openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (!walk->first_special)
			walk->first_special = xasprintf("%s/%s, a folder too deep or closed to walk", walk->path, name);
		return SPECIAL;
	}
	walk->path[length] = '/';
	memcpy(walk->path + length + 1, name, name_length + 1);
	walk->length = length + 1 + name_length;
	int status = walk_folder(walk, fd, depth + 1);
	walk->length = length;
	walk->path[length] = '\0';
	return status;
}

/* The folder fd (walk->path, fd closed here): CLEAN, SPECIAL (its rules
 * added) or TOO_MANY. */
static int walk_folder(struct walk *walk, int fd, unsigned depth)
{
	DIR *folder = fdopendir(fd);
	if (!folder) {
		close(fd);
		return SPECIAL;
	}
	struct cg_list clean = { 0 };   /* subfolders with nothing special beneath */
	int status = CLEAN;
	struct dirent *entry;
	while (status != TOO_MANY && (errno = 0, entry = readdir(folder))) {
		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		unsigned char type = entry_type(dirfd(folder), entry);
		int child = type == DT_REG || type == DT_LNK ? CLEAN
			    : type == DT_DIR ? walk_child(walk, dirfd(folder), entry->d_name, depth)
			    : note_special(walk, entry->d_name, type);
		if (type == DT_DIR && child == CLEAN)
			cg_list_add(&clean, entry->d_name);
		status = child > status ? child : status;
	}
	if (status == CLEAN && errno)   /* a folder not read to its end may hide anything */
		status = SPECIAL;
	if (status == SPECIAL)
		status = grant_beside(walk, folder, &clean);
	cg_list_free(&clean);
	closedir(folder);
	return status;
}

static void forget_walk(void)
{
	for (size_t i = 0; i < walked.count; i++)
		free(walked.rules[i].path);
	free(walked.rules);
	free(walked.tree);
	free(walked.refused);
	memset(&walked, 0, sizeof(walked));
}

const char *confine_walk(const struct read_roots *roots)
{
	if (!roots->tree || (walked.tree && !strcmp(walked.tree, roots->tree)))
		return roots->tree ? walked.refused : NULL;
	forget_walk();
	walked.tree = xstrdup(roots->tree);
	struct walk walk = { .length = strlen(roots->tree) };
	if (walk.length >= sizeof(walk.path))
		return walked.refused = xasprintf("%s: a path too long to walk", roots->tree);
	memcpy(walk.path, roots->tree, walk.length + 1);
	int fd = open(roots->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int status = fd < 0 ? SPECIAL : walk_folder(&walk, fd, 0);
	if (status == CLEAN)
		add_tree_rule(&walk, NULL, true);
	if (status == TOO_MANY)
		walked.refused = xasprintf("the tree holds files that are not regular files, folders or symlinks (%s), "
					   "beside more than %d files and folders libclang would then be let read one "
					   "by one (Landlock rules): refused; remove them",
					   walk.first_special ? walk.first_special : "?", RULES_MAX);
	free(walk.first_special);
	return walked.refused;
}

/* The tree's rules, as the walk found them: each a folder or a regular
 * file still (O_NOFOLLOW: a file since made a link, a FIFO or a folder
 * gets no rule). */
static int allow_tree(int ruleset, const struct read_roots *roots)
{
	if (confine_walk(roots)) {
		errno = EACCES;
		return -1;
	}
	int status = allow(ruleset, roots->tree, LANDLOCK_ACCESS_FS_READ_DIR);
	for (size_t i = 0; i < walked.count; i++) {
		const struct tree_rule *rule = &walked.rules[i];
		int fd = open(rule->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || (rule->folder ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		status |= allow_fd(ruleset, fd, rule->folder ? READ_RIGHTS : LANDLOCK_ACCESS_FS_READ_FILE);
	}
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
	if (roots->tree && allow_tree(ruleset, roots))
		return -1;
	for (size_t i = 0; roots->cache && i < sizeof(cache_read) / sizeof(cache_read[0]); i++) {
		char *folder = xasprintf("%s/%s", roots->cache, cache_read[i]);
		status |= allow(ruleset, folder, READ_RIGHTS);
		free(folder);
	}
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
