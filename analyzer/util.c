/*
 * analyzer/util.c - allocation, buffers, interned strings, string lists and
 * file helpers used across the analyzer.
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

void *cg_xmalloc(size_t size)
{
	void *pointer = malloc(size ? size : 1);
	if (!pointer) {
		fprintf(stderr, "ptscope: out of memory\n");
		exit(2);
	}
	return pointer;
}

void *cg_xrealloc(void *pointer, size_t size)
{
	pointer = realloc(pointer, size ? size : 1);
	if (!pointer) {
		fprintf(stderr, "ptscope: out of memory\n");
		exit(2);
	}
	return pointer;
}

char *cg_xstrdup(const char *text)
{
	size_t size = strlen(text) + 1;
	return memcpy(cg_xmalloc(size), text, size);
}

char *cg_format(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	char *text = NULL;
	if (vasprintf(&text, format, args) < 0)
		text = NULL;
	va_end(args);
	if (!text) {
		fprintf(stderr, "ptscope: out of memory\n");
		exit(2);
	}
	return text;
}

void cg_reserve(void *array_pointer, size_t *capacity, size_t need, size_t element_size)
{
	void **array = array_pointer;
	if (need < *capacity)
		return;
	size_t grown = *capacity ? *capacity * 2 : 16;
	while (grown <= need)
		grown *= 2;
	*array = cg_xrealloc(*array, grown * element_size);
	*capacity = grown;
}

/* FNV-1a: small, and good enough for hash tables and cache keys. */
uint64_t cg_hash(const void *data, size_t size, uint64_t seed)
{
	const unsigned char *bytes = data;
	uint64_t hash = seed ? seed : 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < size; i++) {
		hash ^= bytes[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

bool cg_read_file(const char *path, char **text, size_t *size)
{
	FILE *file = fopen(path, "rb");
	if (!file)
		return false;
	struct cg_buffer buffer = { 0 };
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), file)) > 0)
		cg_buffer_add(&buffer, chunk, got);
	bool ok = !ferror(file);
	fclose(file);
	cg_buffer_add(&buffer, "", 1);  /* NUL, not counted */
	*text = buffer.data;
	*size = buffer.length - 1;
	if (!ok)
		free(buffer.data);
	return ok;
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
	char *copy = cg_xstrdup(path);
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

/* Cache files go through base/output.h too: a cache folder may be shared,
 * and a fixed temporary name there could be planted as a symlink. */
bool cg_write_file_atomic(const char *path, const char *data, size_t size)
{
	struct output output;
	struct error problem;
	if (output_open(&output, path, &problem) < 0)
		return false;
	int fd = output_fd(&output);
	bool ok = true;
	while (ok && size > 0) {
		ssize_t wrote = write(fd, data, size);
		if (wrote <= 0) {
			ok = false;
			break;
		}
		data += wrote;
		size -= (size_t)wrote;
	}
	if (!ok) {
		output_discard(&output);
		return false;
	}
	return output_publish(&output, &problem) == 0;
}

void cg_buffer_add(struct cg_buffer *buffer, const char *data, size_t size)
{
	cg_reserve(&buffer->data, &buffer->capacity, buffer->length + size + 1, 1);
	memcpy(buffer->data + buffer->length, data, size);
	buffer->length += size;
	buffer->data[buffer->length] = '\0';
}

void cg_buffer_printf(struct cg_buffer *buffer, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	char small[512];
	int need = vsnprintf(small, sizeof(small), format, args);
	va_end(args);
	if (need < 0)
		return;
	if ((size_t)need < sizeof(small)) {
		cg_buffer_add(buffer, small, (size_t)need);
		return;
	}
	cg_reserve(&buffer->data, &buffer->capacity, buffer->length + (size_t)need + 1, 1);
	va_start(args, format);
	vsnprintf(buffer->data + buffer->length, (size_t)need + 1, format, args);
	va_end(args);
	buffer->length += (size_t)need;
}

void cg_buffer_free(struct cg_buffer *buffer)
{
	free(buffer->data);
	memset(buffer, 0, sizeof(*buffer));
}

static size_t slot_of(const struct cg_strings *strings, const char *text, bool *found)
{
	size_t mask = strings->slot_count - 1;
	size_t slot = cg_hash(text, strlen(text), 0) & mask;
	while (strings->slots[slot]) {
		if (!strcmp(strings->text[strings->slots[slot] - 1], text)) {
			*found = true;
			return slot;
		}
		slot = (slot + 1) & mask;
	}
	*found = false;
	return slot;
}

static void rehash(struct cg_strings *strings)
{
	free(strings->slots);
	strings->slot_count = strings->slot_count ? strings->slot_count * 2 : 256;
	strings->slots = calloc(strings->slot_count, sizeof(*strings->slots));
	if (!strings->slots) {
		fprintf(stderr, "ptscope: out of memory\n");
		exit(2);
	}
	for (size_t i = 0; i < strings->count; i++) {
		bool found;
		strings->slots[slot_of(strings, strings->text[i], &found)] = (uint32_t)i + 1;
	}
}

uint32_t cg_intern(struct cg_strings *strings, const char *text)
{
	if ((strings->count + 1) * 2 >= strings->slot_count)
		rehash(strings);
	bool found;
	size_t slot = slot_of(strings, text, &found);
	if (found)
		return strings->slots[slot] - 1;
	cg_reserve(&strings->text, &strings->capacity, strings->count, sizeof(char *));
	strings->text[strings->count] = cg_xstrdup(text);
	strings->slots[slot] = (uint32_t)++strings->count;
	return (uint32_t)strings->count - 1;
}

uint32_t cg_lookup(const struct cg_strings *strings, const char *text)
{
	if (!strings->slot_count)
		return CG_NONE;
	bool found;
	size_t slot = slot_of(strings, text, &found);
	return found ? strings->slots[slot] - 1 : CG_NONE;
}

void cg_strings_free(struct cg_strings *strings)
{
	for (size_t i = 0; i < strings->count; i++)
		free(strings->text[i]);
	free(strings->text);
	free(strings->slots);
	memset(strings, 0, sizeof(*strings));
}

void cg_list_add_owned(struct cg_list *list, char *text)
{
	cg_reserve(&list->items, &list->capacity, list->count + 1, sizeof(char *));
	list->items[list->count++] = text;
	list->items[list->count] = NULL;
}

void cg_list_add(struct cg_list *list, const char *text)
{
	cg_list_add_owned(list, cg_xstrdup(text));
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

void tu_facts_free(struct tu_facts *facts)
{
	cg_strings_free(&facts->strings);
	free(facts->functions);
	free(facts->calls);
	free(facts->stores);
	free(facts->first_error);
	for (size_t i = 0; i < facts->input_count; i++)
		free(facts->inputs[i].path);
	free(facts->inputs);
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
	cg_reserve(&facts->inputs, &facts->input_capacity, facts->input_count, sizeof(*facts->inputs));
	struct tu_input *input = &facts->inputs[facts->input_count++];
	input->path = cg_xstrdup(path);
	input_state(path, input);
}

bool tu_inputs_current(const struct tu_facts *facts)
{
	for (size_t i = 0; i < facts->input_count; i++) {
		struct tu_input now;
		input_state(facts->inputs[i].path, &now);
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
	cg_reserve(&facts->functions, &facts->function_capacity, facts->function_count,
		   sizeof(*facts->functions));
	struct tu_function *function = &facts->functions[facts->function_count];
	function->usr = cg_intern(&facts->strings, usr);
	function->name = cg_intern(&facts->strings, name);
	function->file = cg_intern(&facts->strings, file);
	function->line = line;
	function->defined = defined;
	return (uint32_t)facts->function_count++;
}
