/*
 * analyzer/internal.h - shared by the analyzer's own files only (never
 * included from another folder; analyzer.h is the door).
 *
 * The pipeline: sources.c decides which files to parse and with which
 * flags (kconfig.c supplies the configuration header), parse.c turns one
 * translation unit into "facts" (functions, calls, field stores), cache.c
 * keeps those facts on disk (pch.c: the headers files share, parsed once
 * into a precompiled header), and callgraph.c merges every unit's facts into the
 * call graph and marks the rmap paths.  run.c drives it, each parse in a
 * bounded child process (bounded.c: what libclang may read, memory, time).
 */
#ifndef PTSCOPE_ANALYZER_INTERNAL_H
#define PTSCOPE_ANALYZER_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "base/alloc.h"
#include "base/array.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/output.h"

#define CG_NONE UINT32_MAX

/* --- small utilities (util.c) --------------------------------------- */

/* Read a whole file (base/file.h), NUL-terminated; false when it cannot be read. */
bool cg_read_file(const char *path, char **text, size_t *size);
/* The tree's name, relative to its root, of a file: root/X is "X", a
 * header read from the shim's compat copy (sources.c compat_headers) is its
 * tree original "include/asm-ARCH/NAME.h"; anything else as it is. */
char *cg_tree_name(const char *file, const char *root, const char *arch);
/* The same for a file of ours no one else may write, never through a link. */
bool cg_read_private_file(const char *path, char **text, size_t *size);
bool cg_is_dir(const char *path);
bool cg_is_file(const char *path);
/* mkdir -p */
bool cg_make_dirs(const char *path);
/* Free an array of count structs of element_bytes, each owning the pointer
 * at member_offset (offsetof): the members, then the array. */
void cg_free_owning(void *items, size_t count, size_t element_bytes, size_t member_offset);

/* Write size bytes to path atomically (base/output.h). */
bool cg_write_file_atomic(const char *path, const char *data, size_t size);

/* Interned strings: each distinct string gets one small index. */
struct cg_strings {
	char **text;
	size_t count, capacity;
	struct hash_table table;  /* text index by content (base/hash.h) */
};
uint32_t cg_intern(struct cg_strings *strings, const char *text);
/* CG_NONE when absent */
uint32_t cg_lookup(const struct cg_strings *strings, const char *text);
void cg_strings_free(struct cg_strings *strings);

/* Named values (make variables, CONFIG_ symbols): each name interned once,
 * with one owned string or NULL. */
struct cg_values {
	struct cg_strings names;
	char **values;              /* parallel to names.text */
	size_t capacity;
};
/* Set name to value (owned from now on; NULL: unset), freeing the old one. */
void cg_values_set(struct cg_values *values, const char *name, char *value);
const char *cg_values_get(const struct cg_values *values, const char *name);
void cg_values_free(struct cg_values *values);

/* A growable list of strings (owned). */
struct cg_list {
	char **items;
	size_t count, capacity;
};
void cg_list_add(struct cg_list *list, const char *text);
void cg_list_add_owned(struct cg_list *list, char *text);
bool cg_list_has(const struct cg_list *list, const char *text);
void cg_list_free(struct cg_list *list);

/* --- facts of one translation unit ------------------------------------ */

struct tu_function {
	uint32_t usr, name, file;   /* string indexes */
	uint32_t line;
	bool defined;
};

struct tu_call {
	uint32_t caller;            /* function index */
	uint32_t callee;            /* function index, or CG_NONE for an indirect call */
	uint32_t field;             /* string: field USR called through, or CG_NONE */
	uint32_t line;
};

struct tu_store {               /* a function stored in a function-pointer field */
	uint32_t field;             /* string: field USR */
	uint32_t function;          /* function index */
};

/* A file the unit read (libclang's inclusion list: the .c file, every
 * header, the -include files), as it was when the unit was parsed. */
struct tu_input {
	char *path;                 /* absolute */
	int64_t size;               /* -1: could not be read (the unit is not cached) */
	int64_t mtime_sec, mtime_nsec;
};

struct tu_facts {
	struct cg_strings strings;
	struct tu_input *inputs;
	size_t input_count, input_capacity;
	struct tu_function *functions;
	size_t function_count, function_capacity;
	struct tu_call *calls;
	size_t call_count, call_capacity;
	struct tu_store *stores;
	size_t store_count, store_capacity;
	size_t errors, warnings;
	size_t unresolved_pointer_calls;   /* through variables, not fields */
	char *first_error;
	struct cg_list error_sites;        /* "FILE:LINE: message" of each distinct error,
					      at most TU_ERROR_SITES (FILE as clang opened it) */
	bool failed;                       /* libclang produced no AST */
	char *outside;                     /* "FILE:LINE: includes PATH" outside the read roots, or NULL */
};
#define TU_ERROR_SITES 64

void tu_facts_free(struct tu_facts *facts);
/* Record path (stat now) as one of the unit's inputs. */
void tu_add_input(struct tu_facts *facts, const char *path);
/* Each input file's state, stat'ed once a run however many units include
 * it: a warm call graph of Debian 6.1's mm checks 96 units of ~600 headers
 * each, mostly the same ones (57,850 stat calls, most of a warm run). */
struct input_states {
	struct tu_input *items;     /* paths owned */
	size_t count, capacity;
	struct hash_table index;
};
void input_states_free(struct input_states *states);
/* Does every input still have the size and mtime it had?  states may be
 * NULL (stat each input now). */
bool tu_inputs_current(const struct tu_facts *facts, struct input_states *states);
uint32_t tu_add_function(struct tu_facts *facts, const char *usr, const char *name,
			 const char *file, unsigned line, bool defined);

/* --- what to parse (sources.c, kconfig.c) ----------------------------- */

/* Where libclang may read, and a database's flags may point: the tree, ptscope's
 * cache and the system headers (util.c's read_roots_system). */
struct read_roots {
	char *tree;                 /* resolved; NULL: no tree (a database in "/") */
	char *cache;                /* resolved, or NULL */
	const char *writable;       /* a folder a worker may also create files in (the
				       cache's pch/ for pch.c's builds: confine.c), or NULL */
};
/* Is resolved (a real path) inside one of them? */
bool read_roots_allow(const struct read_roots *roots, const char *resolved);
/* The system header folders (a name ending in '-' is a prefix: "/usr/lib/llvm-"). */
extern const char *const read_roots_system[];
extern const size_t read_roots_system_count;

/* --- confining libclang's reads (confine.c: Landlock) ------------------- */

/* The kernel's Landlock ABI version, 0 when it has none or it is off. */
int confine_abi(void);
/* The calling thread, and the threads it starts, may from now on read only
 * beneath roots, the system header folders and the files the clang driver
 * reads each parse, and write nothing: 0, or -1 with errno. */
int confine_reads(const struct read_roots *roots);
/* confine_reads in two steps: the rules made (a ruleset fd, or -1 with
 * errno), then the calling thread restricted by them (the fd closed): 0, or
 * -1 with errno. */
int confine_prepare(const struct read_roots *roots);
int confine_enter(int ruleset);
/* The walk of roots->tree the rules are made from (once a process, for the
 * workers it forks after): NULL, or why the tree cannot be confined. */
const char *confine_walk(const struct read_roots *roots);
/* "a FIFO", "a character device", ...: what a file of mode is, for a refusal. */
const char *confine_file_kind(unsigned mode);

struct pch;

struct tu_job {
	char *path;                 /* absolute */
	char *directory;            /* working directory for relative flags */
	struct cg_list arguments;   /* clang arguments, without the file */
	uint64_t key;               /* cache key: path, flags, configuration, libclang
				       (the inputs' sizes and mtimes are checked on load) */
	const struct read_roots *roots;  /* every file the unit reads must be inside (NULL: no check) */
	struct tu_facts facts;
	char *refused;              /* why libclang's reading was stopped, or NULL */
	bool cached;
	const struct pch *pch;      /* the shared precompiled header to parse with, or NULL (pch.c) */
	bool used_pch;              /* it was parsed with it */
};

struct source_plan {
	char *root;                 /* tree root or the database's folder */
	char *arch;
	char *release;              /* "2.4.20" from the tree's Makefile; "" when unknown */
	char *config;               /* description for the summary */
	char *compat;               /* headers read as their era's gcc read them
				       (sources.c), for the summary; NULL: none */
	struct tu_job *jobs;
	size_t job_count, job_capacity;
	size_t flags_dropped;       /* database words not on the allowlist (sources.c) */
	struct cg_list dropped_names;   /* the first distinct ones */
	bool dropped_names_more;        /* ... and others */
	size_t symbols_supplied;
	uint64_t config_digest;     /* hash of the configuration header (0: none) */
	size_t pch_count;           /* shared precompiled headers the parse used (pch.c) */
	struct read_roots roots;
};

/* Sizes in bytes of the named structs as clang lays them out for job's file
 * (-1: not defined there).  0, or -1 with error set. */
int parse_struct_sizes(const struct tu_job *job, const char *const *names, size_t count,
		       long long *bytes, struct error *error);

/* The cache folder of a run, or a scratch folder when none can be made
 * (then options->use_cache is cleared); NULL with error set (internal) on failure. */
#define SCRATCH_TEMPLATE "/tmp/ptscope-callgraph.XXXXXX"
char *analyzer_cache_open(struct analyzer_options *options, char *scratch, char **refused,
			  struct error *error);
void analyzer_cache_close(char *cache_dir, const char *scratch);

/* Fill plan from a tree or compile_commands.json.  0, or -1 with error set. */
int sources_plan(const struct analyzer_options *options, const char *cache_dir,
		 struct source_plan *plan, struct error *error);
void sources_free(struct source_plan *plan);

/* kbuild: a Makefile evaluated for a configuration (presets: "NAME=value"). */
struct kconfig;
struct kbuild;
struct kbuild *kbuild_load(const char *makefile, const struct kconfig *config,
			   const char *const *presets);
/* The expanded value of a variable, or NULL (caller frees). */
char *kbuild_get(const struct kbuild *kbuild, const char *name);
void kbuild_free(struct kbuild *kbuild);
/* Objects (stems) that obj-y and obj-m name. */
void kbuild_objects(const char *makefile, const struct kconfig *config, struct cg_list *objects);

/* The configuration: CONFIG_ symbols and their values ("y", "m", "64", "\"x\""). */
struct kconfig {
	struct cg_values symbols;
};
/* Read a .config (plain or compressed).  0, or -1 with error set (bad input). */
int kconfig_read(const char *path, struct kconfig *config, struct error *error);
void kconfig_set(struct kconfig *config, const char *name, const char *value);
/* NULL when unset or n ("# CONFIG_X is not set"). */
const char *kconfig_get(const struct kconfig *config, const char *name);
/* As written, "n" included: NULL only when the configuration does not say. */
const char *kconfig_value(const struct kconfig *config, const char *name);
/* Complete config as `make olddefconfig` would from the tree's Kconfig files
 * (top: "Kconfig", or "arch/i386/Kconfig" before 2.6.24), read as data
 * (kconfig_files.c, kconfig_defaults.c); env: NULL-ended "ARCH=x86_64"...
 * *said: what was done, for the summary (caller frees).  0 (also when the
 * tree has no Kconfig: *said NULL), or -1 with error set (bad input). */
int kconfig_fill_defaults(const char *root, const char *top, const char *const *env,
			  struct kconfig *config, char **said, struct error *error);
/* The text of an autoconf.h for this configuration. */
void kconfig_header(const struct kconfig *config, struct buffer *out);
void kconfig_free(struct kconfig *config);

/* gcc-only flags that clang rejects: true when argument should be dropped. */
bool sources_gcc_only_flag(const char *argument);

/* --- libclang in a bounded child process (bounded.c) ------------------ */

#define BOUNDED_MEMORY_BYTES ((size_t)4 << 30)   /* address space a child may add */
#define BOUNDED_CPU_SECONDS 120                  /* a kernel unit takes 0.2-5 s */
#define BOUNDED_WALL_SECONDS 600                 /* then the child is asked why, and killed */

/* Work done in the child: its answer into out, or *refused (malloc'd) to
 * stop with that reason. */
typedef void bounded_work(void *data, struct buffer *out, char **refused);
struct bounded_task {
	bounded_work *work;
	void *data;
	struct buffer output;       /* the answer, when the child ended well */
	char *refused;              /* else why it was stopped (caller frees) */
};
/* Run each task's work in a child of its own, at most parallel at a time;
 * progress(progress_data) after each.  The work may read only beneath roots
 * (and the system headers) and write nothing, where the kernel has Landlock
 * (roots NULL: not confined). */
void bounded_run(struct bounded_task *tasks, size_t count, size_t parallel, const struct read_roots *roots,
		 void (*progress)(void *data), void *progress_data);
/* One task, waited for: true with *out, or false with *refused. */
bool bounded_run_one(bounded_work *work, void *data, const struct read_roots *roots, struct buffer *out,
		     char **refused);

/* --- parsing (parse.c) and the cache (cache.c) -------------------------- */

/* Parse one unit with an index (a CXIndex) in this process. */
void parse_unit(void *index, struct tu_job *job);
/* parse_unit as a child's work (bounded_work): the facts as cache_serialise
 * writes them, or a refusal naming a file read outside job->roots. */
void parse_unit_work(void *data, struct buffer *out, char **refused);
void *parse_index_create(void);
/* Set libclang up in this process before children are forked to parse. */
void parse_warm_up(const struct tu_job *job);
/* #define lines for the DEFINE(NAME, value) constants of a kbuild
 * "bounds"/"asm-offsets" style file, evaluated by clang in a bounded child:
 * how many, or -1 with error set (the file made libclang read what it may not). */
long parse_constants(const char *path, const struct cg_list *arguments, const struct read_roots *roots,
		     struct buffer *out, struct error *error);
void parse_index_dispose(void *index);
/* Build pch (data) in the child: "ok\n" (saved to pch->file) or "no WHY\n",
 * then the build's facts as cache_serialise writes them (bounded_work). */
void parse_pch_work(void *data, struct buffer *out, char **refused);
/* libclang's version text (caller frees): part of every cache key. */
char *parse_libclang_version(void);

/* Is the cache folder path private (cache.c says what that takes)?  false
 * with *why ("PATH: owned by another user", caller frees) when not. */
bool cache_folder_private(const char *path, char **why);
/* mkdir path 0700 inside a private cache folder; true when it is there and
 * private (ours, not a link, writable by no one else). */
bool cache_make_folder(const char *path);
/* salt: the analyzer's facts version, libclang's version, the configuration. */
uint64_t cache_key(const struct tu_job *job, uint64_t salt);
bool cache_load(const char *cache_dir, uint64_t key, struct tu_facts *facts, struct input_states *states);
bool cache_store(const char *cache_dir, uint64_t key, const struct tu_facts *facts);
/* A file of the cache's (a precompiled header) that may be trusted: a
 * regular file of ours no one else may write, not a link, in a private folder. */
bool cache_entry_private(const char *folder, const char *path);
/* Serialise / read facts (exposed for the unit tests). */
void cache_serialise(const struct tu_facts *facts, struct buffer *out);
bool cache_parse(char *text, size_t size, struct tu_facts *facts);

/* --- the headers a tree's files share, parsed once (pch.c) ------------- */

/* One precompiled header: the #define and #include lines that its files
 * start with, parsed once with the flags they share. */
struct pch {
	uint64_t key;
	char *text;                 /* the generated header's text */
	char *header, *file, *facts_path;   /* CACHE/pch/KEY.h, KEY.pch, KEY.facts */
	const char *directory;
	struct cg_list arguments;   /* the files' flags without their own -D (file_defines) */
	struct cg_list dropped;     /* the macro names those -D define */
	const struct read_roots *roots;
	struct tu_facts facts;      /* what the build read, and its diagnostics */
	size_t users;
	size_t base;                /* the smaller header (index) its files fall back on, or SIZE_MAX */
	bool ready;                 /* built or found current: files may use it */
	char *refused;              /* why it is not used, or NULL */
	int probes;                 /* its build read __has_include: 1, 0, or -1 not looked at yet */
};
struct pch_set {
	struct pch *items;
	size_t count, capacity;
};
/* Choose, build (bounded children, parallel at a time) or find in
 * CACHE/pch the precompiled headers for the jobs listed, and point each job
 * that fits one at it.  Nothing when PTSCOPE_NO_PCH is set. */
void pch_prepare(struct pch_set *set, struct tu_job *jobs, const size_t *which, size_t count,
		 const char *cache_dir, bool reuse, uint64_t salt, size_t parallel);
void pch_set_free(struct pch_set *set);

/* --- the graph (callgraph.c) ------------------------------------------------- */

struct graph_request {
	const char *root;           /* file names are made relative to it */
	const char *arch;           /* for headers read from the shim's compat copies */
	const struct cg_list *entries;   /* names or patterns */
	const struct cg_list *sinks;     /* names, patterns or file patterns */
	const struct cg_list *excludes;  /* functions left out of every path; may be NULL */
	int depth;
	bool all;
	bool shortest;              /* one shortest path from each entry to each sink */
	const struct cg_list *checked;         /* typed names and patterns that must name something */
	const struct cg_list *checked_options; /* the option each came with: "--entry" */
};
struct callgraph *graph_build(struct tu_job *jobs, size_t job_count,
			      const struct graph_request *request);

/* A copy of text owned by the graph (for the summary's strings). */
const char *graph_keep_text(struct callgraph *graph, const char *text);

/* "struct.field" from a field USR such as c:@S@rmap_walk_control@FI@rmap_one */
char *field_display_name(const char *usr);

extern const char *const analyzer_default_sinks[];

#endif
