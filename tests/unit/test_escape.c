/*
 * tests/unit/test_escape.c - base/escape.c: each format's escapes, worked by
 * hand from the rules in escape.h (RFC 3629 for what is valid UTF-8, XML 1.0
 * section 2.2 for what XML allows, RFC 4180 for CSV).
 */
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "tests/unit/test.h"

#define FFFD "\xEF\xBF\xBD"

static void check(escape_function *escape, const char *in, const char *want)
{
	char *got = escape_alloc(escape, in);
	if (strcmp(got, want))
		fprintf(stderr, "escape of '%s': got '%s', want '%s'\n", in, got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_EQUAL(escape(NULL, 0, in), strlen(want));
	free(got);
}

static void test_utf8(void)
{
	check(escape_utf8, "plain ascii", "plain ascii");
	check(escape_utf8, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
	check(escape_utf8, "\xFF", FFFD);
	check(escape_utf8, "a\x80z", "a" FFFD "z");                 /* lone continuation */
	check(escape_utf8, "\xC0\xAF", FFFD FFFD);                 /* overlong '/' */
	check(escape_utf8, "\xED\xA0\x80", FFFD FFFD FFFD);        /* surrogate D800 */
	check(escape_utf8, "\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* above U+10FFFF */
	check(escape_utf8, "\xE2\x82", FFFD FFFD);                 /* truncated at the end */
	check(escape_utf8, "\x1b[31m", "\x1b[31m");                /* json-c escapes controls */
}

static void test_xml(void)
{
	check(escape_xml_chars, "a\x01" "b\tc\nd\re", "a" FFFD "b\tc\nd\re");
	check(escape_xml_chars, "<&>", "<&>");                     /* libxml2 escapes markup */
	check(escape_xml_chars, "\xEF\xBF\xBE\xEF\xBF\xBF", FFFD FFFD); /* U+FFFE, U+FFFF */
	check(escape_xml, "<a href=\"x\">&'", "&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
	check(escape_xml, "\x1b\xFF", FFFD FFFD);
}

static void test_html(void)
{
	check(escape_html, "<b>\"x\" & 'y'", "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;");
	check(escape_html, "\x7f\xC2\x85\x1b", FFFD FFFD FFFD);   /* DEL, C1 NEL, ESC */
}

static void test_csv(void)
{
	check(escape_csv, "plain", "plain");
	check(escape_csv, "a,b", "\"a,b\"");
	check(escape_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	check(escape_csv, "two\nlines", "\"two\nlines\"");
	check(escape_csv, "cr\r", "\"cr\r\"");
	check(escape_csv, "\xFF,", "\"" FFFD ",\"");
}

static void test_text(void)
{
	check(escape_text, "ok caf\xC3\xA9", "ok caf\xC3\xA9");
	check(escape_text, "\x1b[2J\n\t\r\\", "\\e[2J\\n\\t\\r\\\\");
	check(escape_text, "\x01\x7f", "\\x01\\x7f");
	check(escape_text, "\xC2\x9b" "31m", "\\u009b31m");      /* C1 CSI */
	check(escape_text, "\xFF\xC0\xAF", "\\xff\\xc0\\xaf");
}

/* Printable ASCII but < > & " ' and backslash is kept by every format (walk
 * copies such runs whole); each of the six is still mapped inside a run. */
static void test_plain_runs(void)
{
	char plain[128];
	size_t n = 0;
	for (int c = 0x20; c < 0x7F; c++)
		if (!strchr("<>&\"'\\", c))
			plain[n++] = (char)c;
	plain[n] = '\0';
	escape_function *const every[] = { escape_utf8, escape_xml, escape_xml_chars, escape_html, escape_text };
	for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++)
		check(every[i], plain, plain);
	check(escape_xml, "a/b<c>d", "a/b&lt;c&gt;d");
	check(escape_text, "C:\\x y", "C:\\\\x y");
	check(escape_html, "it's", "it&#39;s");
	check(escape_xml, "a&b\"c", "a&amp;b&quot;c");
}

/* A short buffer ends the text at a whole escape, NUL-terminated. */
static void test_truncation(void)
{
	char out[6];
	CU_ASSERT_EQUAL(escape_text(out, sizeof(out), "ab\x1b" "cd"), 6u);
	CU_ASSERT_STRING_EQUAL(out, "ab\\ec");
	CU_ASSERT_EQUAL(escape_text(out, 4, "ab\x1b"), 4u);
	CU_ASSERT_STRING_EQUAL(out, "ab");
	CU_ASSERT_EQUAL(escape_utf8(out, 3, "\xFF"), 3u);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(escape_utf8(NULL, 0, NULL), 0u);
	/* a run of plain bytes is cut between two of them */
	CU_ASSERT_EQUAL(escape_xml(out, sizeof(out), "abcdefgh"), 8u);
	CU_ASSERT_STRING_EQUAL(out, "abcde");
	CU_ASSERT_EQUAL(escape_xml(out, sizeof(out), "abc<d"), 8u);
	CU_ASSERT_STRING_EQUAL(out, "abc");
	CU_ASSERT_EQUAL(escape_utf8(NULL, 0, "plain"), 5u);
}

void suite_escape(void)
{
	ADD_SUITE("escape", test_utf8, test_xml, test_html, test_csv, test_text, test_plain_runs, test_truncation);
}
