/*
 * buffer.c - a growing byte buffer and reading a file whole into one: the
 * capture and the directory reader both read /proc-like files, which claim
 * size 0, so both read to end of file into a buffer they reuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

int buffer_reserve(struct buffer *b, size_t extra)
{
	if (b->capacity - b->length >= extra)
		return 0;
	size_t capacity = b->capacity ? b->capacity : 4096;
	while (capacity - b->length < extra)
		capacity *= 2;
	char *data = realloc(b->data, capacity);
	if (!data)
		return -1;
	b->data = data;
	b->capacity = capacity;
	return 0;
}

int read_whole_file(int dir_fd, const char *name, struct buffer *b)
{
	b->length = 0;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	for (;;) {
		if (buffer_reserve(b, 65536) < 0) {
			close(fd);
			return ENOMEM;
		}
		ssize_t n = read(fd, b->data + b->length, b->capacity - b->length);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			close(fd);
			return saved;
		}
		if (n == 0)
			break;
		b->length += (size_t)n;
	}
	close(fd);
	return 0;
}
