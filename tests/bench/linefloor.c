/*
 * tests/bench/linefloor.c - the floor under parsing a snapshot's text: the
 * least any line parser does, which is to find where each line ends.
 *
 *   linefloor FILE
 *
 * The file is mapped as `ptscope info` maps a tar (inputs/mapped_file.c):
 * 2 MiB windows at 2 MiB offsets, populated, one at a time.  Every byte is
 * looked at once and the newlines counted, 16 bytes a step with SSE2 (every
 * x86-64 has it), else 8 a step in a word.  Nothing is split, parsed or
 * kept.  Prints the lines and bytes it saw.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: linefloor FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	uint64_t lines = 0, size = (uint64_t)st.st_size;
	for (uint64_t start = 0; start < size; start += WINDOW_BYTES) {
		size_t bytes = size - start < WINDOW_BYTES ? (size_t)(size - start) : WINDOW_BYTES;
		void *window = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, (off_t)start);
		if (window == MAP_FAILED) {
			perror(argv[1]);
			return 1;
		}
		lines += newlines(window, bytes);
		munmap(window, bytes);
	}
	close(fd);
	printf("linefloor: %" PRIu64 " lines in %" PRIu64 " bytes\n", lines, size);
	return 0;
}
