/*
 * base/names.c - the "did you mean" of every refusal: the name in a table
 * closest to a misspelt word (options, commands, --path, --entry ...).
 */
#include <string.h>

#include "base/names.h"

/* Edit distance with adjacent transpositions (optimal string alignment),
 * the measure git and GNU tools use for suggestions; bounded word lengths. */
static size_t edit_distance(const char *a, const char *b)
{
	enum { LONGEST = 64 };
	size_t n = strlen(a), m = strlen(b);
	if (n >= LONGEST || m >= LONGEST)
		return (size_t)-1;
	size_t d[LONGEST + 1][LONGEST + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[n][m];
}

const char *closest_name(const char *word, const char *const *first_name, size_t count, size_t stride)
{
	const char *best = NULL;
	size_t best_distance = (size_t)-1, length = strlen(word);
	/* close: at most a third of the word wrong (at least one edit); or the
	 * word starts one name and no other */
	size_t allowed = length / 3 ? length / 3 : 1;
	const char *prefix_of = NULL;
	size_t prefixes = 0;
	for (size_t i = 0; i < count; i++) {
		const char *name = *(const char *const *)((const char *)first_name + i * stride);
		size_t distance = edit_distance(word, name);
		if (distance < best_distance) {
			best_distance = distance;
			best = name;
		}
		if (length && !strncmp(name, word, length)) {
			prefix_of = name;
			prefixes++;
		}
	}
	if (best && best_distance <= allowed)
		return best;
	return prefixes == 1 ? prefix_of : NULL;
}
