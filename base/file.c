/*
 * base/file.c - reading a file whole (base/file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/file.h"

/* 64 KiB reads: most /proc files arrive in one, smaps of big processes in
 * a few, and the buffer doubles so large files cost O(n). */
#define READ_CHUNK_BYTES 65536

int file_read_fd(int fd, struct buffer *buffer)
{
	buffer->length = 0;
	for (;;) {
		buffer_reserve(buffer, READ_CHUNK_BYTES);
		ssize_t n = read(fd, buffer->data + buffer->length, buffer->capacity - buffer->length - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		buffer->length += (size_t)n;
	}
	buffer->data[buffer->length] = '\0';
	return 0;
}

int file_read_at(int dir_fd, const char *name, struct buffer *buffer)
{
	buffer->length = 0;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int status = file_read_fd(fd, buffer);
	close(fd);
	return status;
}
