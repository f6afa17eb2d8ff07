/*
 * outputs/report_formats.c - XML, CSV and HTML: each a walk of the one
 * json-c report tree, so the formats cannot drift apart.
 *
 * XML: objects become elements named by their key, arrays repeat an element
 * named by the array's key in the singular ("designs" -> <design>), and keys
 * that are not XML names (profile ids such as "2.4-rmap-i386") become
 * <value key="2.4-rmap-i386">.  HTML: one self-contained page;
 * arrays of objects become tables.  CSV is report_csv.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "base/escape.h"
#include "outputs/report_internal.h"

/* ---- XML through libxml2's xmlTextWriter ---- */

static bool xml_name(const char *key)
{
	if (!isalpha((unsigned char)key[0]) && key[0] != '_')
		return false;
	for (const char *p = key; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return strncmp(key, "xml", 3) != 0;
}

static void singular(const char *key, char *buffer, size_t size)
{
	size_t n = strlen(key);
	if (n > 3 && !strcmp(key + n - 3, "ies"))
		snprintf(buffer, size, "%.*sy", (int)(n - 3), key);
	else if (n > 1 && key[n - 1] == 's')
		snprintf(buffer, size, "%.*s", (int)(n - 1), key);
	else
		snprintf(buffer, size, "%s-item", key);
}

/* Text or an attribute value, with the characters XML 1.0 forbids replaced
 * (libxml2's writer escapes markup but passes control characters through). */
static int xml_write(xmlTextWriterPtr w, const char *attribute, const char *text)
{
	char *clean = escape_alloc(escape_xml_chars, text);
	int rc = attribute ? xmlTextWriterWriteAttribute(w, BAD_CAST attribute, BAD_CAST clean)
			   : xmlTextWriterWriteString(w, BAD_CAST clean);
	free(clean);
	return rc;
}

static int xml_value(xmlTextWriterPtr w, const char *key, struct json_object *value)
{
	const char *element = xml_name(key) ? key : "value";
	int rc = xmlTextWriterStartElement(w, BAD_CAST element);
	if (rc >= 0 && element != key)
		rc = xml_write(w, "key", key);
	if (rc < 0)
		return -1;
	switch (json_object_get_type(value)) {
	case json_type_object: {
		json_object_object_foreach(value, child_key, child)
			if (xml_value(w, child_key, child))
				return -1;
		break;
	}
	case json_type_array: {
		char item[64];
		singular(element, item, sizeof(item));
		for (size_t i = 0; i < json_object_array_length(value); i++)
			if (xml_value(w, item, json_object_array_get_idx(value, i)))
				return -1;
		break;
	}
	case json_type_null:
		break;
	default:
		rc = xml_write(w, NULL, json_object_get_string(value));
		break;
	}
	return rc < 0 || xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

int report_write_xml(FILE *out, struct json_object *tree)
{
	xmlBufferPtr buffer = xmlBufferCreate();
	xmlTextWriterPtr w = buffer ? xmlNewTextWriterMemory(buffer, 0) : NULL;
	int status = -1;
	if (w && xmlTextWriterSetIndent(w, 1) >= 0 && xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) >= 0 &&
	    !xml_value(w, "ptscope-report", tree) && xmlTextWriterEndDocument(w) >= 0) {
		xmlFreeTextWriter(w);
		w = NULL;
		status = fwrite(xmlBufferContent(buffer), 1, (size_t)xmlBufferLength(buffer), out) ==
			 (size_t)xmlBufferLength(buffer) ? 0 : -1;
	}
	if (w)
		xmlFreeTextWriter(w);
	if (buffer)
		xmlBufferFree(buffer);
	return status;
}

/* ---- HTML ---- */

static void html_text(FILE *out, const char *text)
{
	escape_fputs(escape_html, text, out);
}

static void html_value(FILE *out, struct json_object *value);

/* An array of objects: one row each, columns from the first object; a
 * nested object shows as a compact key=value list in its cell. */
static void html_table(FILE *out, struct json_object *array)
{
	struct json_object *first = json_object_array_get_idx(array, 0);
	fputs("<table><tr>", out);
	json_object_object_foreach(first, key, unused) {
		(void)unused;
		fputs("<th>", out);
		html_text(out, key);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		struct json_object *row = json_object_array_get_idx(array, i);
		fputs("<tr>", out);
		json_object_object_foreach(first, column, ignored) {
			(void)ignored;
			struct json_object *cell = NULL;
			json_object_object_get_ex(row, column, &cell);
			fputs(json_object_is_type(cell, json_type_string) ? "<td>" : "<td class=n>", out);
			html_value(out, cell);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_value(FILE *out, struct json_object *value)
{
	switch (json_object_get_type(value)) {
	case json_type_object: {
		fputs("<dl>", out);
		json_object_object_foreach(value, key, child) {
			fputs("<dt>", out);
			html_text(out, key);
			fputs("</dt><dd>", out);
			html_value(out, child);
			fputs("</dd>", out);
		}
		fputs("</dl>", out);
		break;
	}
	case json_type_array:
		if (json_object_array_length(value) && json_object_is_type(json_object_array_get_idx(value, 0), json_type_object))
			html_table(out, value);
		else
			for (size_t i = 0; i < json_object_array_length(value); i++) {
				html_value(out, json_object_array_get_idx(value, i));
				fputc(' ', out);
			}
		break;
	case json_type_null:
		break;
	default:
		html_text(out, json_object_get_string(value));
	}
}

int report_write_html(FILE *out, struct json_object *tree)
{
	struct json_object *headline = NULL;
	json_object_object_get_ex(tree, "headline", &headline);
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ptscope report</title>\n"
	      "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:.5em 0}"
	      "td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}td.n{text-align:right}"
	      "dl{margin:0}dt{font-weight:bold;float:left;clear:left;margin-right:.5em}dd{margin:0 0 0 1em}"
	      "h2{margin-top:1.5em}</style></head><body>\n<h1>", out);
	html_text(out, headline ? json_object_get_string(headline) : "ptscope report");
	fputs("</h1>\n", out);
	json_object_object_foreach(tree, key, child) {
		if (!strcmp(key, "headline"))
			continue;
		fputs("<h2>", out);
		html_text(out, key);
		fputs("</h2>\n", out);
		html_value(out, child);
		fputc('\n', out);
	}
	fputs("</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}
