/*
 * base/escape.h - names from input made safe for each output format.
 *
 * A comm, a file name or a cmdline is whatever bytes a process or a
 * snapshot's author chose: invalid UTF-8, terminal escape sequences, commas,
 * quotes, markup.  Every writer passes such text through the one escaper of
 * its format, so that the output is always valid for its reader:
 *
 *   escape_utf8  JSON strings (json-c escapes quotes and controls itself):
 *                every invalid UTF-8 sequence becomes U+FFFD.
 *   escape_xml   XML 1.0 character data and attribute values: valid UTF-8,
 *                characters XML 1.0 forbids (C0 controls but tab, newline and
 *                carriage return; U+FFFE, U+FFFF) become U+FFFD; markup is
 *                escaped (&lt; &gt; &amp; &quot; &apos;) unless the caller's
 *                writer does it (escape_xml_chars).
 *   escape_csv   one RFC 4180 field: quoted when it holds a comma, quote,
 *                CR or LF, quotes doubled; invalid UTF-8 as U+FFFD.
 *   escape_html  HTML and SVG text or attribute: &lt; &gt; &amp; &quot; &#39;,
 *                controls and invalid UTF-8 as U+FFFD.
 *   escape_text  a terminal or a plain-text table: printable as-is, controls
 *                as \e \n \r \t \xHH, C1 controls as \u0080..\u009f, a
 *                backslash as \\, each byte of invalid UTF-8 as \xHH (so the
 *                bytes stay visible and no row or colour can be forged).
 *
 * Each is snprintf-shaped: writes at most size bytes, NUL-terminated (never
 * cutting a character or an escape), and returns the length the whole result
 * needs.  escape_alloc and escape_fputs call one of them for the caller.
 */
#ifndef PTSCOPE_BASE_ESCAPE_H
#define PTSCOPE_BASE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

typedef size_t escape_function(char *out, size_t size, const char *text);

escape_function escape_utf8, escape_xml, escape_xml_chars, escape_csv, escape_html, escape_text;

/* The escaped text in malloc'd memory; out of memory ends the run with
 * status 2 and a message, as every allocation of a writer does. */
char *escape_alloc(escape_function *escape, const char *text);
/* The escaped text in small when it fits (most names do: no allocation),
 * else in malloc'd memory also left in *spill for the caller to free
 * (*spill is NULL when small held it). */
const char *escape_into(escape_function *escape, const char *text, char *small, size_t size, char **spill);
/* Write the escaped text to out; 0, or -1 on a write error. */
int escape_fputs(escape_function *escape, const char *text, FILE *out);

#endif
