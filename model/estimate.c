/*
 * model/estimate.c - figures from smaps alone (cost-model.md sections 4, 6).
 *
 * Always computed, even when pagemap and kpages give the exact figure, so a
 * report can show the estimator's error beside the truth.  Every estimate
 * carries a point value, a lower and an upper bound, and its method.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

#define KB_PER_PAGE (MODEL_PAGE_BYTES / 1024)

const char model_pagetable_method[] =
	"smaps only: upper = windows spanned by VMAs with Rss+Swap > 0; lower = windows "
	"of VMAs inside one window plus ceil(pages/512)-2 per larger VMA; point = random "
	"occupancy of each larger VMA's windows by its pages";
const char model_pte_chain_method[] =
	"smaps only: m per VMA from the harmonic mean S/((Pss-Private)/P) of its shared "
	"pages; bounds take m anywhere in [2, mappers of the file] and the anonymous "
	"share of shared pages anywhere Anonymous allows";

/* ---- page-table pages from smaps (section 4) ---- */

struct span_count {
	uint64_t windows;               /* union of counted windows */
	uint64_t last;                  /* last window counted */
	bool any;
};

/* Count windows [first, last] once each; VMAs come in address order, so
 * only the previous VMA's last window can repeat. */
static void span_add(struct span_count *span, uint64_t first, uint64_t last)
{
	if (span->any && first <= span->last)
		first = span->last + 1;
	if (first <= last)
		span->windows += last - first + 1;
	if (!span->any || last > span->last)
		span->last = last;
	span->any = true;
}

/* Pages of a VMA that need a PTE page: Rss + Swap minus what file or shmem
 * PMD leaves map (an anonymous PMD-mapped THP keeps its deposited PTE page). */
static uint64_t pte_mapped_pages(const struct vma *v)
{
	uint64_t kb = v->kb[SMAPS_RSS] + v->kb[SMAPS_SWAP];
	uint64_t pmd = v->kb[SMAPS_SHMEM_PMD_MAPPED] + v->kb[SMAPS_FILE_PMD_MAPPED];
	return (kb > pmd ? kb - pmd : 0) / KB_PER_PAGE;
}

static void estimate_process_tables(struct model_context *c, const struct process *p,
				    struct estimate *e)
{
	const struct geometry *g = c->geometry;
	unsigned shift = c->pte_shift;
	uint64_t per_window = (uint64_t)1 << (shift - 12);
	struct span_count upper = { 0 }, single = { 0 };
	double point_large = 0;
	uint64_t lower_large = 0, largest_need = 0;
	for (size_t v = 0; v < p->vma_count; v++) {
		const struct vma *vma = &p->vmas[v];
		uint64_t pages = pte_mapped_pages(vma);
		if (!pages || vma->end <= vma->start)
			continue;
		uint64_t first = vma->start >> shift, last = (vma->end - 1) >> shift;
		uint64_t windows = last - first + 1;
		uint64_t need = (pages + per_window - 1) / per_window;
		if (need > largest_need)
			largest_need = need;
		span_add(&upper, first, last);
		if (windows == 1) {
			span_add(&single, first, last);
			continue;
		}
		/* the two edge windows may be shared with neighbours; the rest are this VMA's */
		lower_large += need > 2 ? need - 2 : 0;
		/* pages spread at random over the VMA's windows */
		double occupied = (double)windows * -expm1((double)pages * log1p(-1.0 / (double)windows));
		if (occupied < (double)need)
			occupied = (double)need;
		point_large += occupied;
	}
	double lower = (double)(single.windows + lower_large);
	if (lower < (double)largest_need)
		lower = (double)largest_need;
	double upper_pages = (double)upper.windows;
	double point = (double)single.windows + point_large;
	point = point < lower ? lower : point > upper_pages ? upper_pages : point;
	/* higher levels: windows spanned (upper, point), windows of VMAs inside one (lower) */
	for (unsigned l = 1; l < g->level_count; l++) {
		if (!g->levels[l].counted)
			continue;
		struct span_count all = { 0 }, one = { 0 };
		unsigned s = g->levels[l].shift;
		for (size_t v = 0; v < p->vma_count; v++) {
			const struct vma *vma = &p->vmas[v];
			if (!pte_mapped_pages(vma) || vma->end <= vma->start)
				continue;
			uint64_t first = vma->start >> s, last = (vma->end - 1) >> s;
			span_add(&all, first, last);
			if (first == last)
				span_add(&one, first, last);
		}
		uint64_t at_least = one.windows ? one.windows : (all.windows ? 1 : 0);
		lower += (double)at_least;
		point += (double)all.windows;
		upper_pages += (double)all.windows;
	}
	e->lower = lower * MODEL_PAGE_BYTES;
	e->point = point * MODEL_PAGE_BYTES;
	e->upper = upper_pages * MODEL_PAGE_BYTES;
	e->method = model_pagetable_method;
}

/* ---- pte_chain bytes from smaps (section 6) ---- */

struct file_key {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};

static int compare_file_keys(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;
	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* How many VMAs of the snapshot map a file: an upper bound on m of its pages. */
static uint64_t file_mappers(const struct file_key *keys, size_t count, const struct vma *v)
{
	struct file_key key = { v->dev_major, v->dev_minor, v->inode };
	const struct file_key *hit = bsearch(&key, keys, count, sizeof(key), compare_file_keys);
	if (!hit)
		return 1;
	const struct file_key *first = hit, *end = keys + count;
	while (first > keys && !compare_file_keys(first - 1, &key))
		first--;
	while (hit < end && !compare_file_keys(hit, &key))
		hit++;
	return (uint64_t)(hit - first);
}

struct vma_pages {
	double rss, shared, anon, inverse_m_sum;   /* in pages */
	uint64_t m_max;
};

/* Cost of one VMA for a profile, given the shared anonymous page count and
 * the per-mapping charge of shared anon and file pages. */
static double vma_cost(const struct rmap_profile *profile, const struct vma_pages *vp,
		       double shared_anon, double share_anon, double share_file)
{
	double private_pages = vp->rss - vp->shared;
	double private_anon = vp->anon - shared_anon;
	if (private_anon < 0)
		private_anon = 0;
	if (private_anon > private_pages)
		private_anon = private_pages;
	return shared_anon * share_anon + (vp->shared - shared_anon) * share_file +
	       private_anon * (double)rmap_page_cost(profile, 1, true) +
	       (private_pages - private_anon) * (double)rmap_page_cost(profile, 1, false);
}

static void estimate_vma_chains(struct model_design *design, const struct vma_pages *vp)
{
	const struct rmap_profile *profile = design->profile;
	double anon_low = vp->shared - (vp->rss - vp->anon), anon_high = vp->anon;
	anon_low = anon_low < 0 ? 0 : anon_low;
	anon_high = anon_high > vp->shared ? vp->shared : anon_high;
	double anon_point = vp->rss > 0 ? vp->shared * vp->anon / vp->rss : 0;
	/* point: the harmonic mean m of the VMA's shared pages */
	double mean = vp->inverse_m_sum > 0 ? vp->shared / vp->inverse_m_sum : 2;
	uint64_t m = (uint64_t)llround(mean);
	m = m < 2 ? 2 : m > vp->m_max ? vp->m_max : m;
	double point_anon = (double)rmap_page_cost(profile, m, true) / (double)m;
	double point_file = (double)rmap_page_cost(profile, m, false) / (double)m;
	double low_anon, high_anon, low_file, high_file;
	rmap_share_range(profile, vp->m_max, true, &low_anon, &high_anon);
	rmap_share_range(profile, vp->m_max, false, &low_file, &high_file);
	double a = vma_cost(profile, vp, anon_low, low_anon, low_file);
	double b = vma_cost(profile, vp, anon_high, low_anon, low_file);
	design->pte_chain_estimate.lower += a < b ? a : b;
	a = vma_cost(profile, vp, anon_low, high_anon, high_file);
	b = vma_cost(profile, vp, anon_high, high_anon, high_file);
	design->pte_chain_estimate.upper += a > b ? a : b;
	design->pte_chain_estimate.point += vma_cost(profile, vp, anon_point, point_anon, point_file);
}

static void estimate_chains(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	struct file_key *keys = malloc((s->vma_count + 1) * sizeof(*keys));
	size_t key_count = 0;
	if (!keys)
		abort();
	for (size_t g = 0; g < s->vma_count; g++)
		if (s->vmas[g].inode)
			keys[key_count++] = (struct file_key){ s->vmas[g].dev_major, s->vmas[g].dev_minor, s->vmas[g].inode };
	qsort(keys, key_count, sizeof(*keys), compare_file_keys);
	for (size_t d = 0; d < r->design_count; d++)
		r->designs[d].pte_chain_estimate.method = model_pte_chain_method;
	for (size_t g = 0; g < s->vma_count; g++) {
		const struct vma *v = &s->vmas[g];
		struct vma_pages vp = {
			.rss = (double)v->kb[SMAPS_RSS] / KB_PER_PAGE,
			.shared = (double)(v->kb[SMAPS_SHARED_CLEAN] + v->kb[SMAPS_SHARED_DIRTY]) / KB_PER_PAGE,
			.anon = (double)v->kb[SMAPS_ANONYMOUS] / KB_PER_PAGE,
		};
		if (vp.rss <= 0)
			continue;
		uint64_t private_kb = v->kb[SMAPS_PRIVATE_CLEAN] + v->kb[SMAPS_PRIVATE_DIRTY];
		vp.inverse_m_sum = v->kb[SMAPS_PSS] > private_kb
			? (double)(v->kb[SMAPS_PSS] - private_kb) / KB_PER_PAGE : 0;
		/* anonymous pages are mapped at most once per process; file pages at
		 * most once per VMA of the file */
		vp.m_max = s->process_count;
		if (v->inode) {
			uint64_t mappers = file_mappers(keys, key_count, v);
			if (mappers > vp.m_max)
				vp.m_max = mappers;
		}
		for (size_t d = 0; d < r->design_count; d++)
			estimate_vma_chains(&r->designs[d], &vp);
	}
	free(keys);
}

void model_estimate(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	r->pagetable_estimate.method = model_pagetable_method;
	for (size_t i = 0; i < s->process_count; i++) {
		struct estimate *e = &r->process_figures[i].pagetable_estimate;
		estimate_process_tables(c, &s->processes[i], e);
		r->pagetable_estimate.point += e->point;
		r->pagetable_estimate.lower += e->lower;
		r->pagetable_estimate.upper += e->upper;
	}
	estimate_chains(c);
}
