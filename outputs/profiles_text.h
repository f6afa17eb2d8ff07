/*
 * outputs/profiles_text.h - what `ptscope profiles` prints (outputs/profiles_text.c).
 */
#ifndef PTSCOPE_OUTPUTS_PROFILES_TEXT_H
#define PTSCOPE_OUTPUTS_PROFILES_TEXT_H

#include <stdio.h>

#include "analyzer/analyzer.h"
#include "model/model.h"

/* Every built-in rmap design, sharing rule and era rename. */
void profiles_write_list(FILE *out, const struct profile_set *set);
/* --show ID: a design, a sharing rule or an era's renamed work in full;
 * -1 when SET has no such id (nothing written). */
int profiles_write_one(FILE *out, const struct profile_set *set, const char *id);
/* --from-source: the rmap structs' sizes in OPTIONS->source as libclang
 * lays them out for its mm/rmap.c.  0, or -1 with error set. */
int profiles_write_sizes(FILE *out, const struct analyzer_options *options, const struct profile_set *set,
			 struct error *error);

#endif
