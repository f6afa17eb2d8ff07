/*
 * builtin/cmd_capture.c - `ptscope capture`: the live system into one file.
 *
 *   ptscope capture [-o FILE|DIR] [--pid N]... [--tree N]... [--no-pagemap]
 *
 * The path written goes to stdout (so `f=$(ptscope capture)` works), a
 * one-line summary and progress to stderr.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "builtin/commands.h"
#include "inputs/snapshot.h"

/* The option table, OPT_NAME of each option without a letter and capture_help:
 * made at build time from builtin/help/capture.txt. */
#include "builtin/capture_options.h"

struct int_list {
	int *values;
	size_t count;
};

static int add_pid(struct int_list *list, const char *option, const char *text)
{
	char *end;
	long value = strtol(text, &end, 10);
	if (!*text || *end || value <= 0 || value > INT_MAX) {
		fprintf(stderr, "ptscope: capture: %s '%s': not a process id\n", option, text);
		return -1;
	}
	list->values = xreallocarray(list->values, list->count + 1, sizeof(*list->values));
	list->values[list->count++] = (int)value;
	return 0;
}

/* How many processes refused, the first by pid and comm: as root a refusal
 * is rare (a security module, another user namespace) and the name is what
 * lets a person look at it. */
static void print_unreadable(const struct capture_result *result)
{
	char comm[4 * sizeof(result->first_unreadable_comm) + 1];
	escape_text(comm, sizeof(comm), result->first_unreadable_comm[0] ? result->first_unreadable_comm : "?");
	fprintf(stderr, "ptscope: capture: %ld process%s could not be read (permission denied), the first "
		"pid %d (%s)%s\n", result->unreadable, result->unreadable == 1 ? "" : "es",
		result->first_unreadable_pid, comm,
		geteuid() ? "; run as root to see every process and its page frames" : "");
}

/* What the command line asked for. */
struct capture_request {
	struct capture_options options;
	struct int_list pids, trees;
};

/* One option of the table (not --help): 0, or 1 with the refusal said. */
static int parse_option(int option, const char *value, void *request)
{
	struct capture_request *r = request;
	struct capture_options *options = &r->options;
	switch (option) {
	case 'o': options->output = value; return 0;
	case OPT_PID: return add_pid(&r->pids, "--pid", value) ? 1 : 0;
	case OPT_TREE: return add_pid(&r->trees, "--tree", value) ? 1 : 0;
	case OPT_NO_PAGEMAP: options->no_pagemap = true; return 0;
	case OPT_COMPRESS:
		options->compress = value;
		if (capture_codec_known(value))
			return 0;
		fprintf(stderr, "ptscope: capture: --compress '%s': not a codec (%s)\n", value, capture_codec_names());
		return 1;
	case OPT_FORMAT:
		if (strcmp(value, "1") && strcmp(value, "2")) {
			fprintf(stderr, "ptscope: capture: --format '%s': not a snapshot format (1 or 2)\n", value);
			return 1;
		}
		options->format = value[0] - '0';
		return 0;
	}
	return 1;
}

/* The path written on stdout (unless the snapshot itself went there), the
 * summary and any refusals on stderr. */
static void say_captured(const struct capture_options *options, const struct capture_result *result)
{
	bool to_stdout = options->output && !strcmp(options->output, "-");
	if (!to_stdout)
		printf("%s\n", result->path);
	char changed[64] = "";
	if (result->changed)
		snprintf(changed, sizeof(changed), ", %ld of them changed during capture", result->changed);
	fprintf(stderr, "ptscope: captured %ld process%s (%ld skipped%s), pagemap: %s%s\n", result->processes,
		result->processes == 1 ? "" : "es", result->skipped, changed, pagemap_mode_names[result->pagemap],
		to_stdout ? ", to stdout" : "");
	if (result->unreadable)
		print_unreadable(result);
}

static int capture(void *request, int count, char **operands)
{
	struct capture_request *r = request;
	struct capture_options *options = &r->options;
	struct capture_result result;
	struct error error;
	if (command_refuse_operands(&capture_help, count, operands))
		return 1;
	options->pids = r->pids.values;
	options->pid_count = r->pids.count;
	options->trees = r->trees.values;
	options->tree_count = r->trees.count;
	if (snapshot_capture(options, &result, &error) < 0) {
		error_print(&error);
		return (int)error.status;
	}
	say_captured(options, &result);
	return 0;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_request r = { .options = { .progress = isatty(STDERR_FILENO) } };
	int status = command_run(&capture_help, argc, argv, parse_option, capture, &r);
	free(r.pids.values);
	free(r.trees.values);
	return status;
}
