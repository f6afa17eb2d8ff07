/*
 * base/escape.c - one escaper per output format (see escape.h for the rules).
 *
 * All of them walk the text one UTF-8 character at a time with the same
 * strict decoder (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF), so "invalid" means the same thing in every format.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/escape.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

struct sink {
	char *out;
	size_t size, needed, written;
	int full;                       /* once a piece did not fit, write no more */
};

static void emit(struct sink *s, const char *bytes, size_t length)
{
	if (!s->full && s->needed + length < s->size) {
		memcpy(s->out + s->needed, bytes, length);
		s->written = s->needed + length;
	} else {
		s->full = 1;
	}
	s->needed += length;
}

/* bytes, each a whole character: as many as fit, so a short buffer ends
 * the text between two of them, as emit would one at a time */
static void emit_characters(struct sink *s, const char *bytes, size_t length)
{
	size_t room = !s->full && s->size > s->needed + 1 ? s->size - s->needed - 1 : 0;
	size_t fits = length < room ? length : room;
	if (fits) {
		memcpy(s->out + s->needed, bytes, fits);
		s->written = s->needed + fits;
	}
	if (fits < length)
		s->full = 1;
	s->needed += length;
}

/* Bytes every format keeps as they are: printable ASCII but the characters
 * some format escapes (markup < > & " ', and the text format's backslash).
 * Names, paths, numbers and our own words are mostly these, so walk copies
 * their runs whole (strspn) instead of mapping them one by one: one call per
 * byte was a third of fuzz_members' time, which writes every format. */
static const char plain[] = " !#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
			    "abcdefghijklmnopqrstuvwxyz{|}~";

static size_t finish(struct sink *s)
{
	if (s->size)
		s->out[s->written] = '\0'; /* the first piece that did not fit ends the text */
	return s->needed;
}

/* Length of the valid UTF-8 character at p (*code its value), or 0 when the
 * byte at p does not start one. */
static size_t decode(const unsigned char *p, uint32_t *code)
{
	static const uint32_t minimum[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t length = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
		      : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (length <= 1) {
		*code = p[0];
		return length;
	}
	uint32_t c = p[0] & (0x7F >> length);
	for (size_t i = 1; i < length; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if (c < minimum[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*code = c;
	return length;
}

/* What one format writes for a character: NULL keeps its bytes as they are;
 * for an invalid byte, code is (uint32_t)-1 and byte its value. */
typedef const char *mapping(uint32_t code, unsigned char byte, char scratch[16]);

static void walk_into(struct sink *s, const char *text, mapping *map)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");
	while (*p) {
		size_t run = strspn((const char *)p, plain);
		if (run) {
			emit_characters(s, (const char *)p, run);
			p += run;
			continue;
		}
		uint32_t code;
		char scratch[16];
		size_t length = decode(p, &code);
		const char *replacement = map(length ? code : UINT32_MAX, *p, scratch);
		if (replacement)
			emit(s, replacement, strlen(replacement));
		else
			emit(s, (const char *)p, length);
		p += length ? length : 1;
	}
}

static size_t walk(char *out, size_t size, const char *text, mapping *map)
{
	struct sink s = { out, size, 0, 0, 0 };
	walk_into(&s, text, map);
	return finish(&s);
}

static const char *utf8_map(uint32_t code, unsigned char byte, char scratch[16])
{
	(void)byte, (void)scratch;
	return code == UINT32_MAX ? REPLACEMENT : NULL;
}

size_t escape_utf8(char *out, size_t size, const char *text)
{
	return walk(out, size, text, utf8_map);
}

/* XML 1.0 section 2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] */
static int xml_forbidden(uint32_t code)
{
	return code == UINT32_MAX || (code < 0x20 && code != 0x9 && code != 0xA && code != 0xD) ||
	       code == 0xFFFE || code == 0xFFFF;
}

static const char *xml_chars_map(uint32_t code, unsigned char byte, char scratch[16])
{
	(void)byte, (void)scratch;
	return xml_forbidden(code) ? REPLACEMENT : NULL;
}

static const char *xml_map(uint32_t code, unsigned char byte, char scratch[16])
{
	switch (code) {
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '&': return "&amp;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return xml_chars_map(code, byte, scratch);
	}
}

size_t escape_xml_chars(char *out, size_t size, const char *text)
{
	return walk(out, size, text, xml_chars_map);
}

size_t escape_xml(char *out, size_t size, const char *text)
{
	return walk(out, size, text, xml_map);
}

static const char *html_map(uint32_t code, unsigned char byte, char scratch[16])
{
	if (code == '\'')
		return "&#39;";
	if (code == '\t' || code == '\n')
		return NULL;
	/* HTML forbids C0 and C1 controls in text as well (HTML 13.1.4) */
	if (code == '\r' || (code >= 0x7F && code <= 0x9F))
		return REPLACEMENT;
	return xml_map(code, byte, scratch);
}

size_t escape_html(char *out, size_t size, const char *text)
{
	return walk(out, size, text, html_map);
}

static const char *text_map(uint32_t code, unsigned char byte, char scratch[16])
{
	static const char *const named[0x20] = {
		['\a'] = "\\a", ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n", ['\v'] = "\\v",
		['\f'] = "\\f", ['\r'] = "\\r", [0x1B] = "\\e",
	};
	if (code == UINT32_MAX) {
		snprintf(scratch, 16, "\\x%02x", byte);
		return scratch;
	}
	if (code == '\\')
		return "\\\\";
	if (code < 0x20 && named[code])
		return named[code];
	if (code < 0x20 || code == 0x7F) {
		snprintf(scratch, 16, "\\x%02x", (unsigned)code);
		return scratch;
	}
	if (code >= 0x80 && code <= 0x9F) {
		snprintf(scratch, 16, "\\u%04x", (unsigned)code);
		return scratch;
	}
	return NULL;
}

size_t escape_text(char *out, size_t size, const char *text)
{
	return walk(out, size, text, text_map);
}

static const char *csv_map(uint32_t code, unsigned char byte, char scratch[16])
{
	return code == '"' ? "\"\"" : utf8_map(code, byte, scratch);
}

size_t escape_csv(char *out, size_t size, const char *text)
{
	struct sink s = { out, size, 0, 0, 0 };
	const char *p = text ? text : "";
	int quoted = strpbrk(p, ",\"\r\n") != NULL;
	if (quoted)
		emit(&s, "\"", 1);
	walk_into(&s, p, csv_map);
	if (quoted)
		emit(&s, "\"", 1);
	return finish(&s);
}

char *escape_alloc(escape_function *escape, const char *text)
{
	size_t length = escape(NULL, 0, text);
	char *out = xmalloc(length + 1);
	escape(out, length + 1, text);
	return out;
}

const char *escape_into(escape_function *escape, const char *text, char *small, size_t size, char **spill)
{
	*spill = NULL;
	if (escape(small, size, text) < size)
		return small;
	return *spill = escape_alloc(escape, text);
}

int escape_fputs(escape_function *escape, const char *text, FILE *out)
{
	char small[512], *spill;
	int status = fputs(escape_into(escape, text, small, sizeof(small), &spill), out) >= 0 ? 0 : -1;
	free(spill);
	return status;
}
