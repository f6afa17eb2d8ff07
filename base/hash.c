/*
 * base/hash.c - growing the one hash table (base/hash.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"

#define HASH_MIN_SLOTS 64
#define HASH_MAX_ENTRIES (UINT32_C(1) << 31)

static void place(uint32_t *slots, size_t mask, uint64_t hash, size_t index)
{
	size_t slot = (size_t)hash & mask;
	while (slots[slot])
		slot = (slot + 1) & mask;
	slots[slot] = (uint32_t)(index + 1);
}

/* Slots for `count` entries at most half full: a probe then ends after
 * about 2.5 slots on average even when it misses (Knuth 6.4). */
void hash_reserve(struct hash_table *table, size_t count, hash_rehash_fn *rehash, const void *context)
{
	if (count > HASH_MAX_ENTRIES)
		out_of_memory();
	size_t slot_count = table->slots ? table->mask + 1 : 0;
	if (count * 2 <= slot_count)
		return;
	size_t grown = slot_count ? slot_count : HASH_MIN_SLOTS;
	while (count * 2 > grown)
		grown *= 2;
	uint32_t *slots = xcalloc(grown, sizeof(*slots));
	for (size_t s = 0; s < slot_count; s++)
		if (table->slots[s])
			place(slots, grown - 1, rehash(context, table->slots[s] - 1), table->slots[s] - 1);
	free(table->slots);
	table->slots = slots;
	table->mask = grown - 1;
}

void hash_add(struct hash_table *table, uint64_t hash, size_t index, hash_rehash_fn *rehash,
	      const void *context)
{
	if (index >= HASH_MAX_ENTRIES)
		out_of_memory();
	hash_reserve(table, table->count + 1, rehash, context);
	place(table->slots, table->mask, hash, index);
	table->count++;
}

void hash_clear(struct hash_table *table)
{
	if (table->slots)
		memset(table->slots, 0, (table->mask + 1) * sizeof(*table->slots));
	table->count = 0;
}

void hash_free(struct hash_table *table)
{
	free(table->slots);
	*table = (struct hash_table){ 0 };
}
