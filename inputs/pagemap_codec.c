/*
 * inputs/pagemap_codec.c - one 2 MiB chunk of pagemap records, encoded
 * compactly (snapshot format 2, docs/snapshot-format.md "pagemap_chunks").
 *
 * Records of a chunk come as runs: consecutive pages whose pagemap words
 * step by one constant (a folio's PFNs step by 1; without root every word
 * of a run is the same).  A run is four varints: the pages skipped since
 * the previous run, its length - 1, its first word minus the previous run's
 * last word (zigzag), and, when longer than one page, its step (zigzag).
 * The encoding is a function of the records alone, so two chunks are equal
 * exactly when their encodings are: the capture compares bytes.
 *
 * The same varints carry kpage_runs: kpagecount and kpageflags of runs of
 * consecutive PFNs that share both (a folio's tails, pages allocated
 * together), so a snapshot's kpages cost bytes per run, not 24 per PFN.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static unsigned char *put_varint(unsigned char *out, uint64_t value)
{
	while (value >= 0x80) {
		*out++ = (unsigned char)(value | 0x80);
		value >>= 7;
	}
	*out++ = (unsigned char)value;
	return out;
}

static uint64_t zigzag(uint64_t difference)
{
	return (difference << 1) ^ (uint64_t)-(int64_t)(difference >> 63);
}

static uint64_t unzigzag(uint64_t value)
{
	return (value >> 1) ^ (uint64_t)-(int64_t)(value & 1);
}

size_t pagemap_chunk_encode(const struct pagemap_record *records, uint32_t count, unsigned char *out)
{
	unsigned char *at = out;
	/* the run count comes first: written once the runs are known */
	unsigned char body[PAGEMAP_CHUNK_MAX_ENCODED_BYTES];
	unsigned char *b = body;
	uint64_t runs = 0, next_page = 0, last_entry = 0;
	for (uint32_t i = 0; i < count;) {
		uint64_t page = records[i].vaddr >> PAGEMAP_CODEC_PAGE_SHIFT;
		uint32_t length = 1;
		uint64_t step = i + 1 < count ? records[i + 1].entry - records[i].entry : 0;
		while (i + length < count &&
		       records[i + length].vaddr >> PAGEMAP_CODEC_PAGE_SHIFT == page + length &&
		       records[i + length].entry - records[i + length - 1].entry == step)
			length++;
		b = put_varint(b, page - next_page);
		b = put_varint(b, length - 1);
		b = put_varint(b, zigzag(records[i].entry - last_entry));
		if (length > 1)
			b = put_varint(b, zigzag(step));
		last_entry = records[i].entry + (length - 1) * step;
		next_page = page + length;
		runs++;
		i += length;
	}
	at = put_varint(at, runs);
	memcpy(at, body, (size_t)(b - body));
	return (size_t)(at - out) + (size_t)(b - body);
}

/* A varint of at most 64 bits; false at the end of the bytes or past 64 bits. */
static bool get_varint(const unsigned char **at, const unsigned char *end, uint64_t *value)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *at < end && shift < 64; shift += 7) {
		unsigned char byte = *(*at)++;
		if (shift == 63 && byte > 1)
			return false;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*value = v;
			return true;
		}
	}
	return false;
}

int pagemap_chunk_decode(const unsigned char *in, size_t size, struct pagemap_record *records,
			 uint32_t *count, char *problem, size_t problem_size)
{
	const unsigned char *at = in, *end = in + size;
	uint64_t runs, next_page = 0, last_entry = 0;
	uint32_t n = 0;
	if (!get_varint(&at, end, &runs) || runs == 0 || runs > PAGEMAP_CODEC_PAGES) {
		snprintf(problem, problem_size, "run count missing or not 1 to %d", PAGEMAP_CODEC_PAGES);
		return -1;
	}
	for (uint64_t r = 0; r < runs; r++) {
		uint64_t gap, length, delta, step = 0;
		if (!get_varint(&at, end, &gap) || !get_varint(&at, end, &length) ||
		    !get_varint(&at, end, &delta) || (length > 0 && !get_varint(&at, end, &step))) {
			snprintf(problem, problem_size, "run %" PRIu64 ": cut short or a number past 64 bits", r);
			return -1;
		}
		if (length >= PAGEMAP_CODEC_PAGES || gap > PAGEMAP_CODEC_PAGES - next_page ||
		    length + 1 > PAGEMAP_CODEC_PAGES - next_page - gap) {
			snprintf(problem, problem_size, "run %" PRIu64 ": pages past the chunk's %d", r,
				 PAGEMAP_CODEC_PAGES);
			return -1;
		}
		length++;
		uint64_t page = next_page + gap, entry = last_entry + unzigzag(delta);
		step = unzigzag(step);
		for (uint64_t k = 0; k < length; k++, entry += step) {
			if (!(entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED))) {
				snprintf(problem, problem_size, "run %" PRIu64 ": page %" PRIu64
					 " is neither present nor swapped", r, page + k);
				return -1;
			}
			records[n++] = (struct pagemap_record){ (page + k) << PAGEMAP_CODEC_PAGE_SHIFT, entry };
		}
		last_entry = entry - step;
		next_page = page + length;
	}
	if (at != end) {
		snprintf(problem, problem_size, "%zu bytes after its last run", (size_t)(end - at));
		return -1;
	}
	*count = n;
	return 0;
}

/* ---- kpage_runs: kpagecount and kpageflags of runs of PFNs ---- */

size_t kpage_block_encode(const struct kpage_run *runs, size_t count, struct kpage_codec *state, unsigned char *out)
{
	unsigned char *at = put_varint(out, count);
	for (size_t i = 0; i < count; i++) {
		at = put_varint(at, runs[i].pfn - state->next_pfn);
		at = put_varint(at, runs[i].pages - 1);
		at = put_varint(at, runs[i].mapcount);
		/* neighbours mostly differ in a bit or two (head/tail, referenced) */
		at = put_varint(at, runs[i].flags ^ state->flags);
		state->next_pfn = runs[i].pfn + runs[i].pages;
		state->flags = runs[i].flags;
	}
	return (size_t)(at - out);
}

/* One run against the bounds of pagemap's PFNs and the kernel's mapcount. */
static int take_kpage_run(const uint64_t fields[4], struct kpage_codec *state, struct kpage_run *run,
			  char *problem, size_t problem_size)
{
	if (state->next_pfn > PAGEMAP_PFN_MASK || fields[0] > PAGEMAP_PFN_MASK - state->next_pfn ||
	    fields[1] > PAGEMAP_PFN_MASK - (state->next_pfn + fields[0])) {
		snprintf(problem, problem_size, "PFNs past pagemap's 55 bits");
		return -1;
	}
	if (fields[2] > KERNEL_MAX_MAPCOUNT) {
		snprintf(problem, problem_size, "mapcount %" PRIu64 " is more than a kernel counts (2^31 - 1)",
			 fields[2]);
		return -1;
	}
	*run = (struct kpage_run){ state->next_pfn + fields[0], fields[1] + 1, fields[2], state->flags ^ fields[3] };
	state->next_pfn = run->pfn + run->pages;
	state->flags = run->flags;
	return 0;
}

int kpage_block_decode(const unsigned char *in, size_t size, struct kpage_codec *state, struct kpage_run *runs,
		       size_t *count, char *problem, size_t problem_size)
{
	const unsigned char *at = in, *end = in + size;
	uint64_t n;
	if (!get_varint(&at, end, &n) || n == 0 || n > KPAGE_BLOCK_RUNS) {
		snprintf(problem, problem_size, "run count missing or not 1 to %d", KPAGE_BLOCK_RUNS);
		return -1;
	}
	for (uint64_t r = 0; r < n; r++) {
		uint64_t fields[4];
		char what[96];
		for (int f = 0; f < 4; f++)
			if (!get_varint(&at, end, &fields[f])) {
				snprintf(problem, problem_size, "run %" PRIu64 ": cut short or a number past 64 bits", r);
				return -1;
			}
		if (take_kpage_run(fields, state, &runs[r], what, sizeof(what))) {
			snprintf(problem, problem_size, "run %" PRIu64 ": %s", r, what);
			return -1;
		}
	}
	if (at != end) {
		snprintf(problem, problem_size, "%zu bytes after its last run", (size_t)(end - at));
		return -1;
	}
	*count = (size_t)n;
	return 0;
}
