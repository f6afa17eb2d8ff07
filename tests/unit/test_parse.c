/*
 * Parsers of the input side, on real text from this machine's /proc
 * (tests/fixtures/proc, figures checked with awk and grep) and on hostile
 * input written by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "inputs/internal.h"
#include "test.h"

static struct error error;
static const struct parse_place place = { "test", "member", &error };

static char *slurp(const char *name, size_t *size)
{
	FILE *f = fopen(test_fixture(name), "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char *data = malloc(1 << 20);
	*size = fread(data, 1, 1 << 20, f);
	fclose(f);
	return data;
}

struct parsed_smaps {
	struct arena *arena;
	struct vma_array vmas;
	struct extra_array extras;
	int status;
};

static struct parsed_smaps smaps_of(const char *text, size_t size)
{
	struct parsed_smaps p = { arena_create(), { 0 }, { 0 }, 0 };
	error.message[0] = '\0';
	p.status = parse_smaps(text, size, p.arena, &p.vmas, &p.extras, &place);
	return p;
}

static void parsed_free(struct parsed_smaps *p)
{
	free(p->vmas.items);
	free(p->extras.items);
	arena_destroy(p->arena);
}

/* awk '/^Rss:/{s+=$2} /^Pss:/{p+=$2} END{print s, p}' sleep.smaps -> 1788 354; 37 headers */
static void test_smaps_real(void)
{
	size_t size;
	char *text = slurp("proc/sleep.smaps", &size);
	struct parsed_smaps p = smaps_of(text, size);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	CU_ASSERT_EQUAL(p.vmas.count, 37);
	uint64_t rss = 0, pss = 0;
	for (size_t i = 0; i < p.vmas.count; i++) {
		rss += vma_kb(&p.vmas.items[i], SMAPS_RSS);
		pss += vma_kb(&p.vmas.items[i], SMAPS_PSS);
	}
	CU_ASSERT_EQUAL(rss, 1788);
	CU_ASSERT_EQUAL(pss, 354);
	const struct vma *first = &p.vmas.items[0];
	CU_ASSERT_STRING_EQUAL(first->path, "/usr/bin/sleep");
	CU_ASSERT_STRING_EQUAL(first->perms, "r--p");
	CU_ASSERT(VMA_HAS_FLAG(first, VMF_RD) && VMA_HAS_FLAG(first, VMF_MR) && !VMA_HAS_FLAG(first, VMF_WR));
	/* same binary, so the same interned string */
	CU_ASSERT_PTR_EQUAL(p.vmas.items[1].path, first->path);
	CU_ASSERT_STRING_EQUAL(p.vmas.items[p.vmas.count - 1].path, "[vsyscall]");
	CU_ASSERT_EQUAL(p.extras.count, 0);
	parsed_free(&p);
	free(text);
}

static const char hostile_names[] =
	"0804a000-0804b000 rw-s 00001000 08:01 1234   /tmp/a file with  spaces (deleted)\n"
	"Size:                  4 KB\n"
	"Rss:                   4 kB\n"
	"ProtectionKey:         3\n"
	"VmFlags: rd wr sh mr mw me ms zz \n"
	"b7700000-b7800000 rw-p 00000000 00:00 0          [anon:jemalloc pool]\n"
	"Size:               1024 kB\n"
	"Rss:                   0 kB\n"
	"ShmemHugePages:        0 kB\n"
	"ffffe000-fffff000 r-xp 00000000 103:0a 99 \n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n";

/* Fed in pieces of every size from 1 to 200 bytes (and then 4093, a prime
 * near a page), the same smaps parses to the same VMAs as fed whole: a line
 * cut by a piece's end is joined, never parsed twice or lost. */
static void smaps_in_pieces(const char *text, size_t size, size_t piece, struct parsed_smaps *p)
{
	struct smaps_parser parser;
	p->arena = arena_create();
	smaps_parser_begin(&parser, p->arena, &p->vmas, &p->extras, &place);
	p->status = 0;
	for (size_t at = 0; at < size && !p->status; at += piece)
		p->status = smaps_parser_feed(&parser, text + at, size - at < piece ? size - at : piece);
	if (!p->status)
		p->status = smaps_parser_end(&parser);
	else
		buffer_free(&parser.tail);
}

static bool same_vma(const struct vma *a, const struct vma *b)
{
	for (int field = 0; field < SMAPS_FIELD_COUNT; field++)
		if (vma_kb(a, field) != vma_kb(b, field))
			return false;
	return a->start == b->start && a->end == b->end && a->offset == b->offset && a->inode == b->inode &&
	       !strcmp(a->perms, b->perms) && !strcmp(a->path, b->path) && a->vm_flags == b->vm_flags &&
	       a->counter_fields == b->counter_fields && a->present_fields == b->present_fields &&
	       a->extra_count == b->extra_count;
}

/* text fed in pieces of piece bytes parses to whole's VMAs */
static void check_pieces(const char *text, size_t size, size_t piece, const struct parsed_smaps *whole)
{
	struct parsed_smaps p = { 0 };
	smaps_in_pieces(text, size, piece, &p);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(p.vmas.count, whole->vmas.count);
	bool same = p.vmas.count == whole->vmas.count;
	for (size_t i = 0; same && i < p.vmas.count; i++)
		same = same_vma(&p.vmas.items[i], &whole->vmas.items[i]);
	CU_ASSERT(same);
	parsed_free(&p);
}

static void test_smaps_in_pieces(void)
{
	size_t size;
	char *text = slurp("proc/sleep.smaps", &size);
	struct parsed_smaps whole = smaps_of(text, size);
	CU_ASSERT_EQUAL_FATAL(whole.status, 0);
	for (size_t piece = 1; piece <= 200; piece++)
		check_pieces(text, size, piece, &whole);
	check_pieces(text, size, 4093, &whole);
	parsed_free(&whole);
	free(text);

	/* a line longer than any smaps line is refused where it passes the
	 * bound, fed whole or a byte at a time (SMAPS_LINE_MAX_BYTES) */
	size_t long_size = SMAPS_LINE_MAX_BYTES + 100;
	char *line = malloc(long_size);
	memset(line, 'a', long_size);
	const size_t long_pieces[] = { 1, long_size };
	for (size_t i = 0; i < 2; i++) {
		struct parsed_smaps p = { 0 };
		error.message[0] = '\0';
		smaps_in_pieces(line, long_size, long_pieces[i], &p);
		CU_ASSERT_EQUAL(p.status, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "no smaps line is that long"));
		parsed_free(&p);
	}
	free(line);

	/* the same VMA twice is refused at its second header, before the rest */
	const char *twice = "00400000-00401000 r-xp 00000000 08:01 5 /bin/x\nSize: 4 kB\nRss: 4 kB\n"
			    "00400000-00401000 r-xp 00000000 08:01 5 /bin/x\nSize: 4 kB\nRss: 4 kB\n";
	struct parsed_smaps p = { 0 };
	smaps_in_pieces(twice, strlen(twice), strlen(twice) - 12, &p);
	CU_ASSERT_EQUAL(p.status, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "member:4: VMAs overlap or are out of order"));
	CU_ASSERT_EQUAL(p.vmas.count, 1);   /* refused at the header: the copy never added */
	parsed_free(&p);
}

static void test_smaps_names_and_old_formats(void)
{
	struct parsed_smaps p = smaps_of(hostile_names, sizeof(hostile_names) - 1);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	CU_ASSERT_EQUAL_FATAL(p.vmas.count, 3);
	const struct vma *v = p.vmas.items;
	CU_ASSERT_EQUAL(v[0].start, 0x0804a000);
	CU_ASSERT_EQUAL(v[0].offset, 0x1000);
	CU_ASSERT_EQUAL(v[0].inode, 1234);
	CU_ASSERT_STRING_EQUAL(v[0].path, "/tmp/a file with  spaces (deleted)");
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_SIZE), 4);
	CU_ASSERT(VMA_HAS_FLAG(&v[0], VMF_SH) && VMA_HAS_FLAG(&v[0], VMF_OTHER));
	CU_ASSERT_EQUAL(v[0].extra_count, 1);
	CU_ASSERT_STRING_EQUAL(p.extras.items[v[0].extra_first].name, "ProtectionKey");
	CU_ASSERT_EQUAL(p.extras.items[v[0].extra_first].value, 3);
	CU_ASSERT_STRING_EQUAL(v[1].path, "[anon:jemalloc pool]");
	CU_ASSERT(v[1].present_fields & (1u << SMAPS_SHMEM_PMD_MAPPED));
	CU_ASSERT_EQUAL(v[2].dev_major, 0x103);
	CU_ASSERT_EQUAL(v[2].dev_minor, 0x0a);
	CU_ASSERT_STRING_EQUAL(v[2].path, "");
	parsed_free(&p);
}

/*
 * Field lines in the shapes the kernel prints and in others parse_line
 * accepts (tabs, no unit, "KB", "kB" without a space, trailing spaces,
 * leading zeros), numbers of 1 to 15 digits, each expected value taken by
 * strtoull from the text itself; fed whole and in pieces of 1 to 64 bytes.
 * Then a repeated field and a 15-digit page size past any address space are
 * refused on the line where they stand (counted here from the text).
 */
static const struct { const char *name, *rest; } number_lines[] = {
	{ "Size", "      70368744177664 kB" }, { "KernelPageSize", "\t4 kB" }, { "MMUPageSize", "4kB" },
	{ "Rss", "                   1 kB" }, { "Pss", "  12 KB" }, { "Pss_Dirty", " 123" },
	{ "Shared_Clean", "1234   " }, { "Shared_Dirty", "           12345 kB" },
	{ "Private_Clean", "          123456 kB" }, { "Private_Dirty", "         1234567 kB" },
	{ "Referenced", "        12345678 kB" }, { "Anonymous", "       123456789 kB" },
	{ "KSM", "      1234567890 kB" }, { "LazyFree", "     12345678901 kB" },
	{ "AnonHugePages", "    123456789012 kB" }, { "ShmemPmdMapped", "   1234567890123 kB" },
	{ "FilePmdMapped", "  70368744177663 kB" }, { "Locked", " 00000000000000000000007 kB" },
	{ "THPeligible", "    1" },
};

/* A second VMA as the kernel prints it: names in 16 columns, numbers
 * right-aligned in 8 (a wider one pushes " kB" right), THPeligible without
 * a unit; values in table order. */
static const char *const column_values[SMAPS_FIELD_COUNT] = {
	"70368744177664", "4", "2048", "12345678", "1234567", "123456", "12345", "1234", "123", "12", "1",
	"0", "99999999", "100000000", "10", "20", "30", "40", "50", "60", "70", "80", "90", "00000007",
	"5", "1",
};

static void append_column_vma(char *text, size_t size)
{
	strcat(text, "100000000000000-200000000000000 rw-p 00000000 00:00 0 \n");
	for (int field = 0; field < SMAPS_FIELD_COUNT; field++) {
		char name[32];
		snprintf(name, sizeof(name), "%s:", smaps_field_names[field]);
		snprintf(text + strlen(text), size - strlen(text), "%-16s%8s%s\n", name, column_values[field],
			 field == SMAPS_THP_ELIGIBLE ? "" : " kB");
	}
	strcat(text, "VmFlags: rd wr mr mw me ac \n");
}

static void test_smaps_field_numbers(void)
{
	char text[4096] = "00000000-100000000000000 rw-p 00000000 00:00 0 \n";
	for (size_t i = 0; i < sizeof(number_lines) / sizeof(number_lines[0]); i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s:%s\n", number_lines[i].name,
			 number_lines[i].rest);
	strcat(text, "VmFlags: rd wr \n");
	size_t first_vma = strlen(text);
	append_column_vma(text, sizeof(text));
	struct parsed_smaps whole = smaps_of(text, strlen(text));
	CU_ASSERT_EQUAL_FATAL(whole.status, 0);
	CU_ASSERT_EQUAL_FATAL(whole.vmas.count, 2);
	for (int field = 0; field < SMAPS_FIELD_COUNT; field++)
		if (vma_kb(&whole.vmas.items[1], field) != strtoull(column_values[field], NULL, 10))
			CU_FAIL(smaps_field_names[field]);
	for (size_t i = 0; i < sizeof(number_lines) / sizeof(number_lines[0]); i++) {
		int field = 0;
		while (strcmp(smaps_field_names[field], number_lines[i].name))
			field++;
		if (vma_kb(&whole.vmas.items[0], field) != strtoull(number_lines[i].rest, NULL, 10))
			CU_FAIL(number_lines[i].name);
	}
	for (size_t piece = 1; piece <= 64; piece++)
		check_pieces(text, strlen(text), piece, &whole);
	parsed_free(&whole);

	/* the page size is checked when its VMA ends: on the last line; text
	 * after "kB" two lines before the last; and a letter among a
	 * number's 8 columns there */
	const char *bad[] = { "Rss:                   1 kB\n",
			      "100000000000000-100000000001000 rw-p 00000000 00:00 0 \nSize:  4 kB\nRss:  4 kB\n"
			      "KernelPageSize:  999999999999999 kB\nVmFlags: rd wr mr mw me ac \n",
			      "100000000000000-100000000001000 rw-p 00000000 00:00 0 \nSize:                  4 kB\n"
			      "KernelPageSize:        4 kBx\nRss: 4 kB\nVmFlags: rd wr mr mw me ac \n",
			      "100000000000000-100000000001000 rw-p 00000000 00:00 0 \nSize:                  4 kB\n"
			      "KernelPageSize:      1x2 kB\nRss: 4 kB\nVmFlags: rd wr mr mw me ac \n" };
	const char *expect[] = { "field Rss repeated",
				 ("VMA 100000000000000-100000000001000 has KernelPageSize above any address space "
				  "(999999999999999 kB)"), "unexpected text after number", "unexpected text after number" };
	for (size_t i = 0; i < 4; i++) {
		char wrong[4096], where[32];
		snprintf(wrong, sizeof(wrong), "%.*s%s", (int)first_vma, text, bad[i]);
		int line = i >= 2 ? -2 : 0;
		for (const char *c = wrong; *c; c++)
			line += *c == '\n';
		snprintf(where, sizeof(where), "member:%d: ", line);
		struct parsed_smaps p = smaps_of(wrong, strlen(wrong));
		CU_ASSERT_EQUAL(p.status, -1);
		if (!strstr(error.message, where) || !strstr(error.message, expect[i]))
			CU_FAIL(error.message);
		parsed_free(&p);
	}
}

/*
 * A VMA is read against the fields of the one before, in their order
 * (parse_smaps.c vma_body), worked by hand.  VMA 0, in the kernel's
 * columns, sets the order Size Rss Pss Swap THPeligible.  VMA 1 keeps it,
 * but its Size (11 digits) and Rss (9) are wider than the columns, its Pss
 * is 0 after VMA 0's 4 and has no " kB".  VMA 2 has its fields in another
 * order and no Pss; VMA 3 an unknown field first.  Then a VMA that repeats
 * a field after the order of VMA 3 (Size Rss) is refused on that line.
 */
static const char learned_smaps[] =
	"00400000-00403000 r-xp 00000000 08:01 7 /bin/a\n"
	"Size:                 12 kB\n"
	"Rss:                   8 kB\n"
	"Pss:                   4 kB\n"
	"Swap:                  0 kB\n"
	"THPeligible:    1\n"
	"VmFlags: rd ex \n"
	"00500000-100000500000 rw-p 00000000 00:00 0 \n"
	"Size:           17179869184 kB\n"
	"Rss:            123456789 kB\n"
	"Pss:                   0\n"
	"Swap:                  5 kB\n"
	"THPeligible:    0\n"
	"VmFlags: rd wr \n"
	"100000600000-100000601000 rw-p 00000000 00:00 0 \n"
	"Rss:                   4 kB\n"
	"Size:                  4 kB\n"
	"Swap:                  0 kB\n"
	"100000700000-100000702000 rw-p 00000000 00:00 0 \n"
	"Foo:                   3 kB\n"
	"Size:                  8 kB\n"
	"Rss:                   0 kB\n";

static void check_learned(const struct vma *v, const struct smaps_extra *extras)
{
	const uint32_t size = 1u << SMAPS_SIZE, rss = 1u << SMAPS_RSS, pss = 1u << SMAPS_PSS,
		       swap = 1u << SMAPS_SWAP, thp = 1u << SMAPS_THP_ELIGIBLE;
	CU_ASSERT_EQUAL(v[0].present_fields, size | rss | pss | swap | thp);
	CU_ASSERT(vma_kb(&v[0], SMAPS_SIZE) == 12 && vma_kb(&v[0], SMAPS_RSS) == 8 && vma_kb(&v[0], SMAPS_PSS) == 4);
	CU_ASSERT(vma_kb(&v[0], SMAPS_SWAP) == 0 && vma_kb(&v[0], SMAPS_THP_ELIGIBLE) == 1);
	CU_ASSERT_EQUAL(v[1].present_fields, size | rss | pss | swap | thp);
	CU_ASSERT(vma_kb(&v[1], SMAPS_SIZE) == UINT64_C(17179869184) && vma_kb(&v[1], SMAPS_RSS) == 123456789);
	CU_ASSERT(vma_kb(&v[1], SMAPS_PSS) == 0 && vma_kb(&v[1], SMAPS_SWAP) == 5);
	CU_ASSERT(vma_kb(&v[1], SMAPS_THP_ELIGIBLE) == 0 && v[1].counter_fields == (size | rss | swap));
	CU_ASSERT_EQUAL(v[2].present_fields, size | rss | swap);
	CU_ASSERT(vma_kb(&v[2], SMAPS_SIZE) == 4 && vma_kb(&v[2], SMAPS_RSS) == 4 && v[2].counter_fields == (size | rss));
	CU_ASSERT_EQUAL(v[3].present_fields, size | rss);
	CU_ASSERT(vma_kb(&v[3], SMAPS_SIZE) == 8 && v[3].counter_fields == size);
	CU_ASSERT_EQUAL(v[3].extra_count, 1);
	CU_ASSERT_STRING_EQUAL(extras[v[3].extra_first].name, "Foo");
	CU_ASSERT_EQUAL(extras[v[3].extra_first].value, 3);
}

static void test_smaps_learned_order(void)
{
	struct parsed_smaps whole = smaps_of(learned_smaps, sizeof(learned_smaps) - 1);
	CU_ASSERT_EQUAL_FATAL(whole.status, 0);
	CU_ASSERT_EQUAL_FATAL(whole.vmas.count, 4);
	check_learned(whole.vmas.items, whole.extras.items);
	for (size_t piece = 1; piece <= 64; piece++)
		check_pieces(learned_smaps, sizeof(learned_smaps) - 1, piece, &whole);
	parsed_free(&whole);

	/* lines 1-22 above, then: a field repeated after the order (Size Rss)
	 * read; a Swap above Size after an Rss of 0 that follows one of 8 (the
	 * 8 must not stay behind) */
	const char *tails[] = { "100000800000-100000801000 rw-p 00000000 00:00 0 \n"
				"Size:                  4 kB\nRss:                   4 kB\nSize:                  4 kB\n",
				"100000800000-100000802000 rw-p 00000000 00:00 0 \n"
				"Size:                  8 kB\nRss:                   8 kB\n"
				"100000900000-100000901000 rw-p 00000000 00:00 0 \n"
				"Size:                  4 kB\nRss:                   0 kB\nSwap:                  9 kB\n" };
	const char *messages[] = { "member:26: field Size repeated in one VMA",
				   "member:29: VMA 100000900000-100000901000 has Swap above Size (9 kB)" };
	for (int i = 0; i < 2; i++) {
		char text[2048];
		snprintf(text, sizeof(text), "%s%s", learned_smaps, tails[i]);
		struct parsed_smaps p = smaps_of(text, strlen(text));
		CU_ASSERT_EQUAL(p.status, -1);
		if (!strstr(error.message, messages[i]))
			CU_FAIL(error.message);
		parsed_free(&p);
	}
}

/*
 * A VMA keeps only its nonzero counters, in field order, interned (struct
 * vma): worked by hand.  VMA 0 shows Pss as 0 (present, not held) and no
 * Swap line (absent), an unknown field, and its fields out of the kernel's
 * order; VMA 1 lacks VMA 0's Private_Dirty (the parser must clear what the
 * VMA before held); VMA 2 repeats VMA 0's values, so it shares its words.
 */
static const char compact_smaps[] =
	"00400000-00403000 rw-p 00000000 08:01 7 /bin/a\n"
	"Rss:                   8 kB\n"
	"Size:                 12 kB\n"
	"Pss:                   0 kB\n"
	"Private_Dirty:         4 kB\n"
	"Foo_Bar:               7 kB\n"
	"00500000-00501000 rw-p 00000000 00:00 0 \n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"00600000-00603000 rw-p 00000000 08:01 7 /bin/a\n"
	"Size:                 12 kB\n"
	"Rss:                   8 kB\n"
	"Private_Dirty:         4 kB\n";

static void check_compact(const struct parsed_smaps *p)
{
	CU_ASSERT_EQUAL_FATAL(p->status, 0);
	CU_ASSERT_EQUAL_FATAL(p->vmas.count, 3);
	const struct vma *v = p->vmas.items;
	const uint32_t size = 1u << SMAPS_SIZE, rss = 1u << SMAPS_RSS, pss = 1u << SMAPS_PSS;
	const uint32_t dirty = 1u << SMAPS_PRIVATE_DIRTY;
	CU_ASSERT_EQUAL(v[0].present_fields, size | rss | pss | dirty);
	CU_ASSERT_EQUAL(v[0].counter_fields, size | rss | dirty);
	CU_ASSERT_EQUAL(v[0].counters[0], 12);         /* Size, Rss, Private_Dirty: field order */
	CU_ASSERT_EQUAL(v[0].counters[1], 8);
	CU_ASSERT_EQUAL(v[0].counters[2], 4);
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_RSS), 8);
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_PRIVATE_DIRTY), 4);
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_PSS), 0);   /* shown as 0 */
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_SWAP), 0);  /* absent */
	CU_ASSERT_EQUAL(v[0].extra_count, 1);
	CU_ASSERT_STRING_EQUAL(p->extras.items[v[0].extra_first].name, "Foo_Bar");
	CU_ASSERT_EQUAL(p->extras.items[v[0].extra_first].value, 7);
	CU_ASSERT_EQUAL(v[1].counter_fields, size | rss);
	CU_ASSERT_EQUAL(vma_kb(&v[1], SMAPS_SIZE), 4);
	CU_ASSERT_EQUAL(vma_kb(&v[1], SMAPS_RSS), 4);
	CU_ASSERT_EQUAL(vma_kb(&v[1], SMAPS_PRIVATE_DIRTY), 0);
	CU_ASSERT_EQUAL(v[1].extra_count, 0);
	CU_ASSERT_PTR_EQUAL(v[2].counters, v[0].counters);
	CU_ASSERT_PTR_NOT_EQUAL(v[1].counters, v[0].counters);
	CU_ASSERT_EQUAL(v[2].present_fields, size | rss | dirty);
}

static void test_smaps_compact_counters(void)
{
	struct parsed_smaps whole = smaps_of(compact_smaps, sizeof(compact_smaps) - 1);
	check_compact(&whole);
	parsed_free(&whole);
	/* cut at a piece's edge inside VMA 0's "12" of Size, and inside "Foo_Bar" */
	const char *cuts[] = { strstr(compact_smaps, "12 kB") + 1, strstr(compact_smaps, "_Bar") };
	for (size_t i = 0; i < 2; i++) {
		struct parsed_smaps p = { arena_create(), { 0 }, { 0 }, 0 };
		struct smaps_parser parser;
		size_t first = (size_t)(cuts[i] - compact_smaps);
		smaps_parser_begin(&parser, p.arena, &p.vmas, &p.extras, &place);
		p.status = smaps_parser_feed(&parser, compact_smaps, first) ||
			   smaps_parser_feed(&parser, cuts[i], sizeof(compact_smaps) - 1 - first) ||
			   smaps_parser_end(&parser) ? -1 : 0;
		check_compact(&p);
		parsed_free(&p);
	}
	/* counters built by hand: Rss 5 and Swap 7 held, in field order */
	static const uint64_t held[] = { 5, 7 };
	struct vma v = { .counters = held, .counter_fields = 1u << SMAPS_RSS | 1u << SMAPS_SWAP };
	CU_ASSERT_EQUAL(vma_kb(&v, SMAPS_RSS), 5);
	CU_ASSERT_EQUAL(vma_kb(&v, SMAPS_SWAP), 7);
	CU_ASSERT_EQUAL(vma_kb(&v, SMAPS_SIZE), 0);
	CU_ASSERT_EQUAL(vma_kb(&v, SMAPS_SWAP_PSS), 0);
}

/* Equal runs of words share one copy, 8-byte aligned; a string of the same
 * bytes is kept apart (it carries a NUL). */
static void test_arena_words(void)
{
	struct arena *arena = arena_create();
	const uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 3 }, c[] = { 1, 2, 4 };
	const char *s = arena_intern(arena, "x", 1);
	const uint64_t *wa = arena_intern_words(arena, a, 3), *wb = arena_intern_words(arena, b, 3);
	const uint64_t *wc = arena_intern_words(arena, c, 3), *prefix = arena_intern_words(arena, a, 2);
	CU_ASSERT_PTR_EQUAL(wa, wb);
	CU_ASSERT_PTR_NOT_EQUAL(wa, wc);
	CU_ASSERT_PTR_NOT_EQUAL(wa, prefix);
	CU_ASSERT(wa != a && wa[0] == 1 && wa[1] == 2 && wa[2] == 3 && wc[2] == 4 && prefix[1] == 2);
	CU_ASSERT_EQUAL((uintptr_t)wa % 8, 0);
	CU_ASSERT_EQUAL((uintptr_t)wc % 8, 0);
	CU_ASSERT_PTR_NULL(arena_intern_words(arena, a, 0));
	CU_ASSERT_STRING_EQUAL(s, "x");
	CU_ASSERT_PTR_EQUAL(arena_intern(arena, "x", 1), s);
	arena_destroy(arena);
}

/* Each hostile text must fail and name the line the problem is on. */
static void test_smaps_hostile(void)
{
	static const struct { const char *text; const char *expect; } cases[] = {
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\nRss: 99999999999999999999999 kB\n", "member:3: bad or overflowing" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\nRss: 4", "member:3: file ends inside a line" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\n00402000-00403000 r--p 00000000 08:01 1 /x\n", "member:3: VMA 400000-401000 lacks" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 8 kB\nRss: 4 kB\n", "not its length" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\nRss: 8 kB\n", "Rss above Size" },
		{ "Size: 4 kB\n", "member:1: field before the first VMA" },
		{ "00400000-00401000 r?-p 00000000 08:01 1 /x\n", "member:1: bad permission" },
		{ "00401000-00400000 r--p 00000000 08:01 1 /x\n", "ends before it starts" },
		{ "00400000-400000000000000 r--p 00000000 08:01 1 /x\n", "member:1: VMA of 0x3ffffffffc00000 bytes is larger" },
		{ "00400000-00401000 r--p 0000000g 08:01 1 /x\n", "member:1: bad device number" },
		{ "00400000-00401000 r--p zz 08:01 1 /x\n", "member:1: bad file offset" },
		{ "00400000-00401000 r--p 00000000 08:01 1x /x\n", "member:1: bad inode number" },
		{ "00400000+00401000 r--p 00000000 08:01 1 /x\n", "member:1: bad VMA address range" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\nRss: 4 kB\nRss: 4 kB\n", "member:4: field Rss repeated" },
		{ "00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\0\nRss: 4 kB\n", "binary data" },
		{ "00400000-00402000 r--p 00000000 08:01 1 /x\nSize: 8 kB\nRss: 4 kB\n00401000-00402000 r--p 0 08:01 1 /x\nSize: 4 kB\nRss: 4 kB\n", "overlap" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t size = strlen(cases[i].text);
		if (strstr(cases[i].expect, "binary"))
			size = 70;
		struct parsed_smaps p = smaps_of(cases[i].text, size);
		CU_ASSERT_EQUAL(p.status, -1);
		if (!strstr(error.message, cases[i].expect))
			CU_FAIL(cases[i].expect);
		parsed_free(&p);
	}
}

/* A line that begins with a digit or a-f is tried as a VMA header first
 * (parse_piece); one that is a field of a name no kernel prints yet is
 * still kept by name, in its VMA, and the next header still begins one. */
static void test_smaps_lowercase_fields(void)
{
	static const char text[] =
		"00400000-00401000 r--p 00000000 08:01 1 /x\nSize: 4 kB\nRss: 4 kB\nabc_field:   3 kB\n0day: 2\n"
		"00401000-00403000 rw-p 00000000 00:00 0 \nSize: 8 kB\nRss: 0 kB\nfe: 5\n";
	struct parsed_smaps p = smaps_of(text, sizeof(text) - 1);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	CU_ASSERT_EQUAL_FATAL(p.vmas.count, 2);
	const struct vma *v = p.vmas.items;
	CU_ASSERT_EQUAL_FATAL(v[0].extra_count, 2);
	CU_ASSERT_STRING_EQUAL(p.extras.items[v[0].extra_first].name, "abc_field");
	CU_ASSERT_EQUAL(p.extras.items[v[0].extra_first].value, 3);
	CU_ASSERT_STRING_EQUAL(p.extras.items[v[0].extra_first + 1].name, "0day");
	CU_ASSERT_EQUAL(p.extras.items[v[0].extra_first + 1].value, 2);
	CU_ASSERT_EQUAL(vma_kb(&v[0], SMAPS_RSS), 4);
	CU_ASSERT_EQUAL_FATAL(v[1].extra_count, 1);
	CU_ASSERT_STRING_EQUAL(p.extras.items[v[1].extra_first].name, "fe");
	CU_ASSERT_EQUAL(vma_kb(&v[1], SMAPS_SIZE), 8);
	parsed_free(&p);
}

/* Numbers at their bounds: 2^64 - 1 taken, 2^64 refused, in decimal and hex;
 * leading zeros never overflow; the stop and the limit respected. */
static void test_numbers(void)
{
	static const struct { const char *text; int base; size_t limit; bool ok; uint64_t value; size_t used; } cases[] = {
		{ "18446744073709551615", 10, 20, true, UINT64_MAX, 20 }, { "18446744073709551616", 10, 20, false, 0, 0 },
		{ "99999999999999999999", 10, 20, false, 0, 0 }, { "000000000000000000000000042 kB", 10, 30, true, 42, 27 },
		{ "123", 10, 2, true, 12, 2 }, { " 1", 10, 2, false, 0, 0 },
		{ "ffffffffffffffff", 16, 16, true, UINT64_MAX, 16 }, { "FFFFFFFFFFFFFFFF0", 16, 17, false, 0, 0 },
		{ "10000000000000000", 16, 17, false, 0, 0 }, { "00000000000000000000aBcD-1", 16, 26, true, 0xabcd, 24 },
		{ "7fG", 16, 3, true, 0x7f, 2 }, { "g", 16, 1, false, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t value = 0;
		const char *end = NULL, *text = cases[i].text;
		bool ok = cases[i].base == 10 ? parse_u64(text, text + cases[i].limit, &value, &end)
					      : parse_hex_u64(text, text + cases[i].limit, &value, &end);
		CU_ASSERT_EQUAL(ok, cases[i].ok);
		if (ok && (value != cases[i].value || end != text + cases[i].used))
			CU_FAIL(text);
	}
}

/* The line parsers capture's walk shares with the readers (proc_lines.c). */
static void test_line_parsers(void)
{
	static const char line[] = "7ffd1000-7ffd3000 r-xs 0001f000 fd:01 1234567                    /usr/lib/x y";
	struct smaps_header h;
	CU_ASSERT_EQUAL_FATAL(smaps_header_parse(line, line + sizeof(line) - 1, &h), SMAPS_HEADER_OK);
	CU_ASSERT_EQUAL(h.start, 0x7ffd1000);
	CU_ASSERT_EQUAL(h.end, 0x7ffd3000);
	CU_ASSERT_EQUAL(h.offset, 0x1f000);
	CU_ASSERT_EQUAL(h.dev_major, 0xfd);
	CU_ASSERT_EQUAL(h.dev_minor, 1);
	CU_ASSERT_EQUAL(h.inode, 1234567);
	CU_ASSERT_EQUAL(memcmp(h.perms, "r-xs", 4), 0);
	CU_ASSERT_EQUAL(h.path_length, 12);
	CU_ASSERT_EQUAL(memcmp(h.path, "/usr/lib/x y", 12), 0);
	static const char anon[] = "00400000-00401000 rw-p 00000000 00:00 0 ";
	CU_ASSERT_EQUAL_FATAL(smaps_header_parse(anon, anon + sizeof(anon) - 1, &h), SMAPS_HEADER_OK);
	CU_ASSERT_EQUAL(h.path_length, 0);
	static const char field[] = "AnonHugePages:         0 kB";
	CU_ASSERT_EQUAL(smaps_header_parse(field, field + sizeof(field) - 1, &h), SMAPS_HEADER_BAD_RANGE);
	/* rd = 0, mr = 4, pf = 9, io = 12; "zz" and "x" are unknown */
	static const char flags[] = " rd mr  pf\tio zz x ";
	CU_ASSERT_EQUAL(smaps_vm_flags(flags, flags + sizeof(flags) - 1),
			UINT64_C(1) << 0 | UINT64_C(1) << 4 | UINT64_C(1) << 9 | UINT64_C(1) << 12 | UINT64_C(1) << VMF_OTHER);
	CU_ASSERT_EQUAL(smaps_vm_flags(flags, flags), 0);
	/* the kernel's own shape read to its newline; any other left to smaps_vm_flags */
	static const char kernel_flags[] = " rd mr pf io zz \nnext";
	uint64_t found = 0;
	const char *kernel_end = kernel_flags + sizeof(kernel_flags) - 1;
	CU_ASSERT_PTR_EQUAL(smaps_vm_flags_line(kernel_flags, kernel_end, &found), kernel_flags + 17);
	CU_ASSERT_EQUAL(found, UINT64_C(1) << 0 | UINT64_C(1) << 4 | UINT64_C(1) << 9 | UINT64_C(1) << 12 |
			       UINT64_C(1) << VMF_OTHER);
	static const char no_space[] = " rd\n";
	CU_ASSERT_PTR_EQUAL(smaps_vm_flags_line(no_space, no_space + 4, &found), no_space + 4);
	CU_ASSERT_EQUAL(found, 1);
	static const char *const others[] = { " rd mr  pf\n", " rd x \n", " rd\tmr \n", " rdmr \n", " rd mr " };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		CU_ASSERT_PTR_NULL(smaps_vm_flags_line(others[i], others[i] + strlen(others[i]), &found));
	static const char stat[] = "42 (a) b (c)) S 7 42 42 0 -1\n";
	struct stat_line st;
	CU_ASSERT_EQUAL_FATAL(stat_line_parse(stat, sizeof(stat) - 1, &st, &place), 0);
	CU_ASSERT_EQUAL(st.pid, 42);
	CU_ASSERT_EQUAL(st.ppid, 7);
	CU_ASSERT_EQUAL(st.comm_length, 8);
	CU_ASSERT_EQUAL(memcmp(st.comm, "a) b (c)", 8), 0);
}

static void test_status_real(void)
{
	size_t size;
	char *text = slurp("proc/sleep.status", &size);
	struct process_status s;
	CU_ASSERT_EQUAL_FATAL(parse_status(text, size, &s, &place), 0);
	CU_ASSERT(s.has_vm_pte);
	CU_ASSERT_EQUAL(s.vm_pte_kb, 48);
	CU_ASSERT_EQUAL(s.vm_rss_kb, 1788);
	CU_ASSERT_EQUAL(s.rss_anon_kb, 108);
	CU_ASSERT_EQUAL(s.rss_file_kb, 1680);
	CU_ASSERT_EQUAL(s.rss_shmem_kb, 0);
	free(text);
	static const char bad[] = "Name:\tx\nVmPTE:\t18446744073709551616 kB\n";
	CU_ASSERT_EQUAL(parse_status(bad, sizeof(bad) - 1, &s, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "member:2: bad or overflowing"));
	/* base's struct error: the member is the file, its line the line, bad input */
	CU_ASSERT_STRING_EQUAL(error.file, "test: member");
	CU_ASSERT_EQUAL(error.line, 2);
	CU_ASSERT_EQUAL(error.status, STATUS_BAD_INPUT);
}

static void test_stat(void)
{
	struct arena *arena = arena_create();
	size_t size;
	char *text = slurp("proc/sleep.stat", &size);
	int pid, ppid;
	const char *comm;
	CU_ASSERT_EQUAL_FATAL(parse_stat(text, size, arena, &pid, &ppid, &comm, &place), 0);
	CU_ASSERT_EQUAL(pid, 5969);
	CU_ASSERT_EQUAL(ppid, 5965);
	CU_ASSERT_STRING_EQUAL(comm, "sleep");
	free(text);
	static const char odd[] = "42 (a) b (c)) S 7 42 42 0 -1\n";
	CU_ASSERT_EQUAL_FATAL(parse_stat(odd, sizeof(odd) - 1, arena, &pid, &ppid, &comm, &place), 0);
	CU_ASSERT_STRING_EQUAL(comm, "a) b (c)");
	CU_ASSERT_EQUAL(ppid, 7);
	static const char cut[] = "42 (abc";
	CU_ASSERT_EQUAL(parse_stat(cut, sizeof(cut) - 1, arena, &pid, &ppid, &comm, &place), -1);
	static const char cut2[] = "42 (abc) S";
	CU_ASSERT_EQUAL(parse_stat(cut2, sizeof(cut2) - 1, arena, &pid, &ppid, &comm, &place), -1);
	arena_destroy(arena);
}

static void test_cmdline_and_meminfo(void)
{
	struct arena *arena = arena_create();
	static const char args[] = "sleep\0" "1000\0";
	CU_ASSERT_STRING_EQUAL(parse_cmdline(args, sizeof(args) - 1, arena), "sleep 1000");
	CU_ASSERT_STRING_EQUAL(parse_cmdline("", 0, arena), "");
	size_t size, count;
	char *text = slurp("proc/meminfo", &size);
	struct meminfo_entry *entries;
	CU_ASSERT_EQUAL_FATAL(parse_meminfo(text, size, arena, &entries, &count, &place), 0);
	/* grep -c . meminfo; first line is MemTotal */
	size_t lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	CU_ASSERT_EQUAL(count, lines);
	CU_ASSERT_STRING_EQUAL(entries[0].name, "MemTotal");
	CU_ASSERT_EQUAL(entries[0].kb, strtoull(text + strlen("MemTotal:"), NULL, 10));
	free(entries);
	free(text);
	arena_destroy(arena);
}

static void test_info(void)
{
	static const char good[] = "format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\n"
				   "future_key: whatever\npagemap: present\nprocesses: 12\nskipped: 3\n";
	struct snapshot_info info = { 0 };
	CU_ASSERT_EQUAL_FATAL(parse_info(good, sizeof(good) - 1, &info, &place), 0);
	CU_ASSERT_EQUAL(info.format_version, 1);
	CU_ASSERT_EQUAL(info.pagemap, PAGEMAP_PRESENT_ONLY);
	CU_ASSERT_EQUAL(info.processes, 12);
	CU_ASSERT_EQUAL(info.skipped, 3);
	CU_ASSERT_STRING_EQUAL(info.arch, "x86_64");
	CU_ASSERT_EQUAL(info.scope, SCOPE_UNSTATED);
	static const char part[] = "scope: part\n", all[] = "scope: all\n", odd_scope[] = "scope: some\n";
	CU_ASSERT_EQUAL(parse_info(part, sizeof(part) - 1, &info, &place), 0);
	CU_ASSERT_EQUAL(info.scope, SCOPE_PART);
	CU_ASSERT_EQUAL(parse_info(all, sizeof(all) - 1, &info, &place), 0);
	CU_ASSERT_EQUAL(info.scope, SCOPE_ALL);
	CU_ASSERT_EQUAL(parse_info(odd_scope, sizeof(odd_scope) - 1, &info, &place), -1);
	static const char two[] = "format: ptscope-snapshot 2\n", newer[] = "format: ptscope-snapshot 3\n",
			  zero[] = "format: ptscope-snapshot 0\n";
	CU_ASSERT_EQUAL(parse_info(two, sizeof(two) - 1, &info, &place), 0);
	CU_ASSERT_EQUAL(info.format_version, 2);
	CU_ASSERT_EQUAL(parse_info(zero, sizeof(zero) - 1, &info, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "format 0 is older than this ptscope reads (1 to 2)"));
	CU_ASSERT_EQUAL(parse_info(newer, sizeof(newer) - 1, &info, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "format 3 is newer than this ptscope reads (1 to 2)"));
	static const char odd_page[] = "page_size: 4095\n";
	CU_ASSERT_EQUAL(parse_info(odd_page, sizeof(odd_page) - 1, &info, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "member:1:"));
}

/* PID/pmd_mapped: {start, end} pairs, page-aligned, ascending, apart. */
static void test_pmd_ranges(void)
{
	struct snapshot s = { 0 };
	size_t first, count;
	const uint64_t good[] = { 0x200000, 0x600000, 0x800000, 0xa00000 };
	CU_ASSERT_EQUAL_FATAL(parse_pmd_ranges(good, sizeof(good), &s, &first, &count, &place), 0);
	CU_ASSERT_EQUAL(first, 0);
	CU_ASSERT_EQUAL(count, 2);
	CU_ASSERT_EQUAL(s.pmd_ranges[1].start, 0x800000);
	CU_ASSERT_EQUAL(parse_pmd_ranges(good, 0, &s, &first, &count, &place), 0);   /* scanned, none */
	CU_ASSERT_EQUAL(count, 0);
	const uint64_t overlapping[] = { 0x200000, 0x600000, 0x400000, 0x800000 };
	CU_ASSERT_EQUAL(parse_pmd_ranges(overlapping, sizeof(overlapping), &s, &first, &count, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "not above the previous range"));
	const uint64_t empty[] = { 0x200000, 0x200000 }, unaligned[] = { 0x200001, 0x400000 };
	CU_ASSERT_EQUAL(parse_pmd_ranges(empty, sizeof(empty), &s, &first, &count, &place), -1);
	CU_ASSERT_EQUAL(parse_pmd_ranges(unaligned, sizeof(unaligned), &s, &first, &count, &place), -1);
	CU_ASSERT_EQUAL(parse_pmd_ranges(good, 12, &s, &first, &count, &place), -1);
	free(s.pmd_ranges);
}

static void test_binary_members(void)
{
	struct pagemap_record records[3] = {
		{ 0x1000, PAGEMAP_PRESENT | 5 }, { 0x3000, PAGEMAP_SWAPPED | 7 }, { 0x2000, PAGEMAP_PRESENT },
	};
	size_t count;
	CU_ASSERT_EQUAL(parse_pagemap(records, 32, &place), 0);
	CU_ASSERT_EQUAL(parse_pagemap(records, 33, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "not a multiple of 16"));
	CU_ASSERT_EQUAL(parse_pagemap(records, 48, &place), -1); /* 0x2000 after 0x3000 */
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "record 2: address 0x2000 not above"));
	records[0].entry = 0; /* neither present nor swapped */
	CU_ASSERT_EQUAL(parse_pagemap(records, 16, &place), -1);
	records[0] = (struct pagemap_record){ 0x1800, PAGEMAP_PRESENT };
	CU_ASSERT_EQUAL(parse_pagemap(records, 16, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "not page-aligned"));
	struct kpage_record kpages[2] = { { 9, 1, 0 }, { 8, 2, 0 } };
	CU_ASSERT_EQUAL(check_kpage_record(&kpages[1], &kpages[0], 1, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "record 1: PFN 0x8 not above"));
	kpages[0].mapcount = UINT64_C(1) << 31;
	CU_ASSERT_EQUAL(check_kpage_record(&kpages[0], NULL, 0, &place), -1);
	(void)count;
}

/* kpage runs: PFNs that continue the last run with its kpagecount and
 * kpageflags join it, whichever member they came from; a lookup finds the
 * run that holds a PFN. */
static void test_kpage_runs(void)
{
	struct snapshot s = { 0 };
	size_t capacity = 0;
	const struct kpage_run pages[] = { { 5, 1, 1, 0 }, { 6, 1, 1, 0 }, { 7, 2, 2, 0 }, { 9, 1, 2, 4 },
					   { 20, 3, 2, 4 } };
	for (size_t i = 0; i < 5; i++)
		kpage_push_run(&s, &pages[i], &capacity);
	CU_ASSERT_EQUAL(s.kpage_run_count, 4);         /* 5-6, 7-8, 9, 20-22 */
	CU_ASSERT_EQUAL(s.kpage_count, 8);
	CU_ASSERT(snapshot_find_kpage(&s, 6) && snapshot_find_kpage(&s, 6)->pfn == 5);
	CU_ASSERT(snapshot_find_kpage(&s, 8) && snapshot_find_kpage(&s, 8)->mapcount == 2);
	CU_ASSERT(snapshot_find_kpage(&s, 22) && snapshot_find_kpage(&s, 22)->flags == 4);
	CU_ASSERT_PTR_NULL(snapshot_find_kpage(&s, 4));
	CU_ASSERT_PTR_NULL(snapshot_find_kpage(&s, 10));
	CU_ASSERT_PTR_NULL(snapshot_find_kpage(&s, 23));
	/* kpage_runs' blocks carry the run before from one to the next */
	unsigned char bytes[2][64];
	size_t sizes[2], count;
	struct kpage_codec writer = { 0 }, reader = { 0 };
	struct kpage_run back[4];
	char problem[160];
	sizes[0] = kpage_block_encode(s.kpage_runs, 2, &writer, bytes[0]);
	sizes[1] = kpage_block_encode(s.kpage_runs + 2, 2, &writer, bytes[1]);
	/* 2 runs; 5 - 0, 2 - 1, 1, 0; 7 - 7, 2 - 1, 2, 0 ^ 0 */
	CU_ASSERT(sizes[0] == 9 && !memcmp(bytes[0], "\x02\x05\x01\x01\x00\x00\x01\x02\x00", 9));
	/* 9 - 9, 0, 2, 4 ^ 0; 20 - 10, 3 - 1, 2, 4 ^ 4 */
	CU_ASSERT(sizes[1] == 9 && !memcmp(bytes[1], "\x02\x00\x00\x02\x04\x0a\x02\x02\x00", 9));
	CU_ASSERT_EQUAL(kpage_block_decode(bytes[0], sizes[0], &reader, back, &count, problem, sizeof(problem)), 0);
	CU_ASSERT_EQUAL(kpage_block_decode(bytes[1], sizes[1], &reader, back + 2, &count, problem, sizeof(problem)), 0);
	CU_ASSERT(count == 2 && !memcmp(back, s.kpage_runs, sizeof(back)));
	free(s.kpage_runs);
}

/* This machine's /proc/slabinfo: 237 lines, 2 of them headers; awk on it:
 * anon_vma 1059 1599 104 39 1 ... slabdata 41 41 (line 169). */
static void test_slabinfo(void)
{
	struct arena *arena = arena_create();
	size_t size, count;
	char *text = slurp("proc/slabinfo", &size);
	struct slab_cache *caches = NULL;
	CU_ASSERT_EQUAL_FATAL(parse_slabinfo(text, size, arena, &caches, &count, &place), 0);
	CU_ASSERT_EQUAL(count, 235);
	struct snapshot s = { .slabs = caches, .slab_count = count };
	const struct slab_cache *c = snapshot_find_slab(&s, "anon_vma");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->active_objects, 1059);
	CU_ASSERT_EQUAL(c->objects, 1599);
	CU_ASSERT_EQUAL(c->object_bytes, 104);
	CU_ASSERT_EQUAL(c->objects_per_slab, 39);
	CU_ASSERT_EQUAL(c->active_slabs, 41);
	CU_ASSERT_FALSE(c->has_cpu_state);
	/* the capture's slub member onto it; unknown keys and caches are skipped */
	static const char slub[] = "cpus: 2\nnodes: 1\ncache: anon_vma cpu_slabs=7 sheaf_capacity=0 "
				   "aliases=0 active_after=1100 later_key=5\ncache: no_such_cache cpu_slabs=1\n";
	CU_ASSERT_EQUAL_FATAL(parse_slub(slub, sizeof(slub) - 1, &s, &place), 0);
	CU_ASSERT_TRUE(c->has_cpu_state);
	CU_ASSERT_EQUAL(c->cpu_slabs, 7);
	CU_ASSERT_TRUE(c->has_active_after);
	CU_ASSERT_EQUAL(c->active_objects_after, 1100);
	CU_ASSERT_EQUAL(s.slab_cpus, 2);
	static const char bad_slub[] = "cpus: 2\ncache: anon_vma cpu_slabs=x\n";
	CU_ASSERT_EQUAL(parse_slub(bad_slub, sizeof(bad_slub) - 1, &s, &place), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "member:2: bad or overflowing number for cpu_slabs"));
	free(caches);
	/* hostile: not slabinfo; a short line; a number that overflows; more active than all */
	static const char *const bad[] = {
		"hello\n",
		"slabinfo - version: 2.1\n# name ...\nanon_vma 1 2 3\n",
		"slabinfo - version: 2.1\nanon_vma 99999999999999999999 2 3 4 5\n",
		"slabinfo - version: 2.1\nanon_vma 3 2 104 39 1 : tunables 0 0 0 : slabdata 1 1 0\n",
	};
	const char *where[] = { "member:1:", "member:3:", "member:2:", "member:2: more active" };
	for (size_t i = 0; i < 4; i++) {
		caches = NULL;
		CU_ASSERT_EQUAL(parse_slabinfo(bad[i], strlen(bad[i]), arena, &caches, &count, &place), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(error.message, where[i]));
		free(caches);
	}
	free(text);
	arena_destroy(arena);
}

void suite_parse(void)
{
	ADD_SUITE("parse", test_smaps_real, test_smaps_in_pieces, test_smaps_field_numbers, test_smaps_learned_order,
		  test_smaps_names_and_old_formats, test_smaps_compact_counters, test_arena_words, test_smaps_hostile,
		  test_smaps_lowercase_fields, test_numbers, test_line_parsers,
		  test_status_real, test_stat, test_cmdline_and_meminfo, test_info, test_binary_members, test_pmd_ranges,
		  test_slabinfo, test_kpage_runs);
}
