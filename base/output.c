/*
 * base/output.c - atomic output files (base/output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/output.h"

bool output_without_tmpfile;

/* ---- named temporaries removed when a signal ends the run ----
 * The handler may only use async-signal-safe calls, so the names live in
 * fixed arrays and a slot is marked in use only once its name is whole. */

#define GUARD_SLOTS 8
static char guarded_path[GUARD_SLOTS][PATH_MAX];
static volatile sig_atomic_t guarded_in_use[GUARD_SLOTS];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define CLEANUP_SIGNAL_COUNT (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))
static struct sigaction saved_actions[CLEANUP_SIGNAL_COUNT];
static bool handlers_installed;
/* The analyzer's threads write cache entries at once: slots are taken under a lock. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;

static void remove_and_reraise(int signal_number)
{
	for (size_t i = 0; i < GUARD_SLOTS; i++)
		if (guarded_in_use[i])
			unlink(guarded_path[i]);
	for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++)
		if (cleanup_signals[i] == signal_number)
			sigaction(signal_number, &saved_actions[i], NULL);
	raise(signal_number);
}

/* A signal the process inherited as ignored (nohup, a shell's `&` without
 * job control) must stay ignored: only default or caught ones are taken. */
static void install_handlers(void)
{
	if (handlers_installed)
		return;
	handlers_installed = true;
	struct sigaction action = { .sa_handler = remove_and_reraise };
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
		sigaction(cleanup_signals[i], NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &action, NULL);
	}
}

static void block_cleanup_signals(sigset_t *saved)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++)
		sigaddset(&set, cleanup_signals[i]);
	pthread_mutex_lock(&guard_lock);
	pthread_sigmask(SIG_BLOCK, &set, saved);
}

static void unblock_cleanup_signals(const sigset_t *saved)
{
	pthread_sigmask(SIG_SETMASK, saved, NULL);
	pthread_mutex_unlock(&guard_lock);
}

/* Called with the cleanup signals blocked and guard_lock held. */
static void guard_locked(const char *path)
{
	if (strlen(path) >= PATH_MAX)
		return;  /* open would have refused it */
	install_handlers();
	for (size_t i = 0; i < GUARD_SLOTS; i++) {
		if (!guarded_in_use[i]) {
			strcpy(guarded_path[i], path);
			guarded_in_use[i] = 1;
			break;
		}
	}
}

static void guard(const char *path)
{
	sigset_t saved;
	block_cleanup_signals(&saved);
	guard_locked(path);
	unblock_cleanup_signals(&saved);
}

static void unguard(const char *path)
{
	sigset_t saved;
	block_cleanup_signals(&saved);
	for (size_t i = 0; i < GUARD_SLOTS; i++)
		if (guarded_in_use[i] && !strcmp(guarded_path[i], path))
			guarded_in_use[i] = 0;
	unblock_cleanup_signals(&saved);
}

/* ---- opening ---- */

static bool is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

static char *directory_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* O_TMPFILE is refused with EOPNOTSUPP by file systems without it, and
 * with EISDIR or EINVAL by kernels before 3.11. */
static int open_unnamed(struct output *output)
{
	if (output_without_tmpfile)
		return -1;
	output->fd = open(output->directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (output->fd >= 0)
		return 0;
	return errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL ? -1 : -2;
}

/* mkostemp opens with O_EXCL and mode 0600; an output is an ordinary file
 * (0666 less the umask, as open(2) would make it). */
static int open_named(struct output *output)
{
	output->temporary = xasprintf("%s/.%s.ptscope-XXXXXX", output->directory, base_name(output->path));
	/* A signal between creating the file and guarding it would leave it
	 * behind: both happen with the cleanup signals blocked. */
	sigset_t saved;
	block_cleanup_signals(&saved);
	output->fd = mkostemp(output->temporary, O_CLOEXEC);
	if (output->fd >= 0)
		guard_locked(output->temporary);
	unblock_cleanup_signals(&saved);
	if (output->fd < 0) {
		free(output->temporary);
		output->temporary = NULL;
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(output->fd, 0666 & ~mask) != 0) {
		/* the file stays 0600: safe, and nothing to stop for */
	}
	return 0;
}

/* A device or FIFO the path names: opened as it is (O_TRUNC means nothing to them). */
static int open_in_place(struct output *output)
{
	struct stat st;
	if (stat(output->path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 1;
	output->fd = open(output->path, O_WRONLY | O_CLOEXEC);
	output->in_place = output->fd >= 0;
	return output->fd >= 0 ? 0 : -1;
}

/* An output that is one of the run's inputs (same device and inode,
 * base/file.h) would replace it (report SNAP -o SNAP): refused as bad
 * usage, status 1.  Asked at open and again before the rename, as some
 * inputs are read after the output is opened. */
static int refuse_input(const char *path, struct error *error)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !file_is_input(&st))
		return 0;
	return error_set(error, path, 0, "is one of this run's inputs: name another output");
}

int output_open(struct output *output, const char *path, struct error *error)
{
	*output = (struct output){ .fd = -1 };
	if (is_stdout(path)) {
		output->stream = stdout;
		return 0;
	}
	if (refuse_input(path, error))
		return -1;
	output->path = path;
	int in_place = open_in_place(output);
	if (in_place == 0)
		return 0;
	if (in_place < 0) {
		int saved = errno;
		error_from_errno(error, path, "cannot write here", saved);
		errno = saved;
		return error_mark_internal(error);
	}
	output->directory = directory_of(path);
	int unnamed = open_unnamed(output);
	if (unnamed == 0 || (unnamed == -1 && open_named(output) == 0))
		return 0;
	int saved = errno;
	free(output->directory);
	output->directory = NULL;
	error_from_errno(error, path, "cannot write here", saved);
	error_mark_internal(error);   /* an output failure (docs/architecture.md) */
	errno = saved;
	return -1;
}

int output_fd(const struct output *output)
{
	return output->fd;
}

struct stream_cookie {
	int fd;
	int *write_errno;
};

static ssize_t stream_write(void *cookie, const char *data, size_t size)
{
	struct stream_cookie *c = cookie;
	for (size_t done = 0; done < size;) {
		ssize_t wrote = write(c->fd, data + done, size - done);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote < 0) {
			if (!*c->write_errno)
				*c->write_errno = errno;
			return -1;
		}
		done += (size_t)wrote;
	}
	return (ssize_t)size;
}

static int stream_close(void *cookie)
{
	struct stream_cookie *c = cookie;
	int status = close(c->fd) == 0 || errno == EINTR ? 0 : -1;
	if (status && !*c->write_errno)
		*c->write_errno = errno;
	free(c);
	return status;
}

FILE *output_stream_over(int fd, int *write_errno)
{
	struct stream_cookie *cookie = xmalloc(sizeof(*cookie));
	*cookie = (struct stream_cookie){ fd, write_errno };
	cookie_io_functions_t io = { .write = stream_write, .close = stream_close };
	FILE *stream = fopencookie(cookie, "w", io);
	if (!stream)
		out_of_memory();   /* glibc's only reason */
	return stream;
}

FILE *output_stream(struct output *output)
{
	if (!output->stream && output->fd >= 0)
		output->stream = output_stream_over(output->fd, &output->write_errno);
	return output->stream;
}

/* ---- publishing ---- */

/* linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd with
 * AT_SYMLINK_FOLLOW does the same for anyone (open(2), O_TMPFILE). */
static int link_unnamed(struct output *output)
{
	char fd_path[64];
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", output->fd);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		char *name = xasprintf("%s/.%s.ptscope-%ld-%u", output->directory, base_name(output->path),
				       (long)getpid(), attempt);
		guard(name);
		if (linkat(output->fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0 ||
		    linkat(AT_FDCWD, fd_path, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) {
			output->temporary = name;
			return 0;
		}
		int saved = errno;
		unguard(name);
		free(name);
		if (saved != EEXIST) {
			errno = saved;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

/* Close what is open; true when everything written reached the file. */
static bool close_output(struct output *output)
{
	bool ok = true;
	if (output->stream && output->stream != stdout)
		ok = fclose(output->stream) == 0;
	else if (output->fd >= 0)
		ok = close(output->fd) == 0;
	output->stream = NULL;
	output->fd = -1;
	return ok;
}

static void release(struct output *output)
{
	if (output->temporary) {
		unlink(output->temporary);
		unguard(output->temporary);
		free(output->temporary);
		output->temporary = NULL;
	}
	free(output->directory);
	output->directory = NULL;
}

/* Stdout is flushed and checked once, by the front door (ptscope.c). */
int output_publish(struct output *output, struct error *error)
{
	if (!output->path) {
		output->stream = NULL;
		return 0;
	}
	errno = 0;
	bool ok = !output->stream || (fflush(output->stream) == 0 && !ferror(output->stream));
	if (output->in_place) {
		/* nothing to sync or name: a device or FIFO takes the bytes as written */
		ok = close_output(output) && ok;
		int saved = output->write_errno ? output->write_errno : errno;
		if (ok)
			return 0;
		error_from_errno(error, output->path, "cannot write", saved ? saved : EIO);
		return error_mark_internal(error);
	}
	if (refuse_input(output->path, error)) {
		output_discard(output);
		return -1;
	}
	ok = ok && fsync(output->fd) == 0;
	ok = ok && (output->temporary || link_unnamed(output) == 0);
	int saved = ok ? 0 : output->write_errno ? output->write_errno : errno;
	if (!close_output(output) && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(output->temporary, output->path) != 0) {
		ok = false;
		saved = errno;
	}
	if (ok) {
		unguard(output->temporary);
		free(output->temporary);
		output->temporary = NULL;
	}
	release(output);
	if (ok)
		return 0;
	error_from_errno(error, output->path, "cannot write", saved ? saved : EIO);
	return error_mark_internal(error);
}

void output_discard(struct output *output)
{
	if (output->path)
		close_output(output);
	output->stream = NULL;
	release(output);
}

int output_write_whole(const char *path, int (*write)(FILE *out, const void *context), const void *context)
{
	struct output output;
	struct error error;
	if (output_open(&output, path, &error) != 0) {
		error_print(&error);
		return (int)error.status;
	}
	FILE *out = output_stream(&output);
	if (!out || write(out, context) != 0) {
		int saved = output.write_errno ? output.write_errno : errno;   /* the failed write's own */
		output_discard(&output);
		if (path && strcmp(path, "-"))
			fprintf(stderr, "ptscope: %s: cannot write: %s\n", path, strerror(saved ? saved : EIO));
		return STATUS_INTERNAL;
	}
	if (output_publish(&output, &error) != 0) {
		error_print(&error);
		return (int)error.status;
	}
	return STATUS_OK;
}
