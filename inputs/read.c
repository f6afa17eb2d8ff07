/*
 * inputs/read.c - snapshot_read(): the driver on top of inputs/.  It picks
 * the container (live /proc, a tar archive or stream, a directory), which
 * hands every member to the one builder; nothing below calls back up here.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static bool is_live_path(const char *path)
{
	return !path || !strcmp(path, "/proc") || !strcmp(path, "/proc/");
}

int snapshot_read(const char *path, const struct read_options *options,
		  struct snapshot **result, struct error *error)
{
	bool from_stdin = path && !strcmp(path, "-");
	const char *source = is_live_path(path) ? "/proc" : from_stdin ? "stdin" : path;
	struct snapshot_builder *builder = builder_create(source, options);
	struct stat st;
	int status;

	*result = NULL;
	if (is_live_path(path)) {
		status = read_live("/proc", builder, error);
	} else if (from_stdin && isatty(STDIN_FILENO)) {
		input_error_set(error, source, NULL, 0, "is a terminal: pipe a snapshot in "
				"(ptscope capture -o - | ptscope report -)");
		status = -1;
	} else if (from_stdin) {
		/* `ssh host ptscope-capture -o - | ptscope report -`: a tar stream */
		status = read_archive(NULL, builder, error);
	} else if (stat(path, &st) != 0) {
		input_error_set(error, path, NULL, 0, "%s", strerror(errno));
		status = -1;
	} else if (S_ISDIR(st.st_mode)) {
		status = read_directory(path, builder, error);
	} else {
		status = read_archive(path, builder, error);
	}
	if (status) {
		builder_abort(builder);
		return -1;
	}
	return builder_finish(builder, result, error);
}
