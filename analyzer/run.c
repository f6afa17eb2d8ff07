/*
 * analyzer/run.c - analyzer_run: plan, parse in parallel (each unit in a
 * bounded child process of its own, bounded.c), cache, merge, mark the
 * rmap paths.
 */
#include <errno.h>
#include <ftw.h>
#include <json.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/internal.h"
#include "analyzer/libclang.h"

/* Bumped when what parse.c extracts changes: old cache entries stop matching. */
#define FACTS_VERSION 8

struct progress {
	size_t done, total;
	bool shown;
};

static void report_progress(void *data)
{
	struct progress *progress = data;
	progress->done++;
	if (!progress->shown)
		return;
	fprintf(stderr, "\rptscope: parsing %zu/%zu files", progress->done, progress->total);
	if (progress->done == progress->total)
		fprintf(stderr, "\r%40s\r", "");
	fflush(stderr);
}

/* A parse child's answer: 'P' (with the shared precompiled header) or
 * '-', then the unit's facts; cached when they are whole. */
static void take_parse(struct tu_job *job, struct bounded_task *task, const char *cache)
{
	const char *text = task->output.data;
	if (!task->refused && (!text || task->output.length < 1 || (text[0] != 'P' && text[0] != '-')))
		task->refused = xstrdup("libclang's process answered something unreadable");
	if (!task->refused) {
		job->used_pch = text[0] == 'P';
		if (!cache_parse(task->output.data + 1, task->output.length - 1, &job->facts)) {
			tu_facts_free(&job->facts);
			task->refused = xstrdup("libclang's process answered something unreadable");
		}
	}
	job->refused = task->refused;
	if (job->refused)
		job->facts.failed = true;
	else if (cache && !job->facts.failed)
		cache_store(cache, job->key, &job->facts);
	buffer_free(&task->output);
}

/* Every unit's facts: from the cache where its inputs are unchanged, else
 * parsed by libclang in bounded children (bounded.c), options->jobs at a
 * time.  A unit whose child was stopped keeps why in job->refused. */
static int parse_all(struct source_plan *plan, const struct analyzer_options *options,
		     const char *cache_dir)
{
	const char *cache = options->use_cache ? cache_dir : NULL;
	/* what every unit's facts depend on beyond its own path and flags */
	char *version = parse_libclang_version();
	uint64_t salt = hash_bytes_more(FACTS_VERSION, version, strlen(version) + 1);
	salt = hash_bytes_more(salt, &plan->config_digest, sizeof(plan->config_digest));
	free(version);
	struct progress progress = { .total = plan->job_count, .shown = options->progress };
	struct bounded_task *tasks = xcalloc(plan->job_count ? plan->job_count : 1, sizeof(*tasks));
	size_t *task_job = xcalloc(plan->job_count ? plan->job_count : 1, sizeof(*task_job));
	size_t task_count = 0;
	struct input_states states = { 0 };
	for (size_t i = 0; i < plan->job_count; i++) {
		struct tu_job *job = &plan->jobs[i];
		job->key = cache_key(job, salt);
		job->roots = &plan->roots;
		if (cache && cache_load(cache, job->key, &job->facts, &states)) {
			job->cached = true;
			report_progress(&progress);
			continue;
		}
		tasks[task_count] = (struct bounded_task){ .work = parse_unit_work, .data = job };
		task_job[task_count++] = i;
	}
	input_states_free(&states);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t parallel = options->jobs > 0 ? (size_t)options->jobs : online > 0 ? (size_t)online : 1;
	if (task_count)
		parse_warm_up(&plan->jobs[task_job[0]]);
	/* the headers the files share, parsed once (pch.c) */
	struct pch_set pchs = { 0 };
	pch_prepare(&pchs, plan->jobs, task_job, task_count, cache_dir, cache != NULL, salt, parallel);
	bounded_run(tasks, task_count, parallel, &plan->roots, report_progress, &progress);
	for (size_t t = 0; t < task_count; t++)
		take_parse(&plan->jobs[task_job[t]], &tasks[t], cache);
	for (size_t i = 0; i < pchs.count; i++)
		plan->pch_count += pchs.items[i].users > 0;
	for (size_t i = 0; i < plan->job_count; i++)
		plan->jobs[i].pch = NULL;
	pch_set_free(&pchs);
	free(tasks);
	free(task_job);
	return 0;
}

/* $XDG_CACHE_HOME/ptscope, ~/.cache/ptscope; with neither variable set
 * (cron, systemd) the user's home from the password database, never a
 * shared folder such as /tmp.  NULL when there is none. */
static char *default_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/ptscope", xdg);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *entry = getpwuid(geteuid());
		home = entry && entry->pw_dir && entry->pw_dir[0] == '/' ? entry->pw_dir : NULL;
	}
	return home ? xasprintf("%s/.cache/ptscope", home) : NULL;
}

/* Make the cache folder (private when new) and check that it is private;
 * NULL, or why it cannot serve (caller frees). */
static char *prepare_cache(const char *cache_dir)
{
	char *why = NULL;
	char *parent = xstrdup(cache_dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	bool made = (!slash || slash == parent || cg_make_dirs(parent)) &&
		    (mkdir(cache_dir, 0700) == 0 || errno == EEXIST);
	free(parent);
	if (!made)
		return xasprintf("%s: cannot create the cache folder", cache_dir);
	return cache_folder_private(cache_dir, &why) ? NULL : why;
}

/* The plan as a compile_commands.json, so other tools (clang -fsyntax-only,
 * the benchmark) can run over exactly the same files and flags. */
static int write_commands(const struct source_plan *plan, const char *path, struct error *error)
{
	json_object *array = json_object_new_array();
	for (size_t i = 0; i < plan->job_count; i++) {
		const struct tu_job *job = &plan->jobs[i];
		json_object *entry = json_object_new_object(), *arguments = json_object_new_array();
		json_object_array_add(arguments, json_object_new_string("clang"));
		for (size_t j = 0; j < job->arguments.count; j++)
			json_object_array_add(arguments, json_object_new_string(job->arguments.items[j]));
		json_object_array_add(arguments, json_object_new_string(job->path));
		json_object_object_add(entry, "directory", json_object_new_string(job->directory));
		json_object_object_add(entry, "file", json_object_new_string(job->path));
		json_object_object_add(entry, "arguments", arguments);
		json_object_array_add(array, entry);
	}
	const char *text = json_object_to_json_string_ext(array, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	bool ok = cg_write_file_atomic(path, text, strlen(text));
	json_object_put(array);
	return ok ? 0 : error_internal(error, path, 0, "cannot write");
}

/* A unit whose parse had errors, with the functions its own file defines:
 * their calls may be missing from the graph. */
static void add_error_file(struct callgraph *graph, const struct source_plan *plan, const struct tu_job *job)
{
	const struct tu_facts *facts = &job->facts;
	size_t root = strlen(plan->root);
	const char *file = !strncmp(job->path, plan->root, root) && job->path[root] == '/'
			   ? job->path + root + 1 : job->path;
	struct cg_error_file entry = { .file = graph_keep_text(graph, file), .errors = facts->errors };
	size_t capacity = 0;
	for (size_t i = 0; i < facts->function_count; i++) {
		const struct tu_function *f = &facts->functions[i];
		if (!f->defined || strcmp(facts->strings.text[f->file], job->path))
			continue;
		array_reserve(&entry.functions, &capacity, entry.function_count + 1, sizeof(char *));
		entry.functions[entry.function_count++] = graph_keep_text(graph, facts->strings.text[f->name]);
	}
	size_t files_capacity = graph->error_file_count;
	array_reserve(&graph->error_files, &files_capacity, graph->error_file_count + 1, sizeof(entry));
	graph->error_files[graph->error_file_count++] = entry;
}

/* Constructs of old trees that clang refuses, and why; matched against
 * clang's message.  The rest are listed without a reason. */
static const struct { const char *message, *why; } error_causes[] = {
	{ "array has incomplete element type",
	  "an array of a struct not defined at that point: an error in C (clang, gcc 4 on); where "
	  "the header defines the struct further down, gcc up to 3.x accepted it and ptscope reads "
	  "the declaration after the definition (summary: compat); only that declaration is lost" },
	{ "use of undeclared identifier 'CONFIG_",
	  "a value the configuration should set and does not: a given .config without it, or, "
	  "from a defconfig and the Kconfig files, one computed by a probe ptscope never runs "
	  "or set outside Kconfig (summary: config says what was read; give a .config, e.g. "
	  "from make olddefconfig, with --config)" },
	{ "unknown processor family",
	  "the configuration chooses no processor: the tree has no .config (give one with --config)" },
	{ "expected string literal in 'asm'",
	  "an asm text built from a macro no header defined (a configuration or include-order gap)" },
	{ "file not found",
	  "a header the build generates (make prepare) or the tree does not carry" },
};

static const char *error_cause(const char *message)
{
	for (size_t i = 0; i < sizeof(error_causes) / sizeof(error_causes[0]); i++)
		if (strstr(message, error_causes[i].message))
			return error_causes[i].why;
	return NULL;
}

static int compare_sites(const void *a, const void *b)
{
	const struct cg_error_site *x = a, *y = b;
	if (x->units != y->units)
		return x->units > y->units ? -1 : 1;
	int by_file = strcmp(x->file, y->file);
	return by_file ? by_file : (x->line > y->line) - (x->line < y->line);
}

/* "/cache/shim/X/arch/asm/page.h:12: error: msg" -> the site, the file made
 * real (the shim's links lead into the tree) and relative to the root. */
static bool split_site(struct callgraph *graph, const char *root, const char *arch, const char *text,
		       struct cg_error_site *site)
{
	const char *error = strstr(text, ": error: "), *fatal = strstr(text, ": fatal error: ");
	const char *at = fatal && (!error || fatal < error) ? fatal : error;
	if (!at)
		return false;
	const char *colon = at;
	while (colon > text && colon[-1] != ':')
		colon--;
	if (colon == text)
		return false;
	char *path = xstrndup(text, (size_t)(colon - 1 - text));
	char *real = realpath(path, NULL);
	char *file = cg_tree_name(real ? real : path, root, arch);
	site->file = graph_keep_text(graph, file);
	free(file);
	site->line = (unsigned)strtoul(colon, NULL, 10);
	site->message = graph_keep_text(graph, strstr(at + 2, ": ") + 2);
	site->why = error_cause(site->message);
	site->units = 1;
	free(real);
	free(path);
	return true;
}

static void add_error_sites(struct callgraph *graph, const struct source_plan *plan)
{
	size_t capacity = 0;
	for (size_t j = 0; j < plan->job_count; j++) {
		const struct cg_list *sites = &plan->jobs[j].facts.error_sites;
		for (size_t i = 0; i < sites->count; i++) {
			struct cg_error_site site;
			if (!split_site(graph, plan->root, plan->arch, sites->items[i], &site))
				continue;
			size_t k = 0;
			while (k < graph->error_site_count &&
			       (graph->error_sites[k].line != site.line || strcmp(graph->error_sites[k].file, site.file) ||
				strcmp(graph->error_sites[k].message, site.message)))
				k++;
			if (k < graph->error_site_count) {
				graph->error_sites[k].units++;
				continue;
			}
			array_reserve(&graph->error_sites, &capacity, graph->error_site_count + 1, sizeof(site));
			graph->error_sites[graph->error_site_count++] = site;
		}
	}
	if (graph->error_site_count)
		array_sort(graph->error_sites, graph->error_site_count, sizeof(*graph->error_sites), compare_sites);
}

static void summarise(struct callgraph *graph, const struct source_plan *plan,
		      const struct analyzer_options *options)
{
	struct cg_summary *summary = &graph->summary;
	summary->source = graph_keep_text(graph, options->source);
	summary->root = graph_keep_text(graph, plan->root);
	summary->config = graph_keep_text(graph, plan->config);
	if (plan->compat)
		summary->compat = graph_keep_text(graph, plan->compat);
	char *version = parse_libclang_version();
	char *libclang_text = xasprintf("%s (%s)", libclang_loaded(), version);
	summary->libclang = graph_keep_text(graph, libclang_text);
	free(libclang_text);
	free(version);
	summary->arch = graph_keep_text(graph, plan->arch);
	summary->release = graph_keep_text(graph, plan->release ? plan->release : "");
	summary->files = plan->job_count;
	summary->flags_dropped = plan->flags_dropped;
	if (plan->dropped_names.count) {
		struct buffer names = { 0 };
		for (size_t i = 0; i < plan->dropped_names.count; i++)
			buffer_printf(&names, "%s%s", i ? " " : "", plan->dropped_names.items[i]);
		if (plan->dropped_names_more)
			buffer_printf(&names, " ...");
		summary->flags_dropped_names = graph_keep_text(graph, names.data);
		buffer_free(&names);
	}
	summary->config_symbols_supplied = plan->symbols_supplied;
	summary->pch_count = plan->pch_count;
	for (size_t i = 0; i < plan->job_count; i++) {
		const struct tu_job *job = &plan->jobs[i];
		summary->files_cached += job->cached;
		summary->files_parsed += !job->cached;
		summary->files_pch += job->used_pch;
		summary->files_failed += job->facts.failed;
		summary->errors += job->facts.errors;
		summary->warnings += job->facts.warnings;
		if (!summary->first_error && job->facts.first_error)
			summary->first_error = graph_keep_text(graph, job->facts.first_error);
		if (job->facts.errors)
			add_error_file(graph, plan, job);
	}
	add_error_sites(graph, plan);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The cache folder for a run.  The configuration shim needs a folder even
 * with --no-cache: without a private cache folder (cache.c), a scratch
 * folder (scratch, of SCRATCH_TEMPLATE's size, made private by mkdtemp)
 * serves this run and nothing is cached; *refused then says which folder
 * and why ("PATH: owned by another user"; the caller says so), else NULL.
 */
char *analyzer_cache_open(struct analyzer_options *options, char *scratch, char **refused,
			  struct error *error)
{
	*refused = NULL;
	char *cache_dir = options->cache_dir ? xstrdup(options->cache_dir) : default_cache_dir();
	strcpy(scratch, SCRATCH_TEMPLATE);
	char *why = cache_dir ? prepare_cache(cache_dir)
			      : xstrdup("no home folder (HOME, XDG_CACHE_HOME and the password database say none)");
	if (!why)
		return cache_dir;
	if (!mkdtemp(scratch)) {
		error_internal(error, cache_dir ? cache_dir : scratch, 0, "cannot create the cache folder, nor %s",
			       scratch);
		free(cache_dir);
		free(why);
		return NULL;
	}
	if (options->use_cache)
		*refused = why;
	else
		free(why);
	free(cache_dir);
	options->use_cache = false;
	return xstrdup(scratch);
}

void analyzer_cache_close(char *cache_dir, const char *scratch)
{
	if (strcmp(cache_dir, scratch) == 0)
		remove_tree(scratch);
	free(cache_dir);
}

/* What analyzer_run and analyzer_struct_sizes both work in: the caller's
 * options (use_cache may be cleared), the cache folder and the plan. */
struct run {
	struct analyzer_options options;
	char scratch[sizeof(SCRATCH_TEMPLATE)];
	char *cache_dir;
	char *cache_refused;        /* the cache folder that could not be made, or NULL */
	struct source_plan plan;
};

/* libclang, the cache folder and the plan: 0, or -1 with error set and
 * nothing left to free. */
static int begin_run(struct run *run, const struct analyzer_options *options, struct error *error)
{
	run->options = *options;
	libclang_prefer(options->libclang);
	if (libclang_load(error))
		return -1;
	run->cache_dir = analyzer_cache_open(&run->options, run->scratch, &run->cache_refused, error);
	if (!run->cache_dir)
		return -1;
	if (sources_plan(&run->options, run->cache_dir, &run->plan, error)) {
		sources_free(&run->plan);
		analyzer_cache_close(run->cache_dir, run->scratch);
		free(run->cache_refused);
		return -1;
	}
	return 0;
}

static void end_run(struct run *run)
{
	sources_free(&run->plan);
	analyzer_cache_close(run->cache_dir, run->scratch);
	free(run->cache_refused);
}

/* A unit libclang was stopped on (it read what it may not, or went past a
 * bound) is bad input: the first one, and how many more. */
static int refusals(const struct source_plan *plan, struct error *error)
{
	const struct tu_job *first = NULL;
	size_t count = 0;
	for (size_t i = 0; i < plan->job_count; i++)
		if (plan->jobs[i].refused) {
			first = first ? first : &plan->jobs[i];
			count++;
		}
	if (!first)
		return 0;
	/* "FILE:LINE: includes ..." already says where */
	size_t length = strlen(first->path);
	const char *file = strncmp(first->refused, first->path, length) || first->refused[length] != ':'
			   ? first->path : NULL;
	if (count == 1)
		return error_set(error, file, 0, "%s", first->refused);
	return error_set(error, file, 0, "%s (and %zu more files stopped alike)", first->refused, count - 1);
}

int analyzer_run(const struct analyzer_options *caller, struct callgraph **graph, struct error *error)
{
	*graph = NULL;
	struct run run;
	if (begin_run(&run, caller, error))
		return -1;
	const struct analyzer_options *options = &run.options;
	struct source_plan *plan = &run.plan;
	int status = 0;
	if (options->commands_out)
		status = write_commands(plan, options->commands_out, error);
	if (!status)
		status = parse_all(plan, options, run.cache_dir);
	if (!status)
		status = refusals(plan, error);
	if (!status) {
		struct cg_list entries = { 0 }, sinks = { 0 }, excludes = { 0 };
		for (size_t i = 0; i < options->exclude_count; i++)
			cg_list_add(&excludes, options->excludes[i]);
		for (size_t i = 0; !options->no_default_entries && analyzer_default_entries[i]; i++)
			cg_list_add(&entries, analyzer_default_entries[i]);
		for (size_t i = 0; i < options->entry_count; i++)
			cg_list_add(&entries, options->entries[i]);
		for (size_t i = 0; !options->no_default_sinks && analyzer_default_sinks[i]; i++)
			cg_list_add(&sinks, analyzer_default_sinks[i]);
		for (size_t i = 0; i < options->sink_count; i++)
			cg_list_add(&sinks, options->sinks[i]);
		struct cg_list checked = { 0 }, checked_options = { 0 };
		const struct { const char *option; const char *const *names; size_t count; } typed[] = {
			{ "--entry", options->entries, options->checked_entries },
			{ "--sink", options->sinks, options->checked_sinks },
			{ "--exclude", options->excludes, options->checked_excludes },
		};
		for (size_t t = 0; t < sizeof(typed) / sizeof(typed[0]); t++)
			for (size_t i = 0; i < typed[t].count; i++) {
				cg_list_add(&checked, typed[t].names[i]);
				cg_list_add(&checked_options, typed[t].option);
			}
		struct graph_request request = {
			.root = plan->root, .arch = plan->arch, .entries = &entries, .sinks = &sinks, .excludes = &excludes,
			.depth = options->depth, .all = options->all, .shortest = options->shortest,
			.checked = &checked, .checked_options = &checked_options,
		};
		*graph = graph_build(plan->jobs, plan->job_count, &request);
		cg_list_free(&checked);
		cg_list_free(&checked_options);
		if ((*graph)->refused) {
			status = error_set(error, NULL, 0, "callgraph: %s", (*graph)->refused);
			callgraph_free(*graph);
			*graph = NULL;
		}
		if (*graph)
			summarise(*graph, plan, options);
		if (*graph && run.cache_refused)
			(*graph)->summary.cache_refused = graph_keep_text(*graph, run.cache_refused);
		cg_list_free(&entries);
		cg_list_free(&sinks);
		cg_list_free(&excludes);
	}
	end_run(&run);
	return status;
}

int analyzer_struct_sizes(const struct analyzer_options *options, const char *const *names,
			  size_t count, long long *bytes, char *arch, size_t arch_size,
			  struct error *error)
{
	struct run run;
	if (begin_run(&run, options, error))
		return -1;   /* a refused cache folder loses nothing here: sizes are not cached */
	const struct source_plan *plan = &run.plan;
	int status = 0;
	const struct tu_job *job = NULL;
	static const char rmap_file[] = "/mm/rmap.c";
	for (size_t i = 0; i < plan->job_count; i++) {
		size_t length = strlen(plan->jobs[i].path), n = sizeof(rmap_file) - 1;
		if (length >= n && !strcmp(plan->jobs[i].path + length - n, rmap_file))
			job = &plan->jobs[i];
	}
	if (!job)
		status = error_set(error, options->source, 0, "no mm/rmap.c to ask for struct sizes");
	if (!status) {
		/* what libclang may read, as when the tree's call graph is parsed */
		struct tu_job sized = *job;
		sized.roots = &plan->roots;
		status = parse_struct_sizes(&sized, names, count, bytes, error);
	}
	if (!status)
		snprintf(arch, arch_size, "%s", plan->arch ? plan->arch : "");
	end_run(&run);
	return status;
}
