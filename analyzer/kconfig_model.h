/*
 * analyzer/kconfig_model.h - a tree's Kconfig files as data, shared by the
 * reader (kconfig_files.c) and the evaluator (kconfig_defaults.c) only.
 *
 * What is kept is what decides a value: each symbol's type, prompt,
 * dependencies, defaults, and who selects or implies it; choices and their
 * defaults.  Menus and ifs only add their conditions.  Nothing is run:
 * a $(shell,...) or $(success,...) probe counts as unanswered and is "".
 */
#ifndef PTSCOPE_ANALYZER_KCONFIG_MODEL_H
#define PTSCOPE_ANALYZER_KCONFIG_MODEL_H

#include "analyzer/internal.h"

/* Bounds: a 6.x tree has ~1,700 Kconfig files, 3 MiB, 19,000 symbols,
 * ifs nested 6 deep and files sourced 8 deep. */
#define KCONFIG_MAX_FILES 8192
#define KCONFIG_MAX_TOTAL_BYTES ((size_t)64 << 20)
#define KCONFIG_MAX_SOURCE_DEPTH 32
#define KCONFIG_MAX_FRAMES 256              /* menus, ifs and choices open at once */
#define KCONFIG_MAX_EXPRESSION_DEPTH 64
#define KCONFIG_MAX_NODES ((size_t)1 << 22)
#define KCONFIG_MAX_PASSES 64               /* kconfig refuses dependency loops, so the
					       values settle in as many passes as the
					       longest chain of dependencies */

enum kc_type { KC_UNKNOWN, KC_BOOL, KC_TRISTATE, KC_INT, KC_HEX, KC_STRING };

/* Expression nodes; KC_ALWAYS stands for "no condition". */
enum kc_op { KC_WORD, KC_NOT, KC_AND, KC_OR, KC_EQUAL, KC_UNEQUAL, KC_LESS, KC_LESS_EQUAL,
	     KC_GREATER, KC_GREATER_EQUAL };
#define KC_ALWAYS UINT32_MAX
struct kc_node {
	enum kc_op op;
	uint32_t left, right;       /* nodes */
	uint32_t word;              /* KC_WORD: a symbol, or a constant ("y", "64", a string) */
};

/* "default VALUE if CONDITION"; for select and imply, VALUE is the word of
 * the symbol doing it. */
struct kc_rule {
	uint32_t value, condition;
};
struct kc_rules {
	struct kc_rule *items;
	size_t count, capacity;
};

/* Tristate values: n, m, y. */
enum { KC_N = 0, KC_M = 1, KC_Y = 2 };

struct kc_symbol {
	enum kc_type type;
	bool defined;               /* has a config entry */
	bool prompt;                /* the user may set it */
	uint32_t prompt_condition;  /* of its prompt (OR over definitions) */
	uint32_t depends;           /* OR over definitions of each one's conditions */
	struct kc_rules defaults, selected_by, implied_by;
	uint32_t choice;            /* CG_NONE, or its choice */
	char *fixed;                /* option env="NAME": the value we give */
	/* the defconfig's value: y/m/n or text; user_set false when not there */
	bool user_set;
	char *user;
	/* the value so far */
	int tri;
	char *text;                 /* int, hex, string: NULL when it has none */
};

struct kc_choice {
	uint32_t depends;
	uint32_t prompt_condition;  /* KC_ALWAYS: shown wherever it depends */
	struct kc_rules defaults;   /* value: a member's word */
	uint32_t *members;
	size_t member_count, member_capacity;
	bool optional;
};

struct kc_model {
	struct cg_strings words;    /* symbol names (no CONFIG_) and constants */
	struct kc_symbol *symbols;  /* parallel to words */
	size_t symbol_capacity;
	struct kc_node *nodes;
	size_t node_count, node_capacity;
	struct kc_choice *choices;
	size_t choice_count, choice_capacity;
	/* what the reader met and set aside, for the summary */
	size_t files, bytes, lines_skipped, probes_unanswered, sources_missing;
	char *first_skipped, *first_missing;   /* "FILE:LINE" */
};

/* Read root/top and every file it sources.  env: "NAME=value" pairs the
 * Kconfig files may ask for ($ARCH, $SRCARCH, option env=).  0, or -1
 * with error set (a bound passed, a file outside the tree). */
int kc_read_tree(struct kc_model *model, const char *root, const char *top,
		 const char *const *env, struct error *error);
/* The symbol of word (grown to fit). */
struct kc_symbol *kc_symbol_of(struct kc_model *model, uint32_t word);
uint32_t kc_node_add(struct kc_model *model, enum kc_op op, uint32_t left, uint32_t right, uint32_t word);
void kc_rules_add(struct kc_rules *rules, uint32_t value, uint32_t condition);
void kc_model_free(struct kc_model *model);

#endif
