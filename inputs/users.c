/*
 * inputs/users.c - the `users` member: the names of the uids and gids the
 * capture saw, looked up on the captured host (its NSS: /etc/passwd, LDAP,
 * ...), so a report read elsewhere says "postgres", not "uid 101".
 *
 *   user 0 root
 *   user 101 postgres
 *   group 0 root
 *
 * A name is written only when it is 1..255 printable bytes without a space
 * (a line of this member is then never ambiguous); the reader refuses any
 * other line, naming it.  This file reads it; the capture writes it
 * (inputs/users_capture.c, apart so that ptscope-capture does not link the
 * reader's interning).
 */
#include <stdlib.h>
#include <string.h>

#include "inputs/internal.h"


static int name_compare(const void *a, const void *b)
{
	uint32_t x = ((const struct id_name *)a)->id, y = ((const struct id_name *)b)->id;
	return (x > y) - (x < y);
}

/* Sorted by id for the lookups; an id named twice is refused (which name?). */
static int sort_names(struct id_name *table, size_t count, const char *kind, const struct parse_place *place)
{
	array_sort(table, count, sizeof(*table), name_compare);
	for (size_t i = 1; i < count; i++)
		if (table[i].id == table[i - 1].id)
			return parse_fail(place, 0, "%s %u is named twice", kind, table[i].id);
	return 0;
}

int parse_users(const char *text, size_t size, struct snapshot *snapshot, const struct parse_place *place)
{
	unsigned long line_number = 0;
	for (const char *line = text; line < text + size; ) {
		const char *end = memchr(line, '\n', (size_t)(text + size - line));
		if (!end)
			end = text + size;
		line_number++;
		bool user = end - line > 5 && !memcmp(line, "user ", 5);
		bool group = end - line > 6 && !memcmp(line, "group ", 6);
		const char *p = line + (user ? 5 : 6), *name;
		uint64_t id;
		if (!user && !group)
			return parse_fail(place, line_number, "not 'user ID NAME' or 'group ID NAME'");
		if (!parse_u64(p, end, &id, &name) || id > UINT32_MAX || name == end || *name != ' ')
			return parse_fail(place, line_number, "the id is not a number below 2^32");
		name++;
		size_t length = (size_t)(end - name);
		if (length == 0 || length > USERS_NAME_MAX || memchr(name, ' ', length) || memchr(name, '\0', length))
			return parse_fail(place, line_number, "the name is not 1..%d bytes without spaces",
					  USERS_NAME_MAX);
		const char *kept = arena_intern(snapshot->arena, name, length);
		if (snapshot->user_name_count + snapshot->group_name_count == 2 * USERS_MAX_IDS)
			return parse_fail(place, line_number, "more than %d names", 2 * USERS_MAX_IDS);
		struct id_name **table = user ? &snapshot->user_names : &snapshot->group_names;
		size_t *count = user ? &snapshot->user_name_count : &snapshot->group_name_count;
		*table = xreallocarray(*table, *count + 1, sizeof(**table));
		(*table)[(*count)++] = (struct id_name){ (uint32_t)id, kept };
		line = end + 1;
	}
	return sort_names(snapshot->user_names, snapshot->user_name_count, "user", place) ||
	       sort_names(snapshot->group_names, snapshot->group_name_count, "group", place) ? -1 : 0;
}

const char *snapshot_user_name(const struct snapshot *snapshot, uint32_t uid)
{
	struct id_name key = { uid, NULL };
	const struct id_name *found = snapshot->user_names ?
		bsearch(&key, snapshot->user_names, snapshot->user_name_count, sizeof(key), name_compare) : NULL;
	return found ? found->name : NULL;
}
