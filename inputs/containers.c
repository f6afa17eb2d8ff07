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

/* "FILE of N bytes" refused when a member of its kind cannot be that big. */
static int check_member_size(uint64_t size, const char *source, const char *member,
			     struct error *error)
{
	uint64_t limit = builder_member_max_bytes(member);
	if (size <= limit)
		return 0;
	input_error_set(error, source, member, 0, "%" PRIu64 " bytes: such a member holds at most %" PRIu64
			" (not a snapshot member)", size, limit);
	return -1;
}

/*
 * Open a member inside the snapshot directory: never through a symbolic
 * link (one could point at /etc/shadow or into /proc), and only a regular
 * file (a FIFO would block, a device has no end).  The fd, or -1.
 */
static int open_member(int dir_fd, const char *file, const char *member, struct stat *st,
		       const char *source, struct error *error)
{
	int fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0) {
		int problem = errno;
		if (fd >= 0)
			close(fd);
		input_error_set(error, source, member, 0, "%s", problem == ELOOP
				? "a symbolic link: members are read only inside the snapshot" : strerror(problem));
		return -1;
	}
	const char *kind = S_ISREG(st->st_mode) ? NULL : S_ISFIFO(st->st_mode) ? "a FIFO"
			 : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device" : S_ISSOCK(st->st_mode)
			 ? "a socket" : "not a regular file";
	if (kind || check_member_size((uint64_t)st->st_size, source, member, error)) {
		if (kind)
			input_error_set(error, source, member, 0, "%s: not a snapshot member", kind);
		close(fd);
		return -1;
	}
	return fd;
}

/* Read a member whole through open_member. */
static int read_member_file(int dir_fd, const char *file, const char *member, struct buffer *b,
			    const char *source, struct error *error)
{
	struct stat st;
	int fd = open_member(dir_fd, file, member, &st, source, error);
	if (fd < 0)
		return -1;
	int status = file_read_fd(fd, b);
	close(fd);
	if (status == 0 && b->length > builder_member_max_bytes(member))
		return check_member_size(b->length, source, member, error); /* grew while read */
	if (status)
		input_error_set(error, source, member, 0, "%s", strerror(status));
	return status ? -1 : 0;
}

/* Hand one file to the builder the way it asks for it. */
static int add_file(int dir_fd, const char *file, const char *member,
		    struct snapshot_builder *builder, struct buffer *shared, const char *source,
		    struct error *error)
{
	struct buffer own = { 0 };
	struct stat st;
	int fd;
	switch (builder_member_use(builder, member)) {
	case MEMBER_IGNORE:
		return 0;
	case MEMBER_SIZE_ONLY:
		if ((fd = open_member(dir_fd, file, member, &st, source, error)) < 0)
			return -1;
		close(fd);
		return builder_size_member(builder, member, (uint64_t)st.st_size, error);
	case MEMBER_ADOPT:
		if (read_member_file(dir_fd, file, member, &own, source, error)) {
			free(own.data);
			return -1;
		}
		return builder_adopt_member(builder, member, own.data, own.length, error);
	case MEMBER_STREAM:   /* a file's size is its real bytes on disk: read whole */
	case MEMBER_COPY:
	default:
		if (read_member_file(dir_fd, file, member, shared, source, error))
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

/* A directory entry's own type (a symbolic link is DT_LNK, never followed),
 * from d_type where the file system gives it. */
static int entry_type(int dir_fd, const struct dirent *entry)
{
	struct stat st;
	if (entry->d_type != DT_UNKNOWN)
		return entry->d_type;
	if (fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
}

/*
 * Every regular file of the root, and of each numeric folder below it, in
 * version order (pid 9 before pid 10) so that VMAs arrive in pid order and
 * the builder can keep them where they were parsed.
 */
static int add_directory_files(int dir_fd, const char *prefix, bool descend,
			       struct snapshot_builder *builder, struct buffer *buffer,
			       const char *source, struct error *error)
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
		if (type != DT_UNKNOWN && descend && is_number(name) && type != DT_REG) {
			/* a process folder, opened without following a link out of the snapshot */
			char sub_prefix[sizeof(member) + 1];
			snprintf(sub_prefix, sizeof(sub_prefix), "%s/", member);
			int sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				input_error_set(error, source, member, 0, "%s", errno == ELOOP || errno == ENOTDIR
						? "a symbolic link or special file where a process folder belongs"
						: strerror(errno));
				status = -1;
			} else {
				status = add_directory_files(sub, sub_prefix, false, builder, buffer, source, error);
			}
		} else if (type != DT_UNKNOWN) {
			/* a member the builder wants: open_member refuses what is not a file, by name */
			status = add_file(dir_fd, name, member, builder, buffer, source, error);
		}
		free(entries[i]);
	}
	free(entries);
	close(dir_fd);
	return status;
}

int read_directory(const char *path, struct snapshot_builder *builder, struct error *error)
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

/* Exactly size bytes of the current member into data; before_bytes of its
 * member_bytes already read (for the message of a truncated archive). */
static int read_member_data(struct archive *archive, char *data, size_t size, size_t before_bytes,
			    size_t member_bytes, const char *source, const char *name, struct error *error)
{
	size_t done = 0;
	while (done < size) {
		la_ssize_t n = archive_read_data(archive, data + done, size - done);
		if (n < 0) {
			input_error_set(error, source, name, 0, "%s", archive_error_string(archive));
			return -1;
		}
		if (n == 0) {
			input_error_set(error, source, name, 0, "archive ends after %zu of %zu bytes (truncated)",
					before_bytes + done, member_bytes);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * A member the builder parses as it arrives (smaps), in the blocks
 * libarchive holds (a mapped window of the file, or what it decompressed):
 * nothing is copied, and memory follows what the parser keeps, not the
 * size the header claims (docs/snapshot-format.md).  A sparse member's holes
 * are fed as the zero bytes archive_read_data would give.  The rest of a
 * refused member is left unread (libarchive skips it at the next header).
 */
static int feed_hole(struct snapshot_builder *builder, uint64_t bytes, struct error *error)
{
	static const char zeros[4096];
	int status = 0;
	for (; status == 0 && bytes; bytes -= bytes < sizeof(zeros) ? bytes : sizeof(zeros))
		status = builder_stream_feed(builder, zeros, bytes < sizeof(zeros) ? bytes : sizeof(zeros), error);
	return status;
}

static int stream_archive_member(struct archive *archive, const char *name, size_t size,
				 struct snapshot_builder *builder, const char *source, struct error *error)
{
	int status = builder_stream_begin(builder, name, error);
	for (size_t done = 0; status == 0 && done < size; ) {
		const void *block;
		size_t bytes;
		la_int64_t offset;
		int r = archive_read_data_block(archive, &block, &bytes, &offset);
		if (r == ARCHIVE_EOF) {
			input_error_set(error, source, name, 0, "archive ends after %zu of %zu bytes (truncated)",
					done, size);
			return -1;
		}
		if (r != ARCHIVE_OK || offset < 0 || (uint64_t)offset < done) {
			input_error_set(error, source, name, 0, "%s", r != ARCHIVE_OK ? archive_error_string(archive)
					: "member data out of order");
			return -1;
		}
		if ((uint64_t)offset > done) {
			uint64_t hole = (uint64_t)offset - done < size - done ? (uint64_t)offset - done : size - done;
			status = feed_hole(builder, hole, error);
			done += (size_t)hole;
		}
		bytes = bytes < size - done ? bytes : size - done;
		if (status == 0 && bytes)
			status = builder_stream_feed(builder, block, bytes, error);
		done += bytes;
	}
	return status ? (status < 0 ? -1 : 0) : builder_stream_end(builder, error);
}

/* Hand the current member to the builder the way it asks for it. */
static int add_archive_member(struct archive *archive, const char *name, int64_t size,
			      struct snapshot_builder *builder, struct buffer *shared,
			      const char *source, struct error *error)
{
	enum member_use use = builder_member_use(builder, name);
	char *own;
	if (use == MEMBER_IGNORE)
		return 0; /* libarchive skips the data at the next header */
	if (size < 0 || check_member_size((uint64_t)size, source, name, error))
		return size < 0 ? (input_error_set(error, source, name, 0, "member of unknown size"), -1) : -1;
	switch (use) {
	case MEMBER_SIZE_ONLY:
		return builder_size_member(builder, name, (uint64_t)size, error);
	case MEMBER_STREAM:
		return stream_archive_member(archive, name, (size_t)size, builder, source, error);
	case MEMBER_ADOPT:
		own = xmalloc((size_t)size);
		if (read_member_data(archive, own, (size_t)size, 0, (size_t)size, source, name, error)) {
			free(own);
			return -1;
		}
		return builder_adopt_member(builder, name, own, (size_t)size, error);
	default:
		shared->length = 0;
		buffer_reserve(shared, (size_t)size);
		shared->length = (size_t)size;
		if (read_member_data(archive, shared->data, shared->length, 0, shared->length, source, name, error))
			return -1;
		return builder_add_member(builder, name, shared->data, shared->length, error);
	}
}

/* A link, FIFO, device or socket member: what it is, else NULL.  Refused by
 * name as a directory snapshot refuses the same shapes (they were read as
 * empty members); a hard link's data is another member's. */
static const char *special_member(struct archive_entry *entry)
{
	if (archive_entry_hardlink(entry))
		return "a hard link";
	switch (archive_entry_filetype(entry)) {
	case AE_IFLNK:
		return "a symbolic link";
	case AE_IFIFO:
		return "a FIFO";
	case AE_IFCHR:
	case AE_IFBLK:
		return "a device";
	case AE_IFSOCK:
		return "a socket";
	default:
		return NULL;
	}
}

/* path NULL: standard input ("-"), named "stdin" in messages. */
int read_archive(const char *file, struct snapshot_builder *builder, struct error *error)
{
	const char *path = file ? file : "stdin";
	struct archive *archive = archive_read_new();
	struct archive_entry *entry;
	struct buffer buffer = { 0 };
	int status = 0, r;

	decompress_enable_builtin(archive);   /* never external programs (base/decompress.h) */
	archive_read_support_format_tar(archive);
	if (archive_open_mapped(archive, file, 1 << 16) != ARCHIVE_OK) {
		input_error_set(error, path, NULL, 0, "not a snapshot archive: %s", archive_error_string(archive));
		archive_read_free(archive);
		return -1;
	}
	struct stat st;
	uint64_t file_bytes = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	file_note_input_path(file);   /* never replaced by an output (base/file.h) */
	while (status == 0 && (r = archive_read_next_header(archive, &entry)) != ARCHIVE_EOF) {
		/* bytes of the file read so far: the memory check extrapolates from them */
		builder_set_position(builder, (uint64_t)archive_filter_bytes(archive, -1), file_bytes);
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
		const char *special = special_member(entry);
		if (special && builder_member_use(builder, name) != MEMBER_IGNORE) {
			input_error_set(error, path, name, 0, "%s: not a snapshot member", special);
			status = -1;
			break;
		}
		status = add_archive_member(archive, name, size, builder, &buffer, path, error);
	}
	free(buffer.data);
	archive_read_free(archive);
	return status;
}
