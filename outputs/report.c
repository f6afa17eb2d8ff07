/*
 * outputs/report.c - choosing a report writer, and the pieces every writer
 * shares (the headline, byte units).
 */
#include <errno.h>
#include <string.h>

#include "outputs/report_internal.h"

static const char *const format_names[] = {
	[REPORT_TEXT] = "text", [REPORT_XML] = "xml", [REPORT_JSON] = "json",
	[REPORT_CSV] = "csv", [REPORT_HTML] = "html",
};

int report_format_parse(const char *name, enum report_format *format)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i])) {
			*format = (enum report_format)i;
			return 0;
		}
	return -1;
}

size_t report_top(const struct report_options *options)
{
	return options->top ? options->top : 5;
}

void report_format_bytes(double bytes, char *buffer, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;
	double value = bytes < 0 ? -bytes : bytes;
	while (value >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		value /= 1024;
		u++;
	}
	snprintf(buffer, size, u ? "%s%.1f %s" : "%s%.0f %s", bytes < 0 ? "-" : "", value, units[u]);
}

void report_headline(const struct model_result *r, char *buffer, size_t size)
{
	buffer[0] = 0;
	const struct model_sharing *s = NULL;
	for (size_t k = 0; k < r->sharing_count && !s; k++)
		if (r->sharing[k].available && r->sharing[k].rule->partners != PARTNERS_CONTENT)
			s = &r->sharing[k];
	if (!s)
		return;
	char shared[32], total[32];
	report_format_bytes((double)s->sharable_bytes, shared, sizeof(shared));
	bool exact = r->processes && r->processes_with_pagemap == r->processes;
	report_format_bytes(exact ? (double)r->pagetable_bytes : r->pagetable_estimate.point, total, sizeof(total));
	snprintf(buffer, size, "shared page tables (%s) would share %llu PTE page%s = %s of %s%s",
		 s->rule->id, (unsigned long long)s->sharable_pages, s->sharable_pages == 1 ? "" : "s",
		 shared, total, exact ? "" : " (estimated page tables)");
}

static int write_json(FILE *out, struct json_object *tree)
{
	const char *text = json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	return fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
}

int report_write(FILE *out, const struct model_result *result, const struct report_options *options)
{
	if (options->format == REPORT_TEXT)
		return report_write_text(out, result, options) || ferror(out) ? -1 : 0;
	struct json_object *tree = report_build(result, options);
	if (!tree) {
		errno = ENOMEM;
		return -1;
	}
	int status;
	switch (options->format) {
	case REPORT_XML:  status = report_write_xml(out, tree); break;
	case REPORT_CSV:  status = report_write_csv(out, tree); break;
	case REPORT_HTML: status = report_write_html(out, tree); break;
	default:          status = write_json(out, tree); break;
	}
	json_object_put(tree);
	return status || ferror(out) ? -1 : 0;
}
