/*
 * analyzer/analyzer.h - the call-graph analyzer's one door.
 *
 * The analyzer parses kernel C files with libclang (in parallel, cached per
 * translation unit), builds a call graph whose nodes are functions named by
 * their clang USR and whose edges are call sites, resolves calls through
 * function-pointer fields to every function stored in that field, and marks
 * the "rmap paths": every function that an entry point reaches and that
 * reaches an rmap function (a sink).
 *
 * Everything in a struct callgraph lives in one allocation family owned by
 * the graph; callgraph_free() releases it.
 */
#ifndef PTSCOPE_ANALYZER_ANALYZER_H
#define PTSCOPE_ANALYZER_ANALYZER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

enum cg_role {
	CG_ROLE_OTHER,  /* only kept with --all: not on an entry-to-sink path */
	CG_ROLE_PATH,   /* on a path from an entry to a sink */
	CG_ROLE_ENTRY,  /* an entry point (fork, fault, exit, munmap, ...) */
	CG_ROLE_SINK,   /* an rmap function (mm/rmap.c, include/linux/rmap.h, --sink) */
};

enum cg_edge_kind {
	CG_EDGE_DIRECT,
	CG_EDGE_INDIRECT,  /* through a function-pointer field */
};

struct cg_node {
	const char *id;     /* clang USR: unique even for two static functions of one name */
	const char *name;
	const char *file;   /* relative to the source root when inside it */
	unsigned line;
	bool defined;       /* has a body in the parsed files (else a leaf) */
	enum cg_role role;
};

struct cg_edge {
	size_t from, to;    /* indexes into callgraph.nodes */
	unsigned line;      /* call-site line in the caller's file */
	enum cg_edge_kind kind;
	const char *field;  /* indirect edges: "struct.field" called through, else NULL */
};

/* What the run did, for the summary line and the JSON/XML "summary". */
struct cg_summary {
	const char *source;          /* the SOURCE argument */
	const char *root;            /* folder that file names are relative to */
	const char *config;          /* where the configuration came from */
	const char *compat;          /* headers read as their era's gcc read them, or NULL */
	const char *arch;            /* i386, x86, ... ("" for compile_commands) */
	const char *release;         /* the tree's VERSION.PATCHLEVEL.SUBLEVEL, "" when unknown */
	size_t files;                /* translation units asked for */
	size_t files_parsed;         /* parsed by libclang this run */
	size_t files_cached;         /* taken from the cache */
	size_t files_failed;         /* libclang could not parse at all */
	size_t files_pch;            /* parsed with a shared precompiled header (analyzer/pch.c;
	                                the call graph is the same without: not in the outputs) */
	size_t pch_count;            /* how many such headers */
	size_t errors, warnings;     /* clang diagnostics (counted, never fatal) */
	size_t flags_dropped;        /* compile-database words not on the flag allowlist */
	const char *flags_dropped_names; /* the first distinct ones, space-separated, or NULL */
	size_t config_symbols_supplied; /* MMU symbols supplied for a tree without config */
	size_t indirect_sites;       /* call sites through function-pointer fields */
	size_t indirect_unresolved;  /* ... that no stored function was found for */
	size_t functions, calls;     /* whole graph before pruning to rmap paths */
	const char *first_error;     /* one example diagnostic, or NULL */
	const char *libclang;        /* "libclang-19.so.1 (Debian clang version 19.1.4)" */
	const char *cache_refused;   /* "PATH: why" when the cache folder cannot serve (not
	                                private, cannot be made): nothing was cached this
	                                run and the command says so; else NULL */
};

/* A call through a function-pointer field that no parsed file stores a
 * function in: the call graph has no edge for it (callgraph --unresolved). */
struct cg_unresolved {
	const char *caller, *file;  /* the calling function and its file */
	const char *field;          /* "struct.field" */
	unsigned line;
};

/* A file whose parse had errors: the edges of its functions may be missing. */
struct cg_error_file {
	const char *file;           /* relative to the root */
	size_t errors;
	const char **functions;     /* defined in the file, in order */
	size_t function_count;
};

/* One place clang refused, with how many units met it: a header's error
 * repeats in every file that includes it. */
struct cg_error_site {
	const char *file;           /* relative to the root when inside it (an
	                               include/asm header, not the shim's link) */
	unsigned line;
	const char *message;        /* clang's, without the location */
	size_t units;               /* translation units that reported it */
	const char *why;            /* what the construct is, for the known ones, else NULL */
};

struct callgraph {
	struct cg_error_site *error_sites;  /* most units first */
	size_t error_site_count;
	struct cg_unresolved *unresolved;   /* sorted by file and line */
	size_t unresolved_count;
	struct cg_error_file *error_files;
	size_t error_file_count;
	struct cg_node *nodes;
	size_t node_count;
	struct cg_edge *edges;
	size_t edge_count;
	struct cg_summary summary;
	const char *refused;         /* private: a typed name that names nothing (run.c refuses) */
	struct cg_arena *arena;      /* private: strings and arrays */
};

struct analyzer_options {
	const char *source;          /* kernel tree or compile_commands.json */
	const char *const *entries;  /* extra entry names or fnmatch patterns */
	size_t entry_count;
	const char *const *sinks;    /* extra sink names/patterns; with '/' or .c/.h: files */
	size_t sink_count;
	const char *const *excludes; /* functions (names/patterns, or files) no path may use */
	size_t exclude_count;
	size_t checked_entries, checked_sinks, checked_excludes;
				     /* how many of the first entries, sinks and excludes
				        the user typed: one that names no parsed function
				        is refused (with a did-you-mean), never answered
				        with an empty graph */
	const char *const *files;    /* extra files (relative to the tree) */
	size_t file_count;
	int depth;                   /* max calls on an entry-to-sink path; <= 0: no bound */
	bool all;                    /* keep the whole graph, roles still marked */
	bool shortest;               /* one shortest path from each entry to each sink */
	bool no_default_entries;     /* only the --entry ones */
	bool no_default_sinks;       /* only the --sink ones */
	int jobs;                    /* parser threads; <= 0: online cores */
	bool use_cache;
	const char *config;          /* kernel .config (plain or compressed); NULL: find one */
	const char *libclang;        /* version (14..19) or library file; NULL: PTSCOPE_LIBCLANG,
	                                else the newest installed (analyzer/libclang.c) */
	const char *cache_dir;       /* NULL: $XDG_CACHE_HOME/ptscope or ~/.cache/ptscope */
	bool progress;               /* "parsing N/M" on stderr */
	const char *commands_out;    /* also write the plan as compile_commands.json */
};

/*
 * Run the analyzer.  Returns 0 and sets *graph, or -1 with error set: its
 * status says bad input (1) or internal failure (2) (base/error.h).
 */
int analyzer_run(const struct analyzer_options *options, struct callgraph **graph,
		 struct error *error);
void callgraph_free(struct callgraph *graph);

/* The sizes clang gives the named structs (e.g. "anon_vma") in the tree's
 * mm/rmap.c, configured as for the call graph; -1 for a struct not defined
 * there.  arch gets the tree's architecture.  0, or -1 with error set. */
int analyzer_struct_sizes(const struct analyzer_options *options, const char *const *names,
			  size_t count, long long *bytes, char *arch, size_t arch_size,
			  struct error *error);

/* The built-in entry names (NULL-terminated), for --help and tests. */
extern const char *const analyzer_default_entries[];

/* A --path preset: one job's entries, the rmap functions that job calls, and
 * the side paths (functions or files) left out; lists NULL-terminated. */
struct analyzer_path {
	const char *name;            /* fork, fault, exit, munmap, reclaim */
	const char *job;             /* what the picture shows */
	const char *const *entries, *const *sinks, *const *excludes;
	const char *pruned;          /* what the excludes leave out, in words */
};
extern const struct analyzer_path analyzer_paths[];   /* ends with name NULL */
const struct analyzer_path *analyzer_path_named(const char *name);

#endif
