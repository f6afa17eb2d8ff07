/*
 * inputs/users_capture.c - the capture's side of the `users` member
 * (inputs/users.c reads it): the uids and gids of the processes captured,
 * named through the captured host's NSS.
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/internal.h"

void id_set_add(struct id_set *set, uint32_t id)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->ids[i] == id)
			return;
	if (set->count == USERS_MAX_IDS)
		return;
	set->ids = xreallocarray(set->ids, set->count + 1, sizeof(*set->ids));
	set->ids[set->count++] = id;
}

/* The ids of a status's "Uid:" or "Gid:" line (real, effective, saved, fs). */
void id_set_add_status(struct id_set *set, const char *status, size_t length, const char *key)
{
	size_t key_length = strlen(key);
	for (const char *line = status; line && line < status + length; ) {
		const char *end = memchr(line, '\n', (size_t)(status + length - line));
		if (!end)
			end = status + length;
		if ((size_t)(end - line) > key_length && !memcmp(line, key, key_length)) {
			const char *p = line + key_length;
			uint64_t id;
			while (p < end) {
				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				if (p == end || !parse_u64(p, end, &id, &p) || id > UINT32_MAX)
					break;
				id_set_add(set, (uint32_t)id);
			}
			return;
		}
		line = end + 1;
	}
}

static bool printable_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > USERS_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p == 0x7f)
			return false;
	return true;
}

static int id_compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* One kind's lines, in id order; an id without a name is left out. */
static void append_names(struct buffer *out, struct id_set *set, bool users)
{
	char scratch[16384];
	array_sort(set->ids, set->count, sizeof(*set->ids), id_compare);
	for (size_t i = 0; i < set->count; i++) {
		const char *name = NULL;
		if (users) {
			struct passwd entry, *found = NULL;
			if (getpwuid_r(set->ids[i], &entry, scratch, sizeof(scratch), &found) == 0 && found)
				name = found->pw_name;
		} else {
			struct group entry, *found = NULL;
			if (getgrgid_r(set->ids[i], &entry, scratch, sizeof(scratch), &found) == 0 && found)
				name = found->gr_name;
		}
		if (!name || !printable_name(name))
			continue;
		buffer_printf(out, "%s %u %s\n", users ? "user" : "group", set->ids[i], name);
	}
}

void users_member_text(struct id_set *uids, struct id_set *gids, struct buffer *out)
{
	out->length = 0;
	append_names(out, uids, true);
	append_names(out, gids, false);
}
