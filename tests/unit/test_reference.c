/*
 * tests/unit/test_reference.c - the reference snapshots' figures
 * (shared/snapshots/NAME.expected, computed by an independent implementation
 * of docs/cost-model.md section 8) reproduced exactly, and the smaps-only
 * estimates inside their own stated bounds on the same snapshots.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/snapshot.h"
#include "model/model.h"
#include "test.h"

struct loaded {
	struct snapshot *snapshot;
	struct profile_set profiles;
	struct model_result *result;
};

static bool load(const char *name, struct loaded *l)
{
	char path[4096];
	memset(l, 0, sizeof(*l));
	if (!test_shared_snapshots()) {
		test_skip("shared/snapshots not found (set SHARED_SNAPSHOTS)");
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s.tar.gz", test_shared_snapshots(), name);
	struct error input_error;
	struct read_options options = { 0 };
	struct error error;
	CU_ASSERT_FATAL(snapshot_read(path, &options, &l->snapshot, &input_error) == 0);
	CU_ASSERT_FATAL(profiles_load_builtin(&l->profiles, &error) == 0);
	struct model_options model = { .profiles = &l->profiles };
	CU_ASSERT_FATAL(model_run(l->snapshot, &model, &l->result, &error) == 0);
	return true;
}

static void unload(struct loaded *l)
{
	model_free(l->result);
	profiles_free(&l->profiles);
	snapshot_free(l->snapshot);
}

/* The model's figure for a dotted key of section 8; false when unknown. */
static bool figure(const struct model_result *r, const char *key, uint64_t *value)
{
	const struct { const char *name; uint64_t value; } scalars[] = {
		{ "processes", r->processes }, { "vmpte_bytes", r->vmpte_bytes },
		{ "pagetable_bytes", r->pagetable_bytes }, { "processes_pagetable_exact", r->processes_pagetable_exact },
		{ "pte_pages", r->pte_pages }, { "pmd_mapped_windows", r->pmd_mapped_windows },
	};
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!strcmp(key, scalars[i].name)) {
			*value = scalars[i].value;
			return true;
		}
	const char *dot = strchr(key, '.');
	if (!dot)
		return false;
	for (size_t d = 0; d < r->design_count; d++)
		if (!strncmp(key, "pte_chain_bytes.", 16) && !strcmp(dot + 1, r->designs[d].profile->id)) {
			*value = r->designs[d].pte_chain_bytes;
			return true;
		}
	for (size_t k = 0; k < r->sharing_count; k++)
		if (!strncmp(key, "sharable_pte_pages.", 19) && !strcmp(dot + 1, r->sharing[k].rule->id)) {
			*value = r->sharing[k].sharable_pages;
			return true;
		}
	return false;
}

static void check_expected(const char *name)
{
	struct loaded l;
	if (!load(name, &l))
		return;
	char path[4096], line[512];
	snprintf(path, sizeof(path), "%s/%s.expected", test_shared_snapshots(), name);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int keys = 0;
	while (fgets(line, sizeof(line), f)) {
		char key[256];
		uint64_t expected, got = 0;
		if (sscanf(line, "%255[^:]: %" SCNu64, key, &expected) != 2)
			continue;
		keys++;
		bool known = figure(l.result, key, &got);
		CU_ASSERT_TRUE(known);
		/* section 8: pte_chain bytes compare within one byte, the rest exactly */
		uint64_t slack = !strncmp(key, "pte_chain_bytes.", 16) ? 1 : 0;
		bool ok = known && (got > expected ? got - expected : expected - got) <= slack;
		if (!ok)
			printf("\n%s: %s: expected %" PRIu64 ", got %" PRIu64 "\n", name, key, expected, got);
		CU_ASSERT_TRUE(ok);
	}
	fclose(f);
	CU_ASSERT(keys >= 16);
	unload(&l);
}

static void test_pg32_expected(void) { check_expected("pg32"); }
static void test_desktop_expected(void) { check_expected("desktop"); }

/* Every estimate must hold the exact figure between its bounds; print the
 * estimator's error for docs/cost-model.md. */
static void check_estimates(const char *name)
{
	struct loaded l;
	if (!load(name, &l))
		return;
	const struct model_result *r = l.result;
	const struct estimate *e = &r->pagetable_estimate;
	printf("\n%s: page tables exact %" PRIu64 ", smaps estimate %.0f [%.0f, %.0f] (%+.1f%%)\n", name,
	       r->pagetable_bytes, e->point, e->lower, e->upper,
	       100.0 * (e->point - (double)r->pagetable_bytes) / (double)r->pagetable_bytes);
	CU_ASSERT(e->lower <= (double)r->pagetable_bytes && (double)r->pagetable_bytes <= e->upper);
	for (size_t i = 0; i < r->processes; i++) {
		const struct model_process *p = &r->process_figures[i];
		CU_ASSERT(p->pagetable_estimate.lower <= (double)p->pagetable_bytes);
		CU_ASSERT((double)p->pagetable_bytes <= p->pagetable_estimate.upper);
	}
	for (size_t d = 0; d < r->design_count; d++) {
		const struct model_design *m = &r->designs[d];
		const struct estimate *c = &m->pte_chain_estimate;
		CU_ASSERT_TRUE(m->pte_chain_exact);
		bool inside = floor(c->lower) <= m->pte_chain_value && m->pte_chain_value <= ceil(c->upper);
		CU_ASSERT_TRUE(inside);
		CU_ASSERT(c->lower <= c->point && c->point <= c->upper);
		if (m->pte_chain_value > 0)
			printf("%s: %-28s exact %10.0f estimate %10.0f [%10.0f, %10.0f] %+6.1f%%%s\n", name, m->profile->id,
			       m->pte_chain_value, c->point, c->lower, c->upper,
			       100.0 * (c->point - m->pte_chain_value) / m->pte_chain_value, inside ? "" : "  OUTSIDE");
	}
	unload(&l);
}

static void test_pg32_estimates(void) { check_estimates("pg32"); }
static void test_desktop_estimates(void) { check_estimates("desktop"); }

void suite_reference(void)
{
	ADD_SUITE("reference", test_pg32_expected, test_desktop_expected, test_pg32_estimates, test_desktop_estimates);
}
