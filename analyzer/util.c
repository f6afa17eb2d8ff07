/*
 * analyzer/util.c - interned strings, string lists and file helpers used
 * across the analyzer; allocation, buffers, hashing, file reads and atomic
 * writes are the base layer's (base/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/output.h"
#include "analyzer/internal.h"

/* Whole files through base/file.h, handed over NUL-terminated: only a
 * regular file (a tree's Makefile or header could be a FIFO, or a link to
 * /dev/zero), and at most FILE_LIMIT_SOURCE_BYTES.  A private file (a cache
 * entry) is also never reached through a link, and must be ours and
 * writable by no one else. */
static bool read_regular_file(const char *path, bool private_file, char **text, size_t *size)
{
	struct buffer buffer = { 0 };
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (private_file ? O_NOFOLLOW : 0));
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  (!private_file || (st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)))) &&
		  (uint64_t)st.st_size <= FILE_LIMIT_SOURCE_BYTES &&
		  file_read_fd_bounded(fd, FILE_LIMIT_SOURCE_BYTES, &buffer) == 0;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		buffer_free(&buffer);
		return false;
	}
	*size = buffer.length;
	buffer_reserve(&buffer, 0);  /* an empty file still gets its NUL */
	buffer.data[buffer.length] = '\0';
	*text = buffer_release(&buffer);
	return true;
}

bool cg_read_file(const char *path, char **text, size_t *size)
{
	return read_regular_file(path, false, text, size);
}

char *cg_tree_name(const char *file, const char *root, const char *arch)
{
	size_t length = strlen(root);
	if (!strncmp(file, root, length) && file[length] == '/')
		return xstrdup(file + length + 1);
	const char *shim = strstr(file, "/shim/"), *copy = strstr(file, "/compat/asm/");
	if (shim && copy && shim < copy && arch && arch[0])
		return xasprintf("include/asm-%s/%s", arch, copy + strlen("/compat/asm/"));
	return xstrdup(file);
}

bool cg_read_private_file(const char *path, char **text, size_t *size)
{
	return read_regular_file(path, true, text, size);
}

bool cg_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cg_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool cg_make_dirs(const char *path)
{
	char *copy = xstrdup(path);
	for (char *slash = copy + 1; ; slash++) {
		if (*slash != '/' && *slash != '\0')
			continue;
		char saved = *slash;
		*slash = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
			free(copy);
			return false;
		}
		*slash = saved;
		if (!saved)
			break;
	}
	free(copy);
	return cg_is_dir(path);
}

/* Cache entries and shim headers appear whole (base/output.h): a reader in
 * another process never sees half a file. */
bool cg_write_file_atomic(const char *path, const char *data, size_t size)
{
	struct output output;
	struct error error;
	if (output_open(&output, path, &error) != 0)
		return false;
	bool ok = true;
	while (ok && size > 0) {
		ssize_t wrote = write(output_fd(&output), data, size);
		if (wrote < 0 && errno == EINTR)
			continue;
		ok = wrote > 0;
		if (ok) {
			data += wrote;
			size -= (size_t)wrote;
		}
	}
	if (!ok) {
		output_discard(&output);
		return false;
	}
	return output_publish(&output, &error) == 0;
}

/* Interned strings: the base hash table over the text array. */
static uint64_t string_hash(const char *text)
{
	return hash_keyed(text, strlen(text));
}

static uint64_t rehash_string(const void *context, size_t index)
{
	const struct cg_strings *strings = context;
	return string_hash(strings->text[index]);
}

uint32_t cg_lookup(const struct cg_strings *strings, const char *text)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&strings->table, string_hash(text), &probe); i != HASH_NONE;
	     i = hash_next(&strings->table, &probe))
		if (!strcmp(strings->text[i], text))
			return (uint32_t)i;
	return CG_NONE;
}

uint32_t cg_intern(struct cg_strings *strings, const char *text)
{
	uint32_t found = cg_lookup(strings, text);
	if (found != CG_NONE)
		return found;
	*ARRAY_PUSH(strings->text, strings->count, strings->capacity) = xstrdup(text);
	hash_add(&strings->table, string_hash(text), strings->count - 1, rehash_string, strings);
	return (uint32_t)strings->count - 1;
}

void cg_strings_free(struct cg_strings *strings)
{
	for (size_t i = 0; i < strings->count; i++)
		free(strings->text[i]);
	free(strings->text);
	hash_free(&strings->table);
	memset(strings, 0, sizeof(*strings));
}

void cg_list_add_owned(struct cg_list *list, char *text)
{
	array_reserve(&list->items, &list->capacity, list->count + 2, sizeof(char *));
	list->items[list->count++] = text;
	list->items[list->count] = NULL;
}

void cg_list_add(struct cg_list *list, const char *text)
{
	cg_list_add_owned(list, xstrdup(text));
}

bool cg_list_has(const struct cg_list *list, const char *text)
{
	for (size_t i = 0; i < list->count; i++)
		if (!strcmp(list->items[i], text))
			return true;
	return false;
}

void cg_list_free(struct cg_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

void cg_values_set(struct cg_values *values, const char *name, char *value)
{
	uint32_t index = cg_intern(&values->names, name);
	if (index >= values->capacity) {
		size_t old = values->capacity;
		array_reserve(&values->values, &values->capacity, index + 1, sizeof(char *));
		memset(values->values + old, 0, (values->capacity - old) * sizeof(char *));
	}
	free(values->values[index]);
	values->values[index] = value;
}

const char *cg_values_get(const struct cg_values *values, const char *name)
{
	uint32_t index = cg_lookup(&values->names, name);
	return index == CG_NONE ? NULL : values->values[index];
}

void cg_values_free(struct cg_values *values)
{
	for (size_t i = 0; i < values->names.count; i++)
		free(values->values[i]);
	free(values->values);
	cg_strings_free(&values->names);
	memset(values, 0, sizeof(*values));
}

void cg_free_owning(void *items, size_t count, size_t element_bytes, size_t member_offset)
{
	for (size_t i = 0; i < count; i++) {
		void *member;
		memcpy(&member, (char *)items + i * element_bytes + member_offset, sizeof(member));
		free(member);
	}
	free(items);
}

void tu_facts_free(struct tu_facts *facts)
{
	cg_strings_free(&facts->strings);
	FREE_ALL(facts->functions, facts->calls, facts->stores, facts->first_error, facts->outside);
	cg_list_free(&facts->error_sites);
	cg_free_owning(facts->inputs, facts->input_count, sizeof(*facts->inputs), offsetof(struct tu_input, path));
	memset(facts, 0, sizeof(*facts));
}

static void input_state(const char *path, struct tu_input *input)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		input->size = (int64_t)st.st_size;
		input->mtime_sec = (int64_t)st.st_mtim.tv_sec;
		input->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	} else {
		input->size = -1;
		input->mtime_sec = input->mtime_nsec = 0;
	}
}

void tu_add_input(struct tu_facts *facts, const char *path)
{
	array_reserve(&facts->inputs, &facts->input_capacity, facts->input_count + 1, sizeof(*facts->inputs));
	struct tu_input *input = &facts->inputs[facts->input_count++];
	input->path = xstrdup(path);
	input_state(path, input);
}

static uint64_t input_state_hash(const void *context, size_t index)
{
	const struct input_states *states = context;
	const char *path = states->items[index].path;
	return hash_keyed(path, strlen(path));
}

/* The state of path, from the run's memo when it has been stat'ed before. */
static struct tu_input input_state_once(const char *path, struct input_states *states)
{
	struct tu_input now;
	if (!states) {
		input_state(path, &now);
		return now;
	}
	uint64_t hash = hash_keyed(path, strlen(path));
	struct hash_probe probe;
	for (size_t i = hash_first(&states->index, hash, &probe); i != HASH_NONE;
	     i = hash_next(&states->index, &probe))
		if (strcmp(states->items[i].path, path) == 0)
			return states->items[i];
	input_state(path, &now);
	now.path = xstrdup(path);
	array_reserve(&states->items, &states->capacity, states->count + 1, sizeof(*states->items));
	states->items[states->count] = now;
	hash_add(&states->index, hash, states->count++, input_state_hash, states);
	return now;
}

void input_states_free(struct input_states *states)
{
	cg_free_owning(states->items, states->count, sizeof(*states->items), offsetof(struct tu_input, path));
	hash_free(&states->index);
	memset(states, 0, sizeof(*states));
}

bool tu_inputs_current(const struct tu_facts *facts, struct input_states *states)
{
	for (size_t i = 0; i < facts->input_count; i++) {
		struct tu_input now = input_state_once(facts->inputs[i].path, states);
		if (now.size < 0 || now.size != facts->inputs[i].size ||
		    now.mtime_sec != facts->inputs[i].mtime_sec ||
		    now.mtime_nsec != facts->inputs[i].mtime_nsec)
			return false;
	}
	return true;
}

uint32_t tu_add_function(struct tu_facts *facts, const char *usr, const char *name,
			 const char *file, unsigned line, bool defined)
{
	array_reserve(&facts->functions, &facts->function_capacity, facts->function_count + 1, sizeof(*facts->functions));
	struct tu_function *function = &facts->functions[facts->function_count];
	function->usr = cg_intern(&facts->strings, usr);
	function->name = cg_intern(&facts->strings, name);
	function->file = cg_intern(&facts->strings, file);
	function->line = line;
	function->defined = defined;
	return (uint32_t)facts->function_count++;
}

/* ---- the folders a parse may read (read_roots) ---- */

/* System headers may be read besides the tree and the cache. */
const char *const read_roots_system[] = {
	"/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib/clang", "/usr/lib/llvm-",
};
const size_t read_roots_system_count = sizeof(read_roots_system) / sizeof(read_roots_system[0]);

/* path (resolved) is folder or under it ("/usr/lib/llvm-" also matches a
 * version's folder: a prefix ending in '-' needs no slash after it). */
static bool path_under(const char *path, const char *folder)
{
	size_t length = strlen(folder);
	if (length == 1 && folder[0] == '/')
		return true;
	return !strncmp(path, folder, length) &&
	       (path[length] == '\0' || path[length] == '/' || folder[length - 1] == '-');
}

bool read_roots_allow(const struct read_roots *roots, const char *resolved)
{
	if ((roots->tree && path_under(resolved, roots->tree)) ||
	    (roots->cache && path_under(resolved, roots->cache)))
		return true;
	for (size_t i = 0; i < read_roots_system_count; i++)
		if (path_under(resolved, read_roots_system[i]))
			return true;
	return false;
}
