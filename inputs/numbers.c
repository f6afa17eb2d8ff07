/*
 * inputs/numbers.c - the number and error helpers every parser shares, and
 * the pagemap mode names: the bottom of inputs/, calling none of its files;
 * with proc_lines.c, all that ptscope-capture links of the readers (libc only).
 *
 * Numbers are checked for overflow: a snapshot is input from another
 * machine, and a wrapped counter would silently poison every figure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "internal.h"

/* snapshot.info's pagemap: line (written by capture, read by parse_proc.c). */
const char *const pagemap_mode_names[PAGEMAP_MODE_COUNT] = {
	[PAGEMAP_NONE] = "none", [PAGEMAP_PRESENT_ONLY] = "present", [PAGEMAP_PFN] = "pfn",
};

void input_error_set(struct error *error, const char *source, const char *member,
		     unsigned long line, const char *format, ...)
{
	char text[384];
	va_list args;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	if (!error)
		return;
	char file[sizeof(error->file)];
	if (member)
		snprintf(file, sizeof(file), "%s: %s", source, member);
	else
		snprintf(file, sizeof(file), "%s", source);
	error_set(error, file, line, "%s", text);
	/* Names and text from input may hold terminal escapes: one line, escaped. */
	char raw[sizeof(error->message)];
	snprintf(raw, sizeof(raw), "%s", error->message);
	escape_text(error->message, sizeof(error->message), raw);
}

int parse_fail(const struct parse_place *place, unsigned long line, const char *format, ...)
{
	char text[384];
	va_list args;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	input_error_set(place->error, place->source, place->member, line, "%s", text);
	return -1;
}

/* Each a loop of its own: the base is known, so a digit costs a compare or
 * a table look-up and a shift, and overflow is caught before it happens. */
bool parse_u64(const char *s, const char *limit, uint64_t *value, const char **end)
{
	const uint64_t cutoff = UINT64_MAX / 10, last_digit = UINT64_MAX % 10;
	uint64_t v = 0;
	const char *p = s;
	for (; p < limit && (unsigned)(*p - '0') < 10; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > cutoff || (v == cutoff && d > last_digit))
			return false;
		v = v * 10 + d;
	}
	*value = v;
	*end = p;
	return p > s;
}

/* Each byte's value as a hex digit, 16 for any other byte. */
static const unsigned char *hex_digits(void)
{
	static unsigned char table[256];
	static bool filled;
	if (!filled) {
		memset(table, 16, sizeof(table));
		for (int d = 0; d < 16; d++)
			table[(unsigned char)"0123456789abcdef"[d]] = table[(unsigned char)"0123456789ABCDEF"[d]] = (unsigned char)d;
		filled = true;
	}
	return table;
}

bool parse_hex_u64(const char *s, const char *limit, uint64_t *value, const char **end)
{
	const unsigned char *digits = hex_digits();
	uint64_t v = 0;
	const char *p = s;
	for (unsigned d; p < limit && (d = digits[(unsigned char)*p]) < 16; p++) {
		if (v >> 60)
			return false;   /* v * 16 would pass 2^64 */
		v = v << 4 | d;
	}
	*value = v;
	*end = p;
	return p > s;
}
