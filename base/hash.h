/*
 * base/hash.h - one open-addressing hash table: an index over an array the
 * caller owns.
 *
 * Every table in ptscope keeps its entries in a dense array (interned
 * strings, processes by pid, PFNs, fraction denominators, call-graph
 * strings and edges) and needs only "which entry has this key".  So the
 * table stores entry indexes, 4 bytes a slot, linear probing over a power
 * of two, at most half full; the caller compares keys itself while probing,
 * which keeps the comparison inline and the table ignorant of key types:
 *
 *	struct hash_probe probe;
 *	for (size_t i = hash_first(&table, hash, &probe); i != HASH_NONE;
 *	     i = hash_next(&table, &probe))
 *		if (entries[i].key == key)
 *			return &entries[i];
 *	// absent: append entries[count], then
 *	hash_add(&table, hash, count, hash_of_entry, entries);
 *
 * Growing rehashes from the entries: hash_add calls `rehash` with the
 * context for each index already held, so slots need not store hashes.
 * A table holds at most 2^31 entries (more ends the run as out of memory).
 */
#ifndef PTSCOPE_BASE_HASH_H
#define PTSCOPE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_NONE SIZE_MAX

struct hash_table {
	uint32_t *slots;        /* entry index + 1; 0 = empty */
	size_t mask;            /* slot count - 1 (0 before the first add) */
	size_t count;           /* entries held */
};

struct hash_probe {
	size_t slot;
	size_t mask;
};

/* The hash of entry `index`, for growing. */
typedef uint64_t hash_rehash_fn(const void *context, size_t index);

/* Mixers: 64-bit integers (the murmur3 finaliser); bytes no adversary
 * chooses (FNV-1a: fixed, so fit for keys kept on disk, such as the
 * analyzer's cache names); and strings from input, which may be chosen to
 * collide: hash_keyed, SipHash-2-4 under a per-process random key
 * (base/hash_keyed.c, libsodium). */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

#define HASH_BYTES_START UINT64_C(0xcbf29ce484222325)

/* Continue a byte hash: hash_bytes_more(hash_bytes(a, n), b, m) hashes a
 * then b (cache keys are built field by field). */
static inline uint64_t hash_bytes_more(uint64_t hash, const void *data, size_t bytes)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < bytes; i++)
		hash = (hash ^ p[i]) * UINT64_C(0x100000001b3);
	return hash;
}

static inline uint64_t hash_bytes(const void *data, size_t bytes)
{
	return hash_bytes_more(HASH_BYTES_START, data, bytes);
}

uint64_t hash_keyed(const void *data, size_t bytes);

/* The index in the probed slot, or HASH_NONE at the first empty slot. */
static inline size_t hash_probe_index(const struct hash_table *table, const struct hash_probe *probe)
{
	uint32_t held = table->slots[probe->slot];
	return held ? (size_t)held - 1 : HASH_NONE;
}

/* First candidate for `hash` (HASH_NONE: the key is absent). */
static inline size_t hash_first(const struct hash_table *table, uint64_t hash, struct hash_probe *probe)
{
	if (!table->slots)
		return HASH_NONE;
	probe->mask = table->mask;
	probe->slot = (size_t)hash & table->mask;
	return hash_probe_index(table, probe);
}

/* Next candidate after one whose key did not match. */
static inline size_t hash_next(const struct hash_table *table, struct hash_probe *probe)
{
	probe->slot = (probe->slot + 1) & probe->mask;
	return hash_probe_index(table, probe);
}

/* Record that entry `index` has `hash` (the caller found it absent). */
void hash_add(struct hash_table *table, uint64_t hash, size_t index, hash_rehash_fn *rehash,
	      const void *context);
/* Make room for `count` entries at once (optional: hash_add grows too). */
void hash_reserve(struct hash_table *table, size_t count, hash_rehash_fn *rehash, const void *context);
/* Forget every entry, keeping the slots. */
void hash_clear(struct hash_table *table);
void hash_free(struct hash_table *table);

#endif
