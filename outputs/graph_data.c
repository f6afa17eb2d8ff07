/*
 * outputs/graph_data.c - the call graph as data: JSON (json-c) and XML
 * (libxml2's writer).  Both carry every node (id, name, file, line, role)
 * and every edge (from, to as node ids, kind, line) plus the run summary.
 * The JSON puts one node or edge per line so that line tools work on it.
 */
#include <json.h>
#include <stddef.h>
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "version.h"
#include "outputs/graph.h"

static const char *const role_names[] = {
	[CG_ROLE_OTHER] = "other", [CG_ROLE_PATH] = "path",
	[CG_ROLE_ENTRY] = "entry", [CG_ROLE_SINK] = "sink",
};
static const char *const kind_names[] = {
	[CG_EDGE_DIRECT] = "direct", [CG_EDGE_INDIRECT] = "indirect",
};

const char *graph_role_name(enum cg_role role)
{
	return role_names[role];
}

const char *graph_kind_name(enum cg_edge_kind kind)
{
	return kind_names[kind];
}

/* The summary's fields, in the order both formats write them: one table
 * for both.  A text field that is NULL is written as "", except first_error,
 * left out when there is none. */
enum summary_kind { SUMMARY_TEXT, SUMMARY_NUMBER, SUMMARY_OPTIONAL_TEXT };
static const struct summary_field {
	const char *name;
	size_t offset;              /* in struct cg_summary */
	enum summary_kind kind;
} summary_fields[] = {
	{ "source", offsetof(struct cg_summary, source), SUMMARY_TEXT },
	{ "root", offsetof(struct cg_summary, root), SUMMARY_TEXT },
	{ "config", offsetof(struct cg_summary, config), SUMMARY_TEXT },
	{ "compat", offsetof(struct cg_summary, compat), SUMMARY_OPTIONAL_TEXT },
	{ "arch", offsetof(struct cg_summary, arch), SUMMARY_TEXT },
	{ "release", offsetof(struct cg_summary, release), SUMMARY_TEXT },
	{ "libclang", offsetof(struct cg_summary, libclang), SUMMARY_TEXT },
	{ "files", offsetof(struct cg_summary, files), SUMMARY_NUMBER },
	{ "files_parsed", offsetof(struct cg_summary, files_parsed), SUMMARY_NUMBER },
	{ "files_cached", offsetof(struct cg_summary, files_cached), SUMMARY_NUMBER },
	{ "files_failed", offsetof(struct cg_summary, files_failed), SUMMARY_NUMBER },
	{ "errors", offsetof(struct cg_summary, errors), SUMMARY_NUMBER },
	{ "warnings", offsetof(struct cg_summary, warnings), SUMMARY_NUMBER },
	{ "flags_dropped", offsetof(struct cg_summary, flags_dropped), SUMMARY_NUMBER },
	{ "flags_dropped_names", offsetof(struct cg_summary, flags_dropped_names), SUMMARY_OPTIONAL_TEXT },
	{ "config_symbols_supplied", offsetof(struct cg_summary, config_symbols_supplied), SUMMARY_NUMBER },
	{ "indirect_sites", offsetof(struct cg_summary, indirect_sites), SUMMARY_NUMBER },
	{ "indirect_unresolved", offsetof(struct cg_summary, indirect_unresolved), SUMMARY_NUMBER },
	{ "functions", offsetof(struct cg_summary, functions), SUMMARY_NUMBER },
	{ "calls", offsetof(struct cg_summary, calls), SUMMARY_NUMBER },
	{ "first_error", offsetof(struct cg_summary, first_error), SUMMARY_OPTIONAL_TEXT },
};
#define SUMMARY_FIELD_COUNT (sizeof(summary_fields) / sizeof(summary_fields[0]))

static size_t summary_number(const struct cg_summary *s, const struct summary_field *field)
{
	return *(const size_t *)((const char *)s + field->offset);
}

/* The field's text ("" for a missing one), or NULL for a number or a
 * missing optional text: nothing to write. */
static const char *summary_text(const struct cg_summary *s, const struct summary_field *field)
{
	if (field->kind == SUMMARY_NUMBER)
		return NULL;
	const char *text = *(const char *const *)((const char *)s + field->offset);
	return text || field->kind == SUMMARY_OPTIONAL_TEXT ? text : "";
}

/* A JSON string of valid UTF-8 (json-c escapes quotes and controls itself). */
static json_object *json_string(const char *text)
{
	char *valid = escape_alloc(escape_utf8, text);
	json_object *string = json_object_new_string(valid);
	free(valid);
	return string;
}


static void write_json_line(FILE *out, json_object *object, const char *after)
{
	fprintf(out, "  %s%s\n", json_object_to_json_string_ext(object,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), after);
	json_object_put(object);
}

/* "events": {"fork": 1234, ...} and "events_unit": "PTEs" where the overlay counts. */
static void json_events(json_object *parent, const struct overlay_count *events)
{
	json_object *object = NULL;
	for (int ev = 0; ev < OVERLAY_EVENT_COUNT; ev++) {
		if (!events->has[ev])
			continue;
		if (!object)
			object = json_object_new_object();
		json_object_object_add(object, overlay_event_names[ev], json_object_new_int64((int64_t)events->count[ev]));
	}
	if (!object)
		return;
	json_object_object_add(parent, "events", object);
	json_object_object_add(parent, "events_unit", json_string(events->unit));
}

/* ---- the overlay's figures, worked out once for both formats ---- */

/* One figure of a node, an edge or an unplaced symbol: the JSON writes it
 * as a member, the XML as an attribute. */
enum field_kind { FIELD_TEXT, FIELD_INTEGER, FIELD_REAL, FIELD_BOOLEAN };
struct field {
	char key[48];
	enum field_kind kind;
	const char *text;
	long long integer;
	double real;
};
#define FIELDS_MAX 32
struct fields {
	struct field item[FIELDS_MAX];
	size_t count;
};

static struct field *add_field(struct fields *fields, const char *prefix, const char *key, enum field_kind kind)
{
	struct field *f = &fields->item[fields->count < FIELDS_MAX - 1 ? fields->count++ : FIELDS_MAX - 1];
	snprintf(f->key, sizeof(f->key), "%s%s", prefix, key);
	f->kind = kind;
	return f;
}

static void field_text(struct fields *fields, const char *key, const char *text)
{
	add_field(fields, "", key, FIELD_TEXT)->text = text;
}

static void field_integer(struct fields *fields, const char *prefix, const char *key, long long value)
{
	add_field(fields, prefix, key, FIELD_INTEGER)->integer = value;
}

static void field_real(struct fields *fields, const char *prefix, const char *key, double value)
{
	add_field(fields, prefix, key, FIELD_REAL)->real = value;
}

/* samples / samples_percent, or baseline_samples / baseline_samples_percent. */
static void share_fields(struct fields *fields, const struct overlay_share *share, const char *prefix)
{
	if (!share->present)
		return;
	if (share->has_samples)
		field_integer(fields, prefix, "samples", (long long)share->samples);
	field_real(fields, prefix, "samples_percent", share->percent);
}

/* A listing that does not name a function says only that it had less than
 * the listing's smallest entry: samples_below / samples_below_percent. */
static void floor_fields(struct fields *fields, const struct graph_overlay *overlay, const struct overlay_share *share,
			 bool baseline)
{
	const struct overlay_share *floor = baseline ? &overlay->before_floor : &overlay->after_floor;
	const char *prefix = baseline ? "baseline_" : "";
	if (share->present || !floor->present)
		return;
	if (overlay->compare_counts)
		field_integer(fields, prefix, "samples_below", (long long)floor->samples);
	else
		field_real(fields, prefix, "samples_below_percent", floor->percent);
}

static void change_fields(struct fields *fields, const struct graph_overlay *overlay, const struct overlay_node *node)
{
	static const char *const bounds[] = { "exact", "at_least", "at_most" };
	floor_fields(fields, overlay, &node->share, false);
	floor_fields(fields, overlay, &node->baseline, true);
	if (!node->change.known)
		return;
	if (overlay->compare_counts) {
		field_real(fields, "", "change_ratio", node->change.ratio);
		field_integer(fields, "", "change_samples", llround(node->change.points));
	} else {
		field_real(fields, "", "change_points", node->change.points);
	}
	field_text(fields, "change_bound", bounds[node->change.bound]);
}

static void node_fields(const struct graph_overlay *overlay, size_t index, struct fields *fields)
{
	const struct overlay_node *node = &overlay->nodes[index];
	fields->count = 0;
	if (node->only_in != OVERLAY_IN_BOTH)
		field_text(fields, "only_in", overlay_only_in_names[node->only_in]);
	if (overlay->has_events && node->pricing == OVERLAY_NOT_MODELLED)
		add_field(fields, "", "modelled", FIELD_BOOLEAN)->integer = 0;
	if (node->pricing == OVERLAY_COUNTED_ELSEWHERE)
		field_text(fields, "counted_on", node->counted_on);
	share_fields(fields, &node->share, "");
	if (!overlay->has_baseline)
		return;
	share_fields(fields, &node->baseline, "baseline_");
	change_fields(fields, overlay, node);
	if (node->join) {   /* the figures are sums of these names */
		field_text(fields, "joined_work", node->join->work);
		field_text(fields, "joined_before", node->join->before);
		field_text(fields, "joined_after", node->join->after);
	}
}

static void edge_fields(const struct graph_overlay *overlay, size_t index, struct fields *fields)
{
	const struct overlay_edge *edge = &overlay->edges[index];
	fields->count = 0;
	if (edge->only_in != OVERLAY_IN_BOTH)
		field_text(fields, "only_in", overlay_only_in_names[edge->only_in]);
	if (edge->has_call_samples && edge->call_counted)   /* samples whose call chain holds this call */
		field_integer(fields, "", "samples", (long long)edge->call_samples);
	if (edge->has_call_samples)
		field_real(fields, "", "samples_percent", edge->call_percent);
}

static void unplaced_fields(const struct overlay_unplaced *unplaced, struct fields *fields)
{
	fields->count = 0;
	field_text(fields, "symbol", unplaced->symbol);
	share_fields(fields, &unplaced->share, "");
	share_fields(fields, &unplaced->baseline, "baseline_");
}

/* The summary's overlay fields: what it is, how two profiles compare. */
static void summary_overlay_fields(const struct graph_overlay *overlay, struct fields *fields)
{
	fields->count = 0;
	field_text(fields, "overlay", overlay->title);
	if (!overlay->has_baseline)
		return;
	field_text(fields, "compare", overlay->compare_counts ? "counts" : "shares");
	field_text(fields, "compare_why", overlay->compare_why);
}

static void join_fields(const struct overlay_join *join, struct fields *fields)
{
	fields->count = 0;
	field_text(fields, "work", join->work);
	field_text(fields, "before", join->before);
	field_text(fields, "after", join->after);
	field_text(fields, "on", join->on);
}

/* Where clang refused, a header once however many files include it. */
static void error_site_fields(const struct cg_error_site *site, struct fields *fields)
{
	fields->count = 0;
	field_text(fields, "file", site->file);
	field_integer(fields, "", "line", (long long)site->line);
	field_text(fields, "message", site->message);
	field_integer(fields, "", "units", (long long)site->units);
	if (site->why)
		field_text(fields, "why", site->why);
}

static void json_fields(json_object *object, const struct fields *fields)
{
	for (size_t i = 0; i < fields->count; i++) {
		const struct field *f = &fields->item[i];
		json_object *value = f->kind == FIELD_TEXT ? json_string(f->text)
				     : f->kind == FIELD_INTEGER ? json_object_new_int64(f->integer)
				     : f->kind == FIELD_REAL ? json_object_new_double(f->real)
				     : json_object_new_boolean(f->integer != 0);
		json_object_object_add(object, f->key, value);
	}
}

static json_object *json_fields_object(const struct fields *fields)
{
	json_object *object = json_object_new_object();
	json_fields(object, fields);
	return object;
}

/* What the overlay puts on node (or edge) INDEX: its figures into fields, its events returned. */
static const struct overlay_count *item_overlay(const struct graph_overlay *overlay, size_t index, bool edge,
						struct fields *fields)
{
	if (edge) {
		edge_fields(overlay, index, fields);
		return &overlay->edges[index].events;
	}
	node_fields(overlay, index, fields);
	return &overlay->nodes[index].events;
}

static void json_item_overlay(json_object *object, const struct graph_overlay *overlay, size_t index, bool edge)
{
	if (!overlay)
		return;
	struct fields fields;
	const struct overlay_count *events = item_overlay(overlay, index, edge, &fields);
	json_fields(object, &fields);
	json_events(object, events);
}

static json_object *json_unplaced(const struct graph_overlay *overlay)
{
	json_object *array = json_object_new_array();
	struct fields fields;
	for (size_t i = 0; i < overlay->unplaced_count; i++) {
		unplaced_fields(&overlay->unplaced[i], &fields);
		json_object_array_add(array, json_fields_object(&fields));
	}
	return array;
}

/* files whose parse had errors: their functions' calls may be missing */
static json_object *json_error_files(const struct callgraph *graph)
{
	json_object *error_files = json_object_new_array();
	for (size_t i = 0; i < graph->error_file_count; i++) {
		const struct cg_error_file *e = &graph->error_files[i];
		json_object *file = json_object_new_object(), *functions = json_object_new_array();
		for (size_t f = 0; f < e->function_count; f++)
			json_object_array_add(functions, json_string(e->functions[f]));
		json_object_object_add(file, "file", json_string(e->file));
		json_object_object_add(file, "errors", json_object_new_int64((int64_t)e->errors));
		json_object_object_add(file, "functions", functions);
		json_object_array_add(error_files, file);
	}
	return error_files;
}


static json_object *json_summary(const struct callgraph *graph, const struct graph_overlay *overlay)
{
	json_object *summary = json_object_new_object();
	for (const struct summary_field *f = summary_fields; f < summary_fields + SUMMARY_FIELD_COUNT; f++) {
		const char *text = summary_text(&graph->summary, f);
		if (f->kind == SUMMARY_NUMBER)
			json_object_object_add(summary, f->name,
					       json_object_new_int64((int64_t)summary_number(&graph->summary, f)));
		else if (text)
			json_object_object_add(summary, f->name, json_string(text));
	}
	struct fields fields;
	if (overlay) {
		summary_overlay_fields(overlay, &fields);
		json_fields(summary, &fields);
	}
	if (overlay && overlay->has_baseline) {   /* renamed work compared on sums */
		json_object *joined = json_object_new_array();
		for (size_t j = 0; j < overlay->join_count; j++) {
			join_fields(&overlay->joins[j], &fields);
			json_object_array_add(joined, json_fields_object(&fields));
		}
		json_object_object_add(summary, "joined", joined);
	}
	json_object_object_add(summary, "error_files", json_error_files(graph));
	json_object *error_sites = json_object_new_array();
	for (size_t i = 0; i < graph->error_site_count; i++) {
		error_site_fields(&graph->error_sites[i], &fields);
		json_object_array_add(error_sites, json_fields_object(&fields));
	}
	json_object_object_add(summary, "error_sites", error_sites);
	return summary;
}

static json_object *json_node(const struct callgraph *graph, const struct graph_overlay *overlay, size_t i)
{
	const struct cg_node *node = &graph->nodes[i];
	json_object *object = json_object_new_object();
	json_object_object_add(object, "id", json_string(node->id));
	json_object_object_add(object, "name", json_string(node->name));
	json_object_object_add(object, "file", json_string(node->file));
	json_object_object_add(object, "line", json_object_new_int64(node->line));
	json_object_object_add(object, "role", json_string(graph_role_name(node->role)));
	json_object_object_add(object, "defined", json_object_new_boolean(node->defined));
	json_item_overlay(object, overlay, i, false);
	return object;
}

static json_object *json_edge(const struct callgraph *graph, const struct graph_overlay *overlay, size_t i)
{
	const struct cg_edge *edge = &graph->edges[i];
	json_object *object = json_object_new_object();
	json_object_object_add(object, "from", json_string(graph->nodes[edge->from].id));
	json_object_object_add(object, "to", json_string(graph->nodes[edge->to].id));
	json_object_object_add(object, "kind", json_string(graph_kind_name(edge->kind)));
	json_object_object_add(object, "line", json_object_new_int64(edge->line));
	if (edge->field)
		json_object_object_add(object, "field", json_string(edge->field));
	json_item_overlay(object, overlay, i, true);
	return object;
}

bool graph_write_json(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out)
{
	/* schema and version as in the report (docs/callgraph.schema.json) */
	fprintf(out, "{\n\"schema\": %d,\n\"version\": \"%s\",\n\"summary\":\n", PTSCOPE_REPORT_SCHEMA, PTSCOPE_VERSION);
	write_json_line(out, json_summary(graph, overlay), ",");
	fprintf(out, "\"nodes\": [\n");
	for (size_t i = 0; i < graph->node_count; i++)
		write_json_line(out, json_node(graph, overlay, i), i + 1 < graph->node_count ? "," : "");
	fprintf(out, "],\n\"edges\": [\n");
	for (size_t i = 0; i < graph->edge_count; i++)
		write_json_line(out, json_edge(graph, overlay, i), i + 1 < graph->edge_count ? "," : "");
	if (overlay && overlay->has_samples) {
		fprintf(out, "],\n\"unplaced_symbols\":\n");
		write_json_line(out, json_unplaced(overlay), "");
		fprintf(out, "}\n");
	} else {
		fprintf(out, "]\n}\n");
	}
	return !ferror(out);
}

static bool xml_number(xmlTextWriterPtr writer, const char *name, size_t value)
{
	return xmlTextWriterWriteFormatAttribute(writer, BAD_CAST name, "%zu", value) >= 0;
}

/* File names come from the tree: what XML 1.0 forbids is replaced (base/escape.h). */
static bool xml_text(xmlTextWriterPtr writer, const char *name, const char *value)
{
	char *clean = escape_alloc(escape_xml_chars, value);
	bool ok = xmlTextWriterWriteAttribute(writer, BAD_CAST name, BAD_CAST clean) >= 0;
	free(clean);
	return ok;
}

/* <event name="fork" count="1234" unit="PTEs"/> children of what the overlay counts on */
static bool xml_events(xmlTextWriterPtr writer, const struct overlay_count *events)
{
	bool ok = true;
	for (int ev = 0; ok && ev < OVERLAY_EVENT_COUNT; ev++)
		if (events->has[ev])
			ok = xmlTextWriterStartElement(writer, BAD_CAST "event") >= 0 &&
			     xml_text(writer, "name", overlay_event_names[ev]) &&
			     xml_number(writer, "count", (size_t)events->count[ev]) &&
			     xml_text(writer, "unit", events->unit) &&
			     xmlTextWriterEndElement(writer) >= 0;
	return ok;
}

/* The overlay's figures as attributes (reals to 4 decimals: shares, ratios). */
static bool xml_fields(xmlTextWriterPtr writer, const struct fields *fields)
{
	bool ok = true;
	for (size_t i = 0; ok && i < fields->count; i++) {
		const struct field *f = &fields->item[i];
		const xmlChar *key = BAD_CAST f->key;
		ok = f->kind == FIELD_TEXT ? xml_text(writer, f->key, f->text)
		     : f->kind == FIELD_INTEGER ? xmlTextWriterWriteFormatAttribute(writer, key, "%lld", f->integer) >= 0
		     : f->kind == FIELD_REAL ? xmlTextWriterWriteFormatAttribute(writer, key, "%.4f", f->real) >= 0
		     : xml_text(writer, f->key, f->integer ? "true" : "false");
	}
	return ok;
}

/* <NAME with the fields as attributes/> */
static bool xml_fields_element(xmlTextWriterPtr writer, const char *name, const struct fields *fields)
{
	return xmlTextWriterStartElement(writer, BAD_CAST name) >= 0 && xml_fields(writer, fields) &&
	       xmlTextWriterEndElement(writer) >= 0;
}

static bool xml_item_overlay(xmlTextWriterPtr writer, const struct graph_overlay *overlay, size_t index, bool edge)
{
	if (!overlay)
		return true;
	struct fields fields;
	const struct overlay_count *events = item_overlay(overlay, index, edge, &fields);
	return xml_fields(writer, &fields) && xml_events(writer, events);
}

static bool xml_unplaced(xmlTextWriterPtr writer, const struct graph_overlay *overlay)
{
	bool ok = true;
	struct fields fields;
	for (size_t i = 0; ok && overlay && i < overlay->unplaced_count; i++) {
		unplaced_fields(&overlay->unplaced[i], &fields);
		ok = xml_fields_element(writer, "unplaced_symbol", &fields);
	}
	return ok;
}

/* The summary's attributes for the overlay, then its children: the joined
 * names and where clang refused (as the JSON's joined and error_sites). */
static bool xml_summary_overlay(xmlTextWriterPtr writer, const struct callgraph *graph,
				const struct graph_overlay *overlay)
{
	struct fields fields;
	bool ok = true;
	if (overlay) {
		summary_overlay_fields(overlay, &fields);
		ok = xml_fields(writer, &fields);
	}
	for (size_t j = 0; ok && overlay && j < overlay->join_count; j++) {
		join_fields(&overlay->joins[j], &fields);
		ok = xml_fields_element(writer, "joined", &fields);
	}
	for (size_t i = 0; ok && i < graph->error_site_count; i++) {
		error_site_fields(&graph->error_sites[i], &fields);
		ok = xml_fields_element(writer, "error_site", &fields);
	}
	return ok;
}

static bool xml_body(xmlTextWriterPtr writer, const struct callgraph *graph,
		     const struct graph_overlay *overlay)
{
	bool ok = xmlTextWriterStartDocument(writer, NULL, "UTF-8", NULL) >= 0 &&
		  xmlTextWriterSetIndent(writer, 1) >= 0 &&
		  xmlTextWriterStartElement(writer, BAD_CAST "callgraph") >= 0 &&
		  xmlTextWriterStartElement(writer, BAD_CAST "summary") >= 0;
	for (const struct summary_field *f = summary_fields; ok && f < summary_fields + SUMMARY_FIELD_COUNT; f++) {
		const char *text = summary_text(&graph->summary, f);
		if (f->kind == SUMMARY_NUMBER)
			ok = xml_number(writer, f->name, summary_number(&graph->summary, f));
		else if (text)
			ok = xml_text(writer, f->name, text);
	}
	ok = ok && xml_summary_overlay(writer, graph, overlay);
	ok = ok && xmlTextWriterEndElement(writer) >= 0;
	for (size_t i = 0; ok && i < graph->node_count; i++) {
		const struct cg_node *node = &graph->nodes[i];
		ok = xmlTextWriterStartElement(writer, BAD_CAST "node") >= 0 &&
		     xml_text(writer, "id", node->id) && xml_text(writer, "name", node->name) &&
		     xml_text(writer, "file", node->file) && xml_number(writer, "line", node->line) &&
		     xml_text(writer, "role", graph_role_name(node->role)) &&
		     xml_text(writer, "defined", node->defined ? "true" : "false") &&
		     xml_item_overlay(writer, overlay, i, false) &&
		     xmlTextWriterEndElement(writer) >= 0;
	}
	for (size_t i = 0; ok && i < graph->edge_count; i++) {
		const struct cg_edge *edge = &graph->edges[i];
		ok = xmlTextWriterStartElement(writer, BAD_CAST "edge") >= 0 &&
		     xml_text(writer, "from", graph->nodes[edge->from].id) &&
		     xml_text(writer, "to", graph->nodes[edge->to].id) &&
		     xml_text(writer, "kind", graph_kind_name(edge->kind)) &&
		     xml_number(writer, "line", edge->line) &&
		     (!edge->field || xml_text(writer, "field", edge->field)) &&
		     xml_item_overlay(writer, overlay, i, true) &&
		     xmlTextWriterEndElement(writer) >= 0;
	}
	ok = ok && xml_unplaced(writer, overlay);
	return ok && xmlTextWriterEndDocument(writer) >= 0;
}

bool graph_write_xml(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out)
{
	/* Built in memory and written here, as the report's XML: libxml2 writing
	 * to the FILE itself prints its own "I/O error" lines when a write fails. */
	xmlBufferPtr buffer = xmlBufferCreate();
	xmlTextWriterPtr writer = buffer ? xmlNewTextWriterMemory(buffer, 0) : NULL;
	bool ok = writer && xml_body(writer, graph, overlay);
	if (writer)
		xmlFreeTextWriter(writer);   /* flushes into the buffer */
	size_t length = buffer ? (size_t)xmlBufferLength(buffer) : 0;
	ok = ok && fwrite(xmlBufferContent(buffer), 1, length, out) == length;
	if (buffer)
		xmlBufferFree(buffer);
	return ok && !ferror(out);
}
