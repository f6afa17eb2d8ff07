/*
 * builtin/cmd_info.c - `ptscope info`: what a snapshot holds.
 *
 *   ptscope info [SNAPSHOT|/proc] [--per-process] [--skip-bad]
 *
 * It proves the input side end to end: every figure comes from the loaded
 * struct snapshot, so a reader bug shows here before any model sees it.
 * Output is `key: value` lines (easy for people and for awk), or with
 * --per-process only a tab-separated table: a header, a line per process.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "builtin/commands.h"
#include "inputs/snapshot.h"

/* The option table, OPT_NAME of each option without a letter and info_help:
 * made at build time from builtin/help/info.txt. */
#include "builtin/info_options.h"

/* "Linux version 6.1.0-13-amd64 (...)": the third word, for smemcap captures
 * that carry no snapshot.info. */
static void kernel_from_version(const char *version, char *out, size_t size)
{
	char release[128];
	if (version && sscanf(version, "Linux version %127s", release) == 1)
		snprintf(out, size, "%s", release);
	else
		snprintf(out, size, "unknown");
}

static void print_count(const char *key, long value)
{
	if (value < 0)
		printf("%s: not stated\n", key);
	else
		printf("%s: %ld\n", key, value);
}

/* "key: value" with the value escaped for a terminal (base/escape.h). */
static void print_text(const char *key, const char *value)
{
	printf("%s: ", key);
	escape_fputs(escape_text, value, stdout);
	putchar('\n');
}

/* With the records loaded (--verify): how many 2 MiB chunks the processes
 * populate and how many distinct contents the snapshot keeps for them. */
static void print_chunks(const struct snapshot *s)
{
	uint64_t chunks = 0, distinct = 0, records = 0;
	for (size_t i = 0; i < s->process_count; i++)
		for (size_t r = 0; r < s->processes[i].run_count; r++)
			chunks += s->processes[i].runs[r].length;
	for (size_t c = 0; c < s->content_count; c++)
		if (s->contents[c].references) {
			distinct++;
			records += s->contents[c].count;
		}
	if (s->content_count)
		printf("pagemap chunks: %" PRIu64 " (%" PRIu64 " distinct, %" PRIu64 " records kept)\n",
		       chunks, distinct, records);
}

/* smaps fields this reader does not know (a newer kernel's), each with the
 * VMAs that show it: their counters are kept, not modelled.  Read from the
 * VMAs kept (a process skipped as bad leaves its fields in s->extras);
 * names are interned, so one pointer is one name. */
static void print_unknown_fields(const struct snapshot *s)
{
	enum { NAMES_SHOWN = 8 };
	const char *names[NAMES_SHOWN];
	size_t vmas[NAMES_SHOWN], count = 0, more = 0;
	if (!s->extra_count)
		return;   /* most snapshots: no pass over the VMAs */
	for (size_t v = 0; v < s->vma_count; v++) {
		for (size_t e = s->vmas[v].extra_first; e < s->vmas[v].extra_first + s->vmas[v].extra_count; e++) {
			size_t i = 0;
			while (i < count && names[i] != s->extras[e].name)
				i++;
			if (i < count)
				vmas[i]++;
			else if (count < NAMES_SHOWN)
				names[count] = s->extras[e].name, vmas[count++] = 1;
			else
				more++;   /* counts lines past the names shown, not names */
		}
	}
	if (!count)
		return;
	fputs("smaps fields not known (kept, not modelled):", stdout);
	for (size_t i = 0; i < count; i++) {
		fputs(i ? ", " : " ", stdout);
		escape_fputs(escape_text, names[i], stdout);
		printf(" (%zu VMA%s)", vmas[i], vmas[i] == 1 ? "" : "s");
	}
	if (more)
		printf(", and %zu lines of other fields", more);
	putchar('\n');
}

static void print_summary(const struct snapshot *s)
{
	const struct snapshot_info *info = &s->info;
	char kernel[128];
	if (info->kernel[0])
		snprintf(kernel, sizeof(kernel), "%s", info->kernel);
	else
		kernel_from_version(s->version, kernel, sizeof(kernel));

	fputs("snapshot: ", stdout);
	escape_fputs(escape_text, s->source ? s->source : "/proc", stdout);
	putchar('\n');
	if (info->format_version > 0)
		printf("format: ptscope-snapshot %d\n", info->format_version);
	else
		printf("format: smemcap\n");
	print_text("kernel", kernel);
	print_text("arch", info->arch[0] ? info->arch : "unknown");
	printf("page size: %" PRIu64 "\n", info->page_size);
	if (info->hostname[0])
		print_text("hostname", info->hostname);
	if (info->captured_at[0])
		print_text("captured at", info->captured_at);
	printf("pagemap: %s\n", pagemap_mode_names[info->pagemap]);
	printf("processes: %zu\n", s->process_count);
	printf("kernel threads skipped: %zu\n", s->kernel_threads);
	printf("zombies skipped: %zu\n", s->zombies);
	printf("VMAs: %zu\n", s->vma_count);
	print_unknown_fields(s);
	printf("pagemap bytes: %" PRIu64 "\n", s->pagemap_bytes);
	print_chunks(s);
	printf("kpages: %" PRIu64 "\n", s->kpage_count);
	printf("names: %zu users, %zu groups\n", s->user_name_count, s->group_name_count);
	print_count("skipped at capture", info->skipped);
	print_count("of them changed during capture", info->changed);
	print_count("refused at capture (permission denied)", info->unreadable);
	if (info->ptscope_version[0])
		printf("captured by: ptscope %s\n", info->ptscope_version);
	printf("skipped as bad: %zu\n", s->skipped_bad);
}

static void print_verified(const struct verify_result *checked)
{
	printf("verified: every pagemap record lies in a VMA; stat's code and stack lie in smaps' VMAs "
	       "(%zu processes show them)\n", checked->stat_checked);
	printf("comm not cmdline's program: %zu", checked->comm_differs);
	if (checked->comm_differs)
		printf(" (names set with prctl, or scripts), the first pid %d", checked->first_comm_differs);
	putchar('\n');
}

static void print_processes(const struct snapshot *s)
{
	printf("pid\tcomm\tvmas\trss_kb\tpss_kb\tvmpte_kb\n");
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		uint64_t rss_kb = 0, pss_kb = 0;
		for (size_t v = 0; v < p->vma_count; v++) {
			rss_kb += vma_kb(&p->vmas[v], SMAPS_RSS);
			pss_kb += vma_kb(&p->vmas[v], SMAPS_PSS);
		}
		char comm[4 * 64 + 1];  /* comm is at most 64 bytes; 4 per escaped byte */
		escape_text(comm, sizeof(comm), p->comm ? p->comm : "?");
		printf("%d\t%s\t%zu\t%" PRIu64 "\t%" PRIu64 "\t", p->pid, comm,
		       p->vma_count, rss_kb, pss_kb);
		if (p->has_status && p->status.has_vm_pte)
			printf("%" PRIu64 "\n", p->status.vm_pte_kb);
		else
			printf("-\n");
	}
}

/* What the command line asked for. */
struct info_request {
	struct read_options read;
	bool per_process, verify;
};

/* One option of the table (not --help): 0. */
static int parse_option(int option, const char *value, void *request)
{
	struct info_request *r = request;
	(void)value;
	switch (option) {
	case OPT_PER_PROCESS: r->per_process = true; return 0;
	case OPT_SKIP_BAD: r->read.skip_bad = true; return 0;
	case OPT_VERIFY: r->read.pagemap_sizes_only = false; r->verify = true; return 0;
	}
	return 1;
}

static int info(void *request, int count, char **operands)
{
	struct info_request *r = request;
	struct snapshot *snapshot = NULL;
	struct error error;
	if (count > 1) {
		fprintf(stderr, "ptscope: info: one snapshot at a time ('%s' is extra)\n", operands[1]);
		return 1;
	}
	if (snapshot_read(count ? operands[0] : NULL, &r->read, &snapshot, &error) < 0) {
		error_print(&error);
		return (int)error.status;
	}
	/* --per-process is the table alone, a clean tab-separated file */
	if (!r->per_process)
		print_summary(snapshot);
	if (r->verify) {
		struct verify_result checked;
		if (snapshot_verify(snapshot, &checked, &error) < 0) {
			error_print(&error);
			snapshot_free(snapshot);
			return (int)error.status;
		}
		if (!r->per_process)
			print_verified(&checked);
	}
	if (r->per_process)
		print_processes(snapshot);
	snapshot_free(snapshot);
	return 0;  /* stdout is checked by the front door (ptscope.c) */
}

int cmd_info(int argc, char **argv)
{
	/* info shows pagemap sizes only; records are loaded and checked with --verify. */
	struct info_request r = { .read = { .pagemap_sizes_only = true, .progress = isatty(STDERR_FILENO),
					      .skip_bad_offered = true } };
	return command_run(&info_help, argc, argv, parse_option, info, &r);
}
