/*
 * outputs/report.c - choosing a report writer: the dispatcher on top of the
 * writers (the pieces they share are outputs/report_words.c).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/escape.h"
#include "outputs/report_internal.h"

static const char *const format_names[] = {
	[REPORT_TEXT] = "text", [REPORT_XML] = "xml", [REPORT_JSON] = "json",
	[REPORT_CSV] = "csv", [REPORT_HTML] = "html", [REPORT_METRICS] = "openmetrics",
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

/* The file name's extension, as `callgraph -o x.svg` reads it: ".txt" is
 * text, the others are the format's own name. */
int report_format_from_path(const char *path, enum report_format *format)
{
	static const struct { const char *extension; enum report_format format; } extensions[] = {
		{ "txt", REPORT_TEXT }, { "json", REPORT_JSON }, { "xml", REPORT_XML },
		{ "csv", REPORT_CSV }, { "html", REPORT_HTML }, { "prom", REPORT_METRICS },
	};
	const char *base = strrchr(path, '/');
	const char *dot = strrchr(base ? base + 1 : path, '.');
	if (!dot)
		return 1;
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		if (!strcmp(dot + 1, extensions[i].extension)) {
			*format = extensions[i].format;
			return 0;
		}
	return -1;
}

static int write_json(FILE *out, struct json_object *tree)
{
	const char *text = json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	return fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
}

int report_write(FILE *out, const struct model_result *result, const struct report_options *options)
{
	if (options->series)
		return report_write_series(out, options->series, options->format);
	if (options->format == REPORT_TEXT && !options->versus)
		return report_write_text(out, result, options) ||
		       (options->calibration && report_write_time(out, result, options)) || ferror(out) ? -1 : 0;
	struct json_object *tree = options->versus ? report_build_versus(result, options->versus, options)
				 : report_build(result, options);
	if (!tree) {
		errno = ENOMEM;
		return -1;
	}
	int status;
	switch (options->format) {
	case REPORT_TEXT: status = report_write_versus_text(out, tree, options); break;
	case REPORT_XML:  status = report_write_xml(out, tree); break;
	case REPORT_CSV:  status = report_write_csv(out, tree, options); break;
	case REPORT_HTML: status = report_write_html(out, tree, result, options); break;
	case REPORT_METRICS: status = report_write_metrics(out, tree); break;
	default:          status = write_json(out, tree); break;
	}
	json_object_put(tree);
	return status || ferror(out) ? -1 : 0;
}
