/*
 * arena.c - one allocator for every string of a snapshot.
 *
 * Snapshots repeat the same few hundred paths across hundreds of thousands
 * of VMAs, so strings are interned: a VMA costs a pointer, not a copy, and
 * freeing a snapshot is freeing a handful of blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BLOCK_BYTES (256 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct interned {
	const char *text;
	size_t length;
	uint64_t hash;          /* kept: rehashing need not read every string again */
};

struct arena {
	struct block *blocks;
	struct interned *strings;
	size_t count, capacity;
	struct hash_table index;  /* strings by content (base/hash.h) */
};

struct arena *arena_create(void)
{
	return xcalloc(1, sizeof(struct arena));
}

void arena_destroy(struct arena *arena)
{
	if (!arena)
		return;
	for (struct block *b = arena->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(arena->strings);
	hash_free(&arena->index);
	free(arena);
}

static char *arena_allocate(struct arena *arena, size_t bytes)
{
	struct block *b = arena->blocks;
	if (!b || b->size - b->used < bytes) {
		size_t size = bytes > BLOCK_BYTES ? bytes : BLOCK_BYTES;
		b = xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = arena->blocks;
		arena->blocks = b;
	}
	char *p = b->data + b->used;
	b->used += bytes;
	return p;
}

static uint64_t rehash_string(const void *context, size_t index)
{
	const struct arena *arena = context;
	return arena->strings[index].hash;
}

const char *arena_intern(struct arena *arena, const char *s, size_t length)
{
	uint64_t hash = hash_keyed(s, length);
	struct hash_probe probe;
	for (size_t i = hash_first(&arena->index, hash, &probe); i != HASH_NONE;
	     i = hash_next(&arena->index, &probe)) {
		const struct interned *old = &arena->strings[i];
		if (old->hash == hash && old->length == length && !memcmp(old->text, s, length))
			return old->text;
	}
	char *copy = arena_allocate(arena, length + 1);
	memcpy(copy, s, length);
	copy[length] = '\0';
	*ARRAY_PUSH(arena->strings, arena->count, arena->capacity) = (struct interned){ copy, length, hash };
	hash_add(&arena->index, hash, arena->count - 1, rehash_string, arena);
	return copy;
}
