/*
 * analyzer/callgraph.c - every unit's facts merged into one call graph, calls
 * through function-pointer fields resolved, and the rmap paths marked.
 *
 * Identity is the clang USR, so a static function that appears in several
 * units (an inline helper from a header) is one node, and two static
 * functions of one name in two .c files are two.  A call through a field
 * becomes an indirect edge to every function stored in that field in any
 * parsed unit: that is how rwc->rmap_one() reaches try_to_unmap_one.
 *
 * The rmap-path graph is the set of nodes that an entry reaches and that
 * reach a sink, found with one forward and one backward breadth-first
 * search.  --depth N keeps a node only when it lies on an entry-to-sink
 * path of at most N calls (distance from an entry + distance to a sink).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "base/names.h"

struct cg_arena {
	struct cg_strings strings;
};

const char *const analyzer_default_sinks[] = { "mm/rmap.c", "include/linux/rmap.h", NULL };

struct indirect_site {
	size_t caller;
	uint32_t field;      /* arena string: field USR */
	unsigned line;
};

struct merge {
	struct callgraph *graph;
	struct cg_strings *strings;       /* the arena's */
	size_t *node_of_string;           /* USR string -> node index + 1 */
	size_t node_of_string_capacity;
	size_t node_capacity, edge_capacity;
	struct indirect_site *sites;
	size_t site_count, site_capacity;
	struct tu_store *stores;          /* field string -> node index (in .function) */
	size_t store_count, store_capacity;
	const char *root, *arch;
	size_t unresolved_capacity;
	struct hash_table edge_set;       /* edges by (from, to, line, kind) */
};

static const char *arena_text(struct merge *merge, const char *text)
{
	uint32_t index = cg_intern(merge->strings, text);   /* may move the text array */
	return merge->strings->text[index];
}

static const char *relative_file(struct merge *merge, const char *file)
{
	char *name = cg_tree_name(file, merge->root, merge->arch);
	const char *kept = arena_text(merge, name);
	free(name);
	return kept;
}

static size_t merge_function(struct merge *merge, const struct tu_facts *facts, uint32_t local)
{
	const struct tu_function *function = &facts->functions[local];
	uint32_t key = cg_intern(merge->strings, facts->strings.text[function->usr]);
	if (key >= merge->node_of_string_capacity) {
		size_t old = merge->node_of_string_capacity;
		array_reserve(&merge->node_of_string, &merge->node_of_string_capacity, key + 1, sizeof(size_t));
		memset(merge->node_of_string + old, 0, (merge->node_of_string_capacity - old) * sizeof(size_t));
	}
	struct callgraph *graph = merge->graph;
	size_t index = merge->node_of_string[key];
	if (index == 0) {
		array_reserve(&graph->nodes, &merge->node_capacity, graph->node_count + 1, sizeof(struct cg_node));
		graph->nodes[graph->node_count] = (struct cg_node){
			.id = merge->strings->text[key],
			.name = arena_text(merge, facts->strings.text[function->name]),
			.file = relative_file(merge, facts->strings.text[function->file]),
			.line = function->line, .defined = function->defined,
		};
		index = merge->node_of_string[key] = ++graph->node_count;
	} else if (function->defined && !graph->nodes[index - 1].defined) {
		/* a prototype seen first: the definition's place wins */
		struct cg_node *node = &graph->nodes[index - 1];
		node->file = relative_file(merge, facts->strings.text[function->file]);
		node->line = function->line;
		node->defined = true;
	}
	return index - 1;
}

/* Edges are kept once per (caller, callee, line, kind). */
static uint64_t edge_hash(const struct cg_edge *edge)
{
	uint64_t values[4] = { edge->from, edge->to, edge->line, edge->kind };
	return hash_bytes(values, sizeof(values));
}

static uint64_t rehash_edge(const void *context, size_t index)
{
	const struct merge *merge = context;
	return edge_hash(&merge->graph->edges[index]);
}

/* True (and the edge recorded as the next one, edges[edge_count]) when new. */
static bool edge_is_new(struct merge *merge, const struct cg_edge *edge)
{
	struct hash_probe probe;
	uint64_t hash = edge_hash(edge);
	for (size_t i = hash_first(&merge->edge_set, hash, &probe); i != HASH_NONE;
	     i = hash_next(&merge->edge_set, &probe)) {
		const struct cg_edge *e = &merge->graph->edges[i];
		if (e->from == edge->from && e->to == edge->to && e->line == edge->line && e->kind == edge->kind)
			return false;
	}
	hash_add(&merge->edge_set, hash, merge->graph->edge_count, rehash_edge, merge);
	return true;
}

static void add_edge(struct merge *merge, struct cg_edge edge)
{
	struct callgraph *graph = merge->graph;
	array_reserve(&graph->edges, &merge->edge_capacity, graph->edge_count + 1, sizeof(struct cg_edge));
	if (edge_is_new(merge, &edge))
		graph->edges[graph->edge_count++] = edge;
}

static void merge_unit(struct merge *merge, const struct tu_facts *facts)
{
	size_t *nodes = xmalloc((facts->function_count + 1) * sizeof(size_t));
	for (size_t i = 0; i < facts->function_count; i++)
		nodes[i] = merge_function(merge, facts, (uint32_t)i);
	for (size_t i = 0; i < facts->call_count; i++) {
		const struct tu_call *call = &facts->calls[i];
		if (call->callee != CG_NONE) {
			add_edge(merge, (struct cg_edge){
				.from = nodes[call->caller], .to = nodes[call->callee],
				.line = call->line, .kind = CG_EDGE_DIRECT,
			});
			continue;
		}
		array_reserve(&merge->sites, &merge->site_capacity, merge->site_count + 1, sizeof(*merge->sites));
		merge->sites[merge->site_count++] = (struct indirect_site){
			.caller = nodes[call->caller],
			.field = cg_intern(merge->strings, facts->strings.text[call->field]),
			.line = call->line,
		};
	}
	for (size_t i = 0; i < facts->store_count; i++) {
		array_reserve(&merge->stores, &merge->store_capacity, merge->store_count + 1, sizeof(*merge->stores));
		merge->stores[merge->store_count++] = (struct tu_store){
			.field = cg_intern(merge->strings, facts->strings.text[facts->stores[i].field]),
			.function = (uint32_t)nodes[facts->stores[i].function],
		};
	}
	free(nodes);
}

static int compare_stores(const void *a, const void *b)
{
	const struct tu_store *x = a, *y = b;
	if (x->field != y->field)
		return x->field < y->field ? -1 : 1;
	return (x->function > y->function) - (x->function < y->function);
}

char *field_display_name(const char *usr)
{
	const char *field = strstr(usr, "@FI@");
	for (const char *next = field; next; next = strstr(next + 1, "@FI@"))
		field = next;
	if (!field)
		return xstrdup(usr);
	const char *record = NULL;
	static const char *const markers[] = { "@S@", "@U@" };
	for (size_t m = 0; m < 2; m++)
		for (const char *at = strstr(usr, markers[m]); at && at < field; at = strstr(at + 1, markers[m]))
			if (!record || at > record)
				record = at;
	if (!record)
		return xstrdup(field + 4);
	size_t length = strcspn(record + 3, "@");
	return xasprintf("%.*s.%s", (int)length, record + 3, field + 4);
}

static void record_unresolved(struct merge *merge, const struct indirect_site *site)
{
	struct callgraph *graph = merge->graph;
	char *display = field_display_name(merge->strings->text[site->field]);
	const char *field = arena_text(merge, display);
	free(display);
	array_reserve(&graph->unresolved, &merge->unresolved_capacity, graph->unresolved_count + 1,
		   sizeof(*graph->unresolved));
	graph->unresolved[graph->unresolved_count++] = (struct cg_unresolved){
		.caller = graph->nodes[site->caller].name, .file = graph->nodes[site->caller].file,
		.field = field, .line = site->line,
	};
}

static int compare_unresolved(const void *a, const void *b)
{
	const struct cg_unresolved *x = a, *y = b;
	int order = strcmp(x->file, y->file);
	if (order)
		return order;
	return x->line < y->line ? -1 : x->line > y->line ? 1 : strcmp(x->field, y->field);
}

/* Each indirect call site goes to every function stored in its field. */
static void resolve_indirect(struct merge *merge, struct cg_summary *summary)
{
	if (merge->store_count)
		array_sort(merge->stores, merge->store_count, sizeof(*merge->stores), compare_stores);
	for (size_t i = 0; i < merge->site_count; i++) {
		const struct indirect_site *site = &merge->sites[i];
		size_t low = 0, high = merge->store_count;
		while (low < high) {
			size_t middle = (low + high) / 2;
			if (merge->stores[middle].field < site->field)
				low = middle + 1;
			else
				high = middle;
		}
		summary->indirect_sites++;
		if (low >= merge->store_count || merge->stores[low].field != site->field) {
			summary->indirect_unresolved++;
			record_unresolved(merge, site);
			continue;
		}
		char *display = field_display_name(merge->strings->text[site->field]);
		const char *field = arena_text(merge, display);
		free(display);
		for (size_t j = low; j < merge->store_count && merge->stores[j].field == site->field; j++)
			add_edge(merge, (struct cg_edge){
				.from = site->caller, .to = merge->stores[j].function, .line = site->line,
				.kind = CG_EDGE_INDIRECT, .field = field,
			});
	}
}

/* --- roles and paths -------------------------------------------------------- */

static bool is_file_pattern(const char *pattern)
{
	size_t length = strlen(pattern);
	return strchr(pattern, '/') ||
	       (length > 2 && (!strcmp(pattern + length - 2, ".c") || !strcmp(pattern + length - 2, ".h")));
}

static bool file_matches(const char *pattern, const char *file)
{
	if (!fnmatch(pattern, file, 0))
		return true;
	/* "rmap.c" also names mm/rmap.c */
	size_t length = strlen(file), pattern_length = strlen(pattern);
	return !strchr(pattern, '/') && length > pattern_length &&
	       file[length - pattern_length - 1] == '/' && !strcmp(file + length - pattern_length, pattern);
}

static bool matches_any(const struct cg_list *patterns, const struct cg_node *node)
{
	for (size_t i = 0; i < patterns->count; i++) {
		const char *pattern = patterns->items[i];
		if (is_file_pattern(pattern) ? file_matches(pattern, node->file)
					     : !fnmatch(pattern, node->name, 0))
			return true;
	}
	return false;
}

/* Compressed adjacency over distinct (from, to) pairs, one direction. */
struct adjacency {
	size_t *start;   /* node_count + 1 */
	size_t *target;
};

static void build_adjacency(const struct callgraph *graph, bool backward, struct adjacency *adjacency)
{
	adjacency->start = xcalloc(graph->node_count + 2, sizeof(size_t));
	adjacency->target = xmalloc((graph->edge_count + 1) * sizeof(size_t));
	for (size_t i = 0; i < graph->edge_count; i++) {
		size_t from = backward ? graph->edges[i].to : graph->edges[i].from;
		adjacency->start[from + 2]++;
	}
	for (size_t i = 2; i < graph->node_count + 2; i++)
		adjacency->start[i] += adjacency->start[i - 1];
	for (size_t i = 0; i < graph->edge_count; i++) {
		size_t from = backward ? graph->edges[i].to : graph->edges[i].from;
		size_t to = backward ? graph->edges[i].from : graph->edges[i].to;
		adjacency->target[adjacency->start[from + 1]++] = to;
	}
}

#define UNREACHED SIZE_MAX

/* Breadth-first distances (in calls) from every node flagged in sources,
 * never entering a blocked (--exclude) node. */
static void breadth_first(const struct adjacency *adjacency, size_t count, const bool *sources,
			  const bool *blocked, size_t *distance, size_t *queue)
{
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < count; i++) {
		distance[i] = sources[i] && !blocked[i] ? 0 : UNREACHED;
		if (distance[i] == 0)
			queue[tail++] = i;
	}
	while (head < tail) {
		size_t node = queue[head++];
		for (size_t k = adjacency->start[node]; k < adjacency->start[node + 1]; k++) {
			size_t next = adjacency->target[k];
			if (distance[next] == UNREACHED && !blocked[next]) {
				distance[next] = distance[node] + 1;
				queue[tail++] = next;
			}
		}
	}
}

static bool within(size_t a, size_t b, size_t extra, int depth)
{
	if (a == UNREACHED || b == UNREACHED)
		return false;
	return depth <= 0 || a + b + extra <= (size_t)depth;
}

/*
 * --shortest: of the rmap paths keep, for every entry and every sink it
 * reaches, one shortest path between the two (of several of equal length,
 * the one through the earliest calls).  The union reads as "how does this
 * entry get to that rmap function" instead of every route there is, which
 * is what makes a picture legible.
 */
static void keep_shortest(const struct callgraph *graph, const struct adjacency *forward,
			  const bool *entry, const bool *sink, bool *node_keep, bool *edge_keep)
{
	size_t count = graph->node_count;
	size_t *from_entry = xmalloc((count + 1) * sizeof(size_t));
	size_t *queue = xmalloc((count + 1) * sizeof(size_t));
	bool *one = xcalloc(count + 1, 1), *blocked = xcalloc(count + 1, 1);
	bool *nodes = xcalloc(count + 1, 1), *edges = xcalloc(graph->edge_count + 1, 1);
	for (size_t i = 0; i < count; i++)
		blocked[i] = !node_keep[i];
	for (size_t e = 0; e < count; e++) {
		if (!entry[e] || !node_keep[e])
			continue;
		one[e] = true;
		breadth_first(forward, count, one, blocked, from_entry, queue);
		one[e] = false;
		for (size_t s = 0; s < count; s++) {
			if (!sink[s] || !node_keep[s] || from_entry[s] == UNREACHED)
				continue;
			/* one path, walked back from the sink: at each step the first
			 * call (edges are in file and line order) from a node one call
			 * nearer the entry, a kept one when there is one */
			nodes[s] = true;
			for (size_t at = s; from_entry[at] > 0; ) {
				size_t step = SIZE_MAX;
				for (int pass = 0; pass < 2 && step == SIZE_MAX; pass++)
					for (size_t i = 0; i < graph->edge_count && step == SIZE_MAX; i++)
						if ((pass || edge_keep[i]) && graph->edges[i].to == at &&
						    from_entry[graph->edges[i].from] + 1 == from_entry[at])
							step = i;
				if (step == SIZE_MAX)
					break;   /* cannot happen: breadth_first reached at from one */
				edges[step] = nodes[graph->edges[step].from] = true;
				at = graph->edges[step].from;
			}
		}
	}
	memcpy(node_keep, nodes, count);
	memcpy(edge_keep, edges, graph->edge_count);
	free(from_entry);
	free(queue);
	free(one);
	free(blocked);
	free(nodes);
	free(edges);
}

/* Drop what is not kept, renumbering the edges' ends. */
static void compact(struct callgraph *graph, const bool *node_keep, const bool *edge_keep)
{
	size_t *renumber = xmalloc((graph->node_count + 1) * sizeof(size_t));
	size_t kept = 0;
	for (size_t i = 0; i < graph->node_count; i++) {
		renumber[i] = node_keep[i] ? kept : SIZE_MAX;
		if (node_keep[i])
			graph->nodes[kept++] = graph->nodes[i];
	}
	graph->node_count = kept;
	size_t edges = 0;
	for (size_t i = 0; i < graph->edge_count; i++) {
		struct cg_edge edge = graph->edges[i];
		if (edge_keep[i] && renumber[edge.from] != SIZE_MAX && renumber[edge.to] != SIZE_MAX) {
			edge.from = renumber[edge.from];
			edge.to = renumber[edge.to];
			graph->edges[edges++] = edge;
		}
	}
	graph->edge_count = edges;
	free(renumber);
}

/* Mark roles; unless request->all, keep only the rmap-path nodes and edges. */
static void mark_paths(struct callgraph *graph, const struct graph_request *request)
{
	size_t count = graph->node_count;
	bool *entry = xcalloc(count + 1, 1), *sink = xcalloc(count + 1, 1), *blocked = xcalloc(count + 1, 1);
	bool *node_keep = xcalloc(count + 1, 1), *edge_keep = xcalloc(graph->edge_count + 1, 1);
	size_t *from_entry = xmalloc((count + 1) * sizeof(size_t));
	size_t *to_sink = xmalloc((count + 1) * sizeof(size_t));
	size_t *queue = xmalloc((count + 1) * sizeof(size_t));
	for (size_t i = 0; i < count; i++) {
		const struct cg_node *node = &graph->nodes[i];
		entry[i] = node->defined && matches_any(request->entries, node);
		sink[i] = node->defined && matches_any(request->sinks, node);
		blocked[i] = request->excludes && matches_any(request->excludes, node);
	}
	struct adjacency forward, backward;
	build_adjacency(graph, false, &forward);
	build_adjacency(graph, true, &backward);
	breadth_first(&forward, count, entry, blocked, from_entry, queue);
	breadth_first(&backward, count, sink, blocked, to_sink, queue);
	for (size_t i = 0; i < count; i++) {
		bool on_path = within(from_entry[i], to_sink[i], 0, request->depth);
		graph->nodes[i].role = entry[i] ? CG_ROLE_ENTRY : sink[i] ? CG_ROLE_SINK
				     : on_path ? CG_ROLE_PATH : CG_ROLE_OTHER;
		node_keep[i] = on_path || (request->all && !blocked[i]);
	}
	for (size_t i = 0; i < graph->edge_count; i++) {
		const struct cg_edge *edge = &graph->edges[i];
		edge_keep[i] = request->all ||
			within(from_entry[edge->from], to_sink[edge->to], 1, request->depth);
	}
	if (request->shortest && !request->all)
		keep_shortest(graph, &forward, entry, sink, node_keep, edge_keep);
	compact(graph, node_keep, edge_keep);
	free(forward.start);
	free(forward.target);
	free(backward.start);
	free(backward.target);
	free(entry);
	free(sink);
	free(blocked);
	free(node_keep);
	free(edge_keep);
	free(from_entry);
	free(to_sink);
	free(queue);
}

/* --- ordering: by file, line and name, so output is stable ----------------- */

static int compare_nodes(const void *a, const void *b)
{
	const struct cg_node *x = a, *y = b;
	int order = strcmp(x->file, y->file);
	if (order)
		return order;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	order = strcmp(x->name, y->name);
	return order ? order : strcmp(x->id, y->id);
}

static int compare_edges(const void *a, const void *b)
{
	const struct cg_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static void sort_graph(struct callgraph *graph)
{
	size_t count = graph->node_count;
	struct { struct cg_node node; size_t old; } *order = xmalloc((count + 1) * sizeof(*order));
	for (size_t i = 0; i < count; i++) {
		order[i].node = graph->nodes[i];
		order[i].old = i;
	}
	array_sort(order, count, sizeof(*order), compare_nodes);   /* node is the first member */
	size_t *renumber = xmalloc((count + 1) * sizeof(size_t));
	for (size_t i = 0; i < count; i++) {
		graph->nodes[i] = order[i].node;
		renumber[order[i].old] = i;
	}
	for (size_t i = 0; i < graph->edge_count; i++) {
		graph->edges[i].from = renumber[graph->edges[i].from];
		graph->edges[i].to = renumber[graph->edges[i].to];
	}
	array_sort(graph->edges, graph->edge_count, sizeof(struct cg_edge), compare_edges);
	free(order);
	free(renumber);
}

/* The typed names that name no parsed function (or file): the first sets
 * graph->refused, with the closest function name when there is one. */
static void check_typed(struct callgraph *graph, const struct graph_request *request)
{
	for (size_t p = 0; request->checked && p < request->checked->count && !graph->refused; p++) {
		struct cg_list one = { .items = &request->checked->items[p], .count = 1 };
		bool found = false;
		for (size_t n = 0; n < graph->node_count && !found; n++)
			found = matches_any(&one, &graph->nodes[n]);
		if (found)
			continue;
		const char *pattern = one.items[0];
		const char **names = xcalloc(graph->node_count + 1, sizeof(char *));
		for (size_t n = 0; n < graph->node_count; n++)
			names[n] = is_file_pattern(pattern) ? graph->nodes[n].file : graph->nodes[n].name;
		const char *close = closest_name(pattern, names, graph->node_count, sizeof(char *));
		const char *what = is_file_pattern(pattern) ? "no parsed file defines a function there"
				   : strpbrk(pattern, "*?[") ? "no parsed function matches it"
				   : "no parsed function has that name";
		char *text = xasprintf("%s '%s': %s%s%s%s", request->checked_options->items[p], pattern, what,
				       close ? "; did you mean '" : "", close ? close : "", close ? "'?" : "");
		graph->refused = graph_keep_text(graph, text);
		free(text);
		free(names);
	}
}

struct callgraph *graph_build(struct tu_job *jobs, size_t job_count, const struct graph_request *request)
{
	struct callgraph *graph = xcalloc(1, sizeof(*graph));
	struct cg_arena *arena = xcalloc(1, sizeof(*arena));
	graph->arena = arena;
	struct merge merge = { .graph = graph, .strings = &arena->strings, .root = request->root, .arch = request->arch };
	for (size_t i = 0; i < job_count; i++)
		merge_unit(&merge, &jobs[i].facts);
	resolve_indirect(&merge, &graph->summary);
	if (graph->unresolved_count)
		array_sort(graph->unresolved, graph->unresolved_count, sizeof(*graph->unresolved), compare_unresolved);
	graph->summary.functions = graph->node_count;
	graph->summary.calls = graph->edge_count;
	check_typed(graph, request);
	mark_paths(graph, request);
	sort_graph(graph);
	free(merge.node_of_string);
	free(merge.sites);
	free(merge.stores);
	hash_free(&merge.edge_set);
	return graph;
}

const char *graph_keep_text(struct callgraph *graph, const char *text)
{
	struct cg_strings *strings = &graph->arena->strings;
	if (!text)
		return NULL;
	uint32_t index = cg_intern(strings, text);   /* may move the text array */
	return strings->text[index];
}

void callgraph_free(struct callgraph *graph)
{
	if (!graph)
		return;
	if (graph->arena) {
		cg_strings_free(&graph->arena->strings);
		free(graph->arena);
	}
	free(graph->nodes);
	free(graph->edges);
	free(graph->unresolved);
	free(graph->error_sites);
	cg_free_owning(graph->error_files, graph->error_file_count, sizeof(*graph->error_files),
		       offsetof(struct cg_error_file, functions));
	free(graph);
}
