/*
 * outputs/report_view.c - smem's everyday views over the per-process
 * figures: which processes (--filter REGEX on the command line), in which
 * order (--sort FIELD), how many (--top N), and sums per user, control group
 * or command (--group-by).  Built once per report, so the text table, JSON,
 * XML, CSV and HTML show the same rows in the same order.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/escape.h"
#include "base/hash.h"
#include "outputs/report_internal.h"

static double process_field(const struct model_result *r, const struct model_process *p, int field);

/* --sort fields: name, what it is, largest first or (names, pids) ascending. */
static const struct {
	const char *name, *meaning;
	bool ascending;
} sort_fields[] = {
	[SORT_PAGETABLES] = { "pagetables", "page tables from pagemap (VmPTE without pagemap)", false },
	[SORT_VMPTE]      = { "vmpte", "the kernel's VmPTE", false },
	[SORT_RSS]        = { "rss", "resident set size (smaps Rss)", false },
	[SORT_PSS]        = { "pss", "proportional set size (smaps Pss)", false },
	[SORT_SHARABLE]   = { "sharable", "PTE pages the headline rule would save, split among partners", false },
	[SORT_PTE_CHAIN]  = { "pte_chain", "pte_chain bytes of the headline design's baseline", false },
	[SORT_PID]        = { "pid", "process id", true },
	[SORT_COMMAND]    = { "command", "command line (comm when empty)", true },
};
#define SORT_FIELD_COUNT (sizeof(sort_fields) / sizeof(sort_fields[0]))

static const char *const group_names[] = {
	[GROUP_NONE] = "none", [GROUP_USER] = "user", [GROUP_CGROUP] = "cgroup", [GROUP_COMMAND] = "command",
};

int report_sort_parse(const char *name, enum report_sort *sort)
{
	for (size_t i = 0; i < SORT_FIELD_COUNT; i++)
		if (!strcmp(name, sort_fields[i].name)) {
			*sort = (enum report_sort)i;
			return 0;
		}
	return -1;
}

const char *report_sort_names(void)
{
	return "pagetables, vmpte, rss, pss, sharable, pte_chain, pid, command";
}

const char *report_sort_name(enum report_sort sort)
{
	return sort_fields[sort].name;
}

int report_group_parse(const char *name, enum report_group *group)
{
	for (size_t i = 1; i < sizeof(group_names) / sizeof(group_names[0]); i++)
		if (!strcmp(name, group_names[i])) {
			*group = (enum report_group)i;
			return 0;
		}
	return -1;
}

const char *report_group_name(enum report_group group)
{
	return group_names[group];
}

/* The text a filter and the command sort see: the command line, else comm. */
const char *report_command(const struct process *p)
{
	return p->cmdline && p->cmdline[0] ? p->cmdline : p->comm ? p->comm : "";
}

static double process_field(const struct model_result *r, const struct model_process *p, int field)
{
	switch (field) {
	case SORT_PAGETABLES: return (double)(p->exact ? p->pagetable_bytes : p->vmpte_bytes);
	case SORT_VMPTE:      return (double)p->vmpte_bytes;
	case SORT_RSS:        return (double)p->rss_bytes;
	case SORT_PSS:        return (double)p->pss_bytes;
	case SORT_SHARABLE:   return r->headline_rule < r->sharing_count ? p->sharable_pages[r->headline_rule] : 0;
	case SORT_PTE_CHAIN:
		return r->current_design < r->design_count
			? p->pte_chain_bytes[r->designs[r->current_design].baseline] : 0;
	default:              return (double)p->process->pid;
	}
}

const char *report_user_name(const struct model_result *r, const struct process *q)
{
	return q->has_status && q->status.has_uid && r->snapshot ? snapshot_user_name(r->snapshot, q->status.uid)
								  : NULL;
}

/* The group key of a process. */
static void group_key(const struct model_result *r, const struct model_process *p, enum report_group by,
		      char *key, size_t size)
{
	const struct process *q = p->process;
	const char *name = report_user_name(r, q);
	switch (by) {
	case GROUP_USER:
		if (name)
			snprintf(key, size, "%s (uid %u)", name, q->status.uid);
		else if (q->has_status && q->status.has_uid)
			snprintf(key, size, "uid %u", q->status.uid);
		else
			snprintf(key, size, "(uid not captured)");
		break;
	case GROUP_CGROUP:
		snprintf(key, size, "%s", q->cgroup ? q->cgroup : "(cgroup not captured)");
		break;
	default:
		snprintf(key, size, "%s", q->comm ? q->comm : "");
		break;
	}
}

static const struct model_result *sorting;
static enum report_sort sorting_by;

static int compare_processes(const void *x, const void *y)
{
	const struct model_process *a = &sorting->process_figures[*(const size_t *)x];
	const struct model_process *b = &sorting->process_figures[*(const size_t *)y];
	if (sorting_by == SORT_COMMAND) {
		int c = strcmp(report_command(a->process), report_command(b->process));
		if (c)
			return c;
	} else if (sorting_by != SORT_PID) {
		double fa = process_field(sorting, a, sorting_by), fb = process_field(sorting, b, sorting_by);
		if (fa != fb)
			return fa > fb ? -1 : 1;
	}
	return (a->process->pid > b->process->pid) - (a->process->pid < b->process->pid);
}

static double group_field(const struct report_group_row *g, enum report_sort by)
{
	switch (by) {
	case SORT_VMPTE:      return (double)g->vmpte_bytes;
	case SORT_RSS:        return (double)g->rss_bytes;
	case SORT_PSS:        return (double)g->pss_bytes;
	case SORT_SHARABLE:   return g->sharable_pages;
	case SORT_PTE_CHAIN:  return g->pte_chain_bytes;
	default:              return (double)g->pagetable_bytes;
	}
}

static int compare_groups(const void *x, const void *y)
{
	const struct report_group_row *a = x, *b = y;
	if (sorting_by == SORT_COMMAND || sorting_by == SORT_PID)
		return strcmp(a->key, b->key);
	double fa = group_field(a, sorting_by), fb = group_field(b, sorting_by);
	if (fa != fb)
		return fa > fb ? -1 : 1;
	return strcmp(a->key, b->key);
}

static uint64_t group_hash(const void *groups, size_t index)
{
	const char *key = ((const struct report_group_row *)groups)[index].key;
	return hash_keyed(key, strlen(key));
}

static void build_groups(struct report_view *v, const struct model_result *r, const struct report_options *o)
{
	v->groups = xcalloc(v->count + 1, sizeof(*v->groups));
	struct hash_table table = { 0 };    /* groups by key: one probe a process */
	for (size_t n = 0; n < v->count; n++) {
		const struct model_process *p = &r->process_figures[v->order[n]];
		char key[sizeof(v->groups[0].key)];
		group_key(r, p, o->group_by, key, sizeof(key));
		uint64_t hash = hash_keyed(key, strlen(key));
		struct hash_probe probe;
		size_t g = hash_first(&table, hash, &probe);
		while (g != HASH_NONE && strcmp(v->groups[g].key, key))
			g = hash_next(&table, &probe);
		if (g == HASH_NONE) {
			g = v->group_count++;
			snprintf(v->groups[g].key, sizeof(v->groups[g].key), "%s", key);
			hash_add(&table, hash, g, group_hash, v->groups);
		}
		struct report_group_row *row = &v->groups[g];
		row->processes++;
		row->vmpte_bytes += p->vmpte_bytes;
		row->pagetable_bytes += p->exact ? p->pagetable_bytes : 0;
		row->rss_bytes += p->rss_bytes;
		row->pss_bytes += p->pss_bytes;
		row->sharable_pages += process_field(r, p, SORT_SHARABLE);
		row->pte_chain_bytes += process_field(r, p, SORT_PTE_CHAIN);
	}
	hash_free(&table);
	sorting_by = o->sort;
	array_sort(v->groups, v->group_count, sizeof(*v->groups), compare_groups);
}

int report_view_build(struct report_view *v, const struct model_result *r, const struct report_options *o)
{
	memset(v, 0, sizeof(*v));
	v->order = xreallocarray(NULL, r->processes + 1, sizeof(*v->order));
	regex_t pattern;
	if (o->filter && regcomp(&pattern, o->filter, REG_EXTENDED | REG_NOSUB) != 0) {
		free(v->order);
		v->order = NULL;
		return -1;      /* report_filter_check refused it before */
	}
	for (size_t i = 0; i < r->processes; i++)
		if (!o->filter || regexec(&pattern, report_command(r->process_figures[i].process), 0, NULL, 0) == 0)
			v->order[v->count++] = i;
	if (o->filter)
		regfree(&pattern);
	sorting = r;
	sorting_by = o->sort;
	array_sort(v->order, v->count, sizeof(*v->order), compare_processes);
	if (o->group_by != GROUP_NONE)
		build_groups(v, r, o);
	return 0;
}

void report_view_free(struct report_view *v)
{
	free(v->order);
	free(v->groups);
	memset(v, 0, sizeof(*v));
}

size_t report_filter_keep(const struct snapshot *s, const char *filter, bool *keep)
{
	regex_t pattern;
	size_t kept = 0;
	if (regcomp(&pattern, filter, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;       /* report_filter_check refused it before */
	for (size_t i = 0; i < s->process_count; i++)
		kept += keep[i] = regexec(&pattern, report_command(&s->processes[i]), 0, NULL, 0) == 0;
	regfree(&pattern);
	return kept;
}

int report_filter_check(const char *filter, char *message, size_t size)
{
	regex_t pattern;
	int code = regcomp(&pattern, filter, REG_EXTENDED | REG_NOSUB);
	if (code == 0) {
		regfree(&pattern);
		return 0;
	}
	char reason[256];
	regerror(code, &pattern, reason, sizeof(reason));
	snprintf(message, size, "%s", reason);
	return -1;
}
