/*
 * tests/bench/readfloor.c - the floor under `ptscope capture`: the bytes the
 * kernel must hand over, read with nothing else done.
 *
 *   readfloor PID...
 *
 * For each process: /proc/PID/smaps whole, then /proc/PID/pagemap over every
 * VMA in windows of 512 entries (as capture reads it); the PFNs of present
 * pages are marked in a bitmap, and /proc/kpagecount and /proc/kpageflags are
 * read in windows of 512 PFNs over the marked ones.  No parsing beyond VMA
 * headers, no records kept, nothing written.  Prints how much it read.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW 512
#define PFN_MASK ((UINT64_C(1) << 55) - 1)
#define PRESENT (UINT64_C(1) << 63)

static uint64_t *bitmap;
static size_t bitmap_words;

static void mark(uint64_t pfn)
{
	size_t word = (size_t)(pfn >> 6);
	if (word >= bitmap_words) {
		size_t words = bitmap_words ? bitmap_words : 1024;
		while (words <= word)
			words *= 2;
		bitmap = realloc(bitmap, words * sizeof(*bitmap));
		if (!bitmap) {
			perror("readfloor");
			exit(1);
		}
		memset(bitmap + bitmap_words, 0, (words - bitmap_words) * sizeof(*bitmap));
		bitmap_words = words;
	}
	bitmap[word] |= UINT64_C(1) << (pfn & 63);
}

static char *read_all(const char *path, size_t *length)
{
	int fd = open(path, O_RDONLY);
	size_t capacity = 1 << 16, used = 0;
	char *data = malloc(capacity);
	if (fd < 0 || !data)
		return free(data), NULL;
	for (;;) {
		if (used == capacity && !(data = realloc(data, capacity *= 2)))
			exit(1);
		ssize_t n = read(fd, data + used, capacity - used);
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	*length = used;
	return data;
}

int main(int argc, char **argv)
{
	uint64_t entries[WINDOW], pagemap_bytes = 0, smaps_bytes = 0, kpage_bytes = 0;
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		char path[64];
		size_t length;
		snprintf(path, sizeof(path), "/proc/%s/smaps", argv[i]);
		char *smaps = read_all(path, &length);
		if (!smaps)
			continue;
		smaps_bytes += length;
		snprintf(path, sizeof(path), "/proc/%s/pagemap", argv[i]);
		int fd = open(path, O_RDONLY);
		for (char *line = smaps; fd >= 0 && line < smaps + length;) {
			char *end = memchr(line, '\n', (size_t)(smaps + length - line));
			end = end ? end : smaps + length;
			uint64_t start, stop;
			if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &start, &stop) == 2 &&
			    !memmem(line, (size_t)(end - line), "[vsyscall]", 10)) {
				for (uint64_t p = start / page; p < stop / page;) {
					uint64_t want = stop / page - p < WINDOW ? stop / page - p : WINDOW;
					ssize_t n = pread(fd, entries, want * 8, (off_t)(p * 8));
					if (n <= 0)
						break;
					pagemap_bytes += (uint64_t)n;
					for (size_t k = 0; k < (size_t)n / 8; k++)
						if ((entries[k] & PRESENT) && (entries[k] & PFN_MASK))
							mark(entries[k] & PFN_MASK);
					p += (uint64_t)n / 8;
				}
			}
			line = end + 1;
		}
		if (fd >= 0)
			close(fd);
		free(smaps);
	}
	int count_fd = open("/proc/kpagecount", O_RDONLY), flags_fd = open("/proc/kpageflags", O_RDONLY);
	for (size_t word = 0; count_fd >= 0 && flags_fd >= 0 && word < bitmap_words; word++) {
		if (!bitmap[word])
			continue;
		uint64_t first = (uint64_t)word << 6;
		/* one window covers the next 512 PFNs, as capture reads them */
		kpage_bytes += (uint64_t)pread(count_fd, entries, WINDOW * 8, (off_t)(first * 8));
		kpage_bytes += (uint64_t)pread(flags_fd, entries, WINDOW * 8, (off_t)(first * 8));
		word += WINDOW / 64 - 1;
	}
	printf("smaps %" PRIu64 " pagemap %" PRIu64 " kpages %" PRIu64 " bytes\n", smaps_bytes, pagemap_bytes, kpage_bytes);
	return 0;
}
