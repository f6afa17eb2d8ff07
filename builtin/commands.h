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
 * written once and give both getopt_long's table and the --help lines (which
 * completion reads), so nothing lists an option twice.  Ends with { NULL }.
 */
struct command_option {
	const char *name;               /* long name, without "--" */
	int has_arg;                    /* no_argument, required_argument */
	int val;                        /* what getopt_long returns; a letter also gives -LETTER */
	const char *value;              /* "N", "FILE"; NULL without a value */
	const char *help;               /* one line; "\n" starts another, indented */
};
/* getopt_long's table of a command table (size: entries + 1) and the short
 * options string ("o:h"); both into the caller's arrays. */
void command_options_getopt(const struct command_option *table, struct option *long_options, size_t size,
			    char *short_options, size_t short_size);
/* The --help lines of a command table, two columns. */
void command_options_print(FILE *out, const struct command_option *table);

/*
 * An option getopt_long refused (the front door sets opterr = 0 so this is the
 * only message): says what was wrong with it, "did you mean '--format'?" for a
 * close misspelling, then usage_text up to its first blank line.  Returns 1,
 * the usage exit status.  Call it from the getopt loop's default case.
 */
int command_option_error(const char *command, const char *usage_text, const char *short_options,
			 const struct option *long_options, char *const *argv);

/*
 * A command run as its own program (ptscope-capture): its refusals and usage
 * speak that name ("usage: ptscope-capture ...", "Try 'ptscope-capture
 * --help'") instead of "ptscope capture".  command_print_usage() prints a
 * command's whole usage text (--help) the same way.
 */
void command_set_standalone(const char *program);
void command_print_usage(FILE *out, const char *command, const char *usage_text);


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
