/*
 * base/file.c - reading a file whole (base/file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"

/* 64 KiB reads: most /proc files arrive in one, smaps of big processes in
 * a few, and the buffer doubles so large files cost O(n). */
#define READ_CHUNK_BYTES 65536

int file_read_fd_bounded(int fd, size_t limit_bytes, struct buffer *buffer)
{
	buffer->length = 0;
	for (;;) {
		buffer_reserve(buffer, READ_CHUNK_BYTES);
		size_t room = buffer->capacity - buffer->length - 1;
		/* never ask for more than one byte past the limit: that byte says "too big" */
		if (limit_bytes - buffer->length + 1 < room)
			room = limit_bytes - buffer->length + 1;
		ssize_t n = read(fd, buffer->data + buffer->length, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		buffer->length += (size_t)n;
		if (buffer->length > limit_bytes) {
			buffer->length = 0;
			buffer->data[0] = '\0';
			return EFBIG;
		}
	}
	buffer->data[buffer->length] = '\0';
	return 0;
}

int file_read_fd(int fd, struct buffer *buffer)
{
	return file_read_fd_bounded(fd, SIZE_MAX - 1, buffer);
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

/* A FIFO opened without blocking: true once a writer wrote or came and
 * went, false after FILE_FIFO_WAIT_SECONDS of nothing. */
static bool fifo_wait_writer(int fd)
{
	struct pollfd wait = { .fd = fd, .events = POLLIN };
	int ready;
	do
		ready = poll(&wait, 1, FILE_FIFO_WAIT_SECONDS * 1000);
	while (ready < 0 && errno == EINTR);
	return ready > 0;
}

static int too_big(struct error *error, const char *path, const char *kind, size_t limit_bytes)
{
	return error_set(error, path, 0, "more than %zu MiB: no %s is that large (refused, not read)",
			 limit_bytes >> 20, kind);
}

int file_read_input(const char *path, const char *kind, size_t limit_bytes, struct buffer *buffer,
		    struct error *error)
{
	buffer->length = 0;
	/* a directory is refused by read(); O_NOCTTY: a terminal never becomes
	 * ours; O_NONBLOCK: a FIFO nobody writes to does not block the open */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int problem = errno;
		if (fd >= 0)
			close(fd);
		return error_from_errno(error, path, NULL, problem);
	}
	if (S_ISFIFO(st.st_mode) && !fifo_wait_writer(fd)) {
		close(fd);
		return error_set(error, path, 0, "a FIFO no one wrote to in %d s (refused, not read)",
				 FILE_FIFO_WAIT_SECONDS);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > limit_bytes) {
		close(fd);
		return too_big(error, path, kind, limit_bytes);
	}
	file_note_input_fd(fd);
	int status = file_read_fd_bounded(fd, limit_bytes, buffer);
	close(fd);
	if (status == EFBIG)
		return too_big(error, path, kind, limit_bytes);
	if (status)
		return error_from_errno(error, path, NULL, status);
	return 0;
}

/* ---- the run's inputs ---- */

static struct input_id {
	dev_t device;
	ino_t inode;
} *inputs;
static size_t input_count, input_capacity;
static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const struct stat *st)
{
	pthread_mutex_lock(&inputs_lock);
	array_reserve(&inputs, &input_capacity, input_count + 1, sizeof(*inputs));
	inputs[input_count++] = (struct input_id){ st->st_dev, st->st_ino };
	pthread_mutex_unlock(&inputs_lock);
}

void file_note_input_fd(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		note(&st);
}

void file_note_input_path(const char *path)
{
	struct stat st;
	if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		note(&st);
}

bool file_is_input(const struct stat *st)
{
	bool found = false;
	pthread_mutex_lock(&inputs_lock);
	for (size_t i = 0; i < input_count && !found; i++)
		found = inputs[i].device == st->st_dev && inputs[i].inode == st->st_ino;
	pthread_mutex_unlock(&inputs_lock);
	return found;
}

int file_write_exact(int fd, const void *data, size_t bytes)
{
	const char *at = data;
	while (bytes) {
		ssize_t n = write(fd, at, bytes);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += n;
		bytes -= (size_t)n;
	}
	return 0;
}

int file_read_exact(int fd, void *data, size_t bytes)
{
	char *at = data;
	while (bytes) {
		ssize_t n = read(fd, at, bytes);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		at += n;
		bytes -= (size_t)n;
	}
	return 0;
}
