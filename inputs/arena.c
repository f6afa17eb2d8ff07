/*
 * arena.c - one allocator for every string of a snapshot, and for the
 * VMAs' counters.
 *
 * Snapshots repeat the same few hundred paths across hundreds of thousands
 * of VMAs, so strings are interned: a VMA costs a pointer, not a copy, and
 * freeing a snapshot is freeing a handful of blocks.  A VMA's smaps counters
 * (its nonzero fields, in field order) repeat too (a library mapped alike
 * by every backend, guard pages, [vvar]): they are interned the same way,
 * in a set of their own, so memory follows the distinct counters.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BLOCK_BYTES (256 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	uint64_t data[];        /* 8-byte aligned: counters are words */
};

struct interned {
	const void *bytes;
	size_t length;          /* bytes compared: a string's without its NUL */
	uint64_t hash;          /* kept: rehashing need not read every key again */
};

/* Interned keys of one kind: strings, or counter words. */
struct intern_set {
	struct interned *items;
	size_t count, capacity;
	struct hash_table index;  /* items by content (base/hash.h) */
};

struct arena {
	struct block *blocks;
	struct intern_set strings, words;
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
	free(arena->strings.items);
	hash_free(&arena->strings.index);
	free(arena->words.items);
	hash_free(&arena->words.index);
	free(arena);
}

/* bytes at an 8-byte boundary (a string's tail is at most 7 bytes wasted) */
static void *arena_allocate(struct arena *arena, size_t bytes)
{
	size_t rounded = (bytes + 7) & ~(size_t)7;
	struct block *b = arena->blocks;
	if (!b || b->size - b->used < rounded) {
		size_t size = rounded > BLOCK_BYTES ? rounded : BLOCK_BYTES;
		b = xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = arena->blocks;
		arena->blocks = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += rounded;
	return p;
}

/*
 * The hash of a key to intern.  Keys come from input, so it is keyed as
 * hash_keyed is (base/hash_keyed.c), but short keys (counters, paths: one
 * per VMA) take NH, the inner hash of UMAC: the sum, over the key's 8-byte
 * words, of the product of its two halves each added to a secret 32-bit
 * key, which collides for two keys of one length with probability 2^-32
 * whatever the keys chosen.  The secret is drawn from hash_keyed's own, so
 * the run's only random source stays libsodium.  Longer keys: hash_keyed.
 */
#define NH_WORDS 32
static uint64_t nh_key[NH_WORDS];
static pthread_once_t nh_once = PTHREAD_ONCE_INIT;

static void draw_nh_key(void)
{
	for (uint64_t i = 0; i < NH_WORDS; i++)
		nh_key[i] = hash_keyed(&i, sizeof(i));
}

/* One word's part of NH: its halves each added to the key's, multiplied. */
static inline uint64_t nh_term(uint64_t word, uint64_t key)
{
	uint32_t low = (uint32_t)word + (uint32_t)key;
	uint32_t high = (uint32_t)(word >> 32) + (uint32_t)(key >> 32);
	return (uint64_t)low * high;
}

static uint64_t intern_hash(const void *bytes, size_t length)
{
	if (length > NH_WORDS * 8)
		return hash_keyed(bytes, length);
	pthread_once(&nh_once, draw_nh_key);
	const unsigned char *p = bytes;
	uint64_t sum = 0, word;
	size_t i = 0;
	/* whole words loaded as they are; the last part word, zero-filled */
	for (; length - i * 8 >= 8; i++) {
		memcpy(&word, p + i * 8, 8);
		sum += nh_term(word, nh_key[i]);
	}
	if (length % 8) {
		word = 0;
		memcpy(&word, p + i * 8, length % 8);
		sum += nh_term(word, nh_key[i]);
	}
	/* the length tells a key from the same key and zero bytes */
	return hash_u64(sum + length);
}

static uint64_t rehash_item(const void *context, size_t index)
{
	const struct intern_set *set = context;
	return set->items[index].hash;
}

/* The kept copy of bytes[0..length) with `terminator` zero bytes after it:
 * the one already in the set, else a new one. */
static const void *intern(struct arena *arena, struct intern_set *set, const void *bytes, size_t length,
			  size_t terminator)
{
	uint64_t hash = intern_hash(bytes, length);
	struct hash_probe probe;
	for (size_t i = hash_first(&set->index, hash, &probe); i != HASH_NONE; i = hash_next(&set->index, &probe)) {
		const struct interned *old = &set->items[i];
		if (old->hash == hash && old->length == length && !memcmp(old->bytes, bytes, length))
			return old->bytes;
	}
	char *copy = arena_allocate(arena, length + terminator);
	memcpy(copy, bytes, length);
	memset(copy + length, 0, terminator);
	*ARRAY_PUSH(set->items, set->count, set->capacity) = (struct interned){ copy, length, hash };
	hash_add(&set->index, hash, set->count - 1, rehash_item, set);
	return copy;
}

const char *arena_intern(struct arena *arena, const char *s, size_t length)
{
	return intern(arena, &arena->strings, s, length, 1);
}

const uint64_t *arena_intern_words(struct arena *arena, const uint64_t *words, size_t count)
{
	return count ? intern(arena, &arena->words, words, count * sizeof(*words), 0) : NULL;
}
