/*
 * ptscope - what page tables and reverse mapping cost in Linux memory.
 *
 * The one front door: find the command in the table and hand it argv.
 * Commands parse their own options (getopt_long over their option table, in
 * command_run(), builtin/options.c), which reports a refused option itself,
 * so getopt's own messages are turned off here.
 *
 * Commands return the exit status (base/error.h: 0 success, 1 bad input
 * or usage, 2 internal or output failure) and never check stdout
 * themselves: the front door flushes and checks it once, after every
 * command, so a full disk or a closed pipe is one message and status 2
 * whichever command wrote (docs/architecture.md "Errors and exit status").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "builtin/commands.h"
#include "version.h"

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
	{ "bench",     cmd_bench,     "time fork, exec, faults and munmap on the running kernel" },
};
#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: ptscope COMMAND [OPTIONS]\n       ptscope help COMMAND\n"
		"       ptscope --version\n\ncommands:\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'ptscope COMMAND --help' describes each command's options,\n"
		"'ptscope help COMMAND' opens its manual page.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *suggestion = closest_name(name, &commands[0].name, COMMAND_COUNT, sizeof(commands[0]));
	fprintf(stderr, "ptscope: unknown command '%s'", name);
	if (suggestion)
		fprintf(stderr, "; did you mean '%s'?", suggestion);
	fprintf(stderr, "\n");
	usage(stderr);
	return STATUS_BAD_INPUT;
}

/*
 * The manual page of a command: beside this binary first (an installed
 * PREFIX/bin/ptscope finds PREFIX/share/man/man1, also under a DESTDIR;
 * a build tree finds its man/ folder), else by name through man's own path.
 */
static int open_manual(const char *page)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *local = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		/* installed; run from the source tree; or built into a folder of it (BUILD=) */
		static const char *const places[] = { "%s/../share/man/man1/%s.1", "%s/../share/man/man1/%s.1.gz",
						      "%s/man/%s.1", "%s/../man/%s.1" };
		for (size_t i = 0; !local && i < sizeof(places) / sizeof(places[0]); i++) {
			snprintf(path, sizeof(path), places[i], exe, page);
			if (access(path, R_OK) == 0)
				local = path;
		}
	}
	fflush(stdout);
	if (local)
		execlp("man", "man", "-l", local, (char *)NULL);
	else
		execlp("man", "man", page, (char *)NULL);
	fprintf(stderr, "ptscope: help: cannot run man (%s); install man-db. The command's own help:\n",
		strerror(errno));
	return -1;
}

static int help(const char *name)
{
	char page[64];
	/* `help help` is about help itself: the front door's page and usage */
	if (!strcmp(name, "ptscope") || !strcmp(name, "help")) {
		open_manual("ptscope");
		usage(stdout);
		return 0;
	}
	const struct command *command = find_command(name);
	if (!command)
		return unknown_command(name);
	snprintf(page, sizeof(page), "ptscope-%s", command->name);
	open_manual(page);
	char *argv[] = { (char *)command->name, "--help", NULL };
	return command->run(2, argv);
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return STATUS_BAD_INPUT;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ptscope %s\n", PTSCOPE_VERSION);
		return STATUS_OK;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help(argv[2]);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return STATUS_OK;
	}
	const struct command *command = find_command(argv[1]);
	if (command)
		return command->run(argc - 1, argv + 1);
	return unknown_command(argv[1]);
}

int main(int argc, char **argv)
{
	opterr = 0;
	command_open_stdout();
	return command_check_stdout(dispatch(argc, argv));
}
