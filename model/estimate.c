/*
 * model/estimate.c - figures from smaps alone (docs/cost-model.md sections 4, 6).
 *
 * Always computed, even when pagemap and kpages give the exact figure, so a
 * report can show the estimator's error beside the truth.  Every estimate
 * carries a point value, a lower and an upper bound, and its method.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "model/model_internal.h"

#define KB_PER_PAGE (MODEL_PAGE_BYTES / 1024)

const char model_pagetable_method[] =
	"smaps only: upper = windows spanned by VMAs with Rss+Swap > 0; lower = windows "
	"of VMAs inside one window plus ceil(pages/512)-2 per larger VMA; point = larger "
	"VMAs' pages packed together (ceil(pages/512)+1 windows each)";
static const char model_pagetable_whole_method[] =
	"per process: exact from pagemap, else its VmPTE, else the smaps-only bounds";
const char model_pte_chain_method[] =
	"smaps only: m per VMA from the harmonic mean S/((Pss-Private)/P) of its shared "
	"pages; bounds from S and (Pss-Private)/P alone (L1*max(S/N, sum 1/m) to "
	"L1*(S/N + (1-1/N)*sum 1/m)), with the anonymous share anywhere Anonymous allows";

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
	uint64_t kb = vma_kb(v, SMAPS_RSS) + vma_kb(v, SMAPS_SWAP);
	uint64_t pmd = vma_kb(v, SMAPS_SHMEM_PMD_MAPPED) + vma_kb(v, SMAPS_FILE_PMD_MAPPED);
	return (kb > pmd ? kb - pmd : 0) / KB_PER_PAGE;
}

/* What the PTE level of a process needs, from its VMAs with pages. */
struct pte_level {
	struct span_count upper, single;
	double point_large;
	uint64_t lower_large, largest_need;
};

static void pte_level_add(struct pte_level *t, uint64_t pages, uint64_t per_window, uint64_t first,
			  uint64_t last)
{
	uint64_t windows = last - first + 1;
	uint64_t need = (pages + per_window - 1) / per_window;
	if (need > t->largest_need)
		t->largest_need = need;
	span_add(&t->upper, first, last);
	if (windows == 1) {
		span_add(&t->single, first, last);
		return;
	}
	/* the two edge windows may be shared with neighbours; the rest are this VMA's */
	t->lower_large += need > 2 ? need - 2 : 0;
	/* pages cluster (heaps grow, stacks and shared buffers are touched
	 * from one end): the fewest windows, plus one for an unaligned start */
	t->point_large += (double)(need + 1 < windows ? need + 1 : windows);
}

/* ---- files and their mappers (section 6's bound on m) ---- */

struct file_key {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};

/* A file and how many VMAs of the snapshot map it: an upper bound on m of
 * its pages. */
struct file_mappers {
	struct file_key key;
	uint64_t mappers;
};

/* The files' keys come from the snapshot: hashed keyed, so no input can
 * make them collide. */
static uint64_t file_hash(const void *files, size_t index)
{
	const struct file_mappers *f = files;
	return hash_keyed(&f[index].key, sizeof(f[index].key));
}

/* Per VMA, its file's entry in files, counted through a hash table as the
 * page-table pass walks the VMAs (a file mapped by every process costs
 * one step a VMA, no sort); anonymous VMAs' entries are not read.  Paths
 * are interned (inputs/arena.c): the file last seen under a VMA's path
 * pointer is tried before the keyed hash.  Only tried: one path may name
 * two files (containers, a file replaced) and one file have two paths. */
#define PATH_SLOTS 1024

struct file_census {
	struct file_mappers *files;
	uint32_t *file_of;              /* by the VMA's place in the snapshot */
	struct hash_table table;
	size_t count, capacity, last;
	struct { const char *path; size_t file; } by_path[PATH_SLOTS];
};

/* The entry of the file with `key`, added if new. */
static size_t census_find(struct file_census *census, const struct file_key *key)
{
	uint64_t hash = hash_keyed(key, sizeof(*key));
	struct hash_probe probe;
	size_t i = hash_first(&census->table, hash, &probe);
	while (i != HASH_NONE && memcmp(&census->files[i].key, key, sizeof(*key)))
		i = hash_next(&census->table, &probe);
	if (i == HASH_NONE) {
		array_reserve(&census->files, &census->capacity, census->count + 1, sizeof(*census->files));
		census->files[census->count] = (struct file_mappers){ *key, 0 };
		hash_add(&census->table, hash, census->count, file_hash, census->files);
		i = census->count++;
	}
	return i;
}

static void file_census_add(struct file_census *census, size_t g, const struct vma *v)
{
	if (!v->inode)
		return;
	struct file_key key = { v->dev_major, v->dev_minor, v->inode };
	/* a file's VMAs mostly come together (a library's four): the last
	 * one's file, then the one its path last named, before the hash */
	size_t i = census->last;
	if (!census->count || memcmp(&census->files[i].key, &key, sizeof(key))) {
		size_t slot = (size_t)(hash_u64((uint64_t)(uintptr_t)v->path) & (PATH_SLOTS - 1));
		i = census->by_path[slot].file;
		if (!census->by_path[slot].path || census->by_path[slot].path != v->path ||
		    memcmp(&census->files[i].key, &key, sizeof(key))) {
			i = census_find(census, &key);
			census->by_path[slot].path = v->path;
			census->by_path[slot].file = i;
		}
	}
	census->files[i].mappers++;
	census->file_of[g] = (uint32_t)i;
	census->last = i;
}

/* One pass over the VMAs counts every level (each VMA read once): the PTE
 * level's needs, above it the windows spanned (all) and the windows of
 * VMAs inside one (one), and the VMAs of each file (census). */
static void count_process_levels(const struct model_context *c, const struct process *p, struct pte_level *pte,
				 struct span_count *all, struct span_count *one, struct file_census *census)
{
	const struct geometry *g = c->geometry;
	unsigned shift = c->pte_shift;
	uint64_t per_window = (uint64_t)1 << (shift - 12);
	size_t first_vma = (size_t)(p->vmas - c->snapshot->vmas);
	for (size_t v = 0; v < p->vma_count; v++) {
		const struct vma *vma = &p->vmas[v];
		file_census_add(census, first_vma + v, vma);
		uint64_t pages = pte_mapped_pages(vma);
		if (!pages || vma->end <= vma->start)
			continue;
		pte_level_add(pte, pages, per_window, vma->start >> shift, (vma->end - 1) >> shift);
		for (unsigned l = 1; l < g->level_count; l++) {
			if (!g->levels[l].counted)
				continue;
			unsigned s = g->levels[l].shift;
			uint64_t first = vma->start >> s, last = (vma->end - 1) >> s;
			span_add(&all[l], first, last);
			if (first == last)
				span_add(&one[l], first, last);
		}
	}
}

static void estimate_process_tables(struct model_context *c, const struct process *p,
				    struct estimate *e, uint64_t *upper_at_least, struct file_census *census)
{
	const struct geometry *g = c->geometry;
	struct pte_level pte = { 0 };
	struct span_count all[MODEL_MAX_LEVELS] = { 0 }, one[MODEL_MAX_LEVELS] = { 0 };
	count_process_levels(c, p, &pte, all, one, census);
	double lower = (double)(pte.single.windows + pte.lower_large);
	if (lower < (double)pte.largest_need)
		lower = (double)pte.largest_need;
	double upper_pages = (double)pte.upper.windows;
	double point = (double)pte.single.windows + pte.point_large;
	point = point < lower ? lower : point > upper_pages ? upper_pages : point;
	/* higher levels: windows spanned (upper, point), windows of VMAs inside one (lower) */
	for (unsigned l = 1; l < g->level_count; l++) {
		if (!g->levels[l].counted)
			continue;
		uint64_t at_least = one[l].windows ? one[l].windows : (all[l].windows ? 1 : 0);
		lower += (double)at_least;
		*upper_at_least += at_least;
		point += (double)all[l].windows;
		upper_pages += (double)all[l].windows;
	}
	e->lower = lower * MODEL_PAGE_BYTES;
	e->point = point * MODEL_PAGE_BYTES;
	e->upper = upper_pages * MODEL_PAGE_BYTES;
	e->method = model_pagetable_method;
}

/* ---- pte_chain bytes from smaps (section 6) ---- */

struct vma_pages {
	double rss, shared, anon;       /* pages */
	double inverse_low, inverse_high; /* Σ 1/m over shared pages: Pss is truncated to 1 kB */
	double drift;                   /* pages smaps and pagemap disagree on */
	uint64_t m_max;
};

/* Bounds of the shared pages' charge when `pages` in [low, high] pages with
 * Σ 1/m in [inverse_low, inverse_high] are charged.  Lists charge s1 per
 * mapping.  Arrays charge ceil(m/N)·L1/m per mapping, which lies between
 * L1·max(1/N, 1/m) and L1·(1/N + (1 - 1/N)/m), and never above L1/2. */
static void shared_bounds(const struct rmap_profile *profile, double low, double high,
			  double inverse_low, double inverse_high, double *lower, double *upper)
{
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	double n = profile->nrpte, line = profile->cache_line_bytes;
	switch (rule->layout) {
	case CHAIN_LIST:
		*lower = low * profile->pte_chain_bytes;
		*upper = high * profile->pte_chain_bytes;
		return;
	case CHAIN_ARRAY:
		*lower = line * (low / n > inverse_low ? low / n : inverse_low);
		*upper = line * (high / n + (1 - 1 / n) * inverse_high);
		if (*upper > high * line / 2)
			*upper = high * line / 2;
		return;
	case CHAIN_NONE:
		break;
	}
	*lower = *upper = 0;
}

static double clamp(double x, double low, double high)
{
	return x < low ? low : x > high ? high : x;
}

/* What a VMA adds to a design's estimate: the point, the lower and the upper bound. */
struct chain_addends {
	double point, lower, upper;
};

/* Which kinds of page a design charges per page (the rest go through
 * objects): both, anonymous only, file only, or neither. */
enum charged_kind { CHARGED_BOTH, CHARGED_ANON, CHARGED_FILE, CHARGED_NONE, CHARGED_KINDS };

/* What of a design's pricing depends on the design alone, worked out once
 * per run rather than once per VMA shape. */
struct design_prices {
	const struct rmap_profile *profile;
	enum charged_kind kind;
	double single_anon, single_file; /* C(1) of each kind */
	double single, widest;          /* C(1) and the largest per-mapping charge, of the charged kind */
	size_t alike;                   /* the first design whose addends are its own */
	size_t own_index;               /* ... its place in the shape table's own designs */
};

/* A VMA's charged pages for one charged_kind: the shared pages (low,
 * high), their Σ 1/m, and the private pages. */
struct charged_pages {
	double low, high, inverse_low, inverse_high, private_low, private_high;
};

/* What of a VMA shape's pricing is the same for every design. */
struct shape_parts {
	double anon_point, private_pages, private_anon;
	uint64_t m;                     /* the harmonic mean m of the shared pages */
	struct charged_pages charged[CHARGED_KINDS];
};

/* The charged kind's share of the pages and of Σ 1/m when a design charges
 * one kind: each page of the other kind adds at most 1/2 to Σ 1/m. */
static struct charged_pages charged_one_kind(const struct vma_pages *vp, bool charge_anon, double anon_low,
					     double anon_high, double private_pages)
{
	struct charged_pages k;
	k.low = charge_anon ? anon_low : vp->shared - anon_high;
	k.high = charge_anon ? anon_high : vp->shared - anon_low;
	k.inverse_low = clamp(vp->inverse_low - (vp->shared - k.low) / 2, 0, vp->inverse_low);
	k.inverse_high = clamp(vp->inverse_high, 0, k.high / 2);
	double private_charged_low = charge_anon ? vp->anon - anon_high : private_pages - (vp->anon - anon_low);
	double private_charged_high = charge_anon ? vp->anon - anon_low : private_pages - (vp->anon - anon_high);
	k.private_low = clamp(private_charged_low, 0, private_pages);
	k.private_high = clamp(private_charged_high, 0, private_pages);
	return k;
}

static void shape_parts(const struct vma_pages *vp, struct shape_parts *parts)
{
	/* shared anonymous pages: as many as Anonymous allows */
	double anon_low = clamp(vp->shared - (vp->rss - vp->anon), 0, vp->shared);
	double anon_high = clamp(vp->anon, 0, vp->shared);
	parts->anon_point = vp->rss > 0 ? vp->shared * vp->anon / vp->rss : 0;
	parts->private_pages = vp->rss - vp->shared;
	double mean = vp->inverse_low > 0 ? vp->shared / vp->inverse_low : 2;
	parts->m = (uint64_t)llround(clamp(mean, 2, (double)vp->m_max));
	parts->private_anon = clamp(vp->anon - parts->anon_point, 0, parts->private_pages);
	parts->charged[CHARGED_BOTH] = (struct charged_pages){ vp->shared, vp->shared, vp->inverse_low,
							       vp->inverse_high, parts->private_pages,
							       parts->private_pages };
	parts->charged[CHARGED_ANON] = charged_one_kind(vp, true, anon_low, anon_high, parts->private_pages);
	parts->charged[CHARGED_FILE] = charged_one_kind(vp, false, anon_low, anon_high, parts->private_pages);
	parts->charged[CHARGED_NONE] = (struct charged_pages){ 0, 0, vp->inverse_low, vp->inverse_high, 0, 0 };
}

static struct chain_addends vma_chain_addends(const struct design_prices *dp, const struct vma_pages *vp,
					      const struct shape_parts *parts)
{
	const struct rmap_profile *profile = dp->profile;
	/* point: the harmonic mean m of the VMA's shared pages */
	uint64_t m = parts->m;
	double point_anon = (double)rmap_page_cost(profile, m, true) / (double)m;
	double point_file = (double)rmap_page_cost(profile, m, false) / (double)m;
	double point = parts->anon_point * point_anon + (vp->shared - parts->anon_point) * point_file +
		parts->private_anon * dp->single_anon + (parts->private_pages - parts->private_anon) * dp->single_file;

	/* bounds: the pages of the kinds the design charges per page */
	const struct charged_pages *k = &parts->charged[dp->kind];
	double lower, upper;
	shared_bounds(profile, k->low, k->high, k->inverse_low, k->inverse_high, &lower, &upper);
	/* a private page (m = 1) costs C(1), the same for either kind when charged */
	lower += k->private_low * dp->single;
	upper += k->private_high * dp->single;
	/* smaps and pagemap were read moments apart: every page they disagree
	 * on may cost up to the largest per-mapping charge either way */
	return (struct chain_addends){ clamp(point, lower, upper), clamp(lower - vp->drift * dp->widest, 0, lower),
				       upper + vp->drift * dp->widest };
}

/*
 * A VMA's addends depend on its vma_pages alone, and a host of alike
 * processes has few distinct ones (at most 24,817 of 443,801 VMAs on the
 * generated 4000-process snapshot): a table of SHAPE_SLOTS slots keeps, in each, the
 * last vma_pages hashed there and every design's addends for it.  They are
 * still added VMA by VMA, in order, so the sums are the same bits.
 */
#define SHAPE_SLOTS 2048

struct shape_table {
	struct vma_pages *keys;
	bool *used;
	uint32_t *generation;           /* per slot: how often its addends were worked out */
	struct chain_addends *addends;  /* per slot, own_count each */
	struct design_prices *designs;
	size_t *own, own_count;         /* the designs whose addends are their own */
	struct source_memo *memo;       /* SOURCE_SLOTS of them */
};

/*
 * A VMA's shape follows from its counters, its m_max and its drift alone,
 * and counters are interned (inputs/arena.c): VMAs with the same counters
 * hold the same pointer.  So a second cache, keyed by the counters'
 * pointer and fields, m_max and drift, and read before any counter is,
 * names the shape slot the VMA's addends are in; the slot's generation
 * tells whether they are still there (it would take 2^32 VMAs worked out
 * in one slot to wrap it).
 */
#define SOURCE_SLOTS 4096

struct source_memo {
	const uint64_t *counters;
	uint64_t m_max, drift_bits;
	uint32_t fields;
	uint32_t generation;            /* the shape slot's, when this was kept */
	int32_t shape;                  /* the shape slot; -1: the VMA adds nothing */
	bool used;
};

/* vma_chain_addends reads of a design its family and the sizes of its
 * chains alone: designs alike in those (an i386 and an x86_64 one of the
 * full object rmap, say) take the first one's addends. */
static struct design_prices *design_prices(const struct model_result *r)
{
	struct design_prices *prices = xcalloc(r->design_count + 1, sizeof(*prices));
	for (size_t d = 0; d < r->design_count; d++) {
		const struct rmap_profile *x = r->designs[d].profile;
		const struct rmap_family_rule *rule = &rmap_families[x->family];
		struct design_prices *dp = &prices[d];
		bool charge_anon = !rule->anon_by_object, charge_file = !rule->file_by_object;
		dp->profile = x;
		dp->kind = charge_anon ? (charge_file ? CHARGED_BOTH : CHARGED_ANON)
				       : (charge_file ? CHARGED_FILE : CHARGED_NONE);
		dp->single_anon = (double)rmap_page_cost(x, 1, true);
		dp->single_file = (double)rmap_page_cost(x, 1, false);
		dp->single = (double)rmap_page_cost(x, 1, charge_anon);
		dp->widest = (double)rmap_page_cost(x, 2, charge_anon) / 2;
		if (dp->widest < dp->single)
			dp->widest = dp->single;
		dp->alike = d;
		for (size_t e = 0; e < d && dp->alike == d; e++) {
			const struct rmap_profile *y = r->designs[e].profile;
			if (x->family == y->family && x->pte_chain_bytes == y->pte_chain_bytes &&
			    x->nrpte == y->nrpte && x->cache_line_bytes == y->cache_line_bytes)
				dp->alike = e;
		}
	}
	return prices;
}

uint64_t model_estimate_table_bytes(uint64_t designs)
{
	return SHAPE_SLOTS * (sizeof(struct vma_pages) + sizeof(bool) + sizeof(uint32_t) + designs * sizeof(struct chain_addends)) +
	       SOURCE_SLOTS * sizeof(struct source_memo) + sizeof(struct file_census);
}

static const struct chain_addends *shape_addends(struct shape_table *t, const struct vma_pages *vp, size_t *slot_out)
{
	/* one multiply a word, each by its own odd constant, the products
	 * apart (no chain of multiplies), one finaliser: a cache, so a poor
	 * spread costs recomputing, never a wrong addend */
	static const uint64_t odd[] = { UINT64_C(0x9e3779b97f4a7c15), UINT64_C(0xc2b2ae3d27d4eb4f),
					UINT64_C(0x165667b19e3779f9), UINT64_C(0xd6e8feb86659fd93),
					UINT64_C(0xff51afd7ed558ccd), UINT64_C(0xc4ceb9fe1a85ec53),
					UINT64_C(0x94d049bb133111eb) };
	uint64_t words[sizeof(*vp) / sizeof(uint64_t)], hash = 0;
	_Static_assert(sizeof(words) / sizeof(words[0]) == sizeof(odd) / sizeof(odd[0]), "a constant a word");
	memcpy(words, vp, sizeof(words));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		hash += words[i] * odd[i];
	size_t slot = hash_u64(hash) & (SHAPE_SLOTS - 1);
	struct chain_addends *a = &t->addends[slot * t->own_count];
	if (!t->used[slot] || memcmp(&t->keys[slot], vp, sizeof(*vp))) {
		/* what every design shares is worked out once for the shape */
		struct shape_parts parts;
		shape_parts(vp, &parts);
		for (size_t j = 0; j < t->own_count; j++)
			a[j] = vma_chain_addends(&t->designs[t->own[j]], vp, &parts);
		t->keys[slot] = *vp;
		t->used[slot] = true;
		t->generation[slot]++;
	}
	*slot_out = slot;
	return a;
}

/* What a VMA of a file mapped by m_max VMAs at most gives the estimate,
 * as vma_pages; false when it adds nothing (no page, no drift). */
static bool vma_pages_of(const struct vma *v, double drift, uint64_t m_max, struct vma_pages *vp)
{
	*vp = (struct vma_pages){
		.rss = (double)vma_kb(v, SMAPS_RSS) / KB_PER_PAGE,
		.shared = (double)(vma_kb(v, SMAPS_SHARED_CLEAN) + vma_kb(v, SMAPS_SHARED_DIRTY)) / KB_PER_PAGE,
		.anon = (double)vma_kb(v, SMAPS_ANONYMOUS) / KB_PER_PAGE,
		.drift = drift,
		.m_max = m_max,
	};
	if (vp->rss <= 0 && vp->drift <= 0)
		return false;
	uint64_t private_kb = vma_kb(v, SMAPS_PRIVATE_CLEAN) + vma_kb(v, SMAPS_PRIVATE_DIRTY);
	vp->inverse_low = vma_kb(v, SMAPS_PSS) > private_kb
		? (double)(vma_kb(v, SMAPS_PSS) - private_kb) / KB_PER_PAGE : 0;
	vp->inverse_high = clamp(vp->inverse_low + 1.0 / KB_PER_PAGE, 0, vp->shared / 2);
	return true;
}

/* A VMA's addends, every own design (NULL: it adds nothing): through the
 * source memo when its counters were seen with the same m_max and drift. */
static const struct chain_addends *vma_addends(struct shape_table *t, const struct vma *v, double drift,
					       uint64_t m_max)
{
	uint64_t drift_bits;
	memcpy(&drift_bits, &drift, sizeof(drift_bits));
	uint64_t hash = hash_u64((uint64_t)(uintptr_t)v->counters * UINT64_C(0x9e3779b97f4a7c15) +
				 v->counter_fields * UINT64_C(0xc2b2ae3d27d4eb4f) + m_max * UINT64_C(0x165667b19e3779f9) +
				 drift_bits);
	struct source_memo *m = &t->memo[hash & (SOURCE_SLOTS - 1)];
	if (m->used && m->counters == v->counters && m->fields == v->counter_fields && m->m_max == m_max &&
	    m->drift_bits == drift_bits) {
		if (m->shape < 0)
			return NULL;
		if (t->generation[m->shape] == m->generation)
			return &t->addends[(size_t)m->shape * t->own_count];
	}
	*m = (struct source_memo){ v->counters, m_max, drift_bits, v->counter_fields, 0, -1, true };
	struct vma_pages vp;
	if (!vma_pages_of(v, drift, m_max, &vp))
		return NULL;
	size_t slot;
	const struct chain_addends *a = shape_addends(t, &vp, &slot);
	m->shape = (int32_t)slot;
	m->generation = t->generation[slot];
	return a;
}

/* Per VMA, how many pages smaps and the records disagree on: resident
 * pages, and pages mapped more than once (pagemap read after smaps). */
struct vma_counts {
	double present, shared;
};

static void visit_drift(struct model_context *c, const struct segment *seg, void *data)
{
	struct vma_counts *counts = data;
	if (!seg->vma)
		return;
	counts[seg->vma - c->snapshot->vmas].present += (double)seg->figures->with_pfn;
	counts[seg->vma - c->snapshot->vmas].shared += (double)seg->figures->shared;
}

/* Per VMA, its drift; NULL when the records carry no PFNs (none is
 * measured: every drift is 0, and arrays of zeros would only be faulted in
 * to be read). */
static double *measure_drift(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	if (!c->result->has_pfns)
		return NULL;
	double *drift = xcalloc(s->vma_count + 1, sizeof(*drift));
	struct vma_counts *counts = xcalloc(s->vma_count + 1, sizeof(*counts));
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		if (!p->has_pagemap)
			continue;
		/* a run's counts at once: sums of whole numbers below 2^53, exact */
		model_walk_segment_runs(c, i, false, visit_drift, counts);
		for (size_t v = 0; v < p->vma_count; v++) {
			const struct vma *vma = &p->vmas[v];
			size_t g = (size_t)(vma - s->vmas);
			double rss = (double)vma_kb(vma, SMAPS_RSS) / KB_PER_PAGE;
			double smaps_shared = (double)(vma_kb(vma, SMAPS_SHARED_CLEAN) + vma_kb(vma, SMAPS_SHARED_DIRTY)) / KB_PER_PAGE;
			drift[g] = fabs(rss - counts[g].present) + fabs(smaps_shared - counts[g].shared);
			c->result->smaps_drift_pages += (uint64_t)drift[g];
		}
	}
	free(counts);
	return drift;
}

/* sums[j] += addends[j] for n designs, two designs a step: six doubles
 * apart from each other, which the compiler adds two at a time. */
static void add_addends(struct chain_addends *restrict sums, const struct chain_addends *restrict addends, size_t n)
{
	size_t j = 0;
	for (; j + 2 <= n; j += 2) {
		sums[j].point += addends[j].point;
		sums[j].lower += addends[j].lower;
		sums[j].upper += addends[j].upper;
		sums[j + 1].point += addends[j + 1].point;
		sums[j + 1].lower += addends[j + 1].lower;
		sums[j + 1].upper += addends[j + 1].upper;
	}
	for (; j < n; j++) {
		sums[j].point += addends[j].point;
		sums[j].lower += addends[j].lower;
		sums[j].upper += addends[j].upper;
	}
}

static void estimate_chains(struct model_context *c, const struct file_census *census)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	const struct file_mappers *files = census->files;
	const uint32_t *file_of = census->file_of;
	for (size_t d = 0; d < r->design_count; d++)
		r->designs[d].pte_chain_estimate.method = model_pte_chain_method;
	double *drift = measure_drift(c);
	struct shape_table shapes = { xcalloc(SHAPE_SLOTS, sizeof(*shapes.keys)), xcalloc(SHAPE_SLOTS, sizeof(*shapes.used)),
				      xcalloc(SHAPE_SLOTS, sizeof(*shapes.generation)),
				      xcalloc(SHAPE_SLOTS * r->design_count + 1, sizeof(*shapes.addends)),
				      design_prices(r), xcalloc(r->design_count + 1, sizeof(*shapes.own)), 0,
				      xcalloc(SOURCE_SLOTS, sizeof(*shapes.memo)) };
	for (size_t d = 0; d < r->design_count; d++) {
		if (shapes.designs[d].alike == d)
			shapes.own[shapes.own_count++] = d;
		shapes.designs[d].own_index = shapes.designs[shapes.designs[d].alike].own_index;
		if (shapes.designs[d].alike == d)
			shapes.designs[d].own_index = shapes.own_count - 1;
	}
	/* the own designs' sums only, in one array: an alike design's addends
	 * are the same VMA by VMA, so its sums are the same bits */
	struct chain_addends *sums = xcalloc(shapes.own_count + 1, sizeof(*sums));
	for (size_t g = 0; g < s->vma_count; g++) {
		const struct vma *v = &s->vmas[g];
		model_prefetch_vma(s->vmas, s->vma_count, g, MODEL_VMAS_AHEAD);
		/* anonymous pages are mapped at most once per process; file pages at
		 * most once per VMA of the file */
		uint64_t m_max = s->process_count;
		if (v->inode && files[file_of[g]].mappers > m_max)
			m_max = files[file_of[g]].mappers;
		const struct chain_addends *a = vma_addends(&shapes, v, drift ? drift[g] : 0, m_max);
		if (a)
			add_addends(sums, a, shapes.own_count);
	}
	/* every estimate started at zero, as the sums did */
	for (size_t d = 0; d < r->design_count; d++) {
		const struct chain_addends *sum = &sums[shapes.designs[d].own_index];
		r->designs[d].pte_chain_estimate.point = sum->point;
		r->designs[d].pte_chain_estimate.lower = sum->lower;
		r->designs[d].pte_chain_estimate.upper = sum->upper;
	}
	FREE_ALL(shapes.keys, shapes.used, shapes.generation, shapes.addends, shapes.designs, shapes.own, shapes.memo, sums);
	free(drift);
}

static struct file_census *census_new(const struct snapshot *s)
{
	struct file_census *census = xcalloc(1, sizeof(*census));
	census->file_of = xcalloc(s->vma_count + 1, sizeof(*census->file_of));
	return census;
}

/* Process i's page tables from smaps, and its VMAs counted in the files'
 * census: called for each process in order, while the first walk has its
 * VMAs in the cache (model.c sum_vmas), before model_estimate. */
void model_estimate_process(struct model_context *c, size_t i)
{
	if (!c->census)
		c->census = census_new(c->snapshot);
	struct model_process *mp = &c->result->process_figures[i];
	estimate_process_tables(c, &c->snapshot->processes[i], &mp->pagetable_estimate, &mp->upper_pages_at_least,
			       c->census);
}

void model_estimate(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	r->pagetable_estimate.method = model_pagetable_method;
	r->pagetable_whole.method = model_pagetable_whole_method;
	struct file_census *census = c->census ? c->census : census_new(s);   /* none: no process */
	c->census = NULL;
	for (size_t i = 0; i < s->process_count; i++) {
		struct model_process *mp = &r->process_figures[i];
		const struct estimate *e = &mp->pagetable_estimate;
		r->pagetable_estimate.point += e->point;
		r->pagetable_estimate.lower += e->lower;
		r->pagetable_estimate.upper += e->upper;
		/* the whole: what is known of each process, the kernel's VmPTE
		 * before any estimate */
		struct estimate known = *e;
		if (mp->exact)
			known.point = known.lower = known.upper = (double)mp->pagetable_bytes;
		else if (mp->has_vmpte)
			known.point = known.lower = known.upper = (double)mp->vmpte_bytes;
		r->pagetable_whole.point += known.point;
		r->pagetable_whole.lower += known.lower;
		r->pagetable_whole.upper += known.upper;
	}
	estimate_chains(c, census);
	hash_free(&census->table);
	FREE_ALL(census->files, census->file_of, census);
}
