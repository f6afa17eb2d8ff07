/*
 * inputs/timings.c - timings as they were posted to the kernel list, read
 * back so that `ptscope bench --compare` can work out the change:
 *
 *   bash time          "real\t0m27.814s" "user\t0m35.120s" "sys\t1m5.960s"
 *   time -p (POSIX)    "real 27.81" "user 35.12" "sys 65.96"
 *   zsh time           "make  35.12s user 65.96s system 363% cpu 27.814 total"
 *                      (newer zsh: "... 1:27.81 total")
 *   /usr/bin/time -v   "\tUser time (seconds): 35.12" "\tSystem time (seconds): 65.96"
 *                      "\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:27.81"
 *   /usr/bin/time      "35.12user 65.96system 0:27.81elapsed 363%CPU (...)"
 *   lmbench lat_proc   "Process fork+exit: 179.0000 microseconds"
 *   perf stat          "27.814 seconds time elapsed" "35.12 seconds user" "65.96 seconds sys"
 *                      (with -r: "27.81 +- 0.12 seconds time elapsed")
 *   kernbench          "Average Optimal load -j 32 Run (std deviation):" then
 *                      "Elapsed Time 128.07 (0.59)" "User Time 800.25 (1.2)"
 *                      "System Time 112.76 (0.8)" (older: "Average Optimal -j 32
 *                      Load Run:", no deviations); each time named for its load,
 *                      "system (optimal)", so a load is compared with the same load
 *   a table of kernels "Kernbench: (make -j vmlinux, maximal tasks)", then
 *                      "Elapsed System User CPU", then a row per kernel,
 *                      "2.5.62-objrmap 44.77 84.14 563.59 1447.67" (Martin Bligh's
 *                      posts of 2003): the row FILE@ROW names is read, each time
 *                      named for its table's title, "system (make -j vmlinux,
 *                      maximal tasks)"; a file of tables without a row named is
 *                      refused, naming its rows
 *
 * Every run of a file adds one value to each measure it shows, and a mean
 * posted for N runs (perf stat -r N, kernbench after "Performing N runs
 * of") one value standing for them, with their deviation, so that the
 * summary pools the runs themselves; real, user and system are in seconds,
 * lmbench's in microseconds.  A run's "total" is its user + system time
 * (the CPU time the kernel-list threads compared beside the wall clock),
 * formed where a file gives both as often.  Lines of no known shape are
 * skipped; a file with none is refused.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/file.h"
#include "inputs/snapshot.h"

#define LINE_MOST 4096

/* A number at *at (digits, one point), moving *at past it; false if none. */
static bool read_number(const char **at, double *value)
{
	const char *s = *at;
	if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return false;
	/* strtod takes exponents and hex; a timing never has them */
	for (const char *c = s; c < end; c++)
		if (!isdigit((unsigned char)*c) && *c != '.')
			return false;
	*value = v;
	*at = end;
	return true;
}

/* "[H:]M:SS.ss" or "SS.ss": seconds. */
static bool read_clock(const char **at, double *seconds)
{
	double parts[3];
	size_t count = 0;
	const char *s = *at;
	while (count < 3 && read_number(&s, &parts[count])) {
		count++;
		if (*s != ':')
			break;
		s++;
	}
	if (!count || s[-1] == ':')
		return false;
	double total = 0;
	for (size_t i = 0; i < count; i++)
		total = total * 60 + parts[i];
	*seconds = total;
	*at = s;
	return true;
}

/* bash: "0m27.814s" (also "27.814s"). */
static bool read_bash(const char **at, double *seconds)
{
	const char *s = *at;
	double minutes = 0, rest;
	if (!read_number(&s, &rest))
		return false;
	if (*s == 'm') {
		minutes = rest;
		s++;
		if (!read_number(&s, &rest))
			return false;
	}
	if (*s != 's')
		return false;
	*seconds = minutes * 60 + rest;
	*at = s + 1;
	return true;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool at_end(const char *s)
{
	s = skip_space(s);
	return !*s || *s == '\n' || *s == '\r';
}

static struct timing_measure *measure_named(struct timing_set *set, const char *name, const char *unit)
{
	for (size_t i = 0; i < set->measure_count; i++)
		if (!strcmp(set->measures[i].name, name))
			return &set->measures[i];
	struct timing_measure *m = ARRAY_PUSH(set->measures, set->measure_count, set->measure_capacity);
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	return m;
}

/* The mean of `runs` runs with their sample standard deviation. */
static void add_runs(struct timing_set *set, const char *name, const char *unit, double mean, double deviation,
		     size_t runs)
{
	struct timing_measure *m = measure_named(set, name, unit);
	*ARRAY_PUSH(m->values, m->count, m->capacity) = (struct timing_value){ mean, deviation, runs };
}

static void add_value(struct timing_set *set, const char *name, const char *unit, double value)
{
	add_runs(set, name, unit, value, 0, 1);
}

/* The tables of kernels read so far, and the one being read. */
#define TABLE_COLUMNS_MOST 8
#define TABLE_ROWS_NAMED 8
struct kernel_tables {
	char above[48];         /* the words in brackets on the line before this one */
	char title[48];         /* the table's: the line above its header's, else "table N" */
	signed char columns[TABLE_COLUMNS_MOST];   /* a measure each (table_measures), -1 not a time */
	size_t column_count;    /* 0: not in a table */
	size_t count;           /* tables seen */
	unsigned long first_line;
	char rows[TABLE_ROWS_NAMED][32];   /* the first rows' names, for messages */
	size_t row_count;
	bool more_rows, row_read;
};

/* The columns a table of kernels may have, and the measure of each. */
static const struct { const char *column, *measure; } table_measures[] = {
	{ "Elapsed", "real" }, { "User", "user" }, { "System", "system" }, { "CPU", NULL },
};

/* What earlier lines said of the ones after them: kernbench's load, how
 * many runs a posted mean is of (perf stat's "(5 runs)", kernbench's
 * "Performing 5 runs of"; 0: not said), and the tables of kernels. */
struct reading {
	char load[16];
	size_t perf_runs, kernbench_runs;
	bool perf_header;       /* a perf stat header was read, with or without its runs */
	const char *row;        /* the row of the tables of kernels to read; NULL: none named */
	struct kernel_tables tables;
};

/* "N" then `ending`, the rest of the line: N (1 or more, whole) into *runs. */
static bool runs_before(const char *s, const char *ending, size_t *runs)
{
	double n;
	size_t length = strlen(ending);
	if (!read_number(&s, &n) || n < 1 || n > 1e9 || n != floor(n) || strncmp(s, ending, length) ||
	    !at_end(s + length))
		return false;
	*runs = (size_t)n;
	return true;
}

/* perf stat's header, " Performance counter stats for 'make' (5 runs):"
 * (without "(N runs)": one run), or kernbench's "Performing 5 runs of". */
static bool read_runs_line(struct reading *r, const char *line)
{
	if (strstr(line, "Performance counter stats for ")) {
		const char *open = strrchr(line, '(');
		if (!open || !runs_before(open + 1, " runs):", &r->perf_runs))
			r->perf_runs = 0;
		r->perf_header = true;
		return true;
	}
	return !strncmp(line, "Performing ", 11) && runs_before(line + 11, " runs of", &r->kernbench_runs);
}

static void note_shape(struct timing_set *set, const char *shape)
{
	if (!set->shape[0])
		snprintf(set->shape, sizeof(set->shape), "%s", shape);
	else if (strcmp(set->shape, shape) && !strstr(set->shape, " and "))
		snprintf(set->shape + strlen(set->shape), sizeof(set->shape) - strlen(set->shape), " and %s", shape);
}

/* bash / POSIX: "real 0m1.5s", "user 1.50". */
static bool read_shell_line(struct timing_set *set, const char *line)
{
	static const char *const words[][2] = { { "real", "real" }, { "user", "user" }, { "sys", "system" } };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i][0]);
		if (strncmp(line, words[i][0], n) || (line[n] != ' ' && line[n] != '\t'))
			continue;
		const char *s = skip_space(line + n);
		double seconds;
		const char *posix = s;
		if (read_bash(&s, &seconds) && at_end(s)) {
			note_shape(set, "bash time");
		} else if (read_number(&posix, &seconds) && at_end(posix)) {
			note_shape(set, "time -p");
		} else {
			return false;
		}
		add_value(set, words[i][1], "s", seconds);
		return true;
	}
	return false;
}

/* A number followed by word; *s then points past the word. */
static bool number_before(const char **s, double *value, const char *word)
{
	size_t length = strlen(word);
	if (!read_number(s, value) || strncmp(*s, word, length))
		return false;
	*s += length;
	return true;
}

/* The three times a time(1) line gives, in the order every shape lists them. */
static void add_times(struct timing_set *set, const char *shape, double real_s, double user_s, double system_s)
{
	note_shape(set, shape);
	add_value(set, "real", "s", real_s);
	add_value(set, "user", "s", user_s);
	add_value(set, "system", "s", system_s);
}

/* zsh: "... 35.12s user 65.96s system 363% cpu 27.814 total". */
static bool read_zsh_line(struct timing_set *set, const char *line)
{
	const char *user = strstr(line, "s user ");
	while (user && user > line && (isdigit((unsigned char)user[-1]) || user[-1] == '.'))
		user--;
	if (!user)
		return false;
	const char *s = user;
	double user_s, system_s, percent, total_s;
	static const char *const words[] = { "s user ", "s system ", "% cpu " };
	double *values[] = { &user_s, &system_s, &percent };
	for (size_t i = 0; i < 3; i++) {
		if (!number_before(&s, values[i], words[i]))
			return false;
		s = skip_space(s);
	}
	if (!read_clock(&s, &total_s) || strncmp(s, " total", 6) || !at_end(s + 6))
		return false;
	add_times(set, "zsh time", total_s, user_s, system_s);
	return true;
}

/* GNU time, -v lines and the default one. */
static bool read_gnu_time_line(struct timing_set *set, const char *line)
{
	static const char *const verbose[][2] = {
		{ "User time (seconds): ", "user" },
		{ "System time (seconds): ", "system" },
		{ "Elapsed (wall clock) time (h:mm:ss or m:ss): ", "real" },
	};
	const char *s = skip_space(line);
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(verbose[i][0]);
		if (strncmp(s, verbose[i][0], n))
			continue;
		const char *v = s + n;
		double seconds;
		if (!read_clock(&v, &seconds) || !at_end(v))
			return false;
		note_shape(set, "/usr/bin/time -v");
		add_value(set, verbose[i][1], "s", seconds);
		return true;
	}
	double user_s, system_s, real_s;
	if (!number_before(&s, &user_s, "user ") || !number_before(&s, &system_s, "system ") ||
	    !read_clock(&s, &real_s) || strncmp(s, "elapsed", 7))
		return false;
	add_times(set, "/usr/bin/time", real_s, user_s, system_s);
	return true;
}

/* lmbench: "Process fork+exit: 179.0000 microseconds". */
static bool read_lmbench_line(struct timing_set *set, const char *line)
{
	const char *colon = strstr(line, ": ");
	if (!colon || colon == line || colon - line >= (long)sizeof(set->measures[0].name))
		return false;
	const char *s = skip_space(colon + 2);
	double value;
	if (!read_number(&s, &value) || strncmp(s, " microseconds", 13) || !at_end(s + 13))
		return false;
	char name[sizeof(set->measures[0].name)];
	snprintf(name, sizeof(name), "%.*s", (int)(colon - line), line);
	note_shape(set, "lmbench");
	add_value(set, name, "us", value);
	return true;
}

/* perf stat: "27.814 seconds time elapsed", "35.12 seconds user", "... sys".
 * With -r N: "27.814 +- 0.120 seconds time elapsed", the mean of the N runs
 * and the standard error of that mean (perf's stddev_stats: the sample
 * deviation over the square root of N), so the runs' own deviation is the
 * spread times the square root of N, where the header said N.  perf prints
 * "+-" only for two or more runs: pasted without its header, the line is a
 * mean of runs not counted (runs 0), its deviation not known. */
static bool read_perf_line(struct timing_set *set, const struct reading *r, const char *line)
{
	static const char *const endings[][2] = {
		{ "seconds time elapsed", "real" }, { "seconds user", "user" }, { "seconds sys", "system" },
	};
	const char *s = skip_space(line);
	double seconds, spread = -1;
	if (!read_number(&s, &seconds))
		return false;
	s = skip_space(s);
	if (!strncmp(s, "+-", 2)) {   /* perf stat -r: the mean and its spread */
		s = skip_space(s + 2);
		if (!read_number(&s, &spread))
			return false;
		s = skip_space(s);
	}
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(endings[i][0]);
		if (strncmp(s, endings[i][0], n))
			continue;
		const char *rest = skip_space(s + n);
		if (*rest && *rest != '(' && !at_end(rest))
			return false;
		note_shape(set, "perf stat");
		if (spread >= 0 && r->perf_runs >= 2)
			add_runs(set, endings[i][1], "s", seconds, spread * sqrt((double)r->perf_runs), r->perf_runs);
		else if (spread >= 0 && !r->perf_header)   /* a mean of runs not counted */
			add_runs(set, endings[i][1], "s", seconds, NAN, 0);
		else
			add_value(set, endings[i][1], "s", seconds);
		return true;
	}
	return false;
}

/*
 * kernbench's block header, "Average <load words> Run[ (std deviation)]:":
 * the load's first word, lower case ("optimal", "half", "maximal",
 * "single"), into load; false for any other line.  Its later words ("load
 * -j 32") name the jobs, which differ between machines.
 */
static bool read_kernbench_block(const char *line, char *load, size_t load_size)
{
	static const char *const endings[] = { " Run:", " Run (std deviation):" };
	if (strncmp(line, "Average ", 8))
		return false;
	const char *word = line + 8, *end = word + strlen(word);
	while (end > word && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	bool ended = false;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(endings[i]);
		ended |= (size_t)(end - word) > n && !strncmp(end - n, endings[i], n);
	}
	size_t length = 0;
	while (isalpha((unsigned char)word[length]))
		length++;
	if (!ended || !length || length >= load_size || word[length] != ' ')
		return false;
	for (size_t i = 0; i < length; i++)
		load[i] = (char)tolower((unsigned char)word[i]);
	load[length] = '\0';
	return true;
}

/* kernbench's times in a block: "Elapsed Time 128.07 (0.59)", the mean of
 * its runs and their sample standard deviation (kernbench's show_statistics;
 * older ones print none); the mean of as many runs as "Performing N runs
 * of" said.  Its log does not say N: there a deviation above 0 is of two
 * or more runs, not counted (runs 0), and a mean without one is one
 * value.  "Percent CPU", "Context Switches" and "Sleeps" are not times and
 * are skipped, as is "No data". */
static bool read_kernbench_line(struct timing_set *set, const struct reading *r, const char *line)
{
	static const char *const words[][2] = {
		{ "Elapsed Time ", "real" }, { "User Time ", "user" }, { "System Time ", "system" },
	};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i][0]);
		if (strncmp(line, words[i][0], n))
			continue;
		const char *s = skip_space(line + n);
		double seconds, deviation = -1;
		if (!read_number(&s, &seconds))
			return false;
		s = skip_space(s);
		if (*s == '(') {
			s++;
			if (!read_number(&s, &deviation) || *s != ')')
				return false;
			s++;
		}
		if (!at_end(s))
			return false;
		char name[sizeof(set->measures[0].name)];
		snprintf(name, sizeof(name), r->load[0] ? "%s (%s)" : "%s", words[i][1], r->load);
		note_shape(set, "kernbench");
		if (r->kernbench_runs >= 2)   /* an older kernbench gives no deviation: not known */
			add_runs(set, name, "s", seconds, deviation >= 0 ? deviation : NAN, r->kernbench_runs);
		else if (deviation > 0)
			add_runs(set, name, "s", seconds, deviation, 0);
		else
			add_value(set, name, "s", seconds);
		return true;
	}
	return false;
}

/* The next word of *at (up to a space), its length; 0 at the end. */
static size_t next_word(const char **at)
{
	const char *s = skip_space(*at);
	size_t length = 0;
	while (s[length] && s[length] != ' ' && s[length] != '\t' && s[length] != '\r' && s[length] != '\n')
		length++;
	*at = s;
	return length;
}

/* A table's header, "Elapsed System User CPU": every word a column of
 * table_measures, two or more, one of them a time.  Its title is the
 * bracketed words of the line above, as Martin Bligh's posts put it. */
static bool read_table_header(struct kernel_tables *t, const char *line, unsigned long number)
{
	const size_t known = sizeof(table_measures) / sizeof(table_measures[0]);
	size_t count = 0, times = 0, length;
	signed char columns[TABLE_COLUMNS_MOST];
	for (const char *s = line; (length = next_word(&s)); s += length) {
		size_t i = 0;
		while (i < known && (strlen(table_measures[i].column) != length || strncmp(s, table_measures[i].column, length)))
			i++;
		if (i == known || count == TABLE_COLUMNS_MOST)
			return false;
		columns[count++] = table_measures[i].measure ? (signed char)i : -1;
		times += table_measures[i].measure != NULL;
	}
	if (count < 2 || !times)
		return false;
	memcpy(t->columns, columns, count);
	t->column_count = count;
	t->count++;
	t->first_line = t->first_line ? t->first_line : number;
	if (t->above[0])
		snprintf(t->title, sizeof(t->title), "%s", t->above);
	else
		snprintf(t->title, sizeof(t->title), "table %zu", t->count);
	return true;
}

static void note_row_name(struct kernel_tables *t, const char *name, size_t length)
{
	for (size_t i = 0; i < t->row_count; i++)
		if (strlen(t->rows[i]) == length && !strncmp(t->rows[i], name, length))
			return;
	if (t->row_count == TABLE_ROWS_NAMED || length >= sizeof(t->rows[0])) {
		t->more_rows = true;
		return;
	}
	memcpy(t->rows[t->row_count], name, length);
	t->rows[t->row_count++][length] = '\0';
}

/* A row of the table being read, "2.5.62-objrmap 44.77 84.14 563.59
 * 1447.67": a kernel's name, then a number per column.  Its times are
 * kept when it is the row named; any other line ends the table. */
static bool read_table_row(struct timing_set *set, struct reading *r, const char *line)
{
	struct kernel_tables *t = &r->tables;
	if (!t->column_count)
		return false;
	const char *s = line;
	size_t name_length = next_word(&s);
	const char *name = s;
	double values[TABLE_COLUMNS_MOST];
	s += name_length;
	size_t count = 0;
	while (count < t->column_count) {
		s = skip_space(s);
		if (!read_number(&s, &values[count]))
			break;
		s += *s == '%';   /* "1447.67%": a CPU column */
		count++;
	}
	if (!name_length || count < t->column_count || !at_end(s)) {
		t->column_count = 0;
		return false;
	}
	note_row_name(t, name, name_length);
	if (!r->row || strlen(r->row) != name_length || strncmp(r->row, name, name_length))
		return true;
	t->row_read = true;
	note_shape(set, "kernbench table");
	for (size_t i = 0; i < count; i++) {
		if (t->columns[i] < 0)
			continue;
		char measure[sizeof(set->measures[0].name)];
		snprintf(measure, sizeof(measure), "%s (%s)", table_measures[t->columns[i]].measure, t->title);
		add_value(set, measure, "s", values[i]);
	}
	return true;
}

/* The bracketed words of a line, "Kernbench: (make -j vmlinux, maximal
 * tasks)", kept as the title of a table whose header comes next. */
static void note_above(struct kernel_tables *t, const char *line)
{
	const char *open = strchr(line, '('), *close = open ? strrchr(open, ')') : NULL;
	if (open && close && close > open + 1)
		snprintf(t->above, sizeof(t->above), "%.*s", (int)(close - open - 1), open + 1);
	else
		t->above[0] = '\0';
}

/* user + system of each run, where both were given as often: "total" of
 * "user" and "system", and "total (optimal)" of kernbench's "user
 * (optimal)" and "system (optimal)". */
static void add_totals(struct timing_set *set)
{
	size_t measures = set->measure_count;   /* the totals added are not looked at */
	for (size_t u = 0; u < measures; u++) {
		const char *name = set->measures[u].name;
		if (strncmp(name, "user", 4) || (name[4] && name[4] != ' '))
			continue;
		char system[sizeof(set->measures[0].name)], total[sizeof(set->measures[0].name)];
		snprintf(system, sizeof(system), "system%s", name + 4);
		snprintf(total, sizeof(total), "total%s", name + 4);
		const struct timing_measure *y = timing_find(set, system);
		if (!y || y->count != set->measures[u].count)
			continue;
		size_t count = y->count, s = (size_t)(y - set->measures);
		for (size_t i = 0; i < count; i++) {
			struct timing_value user = set->measures[u].values[i], sys = set->measures[s].values[i];
			if (user.runs != sys.runs)
				continue;       /* no total of runs that are not the same runs */
			/* of means, the total's deviation needs the runs' own pairs */
			add_runs(set, total, "s", user.mean + sys.mean, user.runs == 1 ? 0 : NAN, user.runs);
		}
	}
}

/* The rows of the tables, "2.5.62, 2.5.62-objrmap", for a message. */
static void row_list(const struct kernel_tables *t, char *list, size_t size)
{
	size_t used = 0;
	list[0] = '\0';
	for (size_t i = 0; i < t->row_count && used < size; i++)
		used += (size_t)snprintf(list + used, size - used, "%s%s", i ? ", " : "", t->rows[i]);
	if (t->more_rows && used < size)
		snprintf(list + used, size - used, ", ...");
}

/* A file of tables read without a row named, or a row named that no table
 * has: -1 with *error; else 0. */
static int check_tables(const char *name, const struct reading *r, struct error *error)
{
	const struct kernel_tables *t = &r->tables;
	char list[sizeof(t->rows) + 8 * TABLE_ROWS_NAMED];
	row_list(t, list, sizeof(list));
	if (t->count && !r->row)
		return error_set(error, name, t->first_line, "a table of kernels, a row each (%s): name one, as %s@%s",
				 list, name, t->rows[0]);
	if (r->row && !t->count)
		return error_set(error, name, 0, "no table of kernels (a header such as \"Elapsed System User CPU\", "
				 "then a row per kernel) to take row '%s' from", r->row);
	if (r->row && !t->row_read)
		return error_set(error, name, 0, "no row '%s' in its tables of kernels (rows: %s)", r->row, list);
	return 0;
}

int timing_read_text(const char *name, const char *text, size_t length, const char *row,
		     struct timing_set *set, struct error *error)
{
	memset(set, 0, sizeof(*set));
	unsigned long number = 0;
	struct reading reading = { .load = "", .row = row };
	for (size_t at = 0; at < length;) {
		const char *line = text + at;
		const char *end = memchr(line, '\n', length - at);
		size_t line_length = end ? (size_t)(end - line) : length - at;
		at += line_length + 1;
		number++;
		if (line_length >= LINE_MOST)
			continue;   /* no timing line is this long */
		char copy[LINE_MOST];
		memcpy(copy, line, line_length);
		copy[line_length] = '\0';
		if (memchr(copy, '\0', line_length)) {
			timing_set_free(set);
			return error_set(error, name, number, "a NUL byte: not a text of timings");
		}
		/* with a row named, the tables' other lines are not its times */
		bool taken = read_table_row(set, &reading, copy) || read_table_header(&reading.tables, copy, number);
		(void)(taken || row || read_shell_line(set, copy) || read_zsh_line(set, copy) ||
		       read_gnu_time_line(set, copy) || read_lmbench_line(set, copy) ||
		       read_perf_line(set, &reading, copy) || read_runs_line(&reading, copy) ||
		       read_kernbench_block(copy, reading.load, sizeof(reading.load)) ||
		       read_kernbench_line(set, &reading, copy));
		note_above(&reading.tables, copy);
	}
	if (check_tables(name, &reading, error)) {
		timing_set_free(set);
		return -1;
	}
	if (!set->measure_count) {
		timing_set_free(set);
		return error_set(error, name, 0,
				 "no timing found (bash, zsh or POSIX time, /usr/bin/time [-v], lmbench lat_proc, "
				 "perf stat, kernbench, a table of kernels)");
	}
	add_totals(set);
	return 0;
}

/* Read as every input a user names is (base/file.h): bounded, a FIFO with no
 * writer refused after a wait, and noted so that -o cannot replace it. */
int timing_read(const char *path, struct timing_set *set, struct error *error)
{
	struct buffer text = { 0 };
	char file[4096];
	const char *row = NULL, *at = strrchr(path, '@');
	/* FILE@ROW: a row of FILE's tables of kernels, where no file is named PATH whole */
	if (at && at[1] && (size_t)(at - path) < sizeof(file) && access(path, F_OK) != 0) {
		snprintf(file, sizeof(file), "%.*s", (int)(at - path), path);
		row = at + 1;
		path = file;
	}
	if (file_read_input(path, "text of timings", FILE_LIMIT_TIMINGS_BYTES, &text, error) != 0)
		return -1;
	int status = timing_read_text(path, text.data ? text.data : "", text.length, row, set, error);
	buffer_free(&text);
	return status;
}

void timing_set_free(struct timing_set *set)
{
	for (size_t i = 0; i < set->measure_count; i++)
		free(set->measures[i].values);
	free(set->measures);
	memset(set, 0, sizeof(*set));
}

/* A measure with a mean of runs not counted: its runs at least two, the
 * values' means alike, the deviation that of the one value (kernbench's
 * log gives it) or else not known, the extremes not known.  false when
 * every value's runs are counted. */
static bool summary_of_uncounted(const struct timing_measure *measure, struct timing_summary *summary)
{
	size_t runs = 0;
	double sum = 0;
	for (size_t i = 0; i < measure->count; i++) {
		runs += measure->values[i].runs ? measure->values[i].runs : 2;
		sum += measure->values[i].mean;
		summary->runs_at_least |= !measure->values[i].runs;
	}
	if (!summary->runs_at_least)
		return false;
	summary->runs = runs;
	summary->mean = sum / (double)measure->count;
	summary->deviation = measure->count == 1 ? measure->values[0].deviation : NAN;
	summary->lowest = summary->highest = NAN;
	return true;
}

/* The runs pooled: N = the sum of the runs, the mean weighted by them, and
 * the sum of squares about it, sum (n - 1) s^2 + sum n (m - mean)^2, over
 * N - 1: exactly the sample deviation of the runs themselves.  A value of
 * one run adds (m - mean)^2, as runs listed one by one always did. */
void timing_summary(const struct timing_measure *measure, struct timing_summary *summary)
{
	memset(summary, 0, sizeof(*summary));
	if (!measure->count)
		return;
	if (summary_of_uncounted(measure, summary))
		return;
	double sum = 0;
	size_t runs = 0;
	summary->extremes_known = true;
	summary->lowest = summary->highest = measure->values[0].mean;
	for (size_t i = 0; i < measure->count; i++) {
		const struct timing_value *v = &measure->values[i];
		sum += v->runs == 1 ? v->mean : v->mean * (double)v->runs;
		runs += v->runs;
		summary->extremes_known &= v->runs == 1;
		summary->lowest = v->mean < summary->lowest ? v->mean : summary->lowest;
		summary->highest = v->mean > summary->highest ? v->mean : summary->highest;
	}
	summary->runs = runs;
	summary->mean = sum / (double)runs;
	double squares = 0;
	for (size_t i = 0; i < measure->count; i++) {
		const struct timing_value *v = &measure->values[i];
		double apart = v->mean - summary->mean;
		squares += v->runs == 1 ? apart * apart
					: (double)(v->runs - 1) * v->deviation * v->deviation + (double)v->runs * apart * apart;
	}
	/* one run has no spread */
	summary->deviation = runs > 1 ? sqrt(squares / (double)(runs - 1)) : 0;
	if (!summary->extremes_known)
		summary->lowest = summary->highest = NAN;
}

const struct timing_measure *timing_find(const struct timing_set *set, const char *name)
{
	for (size_t i = 0; i < set->measure_count; i++)
		if (!strcmp(set->measures[i].name, name))
			return &set->measures[i];
	return NULL;
}
