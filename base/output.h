/*
 * base/output.h - the one atomic output: a file appears whole or not at all.
 *
 * output_open writes into an unnamed O_TMPFILE in the target's directory
 * where the file system has it (a run killed even by SIGKILL leaves
 * nothing), else into a named temporary created with O_EXCL beside the
 * target, removed on discard and on SIGINT, SIGTERM and SIGHUP (a signal
 * the process inherited as ignored stays ignored).  output_publish flushes,
 * fsyncs and gives the file its name with rename, which replaces an
 * existing file atomically.  Path NULL or "-" means stdout: publish then
 * only flushes and checks it.  A path that names a device or a FIFO
 * (/dev/null, /dev/full, a named pipe) is written in place: renaming a file
 * over it would replace the device node.
 */
#ifndef PTSCOPE_BASE_OUTPUT_H
#define PTSCOPE_BASE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

struct output {
	const char *path;       /* the final name (the caller's string); NULL for stdout */
	char *directory;        /* where the temporary lives */
	char *temporary;        /* the named temporary, or NULL while unnamed */
	int fd;                 /* -1 for stdout */
	FILE *stream;           /* stdio over fd, made on first use */
	bool in_place;          /* a device or FIFO: written as it is, never renamed */
	int write_errno;        /* why the stream's first write failed, 0 while none has */
};

/* 0, or -1 with error ("PATH: cannot write here: ...") and errno saying why.
 * Either is an output failure: status 2 (docs/architecture.md); a path that
 * is one of the run's inputs (base/file.h) is refused with status 1, here
 * or at output_publish. */
int output_open(struct output *output, const char *path, struct error *error);
/* The descriptor, for writers that take one (libarchive); -1 for stdout. */
int output_fd(const struct output *output);
/* A stdio stream over it (stdout for stdout); NULL only if fdopen fails. */
FILE *output_stream(struct output *output);
/* Flush, fsync, name it; the output is closed either way.  0, or -1 with
 * error, and then nothing is left under a temporary or the final name. */
int output_publish(struct output *output, struct error *error);
/* Give up: close and remove the temporary (no-op after publish). */
void output_discard(struct output *output);

/* The whole dance for one output: open PATH, write(stream, context) fills
 * it, publish.  STATUS_OK, or the failure's status with its message said:
 * open's or publish's own (1 for an input named as the output), 2 for a
 * write that failed ("PATH: cannot write: ...", the failed write's errno;
 * stdout's failures are said once by the front door).  Nothing is left
 * under PATH unless all of it was written. */
int output_write_whole(const char *path, int (*write)(FILE *out, const void *context), const void *context);

/* A stdio stream writing to fd that keeps the errno of its first failed
 * write in *write_errno (glibc's own streams forget it when a write larger
 * than their buffer fails: fflush has nothing left to retry); fclose closes
 * fd.  What output_stream gives, and the front door's stdout (builtin/options.c). */
FILE *output_stream_over(int fd, int *write_errno);

/* For tests: true makes output_open skip O_TMPFILE, as on a file system
 * without it. */
extern bool output_without_tmpfile;

#endif
