/*
 * base/file.h - the one whole-file read, and the one bounded read of a
 * file the user names.
 *
 * /proc files claim size 0 and pipes have none, so files are read to end of
 * file into a growing buffer (base/array.h) the caller may reuse from one
 * file to the next; the bytes are followed by a NUL that is not counted.
 *
 * A file the user names (a profile, --config, a compile database, a
 * perf report) may be anything: /dev/zero, a FIFO, 4 GiB.  file_read_input
 * reads it against a limit that fits its kind, refused from its size before
 * reading and enforced while reading (a FIFO or a device has no size), and
 * notes it as one of the run's inputs, which base/output.h never replaces.
 */
#ifndef PTSCOPE_BASE_FILE_H
#define PTSCOPE_BASE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/array.h"
#include "base/error.h"

/* Replace buffer's bytes with the file `name` under dir_fd (AT_FDCWD for a
 * plain path).  Returns 0, or the errno that stopped it. */
int file_read_at(int dir_fd, const char *name, struct buffer *buffer);
/* The same for an open descriptor, read from where it stands. */
int file_read_fd(int fd, struct buffer *buffer);
/* The same, stopping with EFBIG once more than limit_bytes arrive. */
int file_read_fd_bounded(int fd, size_t limit_bytes, struct buffer *buffer);
/* Exactly `bytes` through a pipe or socket, across short transfers and
 * EINTR: 0, or -1 at an error or end of file first (errno set, or 0 at EOF). */
int file_write_exact(int fd, const void *data, size_t bytes);
int file_read_exact(int fd, void *data, size_t bytes);

/* Limits by kind: far above any real file of the kind, far below memory. */
#define FILE_LIMIT_PROFILE_BYTES ((size_t)16 << 20)       /* a profile XML (built-in ones: a few KiB) */
#define FILE_LIMIT_PERF_REPORT_BYTES ((size_t)64 << 20)   /* perf report / opreport text (200,000 symbols: ~20 MiB) */
#define FILE_LIMIT_TIMINGS_BYTES ((size_t)16 << 20)       /* time/lmbench/perf stat text (a few KiB) */
#define FILE_LIMIT_CONFIG_BYTES ((size_t)64 << 20)        /* a .config, decompressed (~300 KiB) */
#define FILE_LIMIT_COMPILE_DB_BYTES ((size_t)256 << 20)   /* compile_commands.json (6.x allmodconfig: ~70 MiB) */
#define FILE_LIMIT_SOURCE_BYTES ((size_t)256 << 20)       /* a tree's file the analyzer reads itself */
/* A FIFO the user names: refused when no writer shows up in this time. */
#define FILE_FIFO_WAIT_SECONDS 10

/* Read the file the user named as `kind` ("profile") whole, at most
 * limit_bytes: 0, or -1 with error "PATH: ..." (status 1: bad input).
 * "-" is not special here. */
int file_read_input(const char *path, const char *kind, size_t limit_bytes, struct buffer *buffer,
		    struct error *error);

/* Inputs of the run, by device and inode: note one read (an open fd or a
 * path), and ask whether st is one of them. */
void file_note_input_fd(int fd);
void file_note_input_path(const char *path);
bool file_is_input(const struct stat *st);

#endif
