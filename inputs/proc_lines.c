/*
 * inputs/proc_lines.c - the line-level parsers of /proc text that both the
 * snapshot readers (parse_smaps.c, parse_proc.c) and capture's live walk
 * (capture.c) use: an smaps header line, an smaps VmFlags line, a stat
 * line's pid, comm and ppid.  They fill plain values and allocate nothing,
 * so, with numbers.c, they are all of the parsers that ptscope-capture
 * links (libc only: no arena, no hash seed).
 */
#include <string.h>

#include "internal.h"

/* VmFlags codes, in enum vma_flag order (inputs/snapshot.h). */
const char vma_flag_codes[VMF_OTHER][3] = {
	"rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "gd", "pf", "dw", "lo", "io",
	"sr", "rr", "dc", "de", "ac", "nr", "ht", "sf", "nl", "ar", "wf", "dd", "mm",
	"hg", "nh", "mg", "um", "uw", "ss", "sl", "bt", "mt", "lf",
};

/* "start-end perms offset major:minor inode   path" */
enum smaps_header_problem smaps_header_parse(const char *p, const char *limit, struct smaps_header *h)
{
	const char *q;
	uint64_t major, minor;

	if (!parse_hex_u64(p, limit, &h->start, &q) || q >= limit || *q != '-' ||
	    !parse_hex_u64(q + 1, limit, &h->end, &q) || q >= limit || !is_space(*q))
		return SMAPS_HEADER_BAD_RANGE;
	if (h->end <= h->start)
		return SMAPS_HEADER_BACKWARDS;
	if (h->end - h->start > KERNEL_MAX_SPAN_BYTES)
		return SMAPS_HEADER_TOO_LARGE;
	q = skip_spaces(q, limit);
	if (limit - q < 4 || (q[0] != 'r' && q[0] != '-') || (q[1] != 'w' && q[1] != '-') ||
	    (q[2] != 'x' && q[2] != '-') || (q[3] != 'p' && q[3] != 's'))
		return SMAPS_HEADER_BAD_PERMS;
	memcpy(h->perms, q, 4);
	q = skip_spaces(q + 4, limit);
	if (!parse_hex_u64(q, limit, &h->offset, &q))
		return SMAPS_HEADER_BAD_OFFSET;
	q = skip_spaces(q, limit);
	if (!parse_hex_u64(q, limit, &major, &q) || q >= limit || *q != ':' ||
	    !parse_hex_u64(q + 1, limit, &minor, &q) || major > UINT32_MAX || minor > UINT32_MAX)
		return SMAPS_HEADER_BAD_DEVICE;
	h->dev_major = (uint32_t)major;
	h->dev_minor = (uint32_t)minor;
	q = skip_spaces(q, limit);
	if (!parse_u64(q, limit, &h->inode, &q) || (q < limit && !is_space(*q)))
		return SMAPS_HEADER_BAD_INODE;
	h->path = skip_spaces(q, limit);
	h->path_length = (size_t)(limit - h->path);
	return SMAPS_HEADER_OK;
}

/* Two lower-case letters index a 26 x 26 table of flags, filled once. */
static const signed char *vm_flag_table(void)
{
	static signed char table[26 * 26];
	static bool filled;
	if (!filled) {
		memset(table, VMF_OTHER, sizeof(table));
		for (int i = 0; i < VMF_OTHER; i++)
			table[(vma_flag_codes[i][0] - 'a') * 26 + (vma_flag_codes[i][1] - 'a')] = (signed char)i;
		filled = true;
	}
	return table;
}

static int vm_flag_of(const char *word, size_t length)
{
	if (length != 2 || word[0] < 'a' || word[0] > 'z' || word[1] < 'a' || word[1] > 'z')
		return VMF_OTHER;
	return vm_flag_table()[(word[0] - 'a') * 26 + (word[1] - 'a')];
}

uint64_t smaps_vm_flags(const char *p, const char *limit)
{
	uint64_t flags = 0;
	for (p = skip_spaces(p, limit); p < limit; p = skip_spaces(p, limit)) {
		const char *word = p;
		while (p < limit && !is_space(*p))
			p++;
		flags |= UINT64_C(1) << vm_flag_of(word, (size_t)(p - word));
	}
	return flags;
}

/* The codes of a VmFlags line as the kernel prints them, each a space and
 * two lower-case letters, then a space and the newline: the flags, and the
 * byte after the newline; NULL for any other shape (smaps_vm_flags reads
 * it, to the same flags). */
const char *smaps_vm_flags_line(const char *p, const char *end, uint64_t *flags)
{
	const signed char *table = vm_flag_table();
	uint64_t found = 0;
	for (; end - p >= 3 && p[0] == ' ' && p[1] >= 'a' && p[1] <= 'z' && p[2] >= 'a' && p[2] <= 'z'; p += 3)
		found |= UINT64_C(1) << table[(p[1] - 'a') * 26 + (p[2] - 'a')];
	if (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '\n')
		return NULL;
	*flags = found;
	return p + 1;
}

/* "pid (comm) state ppid ..."; comm may hold spaces and ')' */
int stat_line_parse(const char *text, size_t size, struct stat_line *s, const struct parse_place *place)
{
	const char *end = text + size, *q;
	const char *open = memchr(text, '(', size);
	const char *close = NULL;
	uint64_t value;

	for (const char *p = end; p > text; p--)
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	if (!open || !close || close < open)
		return parse_fail(place, 1, "no '(comm)' field");
	if (!parse_u64(text, open, &value, &q) || value > INT32_MAX || *q != ' ')
		return parse_fail(place, 1, "bad pid");
	s->pid = (int)value;
	q = close + 1;
	if (end - q < 4 || q[0] != ' ' || q[2] != ' ')
		return parse_fail(place, 1, "no state after comm (truncated?)");
	if (!parse_u64(q + 3, end, &value, &q) || value > INT32_MAX)
		return parse_fail(place, 1, "bad ppid");
	s->ppid = (int)value;
	s->comm = open + 1;
	s->comm_length = (size_t)(close - open - 1);
	return 0;
}
