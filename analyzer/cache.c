/*
 * analyzer/cache.c - the facts of one translation unit on disk.
 *
 * A file per unit under CACHE/tu/, named by a hash of what the parse was
 * asked (the unit's path, its clang arguments, the configuration header,
 * libclang's version and the format and facts versions).  What the parse
 * read is recorded inside: every file of libclang's inclusion list (the .c
 * file, every header, the -include files) with its size and mtime.  A
 * file is used only when every one of them still has that size and mtime,
 * so an edited header (an rmap.h inline) re-parses every unit that read it.
 *
 * The format is line-based text, one record per line, so that it is easy
 * to inspect:
 *
 *   ptscope-facts 3                              (format version)
 *   counts ERRORS WARNINGS UNRESOLVED FAILED
 *   error FIRST-ERROR-MESSAGE                    (optional)
 *   i SIZE MTIME-SECONDS MTIME-NANOSECONDS PATH  (a file the unit read)
 *   s STRING                                     (string N, in order)
 *   f USR NAME FILE LINE DEFINED                 (strings by number)
 *   c CALLER CALLEE|- FIELD|- LINE               (function numbers)
 *   a FIELD FUNCTION                             (stored in a field)
 *   end
 *
 * A file that does not end with "end", or of another format version (the
 * cache folder is shared by every ptscope build of the user), is ignored and
 * the unit re-parsed; the version is in the name's hash as well, so builds of
 * different versions never overwrite each other's files.
 *
 * Whoever can write the cache can make ptscope print what they like or,
 * through a planted link, write where they like (as root).  So the cache
 * folder is used only when it is private: it and every folder in it owned
 * by the user running ptscope and writable by no one else, every folder
 * above it owned by that user or root and writable by no one else unless
 * sticky (/tmp), no link on the way; an entry is read only when it is a
 * regular file of the user's that no one else may write, opened without
 * following a link.  Anything else: the unit is parsed cold.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/internal.h"

#define CACHE_MAGIC "ptscope-facts 4\n"

uint64_t cache_key(const struct tu_job *job, uint64_t salt)
{
	uint64_t hash = hash_bytes_more(salt, CACHE_MAGIC, strlen(CACHE_MAGIC));
	hash = hash_bytes_more(hash, job->path, strlen(job->path) + 1);
	for (size_t i = 0; i < job->arguments.count; i++)
		hash = hash_bytes_more(hash, job->arguments.items[i], strlen(job->arguments.items[i]) + 1);
	return hash;
}

/* "TAG TEXT\n", TEXT on one line */
static void add_line_text(struct buffer *out, const char *tag, const char *text)
{
	buffer_add(out, tag, strlen(tag));
	for (const char *p = text; *p; p++)
		buffer_add(out, *p == '\n' || *p == '\r' ? " " : p, 1);
	buffer_add(out, "\n", 1);
}

static void add_index(struct buffer *out, uint32_t value, const char *after)
{
	if (value == CG_NONE)
		buffer_printf(out, "-%s", after);
	else
		buffer_printf(out, "%u%s", value, after);
}

void cache_serialise(const struct tu_facts *facts, struct buffer *out)
{
	buffer_printf(out, CACHE_MAGIC "counts %zu %zu %zu %d\n", facts->errors,
			 facts->warnings, facts->unresolved_pointer_calls, facts->failed ? 1 : 0);
	if (facts->first_error)
		add_line_text(out, "error ", facts->first_error);
	for (size_t i = 0; i < facts->error_sites.count; i++)
		add_line_text(out, "E ", facts->error_sites.items[i]);
	for (size_t i = 0; i < facts->input_count; i++) {
		const struct tu_input *input = &facts->inputs[i];
		buffer_printf(out, "i %" PRId64 " %" PRId64 " %" PRId64 " ", input->size,
				 input->mtime_sec, input->mtime_nsec);
		add_line_text(out, "", input->path);
	}
	for (size_t i = 0; i < facts->strings.count; i++)
		add_line_text(out, "s ", facts->strings.text[i]);
	for (size_t i = 0; i < facts->function_count; i++) {
		const struct tu_function *function = &facts->functions[i];
		buffer_printf(out, "f %u %u %u %u %d\n", function->usr, function->name,
				 function->file, function->line, function->defined ? 1 : 0);
	}
	for (size_t i = 0; i < facts->call_count; i++) {
		const struct tu_call *call = &facts->calls[i];
		buffer_printf(out, "c %u ", call->caller);
		add_index(out, call->callee, " ");
		add_index(out, call->field, " ");
		buffer_printf(out, "%u\n", call->line);
	}
	for (size_t i = 0; i < facts->store_count; i++)
		buffer_printf(out, "a %u %u\n", facts->stores[i].field, facts->stores[i].function);
	buffer_add(out, "end\n", 4);
}

/* Read an unsigned number or "-" (CG_NONE); false on anything else. */
static bool read_index(char **cursor, uint32_t *value)
{
	char *p = *cursor;
	while (*p == ' ')
		p++;
	if (*p == '-') {
		*value = CG_NONE;
		*cursor = p + 1;
		return true;
	}
	char *end;
	unsigned long number = strtoul(p, &end, 10);
	if (end == p || number >= CG_NONE)
		return false;
	*value = (uint32_t)number;
	*cursor = end;
	return true;
}

static bool read_indexes(char *p, uint32_t *values, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (!read_index(&p, &values[i]))
			return false;
	return true;
}

/* Each record kind's reader: text is the line after "K ". */
static bool parse_string(struct tu_facts *facts, char *text)
{
	uint32_t before = (uint32_t)facts->strings.count;
	/* strings were distinct when written: a repeat means a damaged file */
	return cg_intern(&facts->strings, text) == before;
}

static bool parse_function(struct tu_facts *facts, char *text)
{
	uint32_t v[5];
	if (!read_indexes(text, v, 5) || v[0] >= facts->strings.count ||
	    v[1] >= facts->strings.count || v[2] >= facts->strings.count)
		return false;
	array_reserve(&facts->functions, &facts->function_capacity, facts->function_count + 1, sizeof(*facts->functions));
	facts->functions[facts->function_count++] = (struct tu_function){
		.usr = v[0], .name = v[1], .file = v[2], .line = v[3], .defined = v[4] != 0,
	};
	return true;
}

static bool parse_call(struct tu_facts *facts, char *text)
{
	uint32_t v[4];
	if (!read_indexes(text, v, 4) || v[0] >= facts->function_count ||
	    (v[1] != CG_NONE && v[1] >= facts->function_count) ||
	    (v[2] != CG_NONE && v[2] >= facts->strings.count) || (v[1] == CG_NONE) == (v[2] == CG_NONE))
		return false;
	array_reserve(&facts->calls, &facts->call_capacity, facts->call_count + 1, sizeof(*facts->calls));
	facts->calls[facts->call_count++] = (struct tu_call){
		.caller = v[0], .callee = v[1], .field = v[2], .line = v[3],
	};
	return true;
}

static bool parse_store(struct tu_facts *facts, char *text)
{
	uint32_t v[2];
	if (!read_indexes(text, v, 2) || v[0] >= facts->strings.count || v[1] >= facts->function_count)
		return false;
	array_reserve(&facts->stores, &facts->store_capacity, facts->store_count + 1, sizeof(*facts->stores));
	facts->stores[facts->store_count++] = (struct tu_store){ .field = v[0], .function = v[1] };
	return true;
}

static bool parse_input(struct tu_facts *facts, char *text)
{
	long long size, seconds, nanoseconds;
	int used = 0;
	if (sscanf(text, "%lld %lld %lld %n", &size, &seconds, &nanoseconds, &used) != 3 ||
	    used == 0 || text[used] != '/')
		return false;
	array_reserve(&facts->inputs, &facts->input_capacity, facts->input_count + 1, sizeof(*facts->inputs));
	facts->inputs[facts->input_count++] = (struct tu_input){
		.path = xstrdup(text + used), .size = size,
		.mtime_sec = seconds, .mtime_nsec = nanoseconds,
	};
	return true;
}

static bool parse_error_site(struct tu_facts *facts, char *text)
{
	if (facts->error_sites.count >= TU_ERROR_SITES)
		return false;
	cg_list_add(&facts->error_sites, text);
	return true;
}

static bool parse_record(struct tu_facts *facts, char *line)
{
	static const struct {
		char kind;
		bool (*parse)(struct tu_facts *facts, char *text);
	} kinds[] = {
		{ 's', parse_string }, { 'f', parse_function }, { 'c', parse_call },
		{ 'a', parse_store }, { 'i', parse_input }, { 'E', parse_error_site },
	};
	if (!strncmp(line, "error ", 6)) {
		free(facts->first_error);
		facts->first_error = xstrdup(line + 6);
		return true;
	}
	if (line[0] == '\0' || line[1] != ' ')
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == line[0])
			return kinds[i].parse(facts, line + 2);
	return false;
}

bool cache_parse(char *text, size_t size, struct tu_facts *facts)
{
	size_t magic = strlen(CACHE_MAGIC);
	if (size < magic || memcmp(text, CACHE_MAGIC, magic))
		return false;
	char *line = text + magic;
	unsigned long counts[4];
	if (sscanf(line, "counts %lu %lu %lu %lu", &counts[0], &counts[1], &counts[2], &counts[3]) != 4)
		return false;
	facts->errors = counts[0];
	facts->warnings = counts[1];
	facts->unresolved_pointer_calls = counts[2];
	facts->failed = counts[3] != 0;
	line = strchr(line, '\n');
	while (line && line < text + size) {
		line++;
		char *end = strchr(line, '\n');
		if (!end)
			return false;
		*end = '\0';
		if (!strcmp(line, "end"))
			return end + 1 == text + size;
		if (!parse_record(facts, line))
			return false;
		line = end;
	}
	return false;
}

/* A folder of the cache itself: not a link, a folder, ours, writable by no
 * one else.  NULL, or why not. */
static const char *folder_doubt(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return strerror(errno);
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (!S_ISDIR(st.st_mode))
		return "not a folder";
	if (st.st_uid != geteuid())
		return "owned by another user";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "writable by other users";
	return NULL;
}

/* A folder above the cache: a link or another user's folder could be
 * changed under it unless only root or we can write there (or it is
 * sticky: /tmp lets no one rename what is ours). */
static const char *ancestor_doubt(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return strerror(errno);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return "inside a folder another user owns";
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return "inside a folder other users may write";
	return NULL;
}

bool cache_folder_private(const char *path, char **why)
{
	*why = NULL;
	char resolved[PATH_MAX];
	const char *doubt = folder_doubt(path);
	if (!doubt && !realpath(path, resolved))
		doubt = strerror(errno);
	/* every folder above, from the root down */
	for (char *slash = doubt ? NULL : strchr(resolved + 1, '/'); slash && !doubt; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		doubt = ancestor_doubt(resolved);
		*slash = '/';
	}
	if (!doubt && (doubt = ancestor_doubt("/")) == NULL)
		return true;
	*why = xasprintf("%s: %s", path, doubt);
	return false;
}

bool cache_make_folder(const char *path)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return false;
	return folder_doubt(path) == NULL;
}

/* An entry we wrote: a regular file of ours no one else may write, in a
 * private folder, never through a link; read whole, bounded. */
static bool read_entry(const char *cache_dir, const char *path, char **text, size_t *size)
{
	char *folder = xasprintf("%s/tu", cache_dir);
	bool trusted = folder_doubt(folder) == NULL;
	free(folder);
	if (!trusted)
		return false;
	return cg_read_private_file(path, text, size);
}

static char *cache_path(const char *cache_dir, uint64_t key)
{
	return xasprintf("%s/tu/%016llx", cache_dir, (unsigned long long)key);
}

bool cache_load(const char *cache_dir, uint64_t key, struct tu_facts *facts, struct input_states *states)
{
	char *path = cache_path(cache_dir, key), *text;
	size_t size;
	bool ok = read_entry(cache_dir, path, &text, &size);
	free(path);
	if (!ok)
		return false;
	/* a unit whose every input is unchanged is what a parse would give now */
	ok = cache_parse(text, size, facts) && tu_inputs_current(facts, states);
	free(text);
	if (!ok)
		tu_facts_free(facts);
	return ok;
}

bool cache_store(const char *cache_dir, uint64_t key, const struct tu_facts *facts)
{
	/* without the state of every input a cached copy could not be checked */
	if (facts->input_count == 0)
		return false;
	for (size_t i = 0; i < facts->input_count; i++)
		if (facts->inputs[i].size < 0)
			return false;
	char *folder = xasprintf("%s/tu", cache_dir);
	bool ok = cache_make_folder(folder);
	free(folder);
	if (!ok)
		return false;
	struct buffer out = { 0 };
	cache_serialise(facts, &out);
	char *path = cache_path(cache_dir, key);
	ok = cg_write_file_atomic(path, out.data, out.length);
	free(path);
	buffer_free(&out);
	return ok;
}

/* A precompiled header (pch.c) is read by libclang itself, not by us, so
 * only its standing is checked: a regular file of ours that no one else may
 * write, not reached through a link, in a private folder of the cache. */
bool cache_entry_private(const char *folder, const char *path)
{
	if (folder_doubt(folder))
		return false;
	struct stat st;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}
