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

struct intern_slot {
	const char *text;
	size_t length;
	uint64_t hash;
};

struct arena {
	struct block *blocks;
	struct intern_slot *slots;
	size_t slot_count, slot_used;
};

struct arena *arena_create(void)
{
	return calloc(1, sizeof(struct arena));
}

void arena_destroy(struct arena *arena)
{
	if (!arena)
		return;
	for (struct block *b = arena->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(arena->slots);
	free(arena);
}

static char *arena_allocate(struct arena *arena, size_t bytes)
{
	struct block *b = arena->blocks;
	if (!b || b->size - b->used < bytes) {
		size_t size = bytes > BLOCK_BYTES ? bytes : BLOCK_BYTES;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = arena->blocks;
		arena->blocks = b;
	}
	char *p = b->data + b->used;
	b->used += bytes;
	return p;
}

/* FNV-1a: short strings, no adversary to fear in a snapshot's paths. */
static uint64_t hash_bytes(const char *s, size_t length)
{
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < length; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
	return h;
}

static int arena_grow_slots(struct arena *arena)
{
	size_t count = arena->slot_count ? arena->slot_count * 2 : 1024;
	struct intern_slot *slots = calloc(count, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < arena->slot_count; i++) {
		struct intern_slot *old = &arena->slots[i];
		if (!old->text)
			continue;
		size_t j = old->hash & (count - 1);
		while (slots[j].text)
			j = (j + 1) & (count - 1);
		slots[j] = *old;
	}
	free(arena->slots);
	arena->slots = slots;
	arena->slot_count = count;
	return 0;
}

const char *arena_intern(struct arena *arena, const char *s, size_t length)
{
	if (arena->slot_used * 2 >= arena->slot_count && arena_grow_slots(arena))
		return NULL;
	uint64_t hash = hash_bytes(s, length);
	size_t i = hash & (arena->slot_count - 1);
	for (; arena->slots[i].text; i = (i + 1) & (arena->slot_count - 1)) {
		struct intern_slot *slot = &arena->slots[i];
		if (slot->hash == hash && slot->length == length && !memcmp(slot->text, s, length))
			return slot->text;
	}
	char *copy = arena_allocate(arena, length + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, length);
	copy[length] = '\0';
	arena->slots[i] = (struct intern_slot){ copy, length, hash };
	arena->slot_used++;
	return copy;
}
