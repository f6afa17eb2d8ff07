/*
 * profile_samples.c - the text of a kernel profile, as kernel developers
 * posted them to argue about rmap:
 *
 *   perf report --stdio   "    12.34%  bash  [kernel.kallsyms]  [k] page_remove_rmap"
 *   opreport -l           "52        12.7139  vmlinux   page_remove_rmap"
 *   readprofile           "  4541 do_wp_page                              12.0983"
 *
 * Each line that has one of these shapes gives a symbol and its share of the
 * samples (readprofile gives ticks: the share is ticks over all ticks);
 * headers, comments and anything else are skipped.  A file with no such line
 * is an error, naming the file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define WORDS_MAX 16

static size_t split_words(char *line, char **words)
{
	size_t count = 0;
	for (char *save = NULL, *w = strtok_r(line, " \t\r\n", &save); w && count < WORDS_MAX;
	     w = strtok_r(NULL, " \t\r\n", &save))
		words[count++] = w;
	return count;
}

static bool is_integer(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool as_number(const char *s, double *value)
{
	char *end;
	errno = 0;
	*value = strtod(s, &end);
	return end != s && !*end && !errno;
}

enum shape { SHAPE_NONE, SHAPE_PERF, SHAPE_OPREPORT, SHAPE_READPROFILE };
static const char *const shape_names[] = { "", "perf report", "opreport", "readprofile" };

/* What one line says: a symbol and its weight (percent, or ticks). */
static enum shape read_line(char **words, size_t count, double *weight, const char **symbol)
{
	size_t length = count ? strlen(words[0]) : 0;
	double second;
	if (count >= 2 && length > 1 && words[0][length - 1] == '%') {
		words[0][length - 1] = '\0';
		if (!as_number(words[0], weight))
			return SHAPE_NONE;
		*symbol = words[count - 1];
		return SHAPE_PERF;
	}
	if (count >= 3 && is_integer(words[0]) && as_number(words[1], &second)) {
		*weight = second;
		*symbol = words[count - 1];
		return SHAPE_OPREPORT;
	}
	if (count == 3 && is_integer(words[0]) && as_number(words[2], &second) && strcmp(words[1], "total")) {
		*weight = strtod(words[0], NULL);
		*symbol = words[1];
		return SHAPE_READPROFILE;
	}
	return SHAPE_NONE;
}

static int add_sample(struct profile_samples *samples, size_t *capacity, const char *symbol, double weight)
{
	size_t length = strcspn(symbol, ".");   /* copy_pte_range.isra.0 is copy_pte_range */
	for (size_t i = 0; i < samples->count; i++)
		if (strlen(samples->items[i].symbol) == length && !strncmp(samples->items[i].symbol, symbol, length)) {
			samples->items[i].percent += weight;
			return 0;
		}
	if (samples->count == *capacity) {
		size_t grown = *capacity ? *capacity * 2 : 64;
		void *p = realloc(samples->items, grown * sizeof(*samples->items));
		if (!p)
			return -1;
		samples->items = p;
		*capacity = grown;
	}
	char *copy = strndup(symbol, length);
	if (!copy)
		return -1;
	samples->items[samples->count++] = (struct profile_sample){ copy, weight };
	return 0;
}

static int by_share(const void *a, const void *b)
{
	const struct profile_sample *x = a, *y = b;
	return (x->percent < y->percent) - (x->percent > y->percent);
}

int profile_samples_read(const char *path, struct profile_samples *samples, struct input_error *error)
{
	FILE *f = fopen(path, "r");
	char line[4096], *words[WORDS_MAX];
	size_t capacity = 0;
	enum shape format = SHAPE_NONE;
	double total = 0;
	memset(samples, 0, sizeof(*samples));
	if (!f) {
		input_error_set(error, path, NULL, 0, "%s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		double weight;
		const char *symbol;
		if (line[0] == '#')
			continue;
		enum shape shape = read_line(words, split_words(line, words), &weight, &symbol);
		/* the first recognised line decides the format: a perf header line
		 * never passes for an opreport one and the other way round */
		if (shape == SHAPE_NONE || (format && shape != format))
			continue;
		format = shape;
		total += weight;
		if (add_sample(samples, &capacity, symbol, weight)) {
			input_error_set(error, path, NULL, 0, "out of memory");
			fclose(f);
			profile_samples_free(samples);
			return -1;
		}
	}
	fclose(f);
	if (!samples->count) {
		input_error_set(error, path, NULL, 0,
				"no profile lines (perf report --stdio, opreport -l or readprofile text)");
		return -1;
	}
	if (format == SHAPE_READPROFILE && total > 0)
		for (size_t i = 0; i < samples->count; i++)
			samples->items[i].percent = 100.0 * samples->items[i].percent / total;
	samples->format = shape_names[format];
	qsort(samples->items, samples->count, sizeof(*samples->items), by_share);
	return 0;
}

void profile_samples_free(struct profile_samples *samples)
{
	for (size_t i = 0; i < samples->count; i++)
		free(samples->items[i].symbol);
	free(samples->items);
	memset(samples, 0, sizeof(*samples));
}
