/*
 * builtin/commands.h - the commands the front door (ptscope.c) dispatches to, and
 * what the front door gives them (options.c).
 * Each command lives here in builtin/, one file each, on top of the library.
 * A command returns the process exit status: 0 success, 1 bad input or
 * usage, 2 internal failure.
 */
#ifndef PTSCOPE_COMMANDS_H
#define PTSCOPE_COMMANDS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/names.h"

int cmd_capture(int argc, char **argv);   /* builtin/cmd_capture.c */
int cmd_info(int argc, char **argv);      /* builtin/cmd_info.c */
int cmd_report(int argc, char **argv);    /* builtin/cmd_report.c */
int cmd_profiles(int argc, char **argv);  /* builtin/cmd_profiles.c */
int cmd_callgraph(int argc, char **argv); /* builtin/cmd_callgraph.c */
int cmd_bench(int argc, char **argv);     /* builtin/cmd_bench.c */

/*
 * A command's options as one table: each option's name, value and help are
 * written once, in builtin/help/NAME.txt, which builtin/help.awk makes into
 * this table at build time ($(BUILD)/builtin/NAME_options.h, included by
 * cmd_NAME.c alone).  The table gives getopt_long's table, the --help lines
 * (which completion reads) and what the man page is held to, so nothing
 * lists an option twice.  Ends with { NULL }.
 */
struct command_option {
	const char *name;               /* long name, without "--" */
	int has_arg;                    /* no_argument, required_argument */
	int val;                        /* what getopt_long returns; a letter also gives -LETTER */
	const char *value;              /* "N", "FILE"; NULL without a value */
	const char *help;               /* one line; "\n" starts another, indented */
};
/*
 * What a command says of itself, the one source of its --help, of its man
 * page's options (tests/unit/test_options.c holds man/ptscope-NAME.1 to the
 * table) and of the completion's option lists (completion/ptscope reads
 * --help).
 */
struct command_help {
	const char *command;                  /* "report" */
	const char *usage;                    /* "usage: ptscope report ...\n\nWhat it does.\n\n" */
	const struct command_option *options; /* the table, ends with { NULL } */
	const char *epilogue;                 /* after the option lines, or NULL */
};
extern const struct command_help capture_help, info_help, report_help, profiles_help, callgraph_help,
	bench_help;
/* --help: usage, the option lines, the epilogue (the standalone name when set). */
void command_help_print(FILE *out, const struct command_help *help);

/*
 * The one option loop of every command.  parse_option is given each option
 * of the table but --help, in the order typed, with its value (NULL without
 * one); it returns 0, or the exit status of a refusal it has said, which
 * ends the loop.  --help prints the help and the command succeeds; an option
 * getopt_long refused is said with the usage (command_getopt_refused), 1.
 * Then run is given the words left (the operands).  The status of whichever
 * ended it.
 */
typedef int command_option_fn(int option, const char *value, void *request);
typedef int command_work_fn(void *request, int count, char **operands);
int command_run(const struct command_help *help, int argc, char **argv, command_option_fn *parse_option,
		command_work_fn *run, void *request);
/* For a command that takes no operands: 0 when there are none, else the
 * first refused ("ptscope NAME: unexpected argument 'X'"), 1. */
int command_refuse_operands(const struct command_help *help, int count, char **operands);
/* An option's number: TEXT all digits (strtoll's), from LEAST to MOST, into
 * *value; false for anything else (the command says its refusal). */
bool command_number(const char *text, long long least, long long most, long long *value);
/*
 * An option's value that is none of a table's names (a struct array whose
 * rows start at names, STRIDE bytes apart, ending with a NULL name):
 * "ptscope: NAME: OPTION 'WORD': not one of A B C; did you mean 'B'?".  1.
 */
int command_unknown_word(const char *command, const char *option, const char *word, const char *const *names,
			 size_t stride);

/*
 * A command run as its own program (ptscope-capture): its refusals and usage
 * speak that name ("usage: ptscope-capture ...", "Try 'ptscope-capture
 * --help'") instead of "ptscope capture".  command_print_usage() prints a
 * command's whole usage text (--help) the same way.
 */
void command_set_standalone(const char *program);

/*
 * The front door's first step: stdout becomes a stream over descriptor 1 that
 * keeps the errno of its first failed write.  glibc's own stdout forgets it
 * when a write larger than its buffer fails (fflush then has nothing left to
 * retry), and the check below could only say "write error".
 */
void command_open_stdout(void);
/*
 * The front door's last step after every command: flush and check stdout, so
 * a full disk or a closed pipe is one message ("ptscope: stdout: ...") and
 * status 2 whichever command wrote; otherwise the command's status.
 */
int command_check_stdout(int status);

#endif
