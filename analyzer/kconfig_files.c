/*
 * analyzer/kconfig_files.c - read a tree's Kconfig files into the model of
 * kconfig_model.h, the way scripts/kconfig reads them, without running
 * anything of the tree: $(shell,...) and the other macro functions are
 * never called (their value is "", counted as an unanswered probe).
 *
 * Understood: config/menuconfig, choice/endchoice, menu/endmenu, if/endif,
 * comment, source/rsource/osource/orsource, the types, prompt, default,
 * def_bool/def_tristate, depends on, select, imply, option env=, optional,
 * help blocks.  Set aside (counted, first place kept): any other line.
 * Bounds: kconfig_model.h.  A file sourced from outside the tree, or a bound
 * passed, is bad input.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/kconfig_model.h"

enum kc_token_kind { KC_TOKEN_WORD, KC_TOKEN_STRING, KC_TOKEN_OPERATOR, KC_TOKEN_PROBE };
struct kc_token {
	enum kc_token_kind kind;
	char *text;
};
struct kc_tokens {
	struct kc_token *items;
	size_t count, capacity;
};

/* A menu, if or choice open around the entries: what they all depend on. */
struct kc_frame {
	uint32_t condition;         /* its own (a menu's or choice's depends on add to it) */
	uint32_t all;               /* AND of every frame's up to this one */
	bool choice;
};

enum kc_entry_kind { KC_ENTRY_NONE, KC_ENTRY_SYMBOL, KC_ENTRY_CHOICE, KC_ENTRY_MENU, KC_ENTRY_OTHER };
struct kc_entry {
	enum kc_entry_kind kind;
	uint32_t index;             /* symbol word or choice */
	uint32_t depends;           /* its own depends on lines, ANDed */
	bool prompt;
	uint32_t prompt_condition;
	size_t first_default;       /* defaults added by this definition start here */
	struct kc_rules selects, implies;   /* value: the target's word */
};

struct kc_reader {
	struct kc_model *model;
	const char *root;
	const char *const *env;
	struct kc_frame frames[KCONFIG_MAX_FRAMES];
	size_t frame_count;
	struct kc_entry entry;
	uint32_t choice;            /* open choice, CG_NONE outside */
	const char *file;           /* tree-relative, for messages */
	unsigned line;
	bool in_help;
	int help_indent;            /* -1: not yet known */
	struct error *error;
};

/* --- model helpers -------------------------------------------------------- */

struct kc_symbol *kc_symbol_of(struct kc_model *model, uint32_t word)
{
	if (word >= model->symbol_capacity) {
		size_t old = model->symbol_capacity;
		array_reserve(&model->symbols, &model->symbol_capacity, (size_t)word + 1, sizeof(*model->symbols));
		memset(model->symbols + old, 0, (model->symbol_capacity - old) * sizeof(*model->symbols));
		for (size_t i = old; i < model->symbol_capacity; i++)
			model->symbols[i].choice = CG_NONE;
	}
	return &model->symbols[word];
}

uint32_t kc_node_add(struct kc_model *model, enum kc_op op, uint32_t left, uint32_t right, uint32_t word)
{
	array_reserve(&model->nodes, &model->node_capacity, model->node_count + 1, sizeof(*model->nodes));
	model->nodes[model->node_count] = (struct kc_node){ op, left, right, word };
	return (uint32_t)model->node_count++;
}

/* left AND right, where KC_ALWAYS is "true". */
static uint32_t both(struct kc_model *model, uint32_t left, uint32_t right)
{
	if (left == KC_ALWAYS)
		return right;
	if (right == KC_ALWAYS)
		return left;
	return kc_node_add(model, KC_AND, left, right, 0);
}

static uint32_t either(struct kc_model *model, uint32_t left, uint32_t right)
{
	if (left == KC_ALWAYS || right == KC_ALWAYS)
		return KC_ALWAYS;
	return kc_node_add(model, KC_OR, left, right, 0);
}

void kc_rules_add(struct kc_rules *rules, uint32_t value, uint32_t condition)
{
	array_reserve(&rules->items, &rules->capacity, rules->count + 1, sizeof(*rules->items));
	rules->items[rules->count++] = (struct kc_rule){ value, condition };
}

static void note_skipped(struct kc_reader *reader, size_t *count, char **first)
{
	(*count)++;
	if (!*first)
		*first = xasprintf("%s:%u", reader->file, reader->line);
}

/* --- tokens --------------------------------------------------------------- */

static void token_add(struct kc_tokens *tokens, enum kc_token_kind kind, const char *start, size_t length)
{
	array_reserve(&tokens->items, &tokens->capacity, tokens->count + 1, sizeof(*tokens->items));
	tokens->items[tokens->count++] = (struct kc_token){ kind, xstrndup(start, length) };
}

static void tokens_free(struct kc_tokens *tokens)
{
	for (size_t i = 0; i < tokens->count; i++)
		free(tokens->items[i].text);
	free(tokens->items);
	memset(tokens, 0, sizeof(*tokens));
}

static const char *const operators[] = { "&&", "||", "!=", "<=", ">=", "=", "!", "<", ">", "(", ")" };

/* Length of "$(...)" at text (nested parentheses), 0 when unclosed. */
static size_t probe_length(const char *text)
{
	int depth = 0;
	for (size_t i = 1; text[i]; i++) {
		if (text[i] == '(')
			depth++;
		else if (text[i] == ')' && --depth == 0)
			return i + 1;
	}
	return 0;
}

/* Length of a quoted string at text, quotes included; 0 when unclosed.  A
 * $(...) inside may hold quotes of its own (4.19's scripts/gcc-plugins/Kconfig:
 * default "$(shell,... "$(CC)")"). */
static size_t string_length(const char *text)
{
	for (size_t i = 1; text[i]; i++) {
		size_t probe;
		if (text[i] == '\\' && text[i + 1])
			i++;
		else if (text[i] == '$' && text[i + 1] == '(' && (probe = probe_length(text + i)))
			i += probe - 1;
		else if (text[i] == text[0])
			return i + 1;
	}
	return 0;
}

static size_t operator_length(const char *text)
{
	for (size_t i = 0; i < sizeof(operators) / sizeof(operators[0]); i++)
		if (!strncmp(text, operators[i], strlen(operators[i])))
			return strlen(operators[i]);
	return 0;
}

/* One logical line into tokens; false when a quote or $( is not closed. */
static bool tokenize(const char *line, struct kc_tokens *tokens)
{
	for (const char *at = line; *at; ) {
		size_t length;
		if (*at == ' ' || *at == '\t' || *at == '\r') {
			at++;
		} else if (*at == '#') {
			break;
		} else if (*at == '"' || *at == '\'') {
			if (!(length = string_length(at)))
				return false;
			token_add(tokens, KC_TOKEN_STRING, at + 1, length - 2);
			at += length;
		} else if (at[0] == '$' && at[1] == '(') {
			if (!(length = probe_length(at)))
				return false;
			token_add(tokens, KC_TOKEN_PROBE, at, length);
			at += length;
		} else if ((length = operator_length(at))) {
			token_add(tokens, KC_TOKEN_OPERATOR, at, length);
			at += length;
		} else {
			length = strcspn(at, " \t\r#\"'&|!=<>()");
			token_add(tokens, KC_TOKEN_WORD, at, length ? length : 1);
			at += length ? length : 1;
		}
	}
	return true;
}

/* --- words and the environment ------------------------------------------- */

static const char *env_get(const struct kc_reader *reader, const char *name, size_t length)
{
	for (size_t i = 0; reader->env[i]; i++)
		if (!strncmp(reader->env[i], name, length) && reader->env[i][length] == '=')
			return reader->env[i] + length + 1;
	return NULL;
}

/* text with $(NAME) of the environment put in, and $NAME too in a source
 * path (kconfig before 4.18 expanded it there only); another $(...) (a macro
 * function: shell, success, cc-option) is left out and counted. */
static char *expand(struct kc_reader *reader, const char *text, bool source_path)
{
	struct buffer out = { 0 };
	for (const char *at = text; *at; ) {
		if (*at != '$' || (at[1] != '(' && !source_path)) {
			buffer_add(&out, at++, 1);
			continue;
		}
		bool parenthesised = at[1] == '(';
		const char *name = at + 1 + parenthesised;
		size_t length = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		const char *value = env_get(reader, name, length);
		size_t whole = parenthesised ? probe_length(at) : 1 + length;
		if (!whole || (parenthesised && whole != length + 3) || !value) {
			reader->model->probes_unanswered++;
			value = "";
		}
		buffer_add(&out, value, strlen(value));
		at += whole ? whole : strlen(at);
	}
	buffer_add(&out, "", 0);
	return buffer_release(&out);
}

static uint32_t word_of(struct kc_reader *reader, const char *text)
{
	uint32_t word = cg_intern(&reader->model->words, text);
	kc_symbol_of(reader->model, word);
	return word;
}

/* --- expressions ---------------------------------------------------------- */

struct kc_parse {
	struct kc_reader *reader;
	const struct kc_tokens *tokens;
	size_t at;
	unsigned depth;
	bool failed;
};

static bool is_operator(const struct kc_parse *parse, const char *text)
{
	return parse->at < parse->tokens->count && parse->tokens->items[parse->at].kind == KC_TOKEN_OPERATOR &&
	       !strcmp(parse->tokens->items[parse->at].text, text);
}

static uint32_t parse_or(struct kc_parse *parse);

static uint32_t parse_term(struct kc_parse *parse)
{
	if (parse->at >= parse->tokens->count || parse->tokens->items[parse->at].kind == KC_TOKEN_OPERATOR) {
		parse->failed = true;
		return KC_ALWAYS;
	}
	const struct kc_token *token = &parse->tokens->items[parse->at++];
	char *text = token->kind == KC_TOKEN_WORD ? xstrdup(token->text) : expand(parse->reader, token->text, false);
	uint32_t word = word_of(parse->reader, text);
	free(text);
	return kc_node_add(parse->reader->model, KC_WORD, 0, 0, word);
}

static const struct { const char *text; enum kc_op op; } comparisons[] = {
	{ "=", KC_EQUAL }, { "!=", KC_UNEQUAL }, { "<", KC_LESS }, { "<=", KC_LESS_EQUAL },
	{ ">", KC_GREATER }, { ">=", KC_GREATER_EQUAL },
};

static uint32_t parse_primary(struct kc_parse *parse)
{
	if (++parse->depth > KCONFIG_MAX_EXPRESSION_DEPTH) {
		parse->failed = true;
		return KC_ALWAYS;
	}
	uint32_t node;
	if (is_operator(parse, "!")) {
		parse->at++;
		node = kc_node_add(parse->reader->model, KC_NOT, parse_primary(parse), 0, 0);
	} else if (is_operator(parse, "(")) {
		parse->at++;
		node = parse_or(parse);
		if (!is_operator(parse, ")"))
			parse->failed = true;
		parse->at++;
	} else {
		node = parse_term(parse);
		for (size_t i = 0; i < sizeof(comparisons) / sizeof(comparisons[0]); i++)
			if (is_operator(parse, comparisons[i].text)) {
				parse->at++;
				node = kc_node_add(parse->reader->model, comparisons[i].op, node, parse_term(parse), 0);
				break;
			}
	}
	parse->depth--;
	return node;
}

/* operand (op operand)*, left to right: "&&" over primaries, "||" over those. */
static uint32_t parse_chain(struct kc_parse *parse, const char *op, enum kc_op kind,
			    uint32_t (*operand)(struct kc_parse *parse))
{
	uint32_t node = operand(parse);
	while (!parse->failed && is_operator(parse, op)) {
		parse->at++;
		node = kc_node_add(parse->reader->model, kind, node, operand(parse), 0);
	}
	return node;
}

static uint32_t parse_and(struct kc_parse *parse)
{
	return parse_chain(parse, "&&", KC_AND, parse_primary);
}

static uint32_t parse_or(struct kc_parse *parse)
{
	return parse_chain(parse, "||", KC_OR, parse_and);
}

/* The expression from token at, and an optional "if CONDITION" after it.
 * false when it does not parse. */
static bool expression_and_condition(struct kc_reader *reader, const struct kc_tokens *tokens, size_t at,
				     uint32_t *value, uint32_t *condition)
{
	struct kc_parse parse = { reader, tokens, at, 0, false };
	*value = parse_or(&parse);
	*condition = KC_ALWAYS;
	if (!parse.failed && parse.at < tokens->count && tokens->items[parse.at].kind == KC_TOKEN_WORD &&
	    !strcmp(tokens->items[parse.at].text, "if")) {
		parse.at++;
		*condition = parse_or(&parse);
	}
	return !parse.failed && parse.at == tokens->count && reader->model->node_count <= KCONFIG_MAX_NODES;
}

/* --- entries -------------------------------------------------------------- */

static uint32_t frames_condition(const struct kc_reader *reader)
{
	return reader->frame_count ? reader->frames[reader->frame_count - 1].all : KC_ALWAYS;
}

/* Does condition (an AND of terms) name a member of choice? */
static bool names_member(const struct kc_model *model, uint32_t condition, uint32_t choice, unsigned depth)
{
	if (condition == KC_ALWAYS || depth > KCONFIG_MAX_EXPRESSION_DEPTH)
		return false;
	const struct kc_node *node = &model->nodes[condition];
	if (node->op == KC_AND)
		return names_member(model, node->left, choice, depth + 1) ||
		       names_member(model, node->right, choice, depth + 1);
	return node->op == KC_WORD && model->symbols[node->word].choice == choice;
}

/* An entry inside a choice that depends on one of its members is no member
 * but an option under that member, as kconfig's menu_finalize makes it
 * (2.6.32's DRM_I915_KMS under DRM_I915). */
static void choice_membership(struct kc_reader *reader)
{
	struct kc_model *model = reader->model;
	struct kc_symbol *symbol = kc_symbol_of(model, reader->entry.index);
	if (symbol->choice == CG_NONE || symbol->choice != reader->choice)
		return;
	struct kc_choice *choice = &model->choices[symbol->choice];
	symbol->choice = CG_NONE;
	if (names_member(model, reader->entry.depends, reader->choice, 0) && choice->member_count &&
	    choice->members[choice->member_count - 1] == reader->entry.index)
		choice->member_count--;
	else
		symbol->choice = reader->choice;
}

/* A definition ends: its conditions (its own and the frames') go on what it set. */
static void entry_close(struct kc_reader *reader)
{
	struct kc_entry *entry = &reader->entry;
	struct kc_model *model = reader->model;
	if (entry->kind == KC_ENTRY_SYMBOL)
		choice_membership(reader);
	if (entry->kind == KC_ENTRY_SYMBOL) {
		uint32_t all = both(model, frames_condition(reader), entry->depends);
		struct kc_symbol *symbol = kc_symbol_of(model, entry->index);
		bool first = !symbol->defined;
		symbol->defined = true;
		symbol->depends = first ? all : either(model, symbol->depends, all);
		if (entry->prompt) {
			uint32_t visible = both(model, entry->prompt_condition, all);
			symbol->prompt_condition = symbol->prompt ? either(model, symbol->prompt_condition, visible) : visible;
			symbol->prompt = true;
		}
		for (size_t i = entry->first_default; i < symbol->defaults.count; i++)
			symbol->defaults.items[i].condition = both(model, symbol->defaults.items[i].condition, all);
		for (size_t i = 0; i < entry->selects.count; i++)
			kc_rules_add(&kc_symbol_of(model, entry->selects.items[i].value)->selected_by, entry->index,
				     both(model, entry->selects.items[i].condition, all));
		for (size_t i = 0; i < entry->implies.count; i++)
			kc_rules_add(&kc_symbol_of(model, entry->implies.items[i].value)->implied_by, entry->index,
				     both(model, entry->implies.items[i].condition, all));
	} else if (entry->kind == KC_ENTRY_CHOICE) {
		model->choices[entry->index].depends = frames_condition(reader);
		/* a choice whose prompt is hidden sets none of its members (usr/Kconfig's
		 * initramfs compression, prompt "..." if INITRAMFS_SOURCE!="") */
		model->choices[entry->index].prompt_condition = entry->prompt ? entry->prompt_condition : KC_ALWAYS;
	}
	free(entry->selects.items);
	free(entry->implies.items);
	memset(entry, 0, sizeof(*entry));
	entry->depends = KC_ALWAYS;
}

static bool frame_push(struct kc_reader *reader, uint32_t condition, bool choice)
{
	if (reader->frame_count == KCONFIG_MAX_FRAMES)
		return false;
	uint32_t all = both(reader->model, frames_condition(reader), condition);
	reader->frames[reader->frame_count++] = (struct kc_frame){ condition, all, choice };
	return true;
}

/* depends on of a menu or choice: every entry inside depends on it too. */
static void frame_depend(struct kc_reader *reader, uint32_t condition)
{
	struct kc_frame *top = &reader->frames[reader->frame_count - 1];
	top->condition = both(reader->model, top->condition, condition);
	top->all = both(reader->model, reader->frame_count > 1 ? top[-1].all : KC_ALWAYS, top->condition);
}

static void symbol_start(struct kc_reader *reader, const char *name)
{
	entry_close(reader);
	uint32_t word = word_of(reader, name);
	struct kc_symbol *symbol = kc_symbol_of(reader->model, word);
	reader->entry.kind = KC_ENTRY_SYMBOL;
	reader->entry.index = word;
	reader->entry.first_default = symbol->defaults.count;
	reader->entry.prompt_condition = KC_ALWAYS;
	if (reader->choice != CG_NONE && symbol->choice == CG_NONE) {
		struct kc_choice *choice = &reader->model->choices[reader->choice];
		symbol->choice = reader->choice;
		array_reserve(&choice->members, &choice->member_capacity, choice->member_count + 1,
			      sizeof(*choice->members));
		choice->members[choice->member_count++] = word;
	}
}

static bool choice_start(struct kc_reader *reader)
{
	entry_close(reader);
	struct kc_model *model = reader->model;
	array_reserve(&model->choices, &model->choice_capacity, model->choice_count + 1, sizeof(*model->choices));
	memset(&model->choices[model->choice_count], 0, sizeof(*model->choices));
	reader->choice = (uint32_t)model->choice_count++;
	reader->entry.kind = KC_ENTRY_CHOICE;
	reader->entry.index = reader->choice;
	return frame_push(reader, KC_ALWAYS, true);
}

/* endmenu, endif, endchoice: false when nothing is open. */
static bool frame_pop(struct kc_reader *reader)
{
	entry_close(reader);
	if (!reader->frame_count)
		return false;
	if (reader->frames[--reader->frame_count].choice)
		reader->choice = CG_NONE;
	return true;
}

static const struct { const char *word; enum kc_type type; bool sets_default; } type_words[] = {
	{ "bool", KC_BOOL, false }, { "boolean", KC_BOOL, false }, { "tristate", KC_TRISTATE, false },
	{ "int", KC_INT, false }, { "hex", KC_HEX, false }, { "string", KC_STRING, false },
	{ "def_bool", KC_BOOL, true }, { "def_tristate", KC_TRISTATE, true },
	{ "def_int", KC_INT, true }, { "def_hex", KC_HEX, true }, { "def_string", KC_STRING, true },
};

/* "bool", "int 'prompt' if X", "def_bool EXPR if X". */
static bool type_line(struct kc_reader *reader, const struct kc_tokens *tokens, enum kc_type type, bool sets_default)
{
	struct kc_entry *entry = &reader->entry;
	if (entry->kind == KC_ENTRY_SYMBOL)
		kc_symbol_of(reader->model, entry->index)->type = type;
	if (sets_default || tokens->count > 1) {
		uint32_t value, condition;
		if (!expression_and_condition(reader, tokens, 1, &value, &condition))
			return false;
		if (entry->kind != KC_ENTRY_SYMBOL && (entry->kind != KC_ENTRY_CHOICE || sets_default))
			return true;
		if (sets_default) {
			kc_rules_add(&kc_symbol_of(reader->model, entry->index)->defaults, value, condition);
		} else {
			entry->prompt = true;
			entry->prompt_condition = condition;
		}
	}
	return true;
}

static bool prompt_line(struct kc_reader *reader, const struct kc_tokens *tokens)
{
	uint32_t value, condition;
	if (!expression_and_condition(reader, tokens, 1, &value, &condition))
		return false;
	reader->entry.prompt = true;
	reader->entry.prompt_condition = condition;
	return true;
}

static bool default_line(struct kc_reader *reader, const struct kc_tokens *tokens)
{
	uint32_t value, condition;
	if (!expression_and_condition(reader, tokens, 1, &value, &condition))
		return false;
	struct kc_entry *entry = &reader->entry;
	if (entry->kind == KC_ENTRY_SYMBOL)
		kc_rules_add(&kc_symbol_of(reader->model, entry->index)->defaults, value, condition);
	else if (entry->kind == KC_ENTRY_CHOICE && reader->model->nodes[value].op == KC_WORD)
		kc_rules_add(&reader->model->choices[entry->index].defaults, reader->model->nodes[value].word,
			     condition);
	return true;
}

static bool depends_line(struct kc_reader *reader, const struct kc_tokens *tokens)
{
	uint32_t value, condition;
	if (tokens->count < 3 || strcmp(tokens->items[1].text, "on") ||
	    !expression_and_condition(reader, tokens, 2, &value, &condition) || condition != KC_ALWAYS)
		return false;
	struct kc_entry *entry = &reader->entry;
	if (entry->kind == KC_ENTRY_SYMBOL)
		entry->depends = both(reader->model, entry->depends, value);
	else if ((entry->kind == KC_ENTRY_CHOICE || entry->kind == KC_ENTRY_MENU) && reader->frame_count)
		frame_depend(reader, value);
	return true;
}

/* select/imply SYMBOL [if CONDITION] */
static bool select_line(struct kc_reader *reader, const struct kc_tokens *tokens, bool imply)
{
	uint32_t value, condition;
	if (!expression_and_condition(reader, tokens, 1, &value, &condition) ||
	    reader->model->nodes[value].op != KC_WORD)
		return false;
	if (reader->entry.kind == KC_ENTRY_SYMBOL)
		kc_rules_add(imply ? &reader->entry.implies : &reader->entry.selects,
			     reader->model->nodes[value].word, condition);
	return true;
}

/* option env="NAME": the symbol's value is ours to give (ARCH, SRCARCH). */
static bool option_line(struct kc_reader *reader, const struct kc_tokens *tokens)
{
	if (tokens->count == 4 && !strcmp(tokens->items[1].text, "env") && !strcmp(tokens->items[2].text, "=") &&
	    reader->entry.kind == KC_ENTRY_SYMBOL) {
		const char *name = tokens->items[3].text;
		const char *value = env_get(reader, name, strlen(name));
		struct kc_symbol *symbol = kc_symbol_of(reader->model, reader->entry.index);
		free(symbol->fixed);
		symbol->fixed = value ? xstrdup(value) : NULL;
		if (!value)
			reader->model->probes_unanswered++;
	}
	return true;   /* modules, defconfig_list, allnoconfig_y: nothing to do here */
}

static int read_file(struct kc_reader *reader, const char *relative, unsigned depth, bool optional);

/* source "PATH" (from the tree's root), rsource (from this file's folder);
 * osource and orsource may name files that are not there. */
static int source_line(struct kc_reader *reader, const struct kc_tokens *tokens, unsigned depth)
{
	const char *keyword = tokens->items[0].text;
	bool relative = keyword[0] == 'r' || !strncmp(keyword, "or", 2);
	bool optional = keyword[0] == 'o';
	char *path = expand(reader, tokens->items[1].text, true);
	char *full = path;
	if (relative) {
		const char *slash = strrchr(reader->file, '/');
		full = xasprintf("%.*s%s", slash ? (int)(slash - reader->file + 1) : 0, reader->file, path);
		free(path);
	}
	const char *start = full;
	while (!strncmp(start, "./", 2))
		start += 2;
	int status = read_file(reader, start, depth + 1, optional);
	free(full);
	return status;
}

/* --- lines ---------------------------------------------------------------- */

/* Block starts and ends; 1 when the keyword is not one of them. */
static int block_line(struct kc_reader *reader, const struct kc_tokens *tokens, unsigned depth)
{
	const char *keyword = tokens->items[0].text;
	uint32_t value, condition;
	if ((!strcmp(keyword, "config") || !strcmp(keyword, "menuconfig")) && tokens->count == 2) {
		symbol_start(reader, tokens->items[1].text);
	} else if (!strcmp(keyword, "choice")) {
		if (!choice_start(reader))
			return -1;
	} else if (!strcmp(keyword, "menu")) {
		entry_close(reader);
		reader->entry.kind = KC_ENTRY_MENU;
		if (!frame_push(reader, KC_ALWAYS, false))
			return -1;
	} else if (!strcmp(keyword, "if")) {
		entry_close(reader);
		if (!expression_and_condition(reader, tokens, 1, &value, &condition) || condition != KC_ALWAYS)
			return 2;
		if (!frame_push(reader, value, false))
			return -1;
	} else if (!strcmp(keyword, "endmenu") || !strcmp(keyword, "endif") || !strcmp(keyword, "endchoice")) {
		if (!frame_pop(reader))
			return 2;
	} else if (!strcmp(keyword, "comment") || !strcmp(keyword, "mainmenu")) {
		entry_close(reader);
		reader->entry.kind = KC_ENTRY_OTHER;
	} else if (strstr(keyword, "source") && strlen(keyword) <= 8 && tokens->count == 2) {
		entry_close(reader);
		return source_line(reader, tokens, depth) ? -1 : 0;
	} else {
		return 1;
	}
	return 0;
}

/* An entry's attribute: false when it does not read as one. */
static bool attribute_line(struct kc_reader *reader, const struct kc_tokens *tokens)
{
	const char *keyword = tokens->items[0].text;
	for (size_t i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (!strcmp(keyword, type_words[i].word))
			return type_line(reader, tokens, type_words[i].type, type_words[i].sets_default);
	if (!strcmp(keyword, "prompt"))
		return prompt_line(reader, tokens);
	if (!strcmp(keyword, "default"))
		return default_line(reader, tokens);
	if (!strcmp(keyword, "depends"))
		return depends_line(reader, tokens);
	if (!strcmp(keyword, "select") || !strcmp(keyword, "imply"))
		return select_line(reader, tokens, keyword[0] == 'i');
	if (!strcmp(keyword, "option"))
		return option_line(reader, tokens);
	if (!strcmp(keyword, "optional")) {
		if (reader->entry.kind == KC_ENTRY_CHOICE)
			reader->model->choices[reader->entry.index].optional = true;
		return true;
	}
	/* what changes no value: ranges, menus' visibility, flags */
	static const char *const ignored[] = { "range", "visible", "modules", "transitional",
					       "allnoconfig_y", "defconfig_list" };
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strcmp(keyword, ignored[i]))
			return true;
	return false;
}

static int indent_of(const char *line)
{
	int columns = 0;
	for (; *line == ' ' || *line == '\t'; line++)
		columns = *line == '\t' ? (columns / 8 + 1) * 8 : columns + 1;
	return line[strspn(line, " \t\r")] ? columns : INT_MAX;   /* blank: inside any help */
}

/* Help text runs while lines stay indented at least as far as its first. */
static bool help_goes_on(struct kc_reader *reader, const char *line)
{
	if (!reader->in_help)
		return false;
	int indent = indent_of(line);
	if (indent == INT_MAX)
		return true;
	if (reader->help_indent < 0)
		reader->help_indent = indent;
	if (indent >= reader->help_indent && indent > 0)
		return true;
	reader->in_help = false;
	return false;
}

/* "help", "---help---", and "--- help ---" (2.6's drivers/w1/Kconfig). */
static bool help_line(const struct kc_tokens *tokens)
{
	const char *first = tokens->items[0].text;
	if (tokens->count == 1)
		return !strcmp(first, "help") || !strcmp(first, "---help---");
	return tokens->count == 3 && !strcmp(first, "---") && !strcmp(tokens->items[1].text, "help") &&
	       !strcmp(tokens->items[2].text, "---");
}

/* "NAME := value", "NAME = $(shell,...)": a macro of the 4.18+ language,
 * read by no rule here (its uses count as unanswered probes). */
static bool assignment_line(const char *line)
{
	line += strspn(line, " \t");
	size_t name = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
	if (!name)
		return false;
	line += name;
	line += strspn(line, " \t");
	return line[0] == '=' || (line[0] == ':' && line[1] == '=') || (line[0] == '+' && line[1] == '=');
}

/* One logical line: 0, or -1 with the error set. */
static int line_read(struct kc_reader *reader, const char *line, unsigned depth)
{
	if (help_goes_on(reader, line) || assignment_line(line))
		return 0;
	struct kc_tokens tokens = { 0 };
	int status = tokenize(line, &tokens) ? 0 : 2;
	if (!status && tokens.count) {
		if (help_line(&tokens)) {
			reader->in_help = true;
			reader->help_indent = -1;
		} else if ((status = block_line(reader, &tokens, depth)) == 1) {
			status = attribute_line(reader, &tokens) ? 0 : 2;
		}
	}
	if (status == 2)
		note_skipped(reader, &reader->model->lines_skipped, &reader->model->first_skipped);
	if (status == -1 && !reader->error->file[0])
		error_set(reader->error, reader->file, reader->line,
			  "Kconfig: more than %d menus, ifs and choices open at once", KCONFIG_MAX_FRAMES);
	tokens_free(&tokens);
	return status == -1 ? -1 : 0;
}

/* Every line of text, a trailing backslash joining the next to it. */
static int lines_read(struct kc_reader *reader, char *text, unsigned depth)
{
	struct buffer logical = { 0 };
	unsigned number = 0;
	int status = 0;
	for (char *line = text; line && !status; ) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		number++;
		if (!logical.length)
			reader->line = number;
		size_t length = strlen(line);
		bool joined = length && line[length - 1] == '\\';
		buffer_add(&logical, line, joined ? length - 1 : length);
		if (!joined || !end) {
			buffer_add(&logical, "", 0);
			status = line_read(reader, logical.data, depth);
			logical.length = 0;
		}
		line = end ? end + 1 : NULL;
	}
	buffer_free(&logical);
	return status;
}

/* Is root/relative a file inside the tree?  Its resolved path, or NULL. */
static char *inside_tree(const struct kc_reader *reader, const char *relative)
{
	char *path = xasprintf("%s/%s", reader->root, relative), resolved[PATH_MAX];
	bool found = realpath(path, resolved) != NULL;
	free(path);
	size_t length = strlen(reader->root);
	if (!found)
		return NULL;
	if (strncmp(resolved, reader->root, length) || resolved[length] != '/')
		return xstrdup("");
	return xstrdup(resolved);
}

static int read_file(struct kc_reader *reader, const char *relative, unsigned depth, bool optional)
{
	struct kc_model *model = reader->model;
	if (depth > KCONFIG_MAX_SOURCE_DEPTH || model->files >= KCONFIG_MAX_FILES)
		return error_set(reader->error, reader->file, reader->line,
				 "Kconfig: more than %d files, or sourced more than %d deep",
				 KCONFIG_MAX_FILES, KCONFIG_MAX_SOURCE_DEPTH);
	char *resolved = inside_tree(reader, relative), *text = NULL;
	size_t size = 0;
	if (resolved && !resolved[0]) {
		free(resolved);
		return error_set(reader->error, reader->file, reader->line,
				 "Kconfig: sources %s, which is outside the tree", relative);
	}
	if (!resolved || !cg_read_file(resolved, &text, &size)) {
		if (!optional)
			note_skipped(reader, &model->sources_missing, &model->first_missing);
		free(resolved);
		return 0;
	}
	free(resolved);
	model->files++;
	model->bytes += size;
	if (model->bytes > KCONFIG_MAX_TOTAL_BYTES) {
		free(text);
		return error_set(reader->error, relative, 0, "Kconfig: the files sourced pass %zu MiB together",
				 KCONFIG_MAX_TOTAL_BYTES >> 20);
	}
	const char *saved_file = reader->file;
	unsigned saved_line = reader->line;
	reader->file = relative;
	reader->in_help = false;
	int status = lines_read(reader, text, depth);
	entry_close(reader);
	reader->in_help = false;
	reader->file = saved_file;
	reader->line = saved_line;
	free(text);
	return status;
}

int kc_read_tree(struct kc_model *model, const char *root, const char *top,
		 const char *const *env, struct error *error)
{
	struct kc_reader reader = { .model = model, .root = root, .env = env, .choice = CG_NONE,
				    .file = top, .error = error };
	reader.entry.depends = KC_ALWAYS;
	int status = read_file(&reader, top, 0, false);
	entry_close(&reader);
	return status;
}

static void rules_free(struct kc_rules *rules)
{
	free(rules->items);
}

void kc_model_free(struct kc_model *model)
{
	for (size_t i = 0; i < model->symbol_capacity; i++) {
		struct kc_symbol *symbol = &model->symbols[i];
		rules_free(&symbol->defaults);
		rules_free(&symbol->selected_by);
		rules_free(&symbol->implied_by);
		free(symbol->fixed);
		free(symbol->user);
		free(symbol->text);
	}
	for (size_t i = 0; i < model->choice_count; i++) {
		rules_free(&model->choices[i].defaults);
		free(model->choices[i].members);
	}
	FREE_ALL(model->symbols, model->nodes, model->choices, model->first_skipped, model->first_missing);
	cg_strings_free(&model->words);
	memset(model, 0, sizeof(*model));
}
