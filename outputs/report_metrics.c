/*
 * outputs/report_metrics.c - the report as a Prometheus text exposition
 * (`--format openmetrics`, or -o NAME.prom): what node_exporter's textfile
 * collector reads, so a fleet's page tables, sharing and rmap figures land
 * in the monitoring it already runs.
 *
 * Every metric has its HELP and TYPE lines; every sample names the host and
 * kernel release of the snapshot (labels, escaped as the format says), so
 * the files of many hosts add up in one Prometheus.  The figures are those of
 * the one report tree (report_tree.c), as the other formats'.  With
 * --group-by, one more metric a group.  The file ends with "# EOF" as
 * OpenMetrics asks (a comment to the Prometheus text parser).
 */
#include <stdlib.h>
#include <string.h>

#include "outputs/report_internal.h"

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *out, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

struct host_labels {
	const char *host, *kernel;
};

static void family(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* name{host="...",kernel="..."[,KEY="VALUE"]...} VALUE */
static void sample(FILE *out, const char *name, const struct host_labels *h, const char *const *pairs,
		   size_t pair_count, long long value)
{
	fprintf(out, "%s{host=\"", name);
	label_value(out, h->host);
	fputs("\",kernel=\"", out);
	label_value(out, h->kernel);
	fputc('"', out);
	for (size_t i = 0; i + 1 < 2 * pair_count; i += 2) {
		fprintf(out, ",%s=\"", pairs[i]);
		label_value(out, pairs[i + 1]);
		fputc('"', out);
	}
	fprintf(out, "} %lld\n", value);
}

static long long number(struct json_object *object, const char *key)
{
	struct json_object *value;
	return json_object_object_get_ex(object, key, &value) ? json_object_get_int64(value) : 0;
}

static const char *string(struct json_object *object, const char *key)
{
	struct json_object *value;
	return json_object_object_get_ex(object, key, &value) ? json_object_get_string(value) : "";
}

static void host_totals(FILE *out, struct json_object *tree, const struct host_labels *h)
{
	struct json_object *totals = json_object_object_get(tree, "totals");
	family(out, "ptscope_pagetable_bytes", "Page-table bytes of the captured processes (exact from pagemap).");
	sample(out, "ptscope_pagetable_bytes", h, NULL, 0, number(totals, "pagetable_bytes"));
	family(out, "ptscope_vmpte_bytes", "VmPTE of the captured processes, summed (the kernel's own count).");
	sample(out, "ptscope_vmpte_bytes", h, NULL, 0, number(totals, "vmpte_bytes"));
	family(out, "ptscope_processes", "Processes in the snapshot.");
	sample(out, "ptscope_processes", h, NULL, 0, number(totals, "processes"));
}

static void rules(FILE *out, struct json_object *tree, const struct host_labels *h)
{
	struct json_object *sharing = json_object_object_get(tree, "sharing");
	family(out, "ptscope_sharable_bytes", "Page-table bytes each sharing rule would save "
	       "(kernel_has: mainline when a kernel one can run has the rule, else proposal, bound or what-if).");
	for (size_t i = 0; i < json_object_array_length(sharing); i++) {
		struct json_object *s = json_object_array_get_idx(sharing, i);
		const char *pairs[] = { "rule", string(s, "id"), "kernel_has", string(s, "kernel") };
		sample(out, "ptscope_sharable_bytes", h, pairs, 2, number(s, "bytes"));
	}
}

static void designs(FILE *out, struct json_object *tree, const struct host_labels *h)
{
	struct json_object *list = json_object_object_get(tree, "designs");
	const char *arch = string(json_object_object_get(tree, "snapshot"), "arch");
	family(out, "ptscope_rmap_bytes", "Reverse-map bytes of these processes under each kernel design "
	       "of the snapshot's architecture (pte_chains plus object rmap).");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *d = json_object_array_get_idx(list, i);
		if (arch[0] && strcmp(string(d, "arch"), arch))
			continue;
		const char *pairs[] = { "design", string(d, "id"), "family", string(d, "family") };
		sample(out, "ptscope_rmap_bytes", h, pairs, 2, number(d, "rmap_bytes"));
	}
}

static void groups(FILE *out, struct json_object *tree, const struct host_labels *h)
{
	struct json_object *list;
	if (!json_object_object_get_ex(tree, "groups", &list))
		return;
	family(out, "ptscope_group_pagetable_bytes", "Page-table bytes of each group of processes (--group-by).");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *g = json_object_array_get_idx(list, i);
		const char *pairs[] = { "by", string(g, "by"), "group", string(g, "key") };
		sample(out, "ptscope_group_pagetable_bytes", h, pairs, 2, number(g, "pagetable_bytes"));
	}
	family(out, "ptscope_group_vmpte_bytes", "VmPTE of each group of processes (--group-by).");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *g = json_object_array_get_idx(list, i);
		const char *pairs[] = { "by", string(g, "by"), "group", string(g, "key") };
		sample(out, "ptscope_group_vmpte_bytes", h, pairs, 2, number(g, "vmpte_bytes"));
	}
}

int report_write_metrics(FILE *out, struct json_object *tree)
{
	struct json_object *snapshot = json_object_object_get(tree, "snapshot");
	struct host_labels h = { string(snapshot, "hostname"), string(snapshot, "kernel") };
	host_totals(out, tree, &h);
	rules(out, tree, &h);
	designs(out, tree, &h);
	groups(out, tree, &h);
	fputs("# EOF\n", out);
	return ferror(out) ? -1 : 0;
}
