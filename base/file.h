/*
 * base/file.h - the one whole-file read.
 *
 * /proc files claim size 0 and pipes have none, so files are read to end of
 * file into a growing buffer (base/array.h) the caller may reuse from one
 * file to the next; the bytes are followed by a NUL that is not counted.
 */
#ifndef PTSCOPE_BASE_FILE_H
#define PTSCOPE_BASE_FILE_H

#include "base/array.h"

/* Replace buffer's bytes with the file `name` under dir_fd (AT_FDCWD for a
 * plain path).  Returns 0, or the errno that stopped it. */
int file_read_at(int dir_fd, const char *name, struct buffer *buffer);
/* The same for an open descriptor, read from where it stands. */
int file_read_fd(int fd, struct buffer *buffer);

#endif
