/*
 * builtin/options.c - what the front door gives every command for its options: one
 * message for an option getopt_long refused (unknown, ambiguous, missing or
 * unwanted value), with a "did you mean" for a close misspelling and the
 * command's usage lines, so every command refuses options the same way.
 *
 * The front door sets opterr = 0, so getopt_long prints nothing itself and
 * command_run() calls command_option_error() for an option it refused.
 *
 * Both front doors (ptscope.c, ptscope-capture.c) end with
 * command_check_stdout(), the one check of everything a command wrote.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/names.h"
#include "base/output.h"
#include "builtin/commands.h"

static size_t option_count(const struct option *options)
{
	size_t count = 0;
	while (options[count].name)
		count++;
	return count;
}

/* The long option the word (without "--" and "=value") starts uniquely, or NULL. */
static const struct option *long_option_named(const struct option *options, const char *name, size_t length)
{
	const struct option *found = NULL;
	size_t matches = 0;
	for (const struct option *o = options; o->name; o++) {
		if (strncmp(o->name, name, length))
			continue;
		if (strlen(o->name) == length)
			return o;
		found = o;
		matches++;
	}
	return matches == 1 ? found : NULL;
}

/* "ptscope-capture" when the command runs as its own program, else NULL. */
static const char *standalone_program;

void command_set_standalone(const char *program)
{
	standalone_program = program;
}

/* usage_text as the user typed the command: "usage: ptscope capture ..."
 * becomes "usage: ptscope-capture ..." under the standalone program (the
 * same length, so the continuation lines stay aligned). */
static void print_usage_text(FILE *out, const char *command, const char *usage_text, int length)
{
	char typed[128];
	snprintf(typed, sizeof(typed), "usage: ptscope %s", command);
	size_t skip = strlen(typed);
	if (standalone_program && length >= (int)skip && !strncmp(usage_text, typed, skip)) {
		fprintf(out, "usage: %s", standalone_program);
		usage_text += skip;
		length -= (int)skip;
	}
	fprintf(out, "%.*s", length, usage_text);
}

static void command_print_usage(FILE *out, const char *command, const char *usage_text)
{
	print_usage_text(out, command, usage_text, (int)strlen(usage_text));
}

static void print_usage_lines(const char *command, const char *usage_text)
{
	const char *end = strstr(usage_text, "\n\n");
	int length = end ? (int)(end - usage_text) : (int)strlen(usage_text);
	while (length > 0 && usage_text[length - 1] == '\n')
		length--;
	print_usage_text(stderr, command, usage_text, length);
	if (standalone_program)
		fprintf(stderr, "\nTry '%s --help' or 'man %s'.\n", standalone_program, standalone_program);
	else
		fprintf(stderr, "\nTry 'ptscope %s --help' or 'ptscope help %s'.\n", command, command);
}

/* "ptscope report" or "ptscope-capture": who speaks in a refusal. */
static void print_speaker(const char *command)
{
	if (standalone_program)
		fprintf(stderr, "%s: ", standalone_program);
	else
		fprintf(stderr, "ptscope %s: ", command);
}

static void describe_long(const char *command, const struct option *options, const char *word)
{
	char name[128];
	snprintf(name, sizeof(name), "%s", word + 2);
	name[strcspn(name, "=")] = '\0';
	const struct option *known = long_option_named(options, name, strlen(name));
	if (known && strchr(word, '=') && known->has_arg == no_argument) {
		print_speaker(command);
		fprintf(stderr, "option '--%s' takes no value\n", known->name);
		return;
	}
	if (known) {
		print_speaker(command);
		fprintf(stderr, "option '--%s' needs a value\n", known->name);
		return;
	}
	size_t matches = 0;
	for (const struct option *o = options; o->name; o++)
		matches += !strncmp(o->name, name, strlen(name));
	if (matches > 1) {
		print_speaker(command);
		fprintf(stderr, "option '--%s' is ambiguous:", name);
		for (const struct option *o = options; o->name; o++)
			if (!strncmp(o->name, name, strlen(name)))
				fprintf(stderr, " --%s", o->name);
		fputc('\n', stderr);
		return;
	}
	const char *suggestion = closest_name(name, &options[0].name, option_count(options), sizeof(*options));
	print_speaker(command);
	fprintf(stderr, "unknown option '--%s'", name);
	if (suggestion)
		fprintf(stderr, "; did you mean '--%s'?", suggestion);
	fputc('\n', stderr);
}

static int command_option_error(const char *command, const char *usage_text, const char *short_options,
				const struct option *long_options, char *const *argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	bool long_form = word && !strncmp(word, "--", 2) && word[2];
	if (long_form && optopt) {
		/* a known long option whose value is missing or unwanted, unless the
		 * word is an earlier one and getopt stopped inside a cluster (-xq) */
		char name[128];
		snprintf(name, sizeof(name), "%s", word + 2);
		name[strcspn(name, "=")] = '\0';
		const struct option *known = long_option_named(long_options, name, strlen(name));
		long_form = known && known->val == optopt;
	}
	if (long_form) {
		describe_long(command, long_options, word);
	} else if (optopt && strchr(short_options, optopt) && optopt != ':') {
		print_speaker(command);
		fprintf(stderr, "option '-%c' needs a value\n", optopt);
	} else if (optopt) {
		print_speaker(command);
		fprintf(stderr, "unknown option '-%c'\n", optopt);
	} else {
		print_speaker(command);
		fprintf(stderr, "unknown option '%s'\n", word ? word : "");
	}
	print_usage_lines(command, usage_text);
	return 1;
}

static void command_options_getopt(const struct command_option *table, struct option *long_options, size_t size,
				   char *short_options, size_t short_size)
{
	size_t count = 0, used = 0;
	for (; table[count].name && count + 1 < size; count++) {
		const struct command_option *o = &table[count];
		long_options[count] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->val < 128 && used + 3 < short_size) {
			short_options[used++] = (char)o->val;
			if (o->has_arg == required_argument)
				short_options[used++] = ':';
		}
	}
	long_options[count] = (struct option){ NULL, 0, NULL, 0 };
	short_options[used] = '\0';
}

static void command_options_print(FILE *out, const struct command_option *table)
{
	enum { HELP_COLUMN = 24 };
	for (const struct command_option *o = table; o->name; o++) {
		char head[64];
		int n = o->val < 128 ? snprintf(head, sizeof(head), "  -%c, --%s", o->val, o->name)
				     : snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->value && n > 0 && (size_t)n < sizeof(head))
			snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->value);
		if (strlen(head) >= HELP_COLUMN - 1)
			fprintf(out, "%s\n%*s", head, HELP_COLUMN, "");
		else
			fprintf(out, "%-*s ", HELP_COLUMN - 1, head);
		for (const char *line = o->help; *line;) {
			size_t length = strcspn(line, "\n");
			fprintf(out, "%.*s\n", (int)length, line);
			line += length;
			if (*line == '\n' && *++line)
				fprintf(out, "%*s", HELP_COLUMN, "");
		}
	}
}

void command_help_print(FILE *out, const struct command_help *help)
{
	command_print_usage(out, help->command, help->usage);
	command_options_print(out, help->options);
	if (help->epilogue)
		fputs(help->epilogue, out);
}

/* getopt_long's tables of a command, filled from its option table. */
enum { COMMAND_OPTIONS_MOST = 48 };
struct command_getopt {
	struct option long_options[COMMAND_OPTIONS_MOST + 1];
	char short_options[2 * COMMAND_OPTIONS_MOST + 1];
};

static void command_getopt_init(struct command_getopt *getopt, const struct command_help *help)
{
	command_options_getopt(help->options, getopt->long_options,
			       sizeof(getopt->long_options) / sizeof(getopt->long_options[0]), getopt->short_options,
			       sizeof(getopt->short_options));
}

static int command_getopt_next(struct command_getopt *getopt, int argc, char **argv)
{
	return getopt_long(argc, argv, getopt->short_options, getopt->long_options, NULL);
}

static int command_getopt_refused(const struct command_getopt *getopt, const struct command_help *help, char **argv)
{
	return command_option_error(help->command, help->usage, getopt->short_options, getopt->long_options, argv);
}

int command_run(const struct command_help *help, int argc, char **argv, command_option_fn *parse_option,
		command_work_fn *run, void *request)
{
	struct command_getopt getopt;
	int option, status = 0;
	command_getopt_init(&getopt, help);
	optind = 1;
	while (!status && (option = command_getopt_next(&getopt, argc, argv)) != -1) {
		if (option == 'h') {
			command_help_print(stdout, help);
			return 0;
		}
		status = option == '?' ? command_getopt_refused(&getopt, help, argv) : parse_option(option, optarg, request);
	}
	return status ? status : run(request, argc - optind, argv + optind);
}

int command_refuse_operands(const struct command_help *help, int count, char **operands)
{
	if (count <= 0)
		return 0;
	fprintf(stderr, "ptscope: %s: unexpected argument '%s'\n", help->command, operands[0]);
	return 1;
}

bool command_number(const char *text, long long least, long long most, long long *value)
{
	char *end;
	errno = 0;
	long long n = strtoll(text, &end, 10);
	if (end == text || *end || errno || n < least || n > most)
		return false;
	*value = n;
	return true;
}

int command_unknown_word(const char *command, const char *option, const char *word, const char *const *names,
			 size_t stride)
{
	size_t count = 0;
	while (*(const char *const *)((const char *)names + count * stride))
		count++;
	const char *close = closest_name(word, names, count, stride);
	fprintf(stderr, "ptscope: %s: %s '%s': not one of", command, option, word);
	for (size_t i = 0; i < count; i++)
		fprintf(stderr, " %s", *(const char *const *)((const char *)names + i * stride));
	if (close)
		fprintf(stderr, "; did you mean '%s'?", close);
	fputc('\n', stderr);
	return 1;
}

/* Why the first write to stdout failed (ENOSPC, EPIPE when SIGPIPE is
 * ignored, EIO), 0 while none has. */
static int stdout_errno;

void command_open_stdout(void)
{
	/* Past `ulimit -f` the kernel sends SIGXFSZ, which ends the process
	 * silently (exit 153) with a partial file; ignored, the write fails with
	 * EFBIG and the output reports it (status 2) and leaves nothing. */
	signal(SIGXFSZ, SIG_IGN);
	FILE *stream = output_stream_over(STDOUT_FILENO, &stdout_errno);
	/* as glibc's stdout: line by line on a terminal, else in blocks */
	if (isatty(STDOUT_FILENO))
		setvbuf(stream, NULL, _IOLBF, BUFSIZ);
	stdout = stream;   /* glibc's stdout is a variable that may be set */
}

/* Everything written to stdout reached it, or one message and status 2. */
int command_check_stdout(int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	failed = fclose(stdout) != 0 || failed;
	int saved = stdout_errno ? stdout_errno : errno;
	if (!failed)
		return status;
	fprintf(stderr, "ptscope: stdout: %s\n", saved ? strerror(saved) : "write error");
	return STATUS_INTERNAL;
}
