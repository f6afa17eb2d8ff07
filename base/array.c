/*
 * base/array.c - growing arrays and byte buffers (base/array.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"

void array_reserve(void *items_pointer, size_t *capacity, size_t need, size_t element_bytes)
{
	void **items = items_pointer;
	if (need <= *capacity)
		return;
	size_t grown = *capacity ? *capacity : 16;
	while (grown < need) {
		if (grown > SIZE_MAX / 2)
			out_of_memory();
		grown *= 2;
	}
	*items = xreallocarray(*items, grown, element_bytes);
	*capacity = grown;
}

void buffer_reserve(struct buffer *buffer, size_t extra)
{
	if (extra > SIZE_MAX - buffer->length - 1)
		out_of_memory();
	size_t need = buffer->length + extra + 1;
	if (need <= buffer->capacity)
		return;
	/* bytes start at a page, not 16: buffers hold files and lines */
	if (!buffer->capacity) {
		buffer->capacity = need > 4096 ? need : 4096;
		buffer->data = xrealloc(buffer->data, buffer->capacity);
		return;
	}
	array_reserve(&buffer->data, &buffer->capacity, need, 1);
}

void buffer_add(struct buffer *buffer, const void *data, size_t bytes)
{
	buffer_reserve(buffer, bytes);
	if (bytes)
		memcpy(buffer->data + buffer->length, data, bytes);
	buffer->length += bytes;
	buffer->data[buffer->length] = '\0';
}

void buffer_add_string(struct buffer *buffer, const char *text)
{
	buffer_add(buffer, text, strlen(text));
}

void buffer_vprintf(struct buffer *buffer, const char *format, va_list args)
{
	va_list copy;
	va_copy(copy, args);
	int length = vsnprintf(NULL, 0, format, copy);
	va_end(copy);
	if (length < 0)
		out_of_memory();  /* glibc fails vsnprintf only for want of memory */
	buffer_reserve(buffer, (size_t)length);
	vsnprintf(buffer->data + buffer->length, (size_t)length + 1, format, args);
	buffer->length += (size_t)length;
}

void buffer_printf(struct buffer *buffer, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	buffer_vprintf(buffer, format, args);
	va_end(args);
}

char *buffer_release(struct buffer *buffer)
{
	char *data = buffer->data;
	*buffer = (struct buffer){ 0 };
	return data;
}

void buffer_free(struct buffer *buffer)
{
	free(buffer->data);
	*buffer = (struct buffer){ 0 };
}

void array_sort(void *items, size_t count, size_t item_bytes,
		int (*compare)(const void *, const void *))
{
	if (count > 1)
		qsort(items, count, item_bytes, compare);
}

static uint64_t key_at(const char *items, size_t index, size_t item_bytes, size_t key_offset)
{
	uint64_t key;
	memcpy(&key, items + index * item_bytes + key_offset, sizeof(key));
	return key;
}

/* One stable counting pass on the byte at `shift` of each key: from into to. */
static void sort_pass(const char *from, char *to, size_t count, size_t item_bytes, size_t key_offset,
		      unsigned shift)
{
	size_t at[256] = { 0 };
	for (size_t i = 0; i < count; i++)
		at[key_at(from, i, item_bytes, key_offset) >> shift & 0xff]++;
	for (size_t b = 0, sum = 0; b < 256; b++) {
		size_t n = at[b];
		at[b] = sum;
		sum += n;
	}
	for (size_t i = 0; i < count; i++)
		memcpy(to + at[key_at(from, i, item_bytes, key_offset) >> shift & 0xff]++ * item_bytes,
		       from + i * item_bytes, item_bytes);
}

void array_sort_by_u64(void *items, size_t count, size_t item_bytes, size_t key_offset)
{
	if (count < 2)
		return;
	/* the bytes in which some two keys differ: only those need a pass */
	uint64_t first = key_at(items, 0, item_bytes, key_offset), differ = 0;
	for (size_t i = 1; i < count; i++)
		differ |= key_at(items, i, item_bytes, key_offset) ^ first;
	char *from = items, *spare = xreallocarray(NULL, count, item_bytes), *to = spare;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!(differ >> shift & 0xff))
			continue;
		sort_pass(from, to, count, item_bytes, key_offset, shift);
		char *swap = from;
		from = to;
		to = swap;
	}
	if (from != items)
		memcpy(items, from, count * item_bytes);
	free(spare);
}
