/*
 * base/names.h - the closest name to a misspelt word, for "did you mean".
 */
#ifndef PTSCOPE_BASE_NAMES_H
#define PTSCOPE_BASE_NAMES_H

#include <stddef.h>

/*
 * The name in a table closest to word (a misspelling within a third of its
 * length, or the one name word begins), or NULL.  The names are read at
 * first_name, first_name + stride bytes, ... (a table of structs whose first
 * field is the name: &table[0].name, count, sizeof(table[0])).
 */
const char *closest_name(const char *word, const char *const *first_name, size_t count, size_t stride);

#endif
