/*
 * tests/bench/linefloor.c - the floors under parsing a snapshot's text: the
 * least any line parser does, which is to find where each line ends; the
 * least an smaps parser does, which is that and each counter's value; and
 * the least a reader that holds the VMAs does, which is that and a record
 * of each VMA as big as ptscope's (struct vma) kept in memory.
 *
 *   linefloor FILE             the line floor
 *   linefloor --numbers FILE   the number floor
 *   linefloor --vmas FILE      the VMA floor
 *
 * The file is mapped as `ptscope info` maps a tar (inputs/mapped_file.c):
 * 2 MiB windows at 2 MiB offsets, populated, one at a time.  The line
 * floor looks at every byte once and counts the newlines, 16 bytes a step
 * with SSE2 (every x86-64 has it), else 8 a step in a word.  The number
 * floor walks the lines: a line in the kernel's counter columns ("Rss:"
 * padded to 16, the number right-aligned in 8, " kB\n": 28 bytes, most of
 * an smaps file) has its number read in one word and summed, any other line
 * its end found with memchr.  No field name is looked up, nothing is
 * checked or kept: a parser that keeps VMAs and refuses bad text does more.
 * The VMA floor adds, for each VMA header line ("7f00-7f01 ..."), a record
 * of sizeof(struct vma) bytes in an array grown by doubling, as info holds
 * its VMAs: the cost of fresh memory (on a VM whose host takes back freed
 * pages, each first touch is a fault there too).  Prints the lines and
 * bytes it saw (and the counters' sum, and the VMAs kept).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/snapshot.h"   /* struct vma: the VMA floor's record (built with -I at the top) */
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define WINDOW_BYTES (2 << 20)

#ifndef __SSE2__
/* The bits set in x, without a library call (no -mpopcnt needed). */
static unsigned bits_set(uint64_t x)
{
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}
#endif

static uint64_t newlines(const unsigned char *p, size_t size)
{
	uint64_t count = 0;
	size_t i = 0;
#ifdef __SSE2__
	const __m128i newline = _mm_set1_epi8('\n');
	for (; i + 64 <= size; i += 64) {
		const __m128i *at = (const __m128i *)(p + i);
		uint64_t mask = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at), newline)) |
				(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 1), newline)) << 16 |
				(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 2), newline)) << 32 |
				(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 3), newline)) << 48;
		for (; mask; mask &= mask - 1)   /* each line's end, as a parser visits it */
			count++;
	}
#else
	const uint64_t ones = UINT64_C(0x0101010101010101), low7 = ones * 0x7f;
	for (; i + 8 <= size; i += 8) {
		uint64_t word;
		memcpy(&word, p + i, 8);
		uint64_t x = word ^ ones * '\n';
		/* a byte's top bit stays clear only where x is 0: no carry leaves a byte */
		count += bits_set(~(((x & low7) + low7) | x) & ones * 0x80);
	}
#endif
	for (; i < size; i++)
		count += p[i] == '\n';
	return count;
}

/* The number floor's walk, carried from one window to the next. */
struct number_walk {
	uint64_t lines, sum_kb;
	unsigned char cut[64];  /* the start of a line the last window ended inside */
	size_t cut_bytes;       /* the line's length so far (a longer one is never in columns) */
	int inside_line;
	int keep_vmas;          /* the VMA floor */
	struct vma *vmas;
	size_t vma_count, vma_capacity;
};

static uint64_t load_word(const unsigned char *p)
{
	uint64_t word;
	memcpy(&word, p, 8);
	return word;
}

/* The top bit of each byte of word that is not a decimal digit (a byte's
 * carry only marks bytes after a marked one). */
static uint64_t other_than_digits(uint64_t word)
{
	uint64_t x = word ^ UINT64_C(0x3030303030303030);
	return ((x + UINT64_C(0x7676767676767676)) | x) & UINT64_C(0x8080808080808080);
}

/* A word of spaces then 1 to 8 digits: its value (a space reads as 0 once
 * masked), else -1. */
static int64_t right_aligned(uint64_t word)
{
	const uint64_t spaces = UINT64_C(0x2020202020202020);
	if (word == spaces)
		return -1;
	unsigned first = (unsigned)__builtin_ctzll(word ^ spaces) & ~7u;
	if (other_than_digits(word) != (UINT64_C(0x8080808080808080) & ((UINT64_C(1) << first) - 1)))
		return -1;
	uint64_t v = word & UINT64_C(0x0f0f0f0f0f0f0f0f);
	v = (v * 10 + (v >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	v = (v * 100 + (v >> 16)) & UINT64_C(0x0000ffff0000ffff);
	return (int64_t)((v * 10000 + (v >> 32)) & UINT64_C(0xffffffff));
}

/* The line at p if it is in the counter columns: its number added, the
 * next line returned; else NULL. */
static const unsigned char *column_line(const unsigned char *p, const unsigned char *end, struct number_walk *walk)
{
	int64_t value;
	if (end - p < 28 || memcmp(p + 24, " kB\n", 4) || (value = right_aligned(load_word(p + 16))) < 0)
		return NULL;
	walk->sum_kb += (uint64_t)value;
	walk->lines++;
	return p + 28;
}

/* "start-end ...": hex digits, then '-' (a stat line has a space). */
static int vma_header(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *q = p;
	while (q < end && q - p <= 16 && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
		q++;
	return q > p && q < end && *q == '-';
}

/* The VMA floor's record: the bytes info keeps for a VMA, stored whole. */
static void keep_vma(struct number_walk *walk, uint64_t line_offset)
{
	if (walk->vma_count == walk->vma_capacity) {
		walk->vma_capacity = walk->vma_capacity ? 2 * walk->vma_capacity : 64;
		walk->vmas = realloc(walk->vmas, walk->vma_capacity * sizeof(*walk->vmas));
		if (!walk->vmas) {
			perror("linefloor");
			exit(2);
		}
	}
	walk->vmas[walk->vma_count++] = (struct vma){ .start = line_offset, .end = walk->sum_kb };
}

/* A line that is not in columns: a VMA kept when it is a header.  The
 * first line of a tar member is read from the file as one with the 512-byte
 * header block before it: its text begins after the block's last NUL. */
static void other_line(struct number_walk *walk, const unsigned char *p, const unsigned char *end)
{
	walk->lines++;
	if (!walk->keep_vmas)
		return;
	if (end - p > 512) {
		const unsigned char *nul = memrchr(p, '\0', (size_t)(end - p));
		p = nul ? nul + 1 : p;
	}
	if (vma_header(p, end))
		keep_vma(walk, walk->lines);
}

/* A line the last window cut, ended in this one: kept start and rest read
 * as one line.  Where the window carries on after the line. */
static const unsigned char *finish_cut_line(const unsigned char *p, size_t size, struct number_walk *walk)
{
	const unsigned char *newline = memchr(p, '\n', size);
	size_t rest = newline ? (size_t)(newline + 1 - p) : size;
	size_t kept = walk->cut_bytes < sizeof(walk->cut) ? walk->cut_bytes : sizeof(walk->cut);
	size_t copied = rest < sizeof(walk->cut) - kept ? rest : sizeof(walk->cut) - kept;
	memcpy(walk->cut + kept, p, copied);
	walk->cut_bytes += rest;
	if (!newline)
		return p + size;   /* a line longer than a window */
	walk->inside_line = 0;
	if (walk->cut_bytes <= sizeof(walk->cut) && column_line(walk->cut, walk->cut + walk->cut_bytes, walk))
		return newline + 1;
	/* a line with a tar header in it: its text in this window when the
	 * header's last NUL is here */
	const unsigned char *nul = walk->cut_bytes > 512 ? memrchr(p, '\0', (size_t)(newline - p)) : NULL;
	if (nul)
		other_line(walk, nul + 1, newline);
	else
		other_line(walk, walk->cut, walk->cut + kept + copied);
	return newline + 1;
}

static void numbers(const unsigned char *p, size_t size, struct number_walk *walk)
{
	const unsigned char *end = p + size, *next;
	if (walk->inside_line)
		p = finish_cut_line(p, size, walk);
	while (p < end) {
		if ((next = column_line(p, end, walk))) {
			p = next;
			continue;
		}
		const unsigned char *newline = memchr(p, '\n', (size_t)(end - p));
		if (!newline) {
			walk->inside_line = 1;
			walk->cut_bytes = (size_t)(end - p);
			memcpy(walk->cut, p, walk->cut_bytes < sizeof(walk->cut) ? walk->cut_bytes : sizeof(walk->cut));
			return;
		}
		other_line(walk, p, newline);
		p = newline + 1;
	}
}

int main(int argc, char **argv)
{
	struct number_walk walk = { 0 };
	/* --vmas is --numbers and the VMAs kept */
	walk.keep_vmas = argc == 3 && !strcmp(argv[1], "--vmas");
	int numbers_too = walk.keep_vmas || (argc == 3 && !strcmp(argv[1], "--numbers"));
	if (argc != 2 + numbers_too) {
		fprintf(stderr, "usage: linefloor [--numbers | --vmas] FILE\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(path);
		return 1;
	}
	uint64_t lines = 0, size = (uint64_t)st.st_size;
	for (uint64_t start = 0; start < size; start += WINDOW_BYTES) {
		size_t bytes = size - start < WINDOW_BYTES ? (size_t)(size - start) : WINDOW_BYTES;
		void *window = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, (off_t)start);
		if (window == MAP_FAILED) {
			perror(path);
			return 1;
		}
		if (numbers_too)
			numbers(window, bytes, &walk);
		else
			lines += newlines(window, bytes);
		munmap(window, bytes);
	}
	close(fd);
	printf("linefloor: %" PRIu64 " lines in %" PRIu64 " bytes", numbers_too ? walk.lines : lines, size);
	if (numbers_too)
		printf(", counters in columns summing to %" PRIu64 " kB", walk.sum_kb);
	if (walk.keep_vmas)
		printf(", %zu VMAs kept in %zu bytes", walk.vma_count, walk.vma_count * sizeof(*walk.vmas));
	putchar('\n');
	free(walk.vmas);
	return 0;
}
