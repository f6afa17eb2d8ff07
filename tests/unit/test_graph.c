/*
 * Unit tests of the call-graph writers: format names, JSON and XML read back
 * with json-c and libxml2, DOT and pictures through Graphviz, and failures
 * that must leave no file behind.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "outputs/graph.h"
#include "test.h"

/* A three-function graph: entry -> helper (direct, line 12),
 * helper -> sink (through ops.run, line 30), in two files. */
static struct callgraph *small_graph(void)
{
	struct callgraph *graph = calloc(1, sizeof(*graph));
	graph->nodes = calloc(3, sizeof(struct cg_node));
	graph->edges = calloc(2, sizeof(struct cg_edge));
	graph->nodes[0] = (struct cg_node){ "c:@F@entry", "entry", "mm/a.c", 10, true, CG_ROLE_ENTRY };
	graph->nodes[1] = (struct cg_node){ "c:a.c@F@helper", "helper", "mm/a.c", 20, true, CG_ROLE_PATH };
	graph->nodes[2] = (struct cg_node){ "c:@F@sink", "sink", "mm/rmap.c", 5, true, CG_ROLE_SINK };
	graph->edges[0] = (struct cg_edge){ 0, 1, 12, CG_EDGE_DIRECT, NULL };
	graph->edges[1] = (struct cg_edge){ 1, 2, 30, CG_EDGE_INDIRECT, "ops.run" };
	graph->node_count = 3;
	graph->edge_count = 2;
	graph->summary.source = "tree";
	graph->summary.config = "test <config>";
	graph->summary.files = 2;
	return graph;
}

static char *out_path(const char *name)
{
	static char path[4096];
	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	remove(path);
	return path;
}

/* The graph written in FORMAT to NAME in the scratch folder, read back
 * (base/file.h) into written; a failed write or read ends the test. */
static void write_read(const struct callgraph *graph, enum graph_format format, const char *name,
		       struct buffer *written)
{
	struct error error;
	char *path = out_path(name);
	CU_ASSERT_EQUAL_FATAL(graph_write(graph, NULL, format, GRAPH_PAGE_DEFAULT, path, &error), 0);
	CU_ASSERT_EQUAL_FATAL(file_read_at(AT_FDCWD, path, written), 0);
}

static void test_format_names(void)
{
	CU_ASSERT_EQUAL(graph_format_from_name("json"), GRAPH_FORMAT_JSON);
	CU_ASSERT_EQUAL(graph_format_from_name("xml"), GRAPH_FORMAT_XML);
	CU_ASSERT_EQUAL(graph_format_from_name("dot"), GRAPH_FORMAT_DOT);
	CU_ASSERT_EQUAL(graph_format_from_name("gif"), GRAPH_FORMAT_NONE);
	CU_ASSERT_EQUAL(graph_format_from_path("out/x.svg"), GRAPH_FORMAT_SVG);
	CU_ASSERT_EQUAL(graph_format_from_path("x.png"), GRAPH_FORMAT_PNG);
	CU_ASSERT_EQUAL(graph_format_from_path("x.pdf"), GRAPH_FORMAT_PDF);
	CU_ASSERT_EQUAL(graph_format_from_path("a.b/noext"), GRAPH_FORMAT_NONE);
	CU_ASSERT_EQUAL(graph_format_from_path("x.gif"), GRAPH_FORMAT_NONE);
	CU_ASSERT_EQUAL(graph_format_from_path("x.txt"), GRAPH_FORMAT_TREE);
	CU_ASSERT_EQUAL(graph_format_from_name("tree"), GRAPH_FORMAT_TREE);
}

static void test_json(void)
{
	struct callgraph *graph = small_graph();
	struct buffer written = { 0 };
	write_read(graph, GRAPH_FORMAT_JSON, "g.json", &written);
	json_object *root = json_tokener_parse(written.data);
	buffer_free(&written);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_object *nodes, *edges, *summary, *value;
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(root, "nodes", &nodes));
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(root, "edges", &edges));
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(root, "summary", &summary));
	CU_ASSERT_EQUAL(json_object_array_length(nodes), 3);
	CU_ASSERT_EQUAL(json_object_array_length(edges), 2);
	json_object *sink = json_object_array_get_idx(nodes, 2);
	json_object_object_get_ex(sink, "role", &value);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(value), "sink");
	json_object_object_get_ex(sink, "line", &value);
	CU_ASSERT_EQUAL(json_object_get_int(value), 5);
	json_object *indirect = json_object_array_get_idx(edges, 1);
	json_object_object_get_ex(indirect, "from", &value);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(value), "c:a.c@F@helper");
	json_object_object_get_ex(indirect, "to", &value);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(value), "c:@F@sink");
	json_object_object_get_ex(indirect, "kind", &value);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(value), "indirect");
	json_object_object_get_ex(indirect, "line", &value);
	CU_ASSERT_EQUAL(json_object_get_int(value), 30);
	json_object_object_get_ex(indirect, "field", &value);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(value), "ops.run");
	CU_ASSERT_FALSE(json_object_object_get_ex(json_object_array_get_idx(edges, 0), "field", &value));
	json_object_object_get_ex(summary, "files", &value);
	CU_ASSERT_EQUAL(json_object_get_int(value), 2);
	json_object_put(root);
	callgraph_free(graph);
}

static void test_xml(void)
{
	struct callgraph *graph = small_graph();
	struct buffer written = { 0 };
	write_read(graph, GRAPH_FORMAT_XML, "g.xml", &written);
	xmlDocPtr document = xmlReadMemory(written.data, (int)written.length, "g.xml", NULL, XML_PARSE_NONET);
	buffer_free(&written);
	CU_ASSERT_PTR_NOT_NULL_FATAL(document);
	size_t nodes = 0, edges = 0;
	for (xmlNodePtr child = xmlDocGetRootElement(document)->children; child; child = child->next) {
		if (child->type != XML_ELEMENT_NODE)
			continue;
		xmlChar *kind = xmlGetProp(child, BAD_CAST "kind");
		if (!xmlStrcmp(child->name, BAD_CAST "node"))
			nodes++;
		if (!xmlStrcmp(child->name, BAD_CAST "edge")) {
			edges++;
			xmlChar *line = xmlGetProp(child, BAD_CAST "line");
			CU_ASSERT_STRING_EQUAL((char *)line, edges == 1 ? "12" : "30");
			CU_ASSERT_STRING_EQUAL((char *)kind, edges == 1 ? "direct" : "indirect");
			xmlFree(line);
		}
		if (!xmlStrcmp(child->name, BAD_CAST "summary")) {
			xmlChar *config = xmlGetProp(child, BAD_CAST "config");
			CU_ASSERT_STRING_EQUAL((char *)config, "test <config>");   /* escaped and back */
			xmlFree(config);
		}
		xmlFree(kind);
	}
	CU_ASSERT_EQUAL(nodes, 3);
	CU_ASSERT_EQUAL(edges, 2);
	xmlFreeDoc(document);
	callgraph_free(graph);
}

/* What each picture of the small graph holds: DOT, two files as two
 * clusters and the indirect edge dashed and labelled with its field; SVG,
 * the drawn names and the dashes; PNG, its signature. */
static const struct {
	enum graph_format format;
	const char *name;
	const char *holds[4];
} pictures[] = {
	{ GRAPH_FORMAT_DOT, "g.dot", { "cluster_0", "cluster_2", "dashed", "label=run" } },
	{ GRAPH_FORMAT_SVG, "g.svg", { "<svg", ">helper</text>", "stroke-dasharray", "mm/rmap.c" } },
	{ GRAPH_FORMAT_PNG, "g.png", { "\x89PNG\r\n\x1a\n" } },
};

static void test_dot_and_pictures(void)
{
	struct callgraph *graph = small_graph();
	for (size_t p = 0; p < sizeof(pictures) / sizeof(pictures[0]); p++) {
		struct buffer written = { 0 };
		write_read(graph, pictures[p].format, pictures[p].name, &written);
		for (size_t h = 0; h < 4 && pictures[p].holds[h]; h++) {
			const char *want = pictures[p].holds[h];
			bool held = pictures[p].format == GRAPH_FORMAT_PNG   /* binary: the signature starts it */
				    ? written.length > strlen(want) && !memcmp(written.data, want, strlen(want))
				    : strstr(written.data, want) != NULL;
			if (!held)
				printf("\n%s does not hold \"%s\"\n", pictures[p].name, want);
			CU_ASSERT_TRUE(held);
		}
		buffer_free(&written);
	}
	callgraph_free(graph);
}

static void test_write_failures(void)
{
	struct callgraph *graph = small_graph();
	struct error error;
	char *path = out_path("missing-folder/g.json");
	CU_ASSERT_EQUAL(graph_write(graph, NULL, GRAPH_FORMAT_JSON, GRAPH_PAGE_DEFAULT, path, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "missing-folder/g.json"));
	CU_ASSERT_EQUAL(error.status, STATUS_INTERNAL);   /* an output failure */
	path = out_path("none.svg");
	CU_ASSERT_EQUAL(graph_write(graph, NULL, GRAPH_FORMAT_NONE, GRAPH_PAGE_DEFAULT, path, &error), -1);
	CU_ASSERT_EQUAL(error.status, STATUS_INTERNAL);
	struct stat st;
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	callgraph_free(graph);
}

void suite_graph(void)
{
	ADD_SUITE("graph", test_format_names, test_json, test_xml, test_dot_and_pictures,
		  test_write_failures);
}
