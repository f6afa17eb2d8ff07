/*
 * analyzer/kbuild.c - which objects a kbuild Makefile builds for a
 * configuration.  Files that are not in the build (nommu.c, slob.c, ...)
 * parse fine and add thousands of wrong call pairs, so the tree mode keeps
 * only what obj-y and obj-$(CONFIG_X) name.
 *
 * This is a small subset of make: variable assignment (:= = += ?=), line
 * continuations, $(VAR) expansion (CONFIG_ symbols come from the
 * configuration), ifdef/ifndef/ifeq/ifneq/else/endif.  Make functions
 * expand to nothing, which errs on the side of keeping fewer objects.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"

struct make {
	const struct kconfig *config;
	struct cg_values variables;
};

static const char *variable(const struct make *make, const char *name)
{
	if (!strncmp(name, "CONFIG_", 7))
		return make->config ? kconfig_get(make->config, name) : NULL;
	return cg_values_get(&make->variables, name);
}

static void set_variable(struct make *make, const char *name, char *value)
{
	cg_values_set(&make->variables, name, value);
}

/*
 * What one expansion may write or read, counted over all of its nested
 * expansions.
 * A kernel Makefile's longest values (obj-y lists, CFLAGS) are a few KiB,
 * but references nested ten wide and a few deep make gigabytes from a page
 * of text (fuzz_kbuild: 500 bytes ran past its 10 s timeout).  Past the
 * budget the value is cut short: this reader keeps fewer objects rather
 * than more (see the top of this file).
 */
#define EXPANSION_MAX_BYTES ((size_t)1 << 20)

static void add_within(struct buffer *out, const char *text, size_t length, size_t *budget_bytes)
{
	if (length > *budget_bytes)
		length = *budget_bytes;
	buffer_add(out, text, length);
	*budget_bytes -= length;
}

/* Expand $(NAME) and ${NAME}; nested references in the name are expanded first. */
static char *expand_within(const struct make *make, const char *text, int depth, size_t *budget_bytes)
{
	struct buffer out = { 0 };
	buffer_add(&out, "", 0);
	for (const char *p = text; *p && *budget_bytes; p++) {
		if (p[0] != '$' || (p[1] != '(' && p[1] != '{')) {
			add_within(&out, p, 1, budget_bytes);
			continue;
		}
		char open = p[1], close = open == '(' ? ')' : '}';
		int level = 1;
		const char *start = p + 2, *end = start;
		for (; *end && level > 0; end++) {
			if (*end == open)
				level++;
			else if (*end == close)
				level--;
		}
		if (level > 0)
			break;   /* unbalanced: drop the rest */
		/* a reference costs its text too: references to empty variables,
		 * nested wide and deep, write nothing but take as long */
		size_t reference_bytes = (size_t)(end - p);
		if (reference_bytes > *budget_bytes) {
			*budget_bytes = 0;
			break;
		}
		*budget_bytes -= reference_bytes;
		char *inner = xstrndup(start, (size_t)(end - 1 - start));
		char *name = depth < 8 ? expand_within(make, inner, depth + 1, budget_bytes) : xstrdup("");
		free(inner);
		/* a make function ("subst a,b,c") has a space: expands to nothing here */
		const char *value = strchr(name, ' ') ? NULL : variable(make, name);
		if (value) {
			char *expanded = depth < 8 ? expand_within(make, value, depth + 1, budget_bytes)
						   : xstrdup("");
			/* the nested expansion paid for its bytes; copying them up is free */
			buffer_add(&out, expanded, strlen(expanded));
			free(expanded);
		}
		free(name);
		p = end - 1;
	}
	return out.data;
}

static char *expand(const struct make *make, const char *text)
{
	size_t budget_bytes = EXPANSION_MAX_BYTES;
	return expand_within(make, text, 0, &budget_bytes);
}

static char *trim(char *text)
{
	while (isspace((unsigned char)*text))
		text++;
	size_t length = strlen(text);
	while (length && isspace((unsigned char)text[length - 1]))
		text[--length] = '\0';
	return text;
}

/* ifeq (a,b) or ifeq "a" "b": are the expanded sides equal? */
static bool condition_equal(const struct make *make, char *arguments)
{
	char *left = NULL, *right = NULL;
	arguments = trim(arguments);
	if (arguments[0] == '(') {
		char *comma = strchr(arguments, ',');
		char *close = strrchr(arguments, ')');
		if (!comma || !close || close < comma)
			return false;
		*comma = '\0';
		*close = '\0';
		left = arguments + 1;
		right = comma + 1;
	} else if (arguments[0] == '"' || arguments[0] == '\'') {
		char quote = arguments[0];
		char *end = strchr(arguments + 1, quote);
		if (!end)
			return false;
		*end = '\0';
		left = arguments + 1;
		char *second = strchr(end + 1, quote);
		char *second_end = second ? strchr(second + 1, quote) : NULL;
		if (!second_end)
			return false;
		*second_end = '\0';
		right = second + 1;
	} else {
		return false;
	}
	char *a = expand(make, left), *b = expand(make, right);
	bool equal = !strcmp(trim(a), trim(b));
	free(a);
	free(b);
	return equal;
}

static bool starts_word(const char *line, const char *word)
{
	size_t length = strlen(word);
	return !strncmp(line, word, length) && (line[length] == '\0' || isspace((unsigned char)line[length]));
}

/* Conditional nesting: each level is active or not; a level is also
 * inactive when any enclosing level is. */
struct conditions {
	bool active[32];
	bool taken[32];
	int depth;
};

static bool all_active(const struct conditions *conditions)
{
	for (int i = 0; i < conditions->depth; i++)
		if (!conditions->active[i])
			return false;
	return true;
}

static bool conditional_line(struct make *make, struct conditions *conditions, char *line)
{
	bool value;
	if (starts_word(line, "ifdef") || starts_word(line, "ifndef")) {
		char *name = expand(make, trim(line + (line[2] == 'd' ? 5 : 6)));
		const char *set = variable(make, trim(name));
		value = set && *set;
		if (line[2] == 'n')
			value = !value;
		free(name);
	} else if (starts_word(line, "ifeq") || starts_word(line, "ifneq")) {
		value = condition_equal(make, line + (line[2] == 'e' ? 4 : 5));
		if (line[2] == 'n')
			value = !value;
	} else if (starts_word(line, "else")) {
		if (conditions->depth > 0) {
			int top = conditions->depth - 1;
			conditions->active[top] = !conditions->taken[top];
			conditions->taken[top] = true;
		}
		return true;
	} else if (starts_word(line, "endif")) {
		if (conditions->depth > 0)
			conditions->depth--;
		return true;
	} else {
		return false;
	}
	if (conditions->depth < 32) {
		conditions->active[conditions->depth] = value;
		conditions->taken[conditions->depth] = value;
		conditions->depth++;
	}
	return true;
}

static const char *const operators[] = { "::=", ":=", "+=", "?=", "=" };

static void assignment_line(struct make *make, char *line)
{
	for (size_t i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		char *at = strstr(line, operators[i]);
		if (!at)
			continue;
		/* the first operator in the line decides; ":=" contains "=" */
		char *first_equals = strchr(line, '=');
		if (at + strlen(operators[i]) - 1 != first_equals)
			continue;
		*at = '\0';
		char *name = expand(make, trim(line));
		char *value = trim(at + strlen(operators[i]));
		const char *old = variable(make, trim(name));
		char *stored;
		if (operators[i][0] == '+' && old && *old)
			stored = xasprintf("%s %s", old, value);
		else if (operators[i][0] == '?' && old)
			stored = xstrdup(old);
		else if (operators[i][0] == ':')
			stored = expand(make, value);   /* simply expanded now */
		else
			stored = xstrdup(value);
		set_variable(make, trim(name), stored);
		free(name);
		return;
	}
}

static void add_objects(const struct make *make, const char *list, struct cg_list *objects, int depth)
{
	char *expanded = expand(make, list);
	char *save = NULL;
	for (char *word = strtok_r(expanded, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
		size_t length = strlen(word);
		if (length < 3 || strcmp(word + length - 2, ".o"))
			continue;   /* folders (kfence/) and other words */
		char *stem = xstrndup(word, length - 2);
		/* a composite object lists its parts in stem-y or stem-objs */
		char *parts_y = xasprintf("%s-y", stem), *parts_objs = xasprintf("%s-objs", stem);
		const char *parts = variable(make, parts_y);
		if (!parts)
			parts = variable(make, parts_objs);
		if (parts && depth < 4)
			add_objects(make, parts, objects, depth + 1);
		if (!cg_list_has(objects, stem))
			cg_list_add(objects, stem);
		free(parts_y);
		free(parts_objs);
		free(stem);
	}
	free(expanded);
}

/* Evaluate a Makefile into variables; presets are "NAME=value" strings. */
struct kbuild *kbuild_load(const char *makefile, const struct kconfig *config,
			   const char *const *presets)
{
	struct make *make = xcalloc(1, sizeof(*make));
	make->config = config;
	for (size_t i = 0; presets && presets[i]; i++) {
		const char *equals = strchr(presets[i], '=');
		if (!equals)
			continue;
		char *name = xstrndup(presets[i], (size_t)(equals - presets[i]));
		set_variable(make, name, xstrdup(equals + 1));
		free(name);
	}
	char *text;
	size_t size;
	if (!cg_read_file(makefile, &text, &size))
		return (struct kbuild *)make;
	struct conditions conditions = { .depth = 0 };
	/* join continuation lines in place: "\\\n" becomes two spaces */
	for (char *p = text; (p = strstr(p, "\\\n")); p += 2)
		p[0] = p[1] = ' ';
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '\t')
			continue;   /* a recipe */
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line = trim(line);
		if (!*line)
			continue;
		if (conditional_line(make, &conditions, line) || !all_active(&conditions))
			continue;
		if (strchr(line, '=') && !starts_word(line, "export") && !starts_word(line, "include"))
			assignment_line(make, line);
	}
	free(text);
	return (struct kbuild *)make;
}

char *kbuild_get(const struct kbuild *kbuild, const char *name)
{
	const struct make *make = (const struct make *)kbuild;
	const char *value = variable(make, name);
	return value ? expand(make, value) : NULL;
}

void kbuild_free(struct kbuild *kbuild)
{
	struct make *make = (struct make *)kbuild;
	if (!make)
		return;
	cg_values_free(&make->variables);
	free(make);
}

void kbuild_objects(const char *makefile, const struct kconfig *config, struct cg_list *objects)
{
	struct kbuild *kbuild = kbuild_load(makefile, config, NULL);
	static const char *const lists[] = { "obj-y", "obj-m" };
	for (size_t i = 0; i < 2; i++) {
		const char *list = variable((const struct make *)kbuild, lists[i]);
		if (list)
			add_objects((const struct make *)kbuild, list, objects, 0);
	}
	kbuild_free(kbuild);
}
