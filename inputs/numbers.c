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

static bool parse_digits(const char *s, const char *limit, unsigned base, uint64_t *value,
			 const char **end)
{
	/* the largest value a digit may extend, worked out once: no division per digit */
	const uint64_t cutoff = UINT64_MAX / base, last_digit = UINT64_MAX % base;
	uint64_t v = 0;
	const char *p = s;
	for (; p < limit; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (v > cutoff || (v == cutoff && d > last_digit))
			return false;
		v = v * base + d;
	}
	*value = v;
	*end = p;
	return p > s;
}

bool parse_u64(const char *s, const char *limit, uint64_t *value, const char **end)
{
	return parse_digits(s, limit, 10, value, end);
}

bool parse_hex_u64(const char *s, const char *limit, uint64_t *value, const char **end)
{
	return parse_digits(s, limit, 16, value, end);
}
