/*
 * base/array.h - one growable array and one growable byte buffer.
 *
 * Arrays in ptscope are a pointer, a count and a capacity kept by their
 * owner (struct vma_array, the model's PFN entries, the analyzer's edges);
 * array_reserve is the one way they grow: capacity doubles, so appending n
 * items costs O(n) copies, and allocation failure ends the run (base/alloc.h).
 */
#ifndef PTSCOPE_BASE_ARRAY_H
#define PTSCOPE_BASE_ARRAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Grow *items (an array of element_bytes) so that `need` elements fit;
 * *capacity is in elements.  The first allocation holds at least 16. */
void array_reserve(void *items_pointer, size_t *capacity, size_t need, size_t element_bytes);

/* ARRAY_RESERVE(items, capacity, need) for a typed pointer `items`. */
#define ARRAY_RESERVE(items, capacity, need) \
	array_reserve(&(items), &(capacity), (need), sizeof(*(items)))

/* Room for one more element at items[count], then count + 1:
 *   *ARRAY_PUSH(list.items, list.count, list.capacity) = value; */
#define ARRAY_PUSH(items, count, capacity) \
	(ARRAY_RESERVE(items, capacity, (count) + 1), &(items)[(count)++])

/* Bytes: data[0..length) plus room for a NUL that is not counted, so text
 * read into a buffer can be handed to string functions. */
struct buffer {
	char *data;
	size_t length, capacity;
};

/* Room for `extra` more bytes after length (and a NUL after those). */
void buffer_reserve(struct buffer *buffer, size_t extra);
void buffer_add(struct buffer *buffer, const void *data, size_t bytes);
void buffer_add_string(struct buffer *buffer, const char *text);
void buffer_printf(struct buffer *buffer, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
void buffer_vprintf(struct buffer *buffer, const char *format, va_list args);
/* Hand the bytes over (NUL-terminated; NULL when empty and never grown). */
char *buffer_release(struct buffer *buffer);
void buffer_free(struct buffer *buffer);

/* Arrays that ascend by a key: the index of the first of `count` items
 * whose key_of is at least `key` (count when none is).  Inline, so a
 * key_of known at the call is inlined too. */
static inline size_t array_lower_bound(const void *items, size_t count, size_t item_bytes,
				       uint64_t (*key_of)(const void *item), uint64_t key)
{
	size_t low = 0, high = count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (key_of((const char *)items + middle * item_bytes) < key)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

/*
 * array_lower_bound for an array the search meets cold (a process's VMAs
 * or runs, looked in process after process; a table of PFN runs searched
 * record by record), so each step of the search is a cache miss of its own.  The halving does
 * not branch on the compare, and both items the next step may read are
 * fetched while this one waits.  The same index as array_lower_bound.
 */
static inline __attribute__((always_inline)) size_t array_lower_bound_cold(const void *items, size_t count,
									   size_t item_bytes,
									   uint64_t (*key_of)(const void *item),
									   uint64_t key)
{
	const char *base = items;
	if (!count)
		return 0;
	while (count > 1) {
		size_t half = count / 2, next = (count - half) / 2;
		__builtin_prefetch(base + next * item_bytes);
		__builtin_prefetch(base + (half + next) * item_bytes);
		base = key_of(base + half * item_bytes) < key ? base + half * item_bytes : base;
		count -= half;
	}
	return (size_t)(base - (const char *)items) / item_bytes + (key_of(base) < key);
}

/* qsort that an empty array (items NULL, count 0) may be handed: qsort's
 * pointer must not be NULL even for no items. */
void array_sort(void *items, size_t count, size_t item_bytes,
		int (*compare)(const void *, const void *));

/* Sort items by the unsigned 64-bit key each holds at key_offset, keeping
 * items of equal keys in their order (a stable sort): least significant
 * byte first, one counting pass a byte, bytes that every key shares left
 * out.  Linear in the items; for large arrays of integer keys, where a
 * comparison sort calls its comparator n log n times. */
void array_sort_by_u64(void *items, size_t count, size_t item_bytes, size_t key_offset);

#endif
