/*
 * inputs/mapped_file.c - a snapshot file handed to libarchive from a
 * mapping of the page cache instead of read() into a buffer: the bytes of
 * an uncompressed tar reach the parsers without being copied at all (the
 * copy was a fifth of `ptscope info`; it is all of `cat`).
 *
 * libarchive sees exactly what its own file reader would give it: pieces of
 * READ_BYTES from the current position, a skip that moves the position
 * (refused past the end, where it reads instead), then 0 at the end; so what it accepts
 * and every message it makes are the same.  The pieces lie in a window of
 * the file mapped WINDOW_BYTES at a time, so memory holds one window, not
 * the file.  A window is 2 MiB at a 2 MiB offset: the page cache keeps a
 * large file in 2 MiB folios, and the kernel maps such a window with one
 * page-middle entry, not 512 page-table entries (a fifth of the time
 * reading the bytes cost, in mapping and unmapping them).  A piece across
 * two windows (after a skip, at most one in 2 MiB) is copied.  A file that
 * shrinks while mapped would end the run with
 * SIGBUS: then a one-line error and exit 1, as for any bad input.
 */
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "internal.h"

#define READ_BYTES (64 << 10)     /* containers.c's block size for libarchive */
#define WINDOW_BYTES (2 << 20)   /* a multiple of READ_BYTES: a piece spans two at most */

struct mapped_file {
	int fd;
	uint64_t size, position;        /* position: what libarchive has taken or skipped */
	bool no_skip;                   /* a skip was refused: reads from then on */
	const char *window;             /* the file's bytes [window_start, window_start + window_bytes) */
	uint64_t window_start;
	size_t window_bytes;
	unsigned char *across;          /* READ_BYTES: a piece across two windows, copied */
	struct sigaction before;        /* SIGBUS's action before the file was mapped */
};

/* Written by the SIGBUS handler, made before: "ptscope: FILE: ...\n". */
static char shrank_message[4 * 256 + 64];

static void file_shrank(int signal_number)
{
	(void)signal_number;
	ssize_t written = write(STDERR_FILENO, shrank_message, strlen(shrank_message));
	(void)written;
	_exit(1);
}

static void unmap_window(struct mapped_file *f)
{
	if (f->window)
		munmap((void *)f->window, f->window_bytes);
	f->window = NULL;
}

/* The window from start (a multiple of WINDOW_BYTES), cut at the file's end. */
static int map_window(struct archive *archive, struct mapped_file *f, uint64_t start)
{
	uint64_t end = f->size - start < WINDOW_BYTES ? f->size : start + WINDOW_BYTES;
	unmap_window(f);
	void *p = mmap(NULL, (size_t)(end - start), PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->fd, (off_t)start);
	if (p == MAP_FAILED) {
		archive_set_error(archive, errno, "%s", strerror(errno));
		return -1;
	}
	f->window = p;
	f->window_start = start;
	f->window_bytes = (size_t)(end - start);
	return 0;
}

static la_ssize_t mapped_read(struct archive *archive, void *client, const void **buffer)
{
	struct mapped_file *f = client;
	if (f->position >= f->size)
		return 0;
	size_t bytes = f->size - f->position < READ_BYTES ? (size_t)(f->size - f->position) : READ_BYTES;
	uint64_t start = f->position & ~(uint64_t)(WINDOW_BYTES - 1);
	if ((!f->window || f->window_start != start) && map_window(archive, f, start))
		return ARCHIVE_FATAL;
	size_t at = (size_t)(f->position - start);
	if (at + bytes <= f->window_bytes) {
		*buffer = f->window + at;
	} else {
		/* the piece runs into the next window: its two parts copied
		 * (one window mapped at a time, so memory holds one) */
		size_t first = f->window_bytes - at;
		if (!f->across)
			f->across = xmalloc(READ_BYTES);
		memcpy(f->across, f->window + at, first);
		if (map_window(archive, f, start + WINDOW_BYTES))
			return ARCHIVE_FATAL;
		memcpy(f->across + first, f->window, bytes - first);
		*buffer = f->across;
	}
	f->position += bytes;
	return (la_ssize_t)bytes;
}

static la_int64_t mapped_skip(struct archive *archive, void *client, la_int64_t request)
{
	struct mapped_file *f = client;
	(void)archive;
	/* as libarchive's reader: never past the end, where it reads instead
	 * (and says how much of the skip the file held), nor again after */
	if (request <= 0 || f->no_skip || f->position > f->size || (uint64_t)request > f->size - f->position) {
		f->no_skip = true;
		return 0;
	}
	f->position += (uint64_t)request;
	return request;
}

static int mapped_close(struct archive *archive, void *client)
{
	struct mapped_file *f = client;
	(void)archive;
	unmap_window(f);
	sigaction(SIGBUS, &f->before, NULL);
	close(f->fd);
	free(f->across);
	free(f);
	return ARCHIVE_OK;
}

/*
 * Open path for archive through a mapping: ARCHIVE_OK, or, for anything
 * but a regular file that opens (a FIFO, a device, an empty file, no
 * permission), what archive_read_open_filename says of it.
 */
int archive_open_mapped(struct archive *archive, const char *path, size_t block_bytes)
{
	struct stat st;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return archive_read_open_filename(archive, path, block_bytes);
	}
	struct mapped_file *f = xcalloc(1, sizeof(*f));
	*f = (struct mapped_file){ .fd = fd, .size = (uint64_t)st.st_size };
	char name[4 * 256 + 1];
	escape_text(name, sizeof(name), path);
	snprintf(shrank_message, sizeof(shrank_message), "ptscope: %s: the file shrank while it was read\n", name);
	struct sigaction action = { .sa_handler = file_shrank };
	sigemptyset(&action.sa_mask);
	sigaction(SIGBUS, &action, &f->before);
	archive_read_set_callback_data(archive, f);
	archive_read_set_read_callback(archive, mapped_read);
	archive_read_set_skip_callback(archive, mapped_skip);
	archive_read_set_close_callback(archive, mapped_close);
	return archive_read_open1(archive);
}
