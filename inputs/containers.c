/*
 * containers.c - directory and tar (plain or compressed) snapshots.
 *
 * Tars are streamed through libarchive, member by member, into one reused
 * buffer: nothing is extracted to disk.  libarchive already tolerates the
 * quirks of old writers (no end-of-archive blocks, V7 headers); smemcap's
 * wrong typeflags are handled here by trusting name and size.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/decompress.h"
#include "internal.h"

/* ---- directory ---- */

/* Read a whole file, refusing one too large to be a snapshot member. */
static int read_file(int dir_fd, const char *name, struct buffer *b, const char *source,
		     struct input_error *error)
{
	struct stat st;
	int status = fstatat(dir_fd, name, &st, 0) ? errno : 0;
	if (!status && (uint64_t)st.st_size > MEMBER_MAX_BYTES) {
		input_error_set(error, source, name, 0, "file of %lld bytes is too large", (long long)st.st_size);
		return -1;
	}
	if (!status)
		status = file_read_at(dir_fd, name, b);
	if (status)
		input_error_set(error, source, name, 0, "%s", strerror(status));
	return status ? -1 : 0;
}

/* Hand one file to the builder the way it asks for it. */
static int add_file(int dir_fd, const char *file, const char *member,
		    struct snapshot_builder *builder, struct buffer *shared, const char *source,
		    struct input_error *error)
{
	struct buffer own = { 0 };
	struct stat st;
	switch (builder_member_use(builder, member)) {
	case MEMBER_IGNORE:
		return 0;
	case MEMBER_SIZE_ONLY:
		if (fstatat(dir_fd, file, &st, 0) != 0) {
			input_error_set(error, source, member, 0, "%s", strerror(errno));
			return -1;
		}
		return builder_size_member(builder, member, (uint64_t)st.st_size, error);
	case MEMBER_ADOPT:
		if (read_file(dir_fd, file, &own, source, error)) {
			free(own.data);
			return -1;
		}
		return builder_adopt_member(builder, member, own.data, own.length, error);
	case MEMBER_COPY:
	default:
		if (read_file(dir_fd, file, shared, source, error))
			return -1;
		return builder_add_member(builder, member, shared->data, shared->length, error);
	}
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A directory entry's type, from d_type where the file system gives it. */
static int entry_type(int dir_fd, const struct dirent *entry)
{
	struct stat st;
	if (entry->d_type == DT_DIR || entry->d_type == DT_REG)
		return entry->d_type;
	if (fstatat(dir_fd, entry->d_name, &st, 0) != 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

/*
 * Every regular file of the root, and of each numeric folder below it, in
 * version order (pid 9 before pid 10) so that VMAs arrive in pid order and
 * the builder can keep them where they were parsed.
 */
static int add_directory_files(int dir_fd, const char *prefix, bool descend,
			       struct snapshot_builder *builder, struct buffer *buffer,
			       const char *source, struct input_error *error)
{
	struct dirent **entries;
	int count = scandirat(dir_fd, ".", &entries, NULL, versionsort), status = 0;
	if (count < 0) {
		input_error_set(error, source, prefix[0] ? prefix : NULL, 0, "%s", strerror(errno));
		close(dir_fd);
		return -1;
	}
	for (int i = 0; i < count; i++) {
		const char *name = entries[i]->d_name;
		char member[512];
		int type = name[0] == '.' || status ? DT_UNKNOWN : entry_type(dir_fd, entries[i]);
		snprintf(member, sizeof(member), "%s%s", prefix, name);
		if (type == DT_DIR && descend && is_number(name)) {
			char sub_prefix[sizeof(member) + 1];
			snprintf(sub_prefix, sizeof(sub_prefix), "%s/", member);
			int sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			status = sub < 0 ? 0 : add_directory_files(sub, sub_prefix, false, builder, buffer, source, error);
		} else if (type == DT_REG) {
			status = add_file(dir_fd, name, member, builder, buffer, source, error);
		}
		free(entries[i]);
	}
	free(entries);
	close(dir_fd);
	return status;
}

int read_directory(const char *path, struct snapshot_builder *builder, struct input_error *error)
{
	struct buffer buffer = { 0 };
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		input_error_set(error, path, NULL, 0, "%s", strerror(errno));
		return -1;
	}
	int status = add_directory_files(fd, "", true, builder, &buffer, path, error);
	free(buffer.data);
	return status;
}

/* ---- tar through libarchive ---- */

static int check_member_size(int64_t size, const char *source, const char *name,
			     struct input_error *error)
{
	if (size >= 0 && (uint64_t)size <= MEMBER_MAX_BYTES)
		return 0;
	input_error_set(error, source, name, 0, "member claims %lld bytes: not a snapshot member",
			(long long)size);
	return -1;
}

/* Exactly size bytes of the current member into data. */
static int read_member_data(struct archive *archive, char *data, size_t size,
			    const char *source, const char *name, struct input_error *error)
{
	size_t done = 0;
	while (done < size) {
		la_ssize_t n = archive_read_data(archive, data + done, size - done);
		if (n < 0) {
			input_error_set(error, source, name, 0, "%s", archive_error_string(archive));
			return -1;
		}
		if (n == 0) {
			input_error_set(error, source, name, 0,
					"archive ends after %zu of %zu bytes (truncated)", done, size);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Hand the current member to the builder the way it asks for it. */
static int add_archive_member(struct archive *archive, const char *name, int64_t size,
			      struct snapshot_builder *builder, struct buffer *shared,
			      const char *source, struct input_error *error)
{
	enum member_use use = builder_member_use(builder, name);
	char *own;
	if (use == MEMBER_IGNORE)
		return 0; /* libarchive skips the data at the next header */
	if (check_member_size(size, source, name, error))
		return -1;
	switch (use) {
	case MEMBER_SIZE_ONLY:
		return builder_size_member(builder, name, (uint64_t)size, error);
	case MEMBER_ADOPT:
		own = xmalloc((size_t)size);
		if (read_member_data(archive, own, (size_t)size, source, name, error)) {
			free(own);
			return -1;
		}
		return builder_adopt_member(builder, name, own, (size_t)size, error);
	default:
		shared->length = 0;
		buffer_reserve(shared, (size_t)size);
		shared->length = (size_t)size;
		if (read_member_data(archive, shared->data, shared->length, source, name, error))
			return -1;
		return builder_add_member(builder, name, shared->data, shared->length, error);
	}
}

int read_archive(const char *path, struct snapshot_builder *builder, struct input_error *error)
{
	struct archive *archive = archive_read_new();
	struct archive_entry *entry;
	struct buffer buffer = { 0 };
	int status = 0, r;

	decompress_enable_builtin(archive);   /* never external programs (base/decompress.h) */
	archive_read_support_format_tar(archive);
	if (archive_read_open_filename(archive, path, 1 << 16) != ARCHIVE_OK) {
		input_error_set(error, path, NULL, 0, "not a snapshot archive: %s", archive_error_string(archive));
		archive_read_free(archive);
		return -1;
	}
	while (status == 0 && (r = archive_read_next_header(archive, &entry)) != ARCHIVE_EOF) {
		if (r == ARCHIVE_FATAL || r == ARCHIVE_RETRY) {
			input_error_set(error, path, NULL, 0, "%s", archive_error_string(archive));
			status = -1;
			break;
		}
		const char *name = archive_entry_pathname(entry);
		int64_t size = archive_entry_size(entry);
		/* Trust name and size, not the typeflag: smemcap writes odd ones. */
		if (!name || (archive_entry_filetype(entry) == AE_IFDIR && size <= 0))
			continue;
		status = add_archive_member(archive, name, size, builder, &buffer, path, error);
	}
	free(buffer.data);
	archive_read_free(archive);
	return status;
}
