/*
 * parse_smaps.c - /proc/PID/smaps, every kernel from 2.6.14 on.
 *
 * The text arrives whole or in pieces (a member streamed out of an archive,
 * docs/snapshot-format.md "Limits a reader enforces"); complete lines are
 * walked in place with memchr and only a line cut by a piece's end is
 * copied, so nothing is allocated per line and memory follows the longest
 * line and the VMAs, not the member's size.  The kernel prints the same
 * fields in the same order for every VMA, so a VMA's lines are read
 * against the fields of the VMA before (vma_body), each line's field known
 * from its place; a line that differs, and the rest of its VMA, look up
 * the field expected after the one before (follows), then the table.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

const char *const smaps_field_names[SMAPS_FIELD_COUNT] = {
	[SMAPS_SIZE] = "Size", [SMAPS_KERNEL_PAGE_SIZE] = "KernelPageSize",
	[SMAPS_MMU_PAGE_SIZE] = "MMUPageSize", [SMAPS_RSS] = "Rss", [SMAPS_PSS] = "Pss",
	[SMAPS_PSS_DIRTY] = "Pss_Dirty", [SMAPS_PSS_ANON] = "Pss_Anon",
	[SMAPS_PSS_FILE] = "Pss_File", [SMAPS_PSS_SHMEM] = "Pss_Shmem",
	[SMAPS_SHARED_CLEAN] = "Shared_Clean", [SMAPS_SHARED_DIRTY] = "Shared_Dirty",
	[SMAPS_PRIVATE_CLEAN] = "Private_Clean", [SMAPS_PRIVATE_DIRTY] = "Private_Dirty",
	[SMAPS_REFERENCED] = "Referenced", [SMAPS_ANONYMOUS] = "Anonymous", [SMAPS_KSM] = "KSM",
	[SMAPS_LAZY_FREE] = "LazyFree", [SMAPS_ANON_HUGE_PAGES] = "AnonHugePages",
	[SMAPS_SHMEM_PMD_MAPPED] = "ShmemPmdMapped", [SMAPS_FILE_PMD_MAPPED] = "FilePmdMapped",
	[SMAPS_SHARED_HUGETLB] = "Shared_Hugetlb", [SMAPS_PRIVATE_HUGETLB] = "Private_Hugetlb",
	[SMAPS_SWAP] = "Swap", [SMAPS_SWAP_PSS] = "SwapPss", [SMAPS_LOCKED] = "Locked",
	[SMAPS_THP_ELIGIBLE] = "THPeligible",
};

/* Older kernels' names for the same counters (4.8-4.x: ShmemHugePages). */
static const struct { const char *name; enum smaps_field field; } field_aliases[] = {
	{ "ShmemHugePages", SMAPS_SHMEM_PMD_MAPPED },
};


#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Fault in the VMA array 4 MiB ahead of use with one call: on a big
 * snapshot the first-touch faults, one trap per 4 KiB, cost more than
 * parsing the text.  Only just ahead of use, so that the unused half of a
 * doubled array stays untouched (Linux 5.14+; older kernels refuse and the
 * pages fault in as usual).
 */
static void populate_ahead(struct vma_array *vmas)
{
	const uintptr_t page = 4096, ahead = 4 << 20;
	uintptr_t base = (uintptr_t)vmas->items;
	uintptr_t used = base + (vmas->count + 1) * sizeof(struct vma);
	uintptr_t limit = base + vmas->capacity * sizeof(struct vma);
	if (vmas->populated_bytes && used <= base + vmas->populated_bytes)
		return;
	uintptr_t start = (used + page - 1) & ~(page - 1);
	uintptr_t end = (start + ahead < limit ? start + ahead : limit) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	vmas->populated_bytes = end > base ? end - base : 0;
}

/* A file's VMAs come one after another (a library's text, data, bss), so
 * the previous VMA's path is tried before the arena's hash. */
static const char *intern_path(struct smaps_parser *parser, const char *path, size_t length)
{
	if (!parser->last_path || parser->last_path_length != length || memcmp(parser->last_path, path, length)) {
		parser->last_path = arena_intern(parser->arena, path, length);
		parser->last_path_length = length;
	}
	return parser->last_path;
}

static int header_fail(struct smaps_parser *parser, enum smaps_header_problem problem,
		       const struct smaps_header *h)
{
	static const char *const messages[] = {
		[SMAPS_HEADER_BAD_RANGE] = "bad VMA address range",
		[SMAPS_HEADER_BACKWARDS] = "VMA ends before it starts",
		[SMAPS_HEADER_BAD_PERMS] = "bad permission string",
		[SMAPS_HEADER_BAD_OFFSET] = "bad file offset",
		[SMAPS_HEADER_BAD_DEVICE] = "bad device number",
		[SMAPS_HEADER_BAD_INODE] = "bad inode number",
	};
	if (problem == SMAPS_HEADER_TOO_LARGE)
		return parse_fail(parser->place, parser->line, "VMA of %#" PRIx64 " bytes is larger than any address space (2^57 bytes)",
				  h->end - h->start);
	return parse_fail(parser->place, parser->line, "%s", messages[problem]);
}

/* "start-end perms offset major:minor inode   path" (proc_lines.c) */
static int parse_vma_header(struct smaps_parser *parser, const char *p, const char *limit)
{
	struct vma_array *vmas = parser->vmas;
	struct smaps_header h;

	/* Built in place at the end of the array; counted only once it parsed. */
	ARRAY_RESERVE(vmas->items, vmas->capacity, vmas->count + 1);
	populate_ahead(vmas);
	enum smaps_header_problem problem = smaps_header_parse(p, limit, &h);
	if (problem != SMAPS_HEADER_OK)
		return header_fail(parser, problem, &h);
	/* refused here, not after the rest of the member: a valid VMA repeated
	 * for gigabytes stops at its second copy */
	if (vmas->count > parser->vma_first && h.start < vmas->items[vmas->count - 1].end)
		return parse_fail(parser->place, parser->line, "VMAs overlap or are out of order at %" PRIx64,
				  h.start);
	struct vma *vma = &vmas->items[vmas->count];
	/* built in a local and stored whole: a struct literal stored in place
	 * gcc clears with `rep stos`, whose start-up cost was a tenth of
	 * reading a header */
	struct vma made = { .start = h.start, .end = h.end, .offset = h.offset, .inode = h.inode,
			    .dev_major = h.dev_major, .dev_minor = h.dev_minor,
			    .path = intern_path(parser, h.path, h.path_length),
			    .extra_first = (uint32_t)parser->extras->count };
	memcpy(made.perms, h.perms, 4);
	*vma = made;
	parser->current = vma;
	vmas->count++;
	parser->last_field = -1;
	parser->body = true;
	return 0;
}

static bool name_is(const char *known, const char *name, size_t length)
{
	return known[0] == name[0] && !strncmp(known, name, length) && !known[length];
}

/* The field names' lengths, so most names are told apart by their length
 * and a memcmp of a few bytes, without a library call per candidate. */
static const unsigned char *field_name_lengths(void)
{
	static unsigned char lengths[SMAPS_FIELD_COUNT];
	if (!lengths[0])
		for (int i = 0; i < SMAPS_FIELD_COUNT; i++)
			lengths[i] = (unsigned char)strlen(smaps_field_names[i]);
	return lengths;
}

static int find_field(struct smaps_parser *parser, const char *name, size_t length)
{
	const unsigned char *lengths = field_name_lengths();
	int i = parser->last_field;
	for (int step = 1; step <= SMAPS_FIELD_COUNT; step++) {
		if (++i == SMAPS_FIELD_COUNT)
			i = 0;
		if (lengths[i] == length && !memcmp(smaps_field_names[i], name, length))
			return i;
	}
	for (size_t i = 0; i < sizeof(field_aliases) / sizeof(field_aliases[0]); i++)
		if (name_is(field_aliases[i].name, name, length))
			return (int)field_aliases[i].field;
	return -1;
}

/* "Name:   1234 kB" (unit optional: THPeligible, ProtectionKey have none). */
static int parse_value(struct smaps_parser *parser, const char *p, const char *limit,
		       uint64_t *value)
{
	const char *q;
	p = skip_spaces(p, limit);
	if (!parse_u64(p, limit, value, &q))
		return parse_fail(parser->place, parser->line, "bad or overflowing number");
	q = skip_spaces(q, limit);
	if (q < limit && !(limit - q == 2 && (q[0] == 'k' || q[0] == 'K') && q[1] == 'B'))
		return parse_fail(parser->place, parser->line, "unexpected text after number");
	return 0;
}

static int add_extra(struct smaps_parser *parser, const char *name, size_t length,
		     const char *p, const char *limit)
{
	struct extra_array *extras = parser->extras;
	uint64_t value = 0;
	const char *end;
	/* An unknown field from a newer kernel may not even be a number: keep its name. */
	if (!parse_u64(skip_spaces(p, limit), limit, &value, &end))
		value = 0;
	ARRAY_RESERVE(extras->items, extras->capacity, extras->count + 1);
	extras->items[extras->count].name = arena_intern(parser->arena, name, length);
	extras->items[extras->count++].value = value;
	parser->current->extra_count++;
	return 0;
}

static int store_field(struct smaps_parser *parser, int field, const char *name, size_t length,
		       const char *p, const char *limit);

static int parse_field(struct smaps_parser *parser, const char *name, size_t length,
		       const char *p, const char *limit)
{
	struct vma *vma = parser->current;
	if (!vma)
		return parse_fail(parser->place, parser->line, "field before the first VMA header");
	if (length == 7 && !memcmp(name, "VmFlags", 7)) {
		vma->vm_flags |= smaps_vm_flags(p, limit);
		return 0;
	}
	int field = find_field(parser, name, length);
	if (field < 0)
		return add_extra(parser, name, length, p, limit);
	return store_field(parser, field, name, length, p, limit);
}

static int store_field(struct smaps_parser *parser, int field, const char *name, size_t length,
		       const char *p, const char *limit)
{
	struct vma *vma = parser->current;
	if (vma->present_fields & (UINT32_C(1) << field))
		return parse_fail(parser->place, parser->line, "field %.*s repeated in one VMA",
				  (int)length, name);
	if (parse_value(parser, p, limit, &parser->kb[field]))
		return -1;
	vma->present_fields |= UINT32_C(1) << field;
	parser->nonzero |= (uint32_t)(parser->kb[field] != 0) << field;
	parser->follows[parser->last_field + 1] = (signed char)field;
	parser->last_field = field;
	parser->order[parser->order_count++] = (signed char)field;
	return 0;
}

/* Every kernel since 2.6.14 prints Size and Rss, and Size is the VMA's length. */
static int check_vma(struct smaps_parser *parser)
{
	const struct vma *vma = parser->current;
	const uint64_t *kb = parser->kb;
	uint32_t needed = (UINT32_C(1) << SMAPS_SIZE) | (UINT32_C(1) << SMAPS_RSS);
	if ((vma->present_fields & needed) != needed)
		return parse_fail(parser->place, parser->line,
				  "VMA %" PRIx64 "-%" PRIx64 " lacks its Size or Rss line (truncated?)",
				  vma->start, vma->end);
	if (kb[SMAPS_SIZE] != (vma->end - vma->start) >> 10)
		return parse_fail(parser->place, parser->line,
				  "VMA %" PRIx64 "-%" PRIx64 " has Size %" PRIu64 " kB, not its length",
				  vma->start, vma->end, kb[SMAPS_SIZE]);
	return 0;
}

/* Every counter but the page sizes and THPeligible counts pages of this VMA. */
static const uint32_t size_like_fields = UINT32_C(1) << SMAPS_KERNEL_PAGE_SIZE |
					 UINT32_C(1) << SMAPS_MMU_PAGE_SIZE | UINT32_C(1) << SMAPS_THP_ELIGIBLE;

/* The first counter above its bound, said (finish_vma found one). */
static int counter_too_large(struct smaps_parser *parser)
{
	const struct vma *vma = parser->current;
	const uint64_t *kb = parser->kb;
	for (uint32_t held = vma->present_fields; held; held &= held - 1) {
		int field = __builtin_ctz(held);
		bool size_like = size_like_fields >> field & 1;
		if (kb[field] > (size_like ? KERNEL_MAX_KB : kb[SMAPS_SIZE]))
			return parse_fail(parser->place, parser->line,
					  "VMA %" PRIx64 "-%" PRIx64 " has %s above %s (%" PRIu64 " kB)",
					  vma->start, vma->end, smaps_field_names[field],
					  size_like ? "any address space" : "Size", kb[field]);
	}
	return 0;
}

/* The VMA's lines are all read: checked, then its nonzero counters kept,
 * interned (struct vma), and the parser's counters cleared for the next.
 * Only the nonzero ones are looked at: an absent or zero counter is within
 * any bound. */
static int finish_vma(struct smaps_parser *parser)
{
	struct vma *vma = parser->current;
	if (!vma)
		return 0;
	if (check_vma(parser))
		return -1;
	uint64_t words[SMAPS_FIELD_COUNT], size = parser->kb[SMAPS_SIZE];
	size_t count = 0;
	bool over = false;
	for (uint32_t held = parser->nonzero; held; held &= held - 1) {
		int field = __builtin_ctz(held);
		uint64_t value = parser->kb[field];
		over |= value > (size_like_fields >> field & 1 ? KERNEL_MAX_KB : size);
		words[count++] = value;
	}
	if (over)
		return counter_too_large(parser);
	memcpy(parser->expect, parser->order, sizeof(parser->order));
	parser->expect_count = parser->order_count;
	parser->order_count = 0;
	/* kb is nonzero for the nonzero fields alone: clear those */
	for (uint32_t held = parser->nonzero; held; held &= held - 1)
		parser->kb[__builtin_ctz(held)] = 0;
	vma->counter_fields |= parser->nonzero;
	parser->nonzero = 0;
	vma->counters = arena_intern_words(parser->arena, words, count);
	return 0;
}

/* The bytes of a field name (letters, digits, '_'), one look-up a byte. */
static const bool *field_name_chars(void)
{
	static bool table[256];
	if (!table['_']) {
		for (int c = 0; c < 256; c++)
			table[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		table['_'] = true;
	}
	return table;
}

static int parse_line(struct smaps_parser *parser, const char *p, const char *limit)
{
	const char *name = p;
	if (parser->current) {
		/* the kernel prints fields in the table's order: try the next one as it stands */
		int next = parser->last_field + 1 < SMAPS_FIELD_COUNT ? parser->last_field + 1 : 0;
		size_t length = field_name_lengths()[next];
		if ((size_t)(limit - p) > length && p[length] == ':' && !memcmp(p, smaps_field_names[next], length))
			return store_field(parser, next, name, length, p + length + 1, limit);
	}
	const bool *name_chars = field_name_chars();
	while (p < limit && name_chars[(unsigned char)*p])
		p++;
	if (p < limit && *p == ':' && p > name)
		return parse_field(parser, name, (size_t)(p - name), p + 1, limit);
	if (finish_vma(parser))
		return -1;
	return parse_vma_header(parser, name, limit);
}

/* A field's name and ':' as two little-endian words, and which of their
 * bytes count: a line begins with it when (word & mask) == name.  padded:
 * the name as the kernel prints it, in 16 columns ("Rss:" and 12 spaces). */
struct name_key {
	uint64_t name[2], mask[2], padded[2];
	unsigned char length;   /* with the ':' */
};

static const struct name_key *name_keys(void)
{
	static struct name_key keys[SMAPS_FIELD_COUNT];
	static bool filled;
	if (!filled) {
		for (int field = 0; field < SMAPS_FIELD_COUNT; field++) {
			unsigned char name[16] = { 0 }, mask[16] = { 0 }, padded[16];
			size_t length = strlen(smaps_field_names[field]);
			memcpy(name, smaps_field_names[field], length);
			name[length] = ':';
			memset(mask, 0xff, length + 1);
			memset(padded, ' ', 16);
			memcpy(padded, name, length + 1);
			memcpy(keys[field].name, name, 16);
			memcpy(keys[field].mask, mask, 16);
			memcpy(keys[field].padded, padded, 16);
			keys[field].length = (unsigned char)(length + 1);
		}
		filled = true;
	}
	return keys;
}

/* The top bit of each byte of word (little-endian, 8 bytes of text) that
 * is not a decimal digit.  A byte's carry reaches only bytes after a marked
 * one, and can only mark more: an unmarked byte is a digit. */
static uint64_t other_than_digits(uint64_t word)
{
	uint64_t x = word ^ UINT64_C(0x3030303030303030);   /* a digit is 0..9 now */
	return ((x + UINT64_C(0x7676767676767676)) | x) & UINT64_C(0x8080808080808080);
}

/* How many bytes word begins with that are digits (8: all). */
static unsigned digits_in_word(uint64_t word)
{
	uint64_t other = other_than_digits(word);
	return other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
}

/* The value of the first n (1 to 8) digits of word: the digits moved to
 * the top, then pairs, fours and eights combined by multiplication. */
static uint64_t digits_value(uint64_t word, unsigned n)
{
	uint64_t v = (word & UINT64_C(0x0f0f0f0f0f0f0f0f)) << (8 * (8 - n));
	v = (v * 10 + (v >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	v = (v * 100 + (v >> 16)) & UINT64_C(0x0000ffff0000ffff);
	return (v * 10000 + (v >> 32)) & UINT64_C(0xffffffff);
}

static uint64_t load_word(const char *p)
{
	uint64_t word;
	memcpy(&word, p, 8);
	return word;
}

/*
 * A counter of a field line read in words: spaces, 1 to 16 digits, and
 * " kB\n" or "\n"; *value set and the byte after the newline returned, or
 * NULL for anything else (tabs, more digits, other text, too near the end
 * of the piece to load whole words), which parse_line then reads.
 */
static const char *field_value(const char *q, const char *end, uint64_t *value)
{
	const uint64_t spaces = UINT64_C(0x2020202020202020);
	uint64_t word;
	while (end - q >= 8 && (word = load_word(q)) == spaces)
		q += 8;
	if (end - q < 24)
		return NULL;
	q += __builtin_ctzll(word ^ spaces) / 8;
	word = load_word(q);
	unsigned n = digits_in_word(word);
	if (n == 0)
		return NULL;
	*value = digits_value(word, n);
	if (n == 8) {
		uint64_t more = load_word(q + 8);
		unsigned m = digits_in_word(more);
		if (m == 8)
			return NULL;
		if (m)
			*value = *value * ((const uint64_t[]){ 1, 10, 100, 1000, 10000, 100000, 1000000,
							       10000000 })[m] + digits_value(more, m);
		n += m;
	}
	q += n;
	if (!memcmp(q, " kB\n", 4))
		return q + 4;
	return *q == '\n' ? q + 1 : NULL;
}

/*
 * The line as the kernel prints it: the name in 16 columns, the number
 * right-aligned in 8, then " kB" or nothing (THPeligible): one compare of
 * each part, and a 0 (most counters) by its word alone.  Spaces read as
 * zeros in digits_value.  The next line, or NULL.
 */
static inline __attribute__((always_inline)) const char *
column_line(const struct name_key *key, const char *p, const char *end, uint64_t *value)
{
	const uint64_t spaces = UINT64_C(0x2020202020202020), zero = UINT64_C(0x3020202020202020); /* "       0" */
	if (end - p < 28 || load_word(p) != key->padded[0] || load_word(p + 8) != key->padded[1])
		return NULL;
	uint64_t number = load_word(p + 16);
	if (number == zero) {
		*value = 0;
	} else if ((unsigned)(p[16] - '0') < 10 && p[17] == '\n') {
		*value = (uint64_t)(p[16] - '0');   /* one digit, no unit: 6.1's THPeligible */
		return p + 18;
	} else {
		if (number == spaces)
			return NULL;
		/* spaces, then digits to the eighth column: the bytes that are not
		 * digits are exactly those before the first that is not a space */
		unsigned first = (unsigned)__builtin_ctzll(number ^ spaces) & ~7u;
		if (other_than_digits(number) != (UINT64_C(0x8080808080808080) & ((UINT64_C(1) << first) - 1)))
			return NULL;
		*value = digits_value(number, 8);
	}
	if (!memcmp(p + 24, " kB\n", 4))
		return p + 28;
	return p[24] == '\n' ? p + 25 : NULL;
}

/*
 * A line of the field `key`, "Name:   1234 kB", read in one pass: in the
 * kernel's columns (column_line), else the name compared as two masked
 * words and the number read in words (field_value); the newline met at the
 * end rather than searched for.  The next line, or NULL for any other line
 * (another field, a line field_value leaves), which then takes
 * parse_line: what is taken here, parse_line takes alike.
 */
static inline __attribute__((always_inline)) const char *
key_line(const struct name_key *key, const char *p, const char *end, uint64_t *value)
{
	const char *next = column_line(key, p, end, value);
	if (next)
		return next;
	if (end - p < 16 || ((load_word(p) & key->mask[0]) ^ key->name[0]) |
			    ((load_word(p + 8) & key->mask[1]) ^ key->name[1]))
		return NULL;
	next = field_value(p + key->length, end, value);
	return next && next - 1 - p <= SMAPS_LINE_MAX_BYTES ? next : NULL;
}

/* The line of the field expected next (follows), not yet read this VMA. */
static const char *field_line(struct smaps_parser *parser, const char *p, const char *end)
{
	if (!parser->current)
		return NULL;
	int field = parser->follows[parser->last_field + 1];
	uint64_t value;
	const char *next = key_line(&name_keys()[field], p, end, &value);
	uint32_t bit = UINT32_C(1) << field;
	if (!next || parser->current->present_fields & bit)
		return NULL;
	parser->line++;
	parser->kb[field] = value;
	parser->current->present_fields |= bit;
	parser->nonzero |= (uint32_t)(value != 0) << field;
	parser->last_field = field;
	parser->order[parser->order_count++] = (signed char)field;
	return next;
}

/* "VmFlags: rd wr ... \n" as the kernel prints it (smaps_vm_flags_line):
 * the next line, or NULL (parse_line reads it, to the same flags). */
static const char *vm_flags_line(struct smaps_parser *parser, const char *p, const char *end)
{
	uint64_t flags;
	if (!parser->current || end - p < 8 || memcmp(p, "VmFlags:", 8))
		return NULL;
	const char *next = smaps_vm_flags_line(p + 8, end, &flags);
	if (!next || next - 1 - p > SMAPS_LINE_MAX_BYTES)
		return NULL;
	parser->line++;
	parser->current->vm_flags |= flags;
	return next;
}

/*
 * The lines after a VMA header, read against the previous VMA's fields in
 * their order (the kernel prints the same fields for every VMA): each line
 * as key_line reads it, for the field expected at its place.  The first
 * other line ends the walk; it and the rest take field_line and
 * parse_line, which would take the lines walked alike.  The field expected
 * comes from the line's place, not from the field before it, so no line's
 * work waits on the previous line's.  The byte after the lines taken.
 */
static const char *vma_body(struct smaps_parser *parser, const char *p, const char *end)
{
	const struct name_key *keys = name_keys();
	struct vma *vma = parser->current;
	uint32_t present = 0, nonzero = 0;
	/* only before any line of the VMA: no field is held, so none repeats */
	int taken = 0, count = parser->order_count ? 0 : parser->expect_count;
	parser->body = false;
	for (; taken < count; taken++) {
		int field = parser->expect[taken];
		uint64_t value;
		__builtin_prefetch(p + 1024);
		const char *next = key_line(&keys[field], p, end, &value);
		if (!next)
			break;
		present |= UINT32_C(1) << field;
		if (value) {   /* kb is 0 for every field when a VMA begins */
			parser->kb[field] = value;
			nonzero |= UINT32_C(1) << field;
		}
		p = next;
	}
	if (taken) {
		memcpy(parser->order, parser->expect, (size_t)taken);
		parser->order_count = taken;
		parser->line += (unsigned long)taken;
		vma->present_fields |= present;
		parser->nonzero |= nonzero;
		parser->last_field = parser->expect[taken - 1];
	}
	return p;
}

static int line_too_long(struct smaps_parser *parser, unsigned long line)
{
	return parse_fail(parser->place, line, "a line of more than %d bytes: no smaps line is that long",
			  SMAPS_LINE_MAX_BYTES);
}

/* One complete line, without its newline; `nul` is its first NUL byte
 * (NULL: none). */
static int take_line(struct smaps_parser *parser, const char *p, const char *newline, const char *nul)
{
	parser->line++;
	if ((size_t)(newline - p) > SMAPS_LINE_MAX_BYTES)
		return line_too_long(parser, parser->line);
	if (nul && nul < newline)
		return parse_fail(parser->place, parser->line, "binary data in a text file");
	return newline > p ? parse_line(parser, p, newline) : 0;
}

void smaps_parser_begin(struct smaps_parser *parser, struct arena *arena, struct vma_array *vmas,
			struct extra_array *extras, const struct parse_place *place)
{
	*parser = (struct smaps_parser){ .arena = arena, .vmas = vmas, .extras = extras, .place = place,
					 .vma_first = vmas->count, .last_field = -1 };
	for (int field = 0; field < SMAPS_FIELD_COUNT; field++)
		parser->follows[field] = (signed char)field;   /* the table's order, to begin with */
}

/* A line cut by the end of a piece is refused as soon as it is longer than
 * any smaps line, so the tail never holds more than SMAPS_LINE_MAX_BYTES + 1. */
static int keep_tail(struct smaps_parser *parser, const char *p, size_t bytes)
{
	size_t room = SMAPS_LINE_MAX_BYTES + 1 - parser->tail.length;
	buffer_add(&parser->tail, p, bytes < room ? bytes : room);
	return parser->tail.length <= SMAPS_LINE_MAX_BYTES ? 0 : line_too_long(parser, parser->line + 1);
}

static int parse_piece(struct smaps_parser *parser, const char *text, size_t size)
{
	const char *p = text, *end = text + size;
	if (parser->tail.length) {
		/* finish the line the previous piece cut */
		const char *newline = memchr(p, '\n', size);
		if (!newline)
			return keep_tail(parser, p, size);
		if (keep_tail(parser, p, (size_t)(newline - p)))
			return -1;
		const char *tail_end = parser->tail.data + parser->tail.length;
		int status = take_line(parser, parser->tail.data, tail_end,
				       memchr(parser->tail.data, '\0', parser->tail.length));
		parser->tail.length = 0;
		if (status)
			return -1;
		p = newline + 1;
	}
	while (p < end) {
		if (parser->body) {
			p = vma_body(parser, p, end);
			continue;
		}
		__builtin_prefetch(p + 1024);   /* the text streams from memory: ask ahead */
		/* every field name begins with a capital: a line that begins with
		 * a digit or a-f (a VMA header) goes to take_line at once */
		const char *next = NULL;
		if ((unsigned)(*p - '0') >= 10 && (unsigned)(*p - 'a') >= 6 && !(next = field_line(parser, p, end)))
			next = vm_flags_line(parser, p, end);
		if (next) {
			p = next;
			continue;
		}
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		if (!newline)
			return keep_tail(parser, p, (size_t)(end - p));
		if (take_line(parser, p, newline, memchr(p, '\0', (size_t)(newline - p))))
			return -1;
		p = newline + 1;
	}
	return 0;
}

int smaps_parser_feed(struct smaps_parser *parser, const char *text, size_t size)
{
	if (parse_piece(parser, text, size) == 0)
		return 0;
	buffer_free(&parser->tail);
	return -1;
}

int smaps_parser_end(struct smaps_parser *parser)
{
	int status = parser->tail.length
		? parse_fail(parser->place, parser->line + 1, "file ends inside a line (truncated?)")
		: finish_vma(parser);
	buffer_free(&parser->tail);
	return status;
}

int parse_smaps(const char *text, size_t size, struct arena *arena, struct vma_array *vmas,
		struct extra_array *extras, const struct parse_place *place)
{
	struct smaps_parser parser;
	smaps_parser_begin(&parser, arena, vmas, extras, place);
	return smaps_parser_feed(&parser, text, size) ? -1 : smaps_parser_end(&parser);
}
