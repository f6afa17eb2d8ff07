/*
 * ptscope - what page tables and reverse mapping cost in Linux memory.
 *
 * The one front door: find the command in the table and hand it argv.
 * Commands parse their own options (getopt_long) so that each file can
 * be read on its own.
 *
 * Commands return the exit status (base/error.h: 0 success, 1 bad input
 * or usage, 2 internal or output failure) and never check stdout
 * themselves: the front door flushes and checks it once, after every
 * command, so a full disk or a closed pipe is one message and status 2
 * whichever command wrote (docs/architecture.md "Errors and exit status").
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "commands.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "capture",   cmd_capture,   "take a snapshot of the live system into one portable file" },
	{ "info",      cmd_info,      "show what a snapshot holds" },
	{ "report",    cmd_report,    "page-table and rmap cost of a snapshot or the live system" },
	{ "profiles",  cmd_profiles,  "list or show the kernel profiles (rmap designs, sharing rules)" },
	{ "callgraph", cmd_callgraph, "call graph of the mm code paths that reach the rmap" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ptscope COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'ptscope COMMAND --help' describes each command's options.\n");
}

/* Everything written to stdout reached it, or one message and status 2.
 * glibc keeps unwritten bytes after a failed write, so this flush retries
 * them and errno says why they did not go (ENOSPC, EPIPE when SIGPIPE is
 * ignored, EIO). */
static int check_stdout(int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int saved = errno;
	failed = fclose(stdout) != 0 || failed;
	if (!saved)
		saved = errno;
	if (!failed)
		return status;
	fprintf(stderr, "ptscope: stdout: %s\n", saved ? strerror(saved) : "write error");
	return STATUS_INTERNAL;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return STATUS_BAD_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return STATUS_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ptscope: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return STATUS_BAD_INPUT;
}

int main(int argc, char **argv)
{
	return check_stdout(dispatch(argc, argv));
}
