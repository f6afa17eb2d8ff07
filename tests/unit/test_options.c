/*
 * Each command's option table (made from builtin/help/NAME.txt) is the one list of its options:
 * --help is printed from it, and its manual page, man/ptscope-NAME.1, is held
 * to it here.  Every option of the table must be a tag of the page's OPTIONS
 * section and a line of --help; every --option the OPTIONS section tags must
 * be in the table (a page that documents a removed option is wrong too).
 * The page's SYNOPSIS is held to the table the same way: it names every
 * option of the table but --help (long, or by its letter), and no option the
 * table lacks.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "builtin/commands.h"
#include "test.h"

static const struct command_help *const helps[] = {
	&capture_help, &info_help, &report_help, &profiles_help, &callgraph_help, &bench_help,
};
#define HELP_COUNT (sizeof(helps) / sizeof(helps[0]))

/* "--per-process" as roff writes it: "\-\-per\-process". */
static void roff_option(const char *name, char *out, size_t size)
{
	size_t used = 0;
	for (const char *p = "--"; *p && used + 3 < size; p++, used += 2)
		memcpy(out + used, "\\-", 2);
	for (const char *p = name; *p && used + 3 < size; p++) {
		if (*p == '-')
			out[used++] = '\\';
		out[used++] = *p;
	}
	out[used] = '\0';
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || c == '-' || c == '\\';
}

/* WORD occurs in TEXT as a whole option (not as the start of a longer one). */
static bool has_word(const char *text, const char *word)
{
	size_t length = strlen(word);
	for (const char *at = strstr(text, word); at; at = strstr(at + 1, word))
		if (!name_char(at[length]) || (at[length] == '\\' && at[length + 1] != '-'))
			return true;
	return false;
}

/* The tag lines (the line after each .TP) of the page's OPTIONS section,
 * one per line, malloc'd. */
static char *options_tags(const char *page)
{
	const char *start = strstr(page, "\n.SH OPTIONS\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(start);
	const char *end = strstr(start + 1, "\n.SH ");
	if (!end)
		end = start + strlen(start);
	char *tags = xcalloc(1, (size_t)(end - start) + 1);
	size_t used = 0;
	for (const char *line = start; line && line < end; line = strchr(line + 1, '\n')) {
		if (strncmp(line, "\n.TP\n", 5))
			continue;
		const char *tag = line + 5, *stop = strchr(tag, '\n');
		size_t length = stop ? (size_t)(stop - tag) : strlen(tag);
		memcpy(tags + used, tag, length);
		used += length;
		tags[used++] = '\n';
	}
	tags[used] = '\0';
	return tags;
}

static char *man_page(const char *command)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/../man/ptscope-%s.1", test_fixture(".."), command);
	struct buffer text = { 0 };
	CU_ASSERT_EQUAL_FATAL(file_read_at(AT_FDCWD, path, &text), 0);
	return text.data;
}

/* Not inlined: inlined at -O3, gcc 12 takes the text open_memstream wrote
 * for the local pointer whose address it was given, and warns that every
 * pointer into it dangles (-Wdangling-pointer). */
static __attribute__((noinline)) char *help_text(const struct command_help *help)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	command_help_print(out, help);
	fclose(out);
	return text;
}

static void test_every_option_in_man_and_help(void)
{
	for (size_t h = 0; h < HELP_COUNT; h++) {
		char *page = man_page(helps[h]->command), *tags = options_tags(page), *help = help_text(helps[h]);
		for (const struct command_option *o = helps[h]->options; o->name; o++) {
			char roff[128], plain[128];
			roff_option(o->name, roff, sizeof(roff));
			snprintf(plain, sizeof(plain), "--%s", o->name);
			if (!has_word(tags, roff))
				fprintf(stderr, "\nman/ptscope-%s.1: OPTIONS lacks %s", helps[h]->command, plain);
			CU_ASSERT(has_word(tags, roff));
			CU_ASSERT(has_word(help, plain));
		}
		free(page);
		free(tags);
		free(help);
	}
}

/* Every --option tagged in OPTIONS is one of the table's. */
static void test_man_options_exist(void)
{
	for (size_t h = 0; h < HELP_COUNT; h++) {
		char *page = man_page(helps[h]->command), *tags = options_tags(page);
		for (const char *at = strstr(tags, "\\-\\-"); at; at = strstr(at + 1, "\\-\\-")) {
			char name[128];
			size_t used = 0;
			for (const char *p = at + 4; name_char(*p) && used + 1 < sizeof(name); p++)
				if (*p != '\\')
					name[used++] = *p;
			name[used] = '\0';
			const struct command_option *o = helps[h]->options;
			while (o->name && strcmp(o->name, name))
				o++;
			if (!o->name)
				fprintf(stderr, "\nman/ptscope-%s.1: OPTIONS tags --%s, which the command lacks",
					helps[h]->command, name);
			CU_ASSERT_PTR_NOT_NULL(o->name);
			at += 4;
		}
		free(page);
		free(tags);
	}
}

/* The text of the page's section NAME, from ".SH NAME" to the next ".SH",
 * malloc'd ("" when the page has none). */
static char *section(const char *page, const char *name)
{
	char head[64];
	snprintf(head, sizeof(head), "\n.SH %s\n", name);
	const char *start = strstr(page, head);
	if (!start)
		return xstrdup("");
	const char *end = strstr(start + 1, "\n.SH ");
	return xstrndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* The options a SYNOPSIS names, a line each as typed ("--per-file", "-o"):
 * every "\-\-word" or "\-x" that starts a word of the roff text. */
static char *synopsis_options(const char *synopsis)
{
	char *names = xcalloc(1, strlen(synopsis) + 1);
	size_t used = 0;
	for (const char *at = strstr(synopsis, "\\-"); at; at = strstr(at + 1, "\\-")) {
		if (at > synopsis && at[-1] != ' ' && at[-1] != '\n' && at[-1] != '[')
			continue;   /* inside a word: "ptscope\-capture", "\-\-per\-file" */
		bool is_long = !strncmp(at, "\\-\\-", 4);
		const char *p = at + (is_long ? 4 : 2);
		if (!(*p >= 'a' && *p <= 'z'))
			continue;   /* "\-" alone: stdin */
		names[used++] = '-';
		if (is_long)
			names[used++] = '-';
		for (; name_char(*p) && (is_long || p == at + 2); p++)
			if (*p != '\\')
				names[used++] = *p;
		names[used++] = '\n';
		at = p - 1;
	}
	names[used] = '\0';
	return names;
}

/* NAME ("--per-file" or "-o") is a line of LINES. */
static bool has_line(const char *lines, const char *name)
{
	size_t length = strlen(name);
	for (const char *at = strstr(lines, name); at; at = strstr(at + 1, name))
		if ((at == lines || at[-1] == '\n') && at[length] == '\n')
			return true;
	return false;
}

/* SYNOPSIS's options against the table, both ways; how many differ (each said). */
static size_t synopsis_differences(const char *command, const char *page, const struct command_option *table)
{
	char *synopsis = section(page, "SYNOPSIS"), *named = synopsis_options(synopsis);
	size_t differences = 0;
	for (const struct command_option *o = table; o->name; o++) {
		char plain[128], letter[3] = { '-', (char)o->val, '\0' };
		snprintf(plain, sizeof(plain), "--%s", o->name);
		if (!strcmp(o->name, "help") || has_line(named, plain) || (o->val < 128 && has_line(named, letter)))
			continue;
		fprintf(stderr, "\nman/ptscope-%s.1: SYNOPSIS lacks %s", command, plain);
		differences++;
	}
	for (const char *line = named; *line; line = strchr(line, '\n') + 1) {
		size_t length = strcspn(line, "\n");
		const struct command_option *o = table;
		while (o->name && !(line[1] == '-' ? strlen(o->name) == length - 2 && !strncmp(o->name, line + 2, length - 2)
				     : length == 2 && o->val == line[1]))
			o++;
		if (!o->name) {
			fprintf(stderr, "\nman/ptscope-%s.1: SYNOPSIS names %.*s, which the command lacks", command,
				(int)length, line);
			differences++;
		}
	}
	free(named);
	free(synopsis);
	return differences;
}

static void test_synopsis_matches_table(void)
{
	for (size_t h = 0; h < HELP_COUNT; h++) {
		char *page = man_page(helps[h]->command);
		CU_ASSERT_EQUAL(synopsis_differences(helps[h]->command, page, helps[h]->options), 0);
		free(page);
	}
}

/* The SYNOPSIS check fails where it should: an option missing, one the
 * table lacks, a letter for a long name; "ptscope\-capture" and "\-" (stdin)
 * are no options. */
static void test_synopsis_checker(void)
{
	static const struct command_option table[] = {
		{ "per-process", no_argument, 256, NULL, "x" }, { "output", required_argument, 'o', "FILE", "x" },
		{ "verify", no_argument, 257, NULL, "x" }, { "help", no_argument, 'h', NULL, "x" },
		{ NULL, 0, 0, NULL, NULL },
	};
	const char *good = "x\n.SH SYNOPSIS\n.B ptscope info\n.RI [ SNAPSHOT | \\- ]\n.RB [ \\-\\-per\\-process ]\n"
			   ".RB [ \\-o\n.IR FILE ]\n.RB [ \\-\\-verify ]\n.br\n.B ptscope\\-capture\n.SH OPTIONS\n"
			   ".B \\-\\-skip\\-bad\n";
	CU_ASSERT_EQUAL(synopsis_differences("made-up-good", good, table), 0);
	const char *lacking = "x\n.SH SYNOPSIS\n.B ptscope info\n.RB [ \\-\\-per\\-process ]\n.RB [ \\-\\-output\n"
			      ".IR FILE ]\n.SH OPTIONS\n.B \\-\\-verify\n";
	CU_ASSERT_EQUAL(synopsis_differences("made-up-lacking", lacking, table), 1);   /* --verify */
	const char *extra = "x\n.SH SYNOPSIS\n.RB [ \\-\\-per\\-process ]\n.RB [ \\-o ]\n.RB [ \\-\\-verify ]\n"
			    ".RB [ \\-\\-per ]\n.RB [ \\-q ]\n";
	CU_ASSERT_EQUAL(synopsis_differences("made-up-extra", extra, table), 2);     /* --per, -q */
	fputc('\n', stderr);
}

/* The check itself fails where it should: a page without --verify. */
static void test_checker_catches_missing(void)
{
	const char *page = "x\n.SH OPTIONS\n.TP\n.B \\-\\-per\\-process\nrows\n.TP\n.B \\-\\-skip\\-bad-ish\n"
			   ".SH EXIT STATUS\n.TP\n.B \\-\\-verify\n";
	char *tags = options_tags(page), roff[64];
	roff_option("per-process", roff, sizeof(roff));
	CU_ASSERT(has_word(tags, roff));
	roff_option("verify", roff, sizeof(roff));   /* only outside OPTIONS */
	CU_ASSERT_FALSE(has_word(tags, roff));
	roff_option("per", roff, sizeof(roff));      /* a prefix is not the option */
	CU_ASSERT_FALSE(has_word(tags, roff));
	CU_ASSERT_STRING_EQUAL(roff, "\\-\\-per");
	free(tags);
}

/* An option's number (--runs, --cpu, --top, --depth, -j): digits only, in range. */
static void test_command_number(void)
{
	long long n = -7;
	CU_ASSERT(command_number("42", 1, 100, &n) && n == 42);
	CU_ASSERT(command_number("0", 0, 1023, &n) && n == 0);
	CU_ASSERT(command_number("1000000", 1, 1000000, &n) && n == 1000000);
	static const char *const refused[] = { "", "0", "-3", "1000001", "5x", "x5", "0x10",
					       "99999999999999999999", "1.5" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		n = -7;
		CU_ASSERT_FALSE(command_number(refused[i], 1, 1000000, &n));
		CU_ASSERT_EQUAL(n, -7);   /* untouched */
	}
}

void suite_options(void)
{
	ADD_SUITE("options", test_checker_catches_missing, test_every_option_in_man_and_help, test_man_options_exist,
		  test_synopsis_checker, test_synopsis_matches_table, test_command_number);
}
