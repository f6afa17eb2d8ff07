/*
 * analyzer/kconfig_defaults.c - the configuration `make olddefconfig` would
 * make from a defconfig (or from nothing), worked out from the tree's
 * Kconfig files as data: no program of the tree runs (scripts/kconfig is
 * never built, no $(shell) probe is answered).
 *
 * The rules are scripts/kconfig's (symbol.c sym_calc_value), restricted:
 * a symbol the user may set keeps the defconfig's value, limited by its
 * dependencies; any other takes its first default whose condition holds;
 * selects raise a bool or tristate to their selector's value; implies do
 * where the user said nothing; a choice takes the member the defconfig
 * names, else its default, else its first visible member.  Not done:
 * ranges, a tristate choice's several "m" members, and the value of a
 * compiler probe ($(success,...), $(cc-option,...)): "", so n.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/kconfig_model.h"

#define KC_EVAL_DEPTH 4096   /* ANDs of nested ifs and ORs of many definitions */
/* Conditions looked at, all passes together: a 6.x tree takes about 3
 * million a pass; a tree built to take more stops here, said not settled. */
#define KC_EVAL_STEPS ((uint64_t)1 << 30)

struct kc_eval {
	struct kc_model *model;
	bool modules;               /* MODULES=y: "m" stays m */
	bool too_deep;
	bool changed;
	uint64_t steps;
};

static int tri_of_text(const char *text)
{
	return !text ? KC_N : !strcmp(text, "y") ? KC_Y : !strcmp(text, "m") ? KC_M : KC_N;
}

static int min_tri(int a, int b) { return a < b ? a : b; }
static int max_tri(int a, int b) { return a > b ? a : b; }

/* A word's value as text: a symbol's value, else (a constant, or a name no
 * entry defines) the word itself, as kconfig gives symbols of unknown type. */
static const char *word_text(const struct kc_eval *eval, uint32_t word)
{
	const struct kc_symbol *symbol = &eval->model->symbols[word];
	if (symbol->fixed)
		return symbol->fixed;
	if (!symbol->defined || symbol->type == KC_UNKNOWN)
		return eval->model->words.text[word];
	if (symbol->type == KC_BOOL || symbol->type == KC_TRISTATE)
		return symbol->tri == KC_Y ? "y" : symbol->tri == KC_M ? "m" : "n";
	return symbol->text ? symbol->text : "";
}

static int word_tri(const struct kc_eval *eval, uint32_t word)
{
	const struct kc_symbol *symbol = &eval->model->symbols[word];
	if (symbol->defined && (symbol->type == KC_BOOL || symbol->type == KC_TRISTATE))
		return symbol->tri;
	int tri = tri_of_text(eval->model->words.text[word]);
	return tri == KC_M && !eval->modules ? KC_N : tri;
}

static bool number_of(const char *text, long long *number)
{
	char *end;
	*number = strtoll(text, &end, 0);
	return *text && !*end;
}

static int compare(const struct kc_eval *eval, const struct kc_node *node)
{
	const char *left = word_text(eval, eval->model->nodes[node->left].word);
	const char *right = word_text(eval, eval->model->nodes[node->right].word);
	long long a, b;
	int order;
	if (number_of(left, &a) && number_of(right, &b))
		order = a < b ? -1 : a > b;
	else if (node->op == KC_EQUAL || node->op == KC_UNEQUAL)
		order = strcmp(left, right);
	else
		return KC_N;
	bool holds = node->op == KC_EQUAL ? order == 0 : node->op == KC_UNEQUAL ? order != 0 :
		     node->op == KC_LESS ? order < 0 : node->op == KC_LESS_EQUAL ? order <= 0 :
		     node->op == KC_GREATER ? order > 0 : order >= 0;
	return holds ? KC_Y : KC_N;
}

static int tri_at(struct kc_eval *eval, uint32_t index, unsigned depth)
{
	if (index == KC_ALWAYS)
		return KC_Y;
	if (depth > KC_EVAL_DEPTH || ++eval->steps > KC_EVAL_STEPS) {
		eval->too_deep = true;
		return KC_N;
	}
	const struct kc_node *node = &eval->model->nodes[index];
	switch (node->op) {
	case KC_WORD:
		return word_tri(eval, node->word);
	case KC_NOT:
		return KC_Y - tri_at(eval, node->left, depth + 1);
	case KC_AND:
		return min_tri(tri_at(eval, node->left, depth + 1), tri_at(eval, node->right, depth + 1));
	case KC_OR:
		return max_tri(tri_at(eval, node->left, depth + 1), tri_at(eval, node->right, depth + 1));
	default:
		return compare(eval, node);
	}
}

static int tri(struct kc_eval *eval, uint32_t index)
{
	return tri_at(eval, index, 0);
}

/* The first default whose condition holds, or -1. */
static long first_default(struct kc_eval *eval, const struct kc_rules *defaults)
{
	for (size_t i = 0; i < defaults->count; i++)
		if (tri(eval, defaults->items[i].condition) != KC_N)
			return (long)i;
	return -1;
}

/* The most any rule (selector AND condition) gives. */
static int rules_tri(struct kc_eval *eval, const struct kc_rules *rules)
{
	int most = KC_N;
	for (size_t i = 0; i < rules->count && most < KC_Y; i++)
		most = max_tri(most, min_tri(word_tri(eval, rules->items[i].value),
					     tri(eval, rules->items[i].condition)));
	return most;
}

static int bool_value(struct kc_eval *eval, struct kc_symbol *symbol, int visible)
{
	int value;
	bool user = symbol->user_set && visible != KC_N;
	if (user) {
		value = min_tri(tri_of_text(symbol->user), visible);
	} else {
		long chosen = first_default(eval, &symbol->defaults);
		value = chosen < 0 ? KC_N : min_tri(tri(eval, symbol->defaults.items[chosen].value),
						    tri(eval, symbol->defaults.items[chosen].condition));
		int implied = rules_tri(eval, &symbol->implied_by);
		if (implied != KC_N)
			value = min_tri(max_tri(value, implied), tri(eval, symbol->depends));
	}
	value = max_tri(value, rules_tri(eval, &symbol->selected_by));
	if (value == KC_M && (symbol->type == KC_BOOL || !eval->modules))
		value = KC_Y;
	return value;
}

/* int, hex, string: the user's value where it may be set, else the first
 * default's; NULL when none applies. */
static char *text_value(struct kc_eval *eval, struct kc_symbol *symbol, int visible)
{
	const char *text = NULL;
	if (symbol->user_set && visible != KC_N) {
		text = symbol->user;
	} else {
		long chosen = first_default(eval, &symbol->defaults);
		const struct kc_node *node = chosen < 0 ? NULL :
			&eval->model->nodes[symbol->defaults.items[chosen].value];
		if (node && node->op == KC_WORD)
			text = word_text(eval, node->word);
	}
	if (!text && symbol->type == KC_STRING && visible != KC_N)
		text = "";   /* kconfig writes a string the user may set, empty or not */
	if (!text || (!*text && symbol->type != KC_STRING))
		return NULL;
	if (symbol->type == KC_HEX && strncmp(text, "0x", 2) && strncmp(text, "0X", 2))
		return xasprintf("0x%s", text);
	return xstrdup(text);
}

static void symbol_settle(struct kc_eval *eval, struct kc_symbol *symbol)
{
	if (!symbol->defined || symbol->fixed || symbol->choice != CG_NONE)
		return;
	int visible = symbol->prompt ? tri(eval, symbol->prompt_condition) : KC_N;
	if (symbol->type == KC_BOOL || symbol->type == KC_TRISTATE) {
		int value = bool_value(eval, symbol, visible);
		eval->changed |= value != symbol->tri;
		symbol->tri = value;
		return;
	}
	char *text = text_value(eval, symbol, visible);
	bool same = (!text && !symbol->text) || (text && symbol->text && !strcmp(text, symbol->text));
	eval->changed |= !same;
	free(symbol->text);
	symbol->text = text;
}

static bool member_visible(struct kc_eval *eval, uint32_t word)
{
	const struct kc_symbol *member = &eval->model->symbols[word];
	return tri(eval, member->prompt ? member->prompt_condition : member->depends) != KC_N;
}

/* The member a choice takes: the defconfig's, its default, its first. */
static uint32_t choice_member(struct kc_eval *eval, const struct kc_choice *choice)
{
	if (tri(eval, choice->depends) == KC_N || tri(eval, choice->prompt_condition) == KC_N)
		return CG_NONE;
	for (size_t i = 0; i < choice->member_count; i++) {
		const struct kc_symbol *member = &eval->model->symbols[choice->members[i]];
		if (member->user_set && tri_of_text(member->user) == KC_Y && member_visible(eval, choice->members[i]))
			return choice->members[i];
	}
	for (size_t i = 0; i < choice->defaults.count; i++)
		if (tri(eval, choice->defaults.items[i].condition) != KC_N &&
		    member_visible(eval, choice->defaults.items[i].value))
			return choice->defaults.items[i].value;
	for (size_t i = 0; !choice->optional && i < choice->member_count; i++)
		if (member_visible(eval, choice->members[i]))
			return choice->members[i];
	return CG_NONE;
}

static void choice_settle(struct kc_eval *eval, const struct kc_choice *choice)
{
	uint32_t chosen = choice_member(eval, choice);
	for (size_t i = 0; i < choice->member_count; i++) {
		struct kc_symbol *member = &eval->model->symbols[choice->members[i]];
		int value = choice->members[i] == chosen ? KC_Y : KC_N;
		eval->changed |= value != member->tri;
		member->tri = value;
	}
}

/* Passes over every choice and symbol until nothing changes; false when
 * KCONFIG_MAX_PASSES were not enough. */
static bool settle(struct kc_eval *eval, size_t *passes)
{
	uint32_t modules = cg_lookup(&eval->model->words, "MODULES");
	for (*passes = 1; *passes <= KCONFIG_MAX_PASSES; (*passes)++) {
		eval->changed = false;
		eval->modules = modules != CG_NONE && eval->model->symbols[modules].tri == KC_Y;
		for (size_t i = 0; i < eval->model->choice_count; i++)
			choice_settle(eval, &eval->model->choices[i]);
		for (size_t i = 0; i < eval->model->words.count; i++)
			symbol_settle(eval, &eval->model->symbols[i]);
		if (!eval->changed)
			return !eval->too_deep;
		if (eval->steps > KC_EVAL_STEPS)
			return false;
	}
	return false;
}

/* A string as .config writes it, quotes and all. */
static char *quoted(const char *text)
{
	return xasprintf("\"%s\"", text);
}

static char *unquoted(const char *text)
{
	size_t length = strlen(text);
	if (length >= 2 && text[0] == '"' && text[length - 1] == '"')
		return xstrndup(text + 1, length - 2);
	return xstrdup(text);
}

/* The configuration's values become the user's values of the symbols. */
static void user_values(struct kc_model *model, const struct kconfig *config)
{
	for (size_t i = 0; i < model->words.count; i++) {
		struct kc_symbol *symbol = &model->symbols[i];
		if (!symbol->defined)
			continue;
		char *name = xasprintf("CONFIG_%s", model->words.text[i]);
		const char *value = kconfig_value(config, name);
		free(name);
		if (!value)
			continue;
		symbol->user_set = true;
		symbol->user = symbol->type == KC_STRING ? unquoted(value) : xstrdup(value);
	}
}

/* Symbols the configuration sets that no Kconfig entry defines (a defconfig
 * older than its tree: 3.14's CONFIG_EXPERIMENTAL) are dropped, as kconfig
 * drops them; how many. */
static size_t drop_undefined(const struct kc_model *model, struct kconfig *config)
{
	size_t dropped = 0;
	for (size_t i = 0; i < config->symbols.names.count; i++) {
		const char *name = config->symbols.names.text[i];
		uint32_t word = cg_lookup(&model->words, name + strlen("CONFIG_"));
		if (config->symbols.values[i] && !strncmp(name, "CONFIG_", 7) &&
		    (word == CG_NONE || !model->symbols[word].defined)) {
			dropped += strcmp(config->symbols.values[i], "n") != 0;
			free(config->symbols.values[i]);
			config->symbols.values[i] = NULL;
		}
	}
	return dropped;
}

/* The settled values back into the configuration; how many it did not say
 * (or said otherwise). */
static size_t write_back(const struct kc_model *model, struct kconfig *config)
{
	size_t changed = 0;
	for (size_t i = 0; i < model->words.count; i++) {
		const struct kc_symbol *symbol = &model->symbols[i];
		if (!symbol->defined || symbol->fixed || symbol->type == KC_UNKNOWN)
			continue;
		char *value;
		if (symbol->type == KC_BOOL || symbol->type == KC_TRISTATE)
			value = xstrdup(symbol->tri == KC_Y ? "y" : symbol->tri == KC_M ? "m" : "n");
		else if (!symbol->text)
			value = xstrdup("n");   /* no value: kconfig writes nothing */
		else
			value = symbol->type == KC_STRING ? quoted(symbol->text) : xstrdup(symbol->text);
		char *name = xasprintf("CONFIG_%s", model->words.text[i]);
		const char *old = kconfig_value(config, name);
		changed += strcmp(value, "n") && (!old || strcmp(old, value));
		kconfig_set(config, name, value);
		free(name);
		free(value);
	}
	return changed;
}

static char *describe(const struct kc_model *model, const struct kc_eval *eval, size_t set,
		      size_t dropped, size_t passes, bool settled)
{
	struct buffer said = { 0 };
	buffer_printf(&said, "Kconfig defaults and selects from %zu files: %zu symbols set, %s %zu passes",
		      model->files, set, settled ? "settled in" : "NOT settled after", passes);
	if (dropped)
		buffer_printf(&said, "; %zu symbols no Kconfig entry defines dropped", dropped);
	if (model->probes_unanswered)
		buffer_printf(&said, "; %zu compiler or shell probes not run (taken as n)", model->probes_unanswered);
	if (model->lines_skipped)
		buffer_printf(&said, "; %zu lines not understood (first %s)", model->lines_skipped,
			      model->first_skipped);
	if (model->sources_missing)
		buffer_printf(&said, "; %zu sourced files missing (first %s)", model->sources_missing,
			      model->first_missing);
	if (eval->too_deep)
		buffer_printf(&said, "; conditions nested past %d, or past %llu looked at, taken as n",
			      KC_EVAL_DEPTH, (unsigned long long)KC_EVAL_STEPS);
	buffer_add(&said, "", 0);
	return buffer_release(&said);
}

int kconfig_fill_defaults(const char *root, const char *top, const char *const *env,
			  struct kconfig *config, char **said, struct error *error)
{
	*said = NULL;
	char *path = xasprintf("%s/%s", root, top);
	bool present = cg_is_file(path);
	free(path);
	if (!present)
		return 0;
	struct kc_model model = { 0 };
	if (kc_read_tree(&model, root, top, env, error)) {
		kc_model_free(&model);
		return -1;
	}
	user_values(&model, config);
	struct kc_eval eval = { .model = &model };
	size_t passes;
	bool settled = settle(&eval, &passes);
	/* with a sourced file missing, a symbol may be defined where we did not look */
	size_t dropped = model.sources_missing ? 0 : drop_undefined(&model, config);
	size_t set = write_back(&model, config);
	*said = describe(&model, &eval, set, dropped, passes > KCONFIG_MAX_PASSES ? KCONFIG_MAX_PASSES : passes,
			 settled);
	kc_model_free(&model);
	return 0;
}
