/*
 * outputs/report_formats.c - XML, CSV and HTML: each a walk of the one
 * json-c report tree, so the formats cannot drift apart.
 *
 * XML: objects become elements named by their key, arrays repeat an element
 * named by the array's key in the singular ("designs" -> <design>), and keys
 * that are not XML names (profile ids such as "2.4-rmap-i386") become
 * <value key="2.4-rmap-i386">.  CSV is report_csv.c, HTML report_html.c.
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
	else if (n > 4 && !strcmp(key + n - 4, "sses"))  /* processes -> process */
		snprintf(buffer, size, "%.*s", (int)(n - 2), key);
	else if (n > 1 && key[n - 1] == 's')
		snprintf(buffer, size, "%.*s", (int)(n - 1), key);
	else
		snprintf(buffer, size, "%s-item", key);
}

/* Text or an attribute value, with the characters XML 1.0 forbids replaced
 * (libxml2's writer escapes markup but passes control characters through). */
static int xml_write(xmlTextWriterPtr w, const char *attribute, const char *text)
{
	char small[256], *spill;
	const char *clean = escape_into(escape_xml_chars, text, small, sizeof(small), &spill);
	int rc = attribute ? xmlTextWriterWriteAttribute(w, BAD_CAST attribute, BAD_CAST clean)
			   : xmlTextWriterWriteString(w, BAD_CAST clean);
	free(spill);
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
	case json_type_string:
		rc = xml_write(w, NULL, json_object_get_string(value));
		break;
	default:        /* a number or a boolean: json-c's ASCII digits, nothing to replace */
		rc = xmlTextWriterWriteString(w, BAD_CAST json_object_get_string(value));
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
