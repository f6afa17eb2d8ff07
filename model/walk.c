/*
 * model/walk.c - the bottom of the model: the PFN table, the figures of each
 * distinct chunk content, which PTE windows PMD leaves map, and the walk
 * over a process's segments that the rules (estimate.c, fork.c, objrmap.c,
 * sharing.c, reclaim.c, hugepages.c) call back.  It calls none of them:
 * model.c, the driver, prepares the walk, runs the rules, and frees it.
 *
 * Records are read once per distinct chunk content, never once per mapping
 * (model_internal.h): a snapshot of a thousand processes over one segment
 * costs what one of them costs, plus a few words per process and chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* ---- the PFN table's pages (model/pfn_table.c builds it) ---- */

uint64_t pfn_mapcount(const struct pfn_run *e)
{
	return e->mapcount > e->records ? e->mapcount : e->records;
}

bool pfn_is_zero_page(const struct pfn_run *e)
{
	return e->zero_page;
}

bool record_is_anonymous(uint64_t entry_word, const struct pfn_run *pfn)
{
	if (!(entry_word & PAGEMAP_FILE_OR_SHARED))
		return true;
	return pfn && pfn->kpage_anon;
}

static bool record_present(const struct pagemap_record *r)
{
	return r->entry & PAGEMAP_PRESENT;
}

static uint64_t record_pfn(const struct pagemap_record *r)
{
	return r->entry & PAGEMAP_PFN_MASK;
}

/* ---- contents and segments ---- */

const struct pagemap_extent *segment_extent(const struct model_context *c, const struct segment *seg)
{
	return seg->extent ? seg->extent : pagemap_content_extent(c->snapshot, seg->content, seg->first);
}

uint64_t segment_first_offset(const struct model_context *c, const struct segment *seg)
{
	const struct pagemap_extent *e = segment_extent(c, seg);
	return e->offset + (uint64_t)(seg->first - e->rank) * 4096;
}

void segment_cursor(const struct model_context *c, const struct segment *seg, struct content_cursor *cursor)
{
	content_cursor_from(cursor, seg->count ? segment_extent(c, seg) : NULL, seg->first, seg->first + seg->count);
}

const struct pfn_run *content_record_pfn(const struct model_context *c, uint32_t content, uint32_t k)
{
	const struct pagemap_content *pc = &c->snapshot->contents[content];
	if (pc->without_pfns)
		return NULL;    /* record_pfns is 0 there (pfn_table_number): not read */
	uint32_t index = c->record_pfns[pc->first + k];
	return index ? &c->pfns.runs[index - 1] : NULL;
}

unsigned chain_unit_bytes(const struct rmap_profile *profile)
{
	switch (rmap_families[profile->family].layout) {
	case CHAIN_LIST: return profile->pte_chain_bytes;
	case CHAIN_ARRAY: return profile->cache_line_bytes;
	case CHAIN_NONE: break;
	}
	return 0;
}

uint64_t chain_allocations(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	uint64_t before = rmap_page_cost(profile, m, anon), after = rmap_page_cost(profile, m + 1, anon);
	uint64_t unit = chain_unit_bytes(profile);
	return after > before && unit ? (after - before) / unit : 0;
}

/* A mapping of a page mapped m times that PG_direct holds: m = 1 in a
 * design with PG_direct, for a page its design keeps a per-page map of. */
static bool direct_mapping(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	return m == 1 && rule->direct && !(anon ? rule->anon_by_object : rule->file_by_object);
}

/* The bits of a record's entry figure_records reads besides its PFN. */
#define FIGURE_BITS (PAGEMAP_PRESENT | PAGEMAP_FILE_OR_SHARED | PAGEMAP_EXCLUSIVE)

/* One mapping of a page mapped m times under a design. */
static struct mapping_cost mapping_cost(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	/* C(m - 1), C(m), C(m + 1): a fork takes the page to m + 1
	 * mappings, an exit to m - 1 (chain_allocations, in one go) */
	uint64_t before = rmap_page_cost(profile, m - 1, anon), now = rmap_page_cost(profile, m, anon);
	uint64_t after = rmap_page_cost(profile, m + 1, anon), unit = chain_unit_bytes(profile);
	return (struct mapping_cost){ .allocations = after > now && unit ? (after - now) / unit : 0,
				      .frees = now > before && unit ? (now - before) / unit : 0,
				      .direct = direct_mapping(profile, m, anon), .now = now,
				      .charge = m ? (double)now / (double)m : 0 };
}

/* The pages mapped fewer than MAPPING_COSTS_M times (nearly all) look their
 * costs up in a table made once. */
#define MAPPING_COSTS_M 64

static void make_mapping_costs(struct model_context *c)
{
	size_t designs = c->result->design_count;
	c->mapping_costs = xcalloc(MAPPING_COSTS_M * 2 * designs + 1, sizeof(*c->mapping_costs));
	c->mapping_costs_high = xcalloc(MAPPING_COSTS_M * 2 * designs + 1, sizeof(*c->mapping_costs_high));
	c->mapping_costs_high_m = xcalloc(MAPPING_COSTS_M * 2, sizeof(*c->mapping_costs_high_m));
	for (uint64_t m = 0; m < MAPPING_COSTS_M; m++)
		for (int anon = 0; anon < 2; anon++)
			for (size_t d = 0; d < designs; d++)
				c->mapping_costs[(m * 2 + (uint64_t)anon) * designs + d] =
					mapping_cost(c->result->designs[d].profile, m, anon);
}

/* The costs of one mapping of a page mapped m times, every design: from
 * the table below MAPPING_COSTS_M, else from a second table of the last m
 * seen in each of its slots (a page mapped by a thousand processes is
 * priced once, not once per group of records). */
const struct mapping_cost *model_mapping_costs(struct model_context *c, uint64_t m, bool anon)
{
	size_t designs = c->result->design_count;
	if (m < MAPPING_COSTS_M)
		return &c->mapping_costs[(m * 2 + anon) * designs];
	size_t slot = (m % MAPPING_COSTS_M) * 2 + anon;
	struct mapping_cost *costs = &c->mapping_costs_high[slot * designs];
	if (c->mapping_costs_high_m[slot] != m) {
		for (size_t d = 0; d < designs; d++)
			costs[d] = mapping_cost(c->result->designs[d].profile, m, anon);
		c->mapping_costs_high_m[slot] = m;
	}
	return costs;
}

/* One mapping's charge, every design, added to bytes. */
static void add_charges(double *bytes, const struct mapping_cost *table, size_t designs)
{
	for (size_t d = 0; d < designs; d++)
		bytes[d] += table[d].charge;
}

/* n mappings, each of a page mapped m times (e its PFN run, NULL unknown),
 * every design at once, a loop per figure: the counts n at a time; each
 * design's charge added n times over, one record after another, as a sum
 * of doubles in record order gives the same bits whatever else is grouped. */
static void figure_mappings(struct model_context *c, const struct pfn_run *e, bool anon, uint64_t n,
			    struct record_figures *out)
{
	size_t designs = c->result->design_count;
	const struct mapping_cost *table = model_mapping_costs(c, e ? pfn_mapcount(e) : 1, anon);
	for (size_t d = 0; d < designs; d++) {
		out->chain_allocations[d] += n * table[d].allocations;
		out->chain_frees[d] += n * table[d].frees;
		out->direct_pages[d] += n * table[d].direct;
	}
	if (!e)
		return;
	for (uint64_t i = 0; i < n; i++)
		add_charges(out->chain_bytes, table, designs);
	for (uint64_t i = 0; anon && i < n; i++)
		add_charges(out->chain_bytes_anon, table, designs);
}

/* The per-design counts of `mapped` mappings of pages without a PFN, `anon`
 * of them anonymous, as figure_group gives them (added to out's arrays). */
void model_figure_without_pfns(struct model_context *c, uint64_t mapped, uint64_t anon, struct record_figures *out)
{
	figure_mappings(c, NULL, true, anon, out);
	figure_mappings(c, NULL, false, mapped - anon, out);
}

/* n records with one entry's bits and one PFN run e (NULL: none known). */
static void figure_group(struct model_context *c, uint64_t entry, const struct pfn_run *e, uint64_t n,
			 struct record_figures *out)
{
	if (!(entry & PAGEMAP_PRESENT)) {
		out->swap += n;
		return;
	}
	if (e && pfn_is_zero_page(e)) {
		out->zero_page += n;
		return;
	}
	bool anon = record_is_anonymous(entry, e);
	out->present += n;
	out->mapped += n;
	out->mapped_anon += anon ? n : 0;
	if (!(entry & PAGEMAP_FILE_OR_SHARED))
		out->shared_anon |= e && !(entry & PAGEMAP_EXCLUSIVE);
	out->with_pfn += e ? n : 0;
	out->shared += e && pfn_mapcount(e) >= 2 ? n : 0;
	if (out->chain_bytes)   /* NULL: the counts alone */
		figure_mappings(c, e, anon, n, out);
}

/* content_uniform: 0, or a content one group (UNIFORM_ONE); one without
 * a PFN also keeps the entry bits figure_group reads. */
enum { UNIFORM_ONE = 1, UNIFORM_NO_PFN = 2, UNIFORM_PRESENT = 4, UNIFORM_FILE = 8, UNIFORM_EXCLUSIVE = 16 };

static uint8_t uniform_kind(uint64_t entry, bool pfn)
{
	if (pfn)
		return UNIFORM_ONE;
	return UNIFORM_ONE | UNIFORM_NO_PFN | (entry & PAGEMAP_PRESENT ? UNIFORM_PRESENT : 0) |
	       (entry & PAGEMAP_FILE_OR_SHARED ? UNIFORM_FILE : 0) | (entry & PAGEMAP_EXCLUSIVE ? UNIFORM_EXCLUSIVE : 0);
}

static uint64_t uniform_entry(uint8_t kind)
{
	return (kind & UNIFORM_PRESENT ? PAGEMAP_PRESENT : 0) | (kind & UNIFORM_FILE ? PAGEMAP_FILE_OR_SHARED : 0) |
	       (kind & UNIFORM_EXCLUSIVE ? PAGEMAP_EXCLUSIVE : 0);
}

/* A group being gathered: n records from one with `entry` and PFN run
 * `pfn` (index + 1, 0: none), figured when a record of other bits or
 * another run comes after it. */
struct open_group {
	uint64_t entry;
	uint32_t pfn, n, groups;
};

static void group_close(struct model_context *c, struct open_group *g, struct record_figures *out)
{
	if (g->n) {
		figure_group(c, g->entry, g->pfn ? &c->pfns.runs[g->pfn - 1] : NULL, g->n, out);
		g->groups++;
	}
}

static void group_add(struct model_context *c, struct open_group *g, uint64_t entry, uint32_t pfn, uint32_t n,
		      struct record_figures *out)
{
	if (g->n && g->pfn == pfn && !((g->entry ^ entry) & FIGURE_BITS)) {
		g->n += n;
		return;
	}
	group_close(c, g, out);
	*g = (struct open_group){ .entry = entry, .pfn = pfn, .n = n, .groups = g->groups };
}

/* Everything records [first, first + count) of a content give, every design
 * at once (added to out's per-design arrays: the caller zeroes them; from:
 * the extent holding record first, or NULL to find it), taken
 * in groups of consecutive records with the same PFN run and entry bits (a
 * run of PFNs, or records without one), which give the same; the groups
 * taken.  A content that is one group (content_uniform: records without
 * PFNs of one kind, as a capture without root makes) gives any part of it
 * from its first record, the rest unread.  The records are read from the
 * extents; in a content without PFNs (every record's run 0) an extent whose
 * entries all have the same bits (step 0, or step 1 with the same top byte
 * at both ends: the word only grows) is added at once. */
static uint32_t figure_records(struct model_context *c, uint32_t content, uint32_t first,
			       uint32_t count, const struct pagemap_extent *from, struct record_figures *out)
{
	const struct pagemap_content *pc = &c->snapshot->contents[content];
	const uint32_t *pfns = pc->without_pfns ? NULL : c->record_pfns + pc->first;
	/* the counts cleared, the per-design arrays kept, built in a local and
	 * stored whole: a struct literal stored in place gcc clears with `rep
	 * stos`, whose start-up cost was half of this function's time */
	struct record_figures cleared = { .chain_bytes = out->chain_bytes, .chain_bytes_anon = out->chain_bytes_anon,
					  .chain_allocations = out->chain_allocations, .chain_frees = out->chain_frees,
					  .direct_pages = out->direct_pages };
	*out = cleared;
	uint8_t uniform = c->content_uniform ? c->content_uniform[content] : 0;
	if (uniform && count) {
		/* one without PFNs reads no record: its bits are kept; one group
		 * has its first record's bits and PFN run throughout */
		if (uniform & UNIFORM_NO_PFN)
			figure_group(c, uniform_entry(uniform), NULL, count, out);
		else
			figure_group(c, pagemap_content_record(c->snapshot, content, 0).entry,
				     content_record_pfn(c, content, 0), count, out);
		return 1;
	}
	struct open_group g = { 0 };
	uint32_t end = first + count;
	const struct pagemap_extent *e = !count ? NULL : from ? from : pagemap_content_extent(c->snapshot, content, first);
	for (uint32_t at = e ? e->rank : end; at < end; at += e->length, e++) {
		uint32_t from = at < first ? first - at : 0, to = end - at < e->length ? end - at : e->length;
		uint64_t last = e->entry + (uint64_t)(to - 1) * e->step;
		if (!pfns && (!e->step || (e->entry >> 56) == (last >> 56))) {
			group_add(c, &g, e->entry + (uint64_t)from * e->step, 0, to - from, out);
			continue;
		}
		for (uint32_t i = from; i < to; i++)
			group_add(c, &g, e->entry + (uint64_t)i * e->step, pfns ? pfns[at + i] : 0, 1, out);
	}
	group_close(c, &g, out);
	return g.groups;
}

/* The VMA holding every record of the chunk at `base` (none is read), or
 * NULL; *v walks the process's VMAs in order. */
const struct vma *chunk_vma_from(const struct process *p, size_t *v, uint64_t base)
{
	while (*v < p->vma_count && p->vmas[*v].end <= base)
		(*v)++;
	if (*v < p->vma_count && p->vmas[*v].start <= base && p->vmas[*v].end - base >= PAGEMAP_CHUNK_BYTES)
		return &p->vmas[*v];
	return NULL;
}

/* The end of a segment of a chunk that no VMA holds whole (its first
 * record known): the records before the next VMA's start, or this VMA's
 * end (*vma, NULL outside every VMA); *v walks the process's VMAs in order. */
static uint32_t segment_end(const struct model_context *c, const struct process *p, size_t *v,
			    const struct segment *seg, const struct vma **vma)
{
	const struct pagemap_content *pc = &c->snapshot->contents[seg->content];
	const struct pagemap_extent *e = segment_extent(c, seg);
	uint64_t vaddr = seg->base + e->offset + (uint64_t)(seg->first - e->rank) * 4096;
	while (*v < p->vma_count && p->vmas[*v].end <= vaddr)
		(*v)++;
	*vma = *v < p->vma_count && p->vmas[*v].start <= vaddr ? &p->vmas[*v] : NULL;
	uint64_t limit = (*vma ? (*vma)->end : *v < p->vma_count ? p->vmas[*v].start : UINT64_MAX) - seg->base;
	/* the segment's first record lies below limit: count on from its extent */
	return pagemap_content_rank_from(e, pc->count, limit);
}

/* The VMA holding the whole chunk at `base`, the process's place-th in
 * walk order, or NULL: the first walk asks chunk_vma_from (the process's
 * VMAs scanned, a cache miss each) and keeps the answer, 4 bytes a chunk,
 * which later walks read in order. */
static const struct vma *whole_vma(struct model_context *c, const struct process *p, size_t *v, uint64_t base,
				   size_t place)
{
	uint32_t *kept = c->cuts.whole_vmas;
	if (kept && c->cuts.kept)
		return kept[place] ? &p->vmas[kept[place] - 1] : NULL;
	const struct vma *vma = chunk_vma_from(p, v, base);
	if (kept)
		kept[place] = vma ? (uint32_t)(vma - p->vmas + 1) : 0;
	return vma;
}

/* A segment of a chunk no VMA holds whole, as kept: the content's record
 * after its last, and its VMA (the process's index + 1, 0: outside every
 * VMA), 4 bytes. */
#define CUT_END_BITS 10
#define CUT(end, vma) ((uint32_t)(vma) << CUT_END_BITS | (uint32_t)(end))
#define CUT_VMAS ((size_t)1 << (32 - CUT_END_BITS))   /* a process with more keeps none */

/* The segment of a content's chunk that starts at record seg->first: its
 * end and VMA.  A chunk one VMA holds is one segment, no record read; in
 * the others the first walk (count_pfns) searches the records for each
 * segment's end and VMA and keeps them in c->cuts, which every later walk
 * reads instead of the records (up to 7 walks). */
static uint32_t next_segment(struct model_context *c, const struct process *p, size_t *v, const struct segment *seg,
			     uint32_t count, size_t place, const struct vma **vma)
{
	if (seg->first == 0 && (*vma = whole_vma(c, p, v, seg->base, place)))
		return count;
	struct cut_segments *cuts = &c->cuts;
	bool keep = p->vma_count < CUT_VMAS && c->cuts.first;
	if (cuts->kept && keep) {
		uint32_t cut = cuts->items[cuts->next++];
		*vma = cut >> CUT_END_BITS ? &p->vmas[(cut >> CUT_END_BITS) - 1] : NULL;
		return cut & ((1u << CUT_END_BITS) - 1);
	}
	uint32_t end = segment_end(c, p, v, seg, vma);
	if (!cuts->kept && keep)
		*ARRAY_PUSH(cuts->items, cuts->count, cuts->capacity) = CUT(end, *vma ? *vma - p->vmas + 1 : 0);
	return end;
}

/* What a walk gives its segments: no figures (before the contents' exist),
 * a cut part's counts alone (its per-design arrays NULL), or every figure. */
/* What a walk gives its segments: no figures; whole ones' only (a cut
 * part's NULL, model_segment_counts on demand); counts; every design's. */
enum walk_figures { WALK_BARE, WALK_WHOLE, WALK_COUNTS, WALK_DESIGNS };

/* ---- runs of whole chunks: summed once per distinct run ---- */

/* A run of whole chunks (consecutive contents of one pagemap run, every
 * one held whole by one VMA) that many processes reference is summed once:
 * its contents' counts and per-design counts, whether one of them is
 * PMD-mapped by its records, and per design whether one has a pte_chain
 * charge.  The charges, doubles, are not summed: a visit adds them content
 * by content, in order, as it always did (model_run_add_charges), skips a
 * design whose charges are all 0, as adding +0 changes no bit, and keeps
 * what the adds made of the sums it came with: the next process that comes
 * with the same sums (the same bits) takes the result, which the same adds
 * would give.  A table of RUN_SLOTS, the last run hashed to each: its
 * memory does not grow with the processes or the chunks. */
#define RUN_SLOTS 256
#define CUT_SLOTS 256           /* cut parts' figures (cut_figures) */
#define RUN_MIN 2               /* shorter: the contents' own figures */

static enum pmd_kind content_pmd_kind(struct model_context *c, uint32_t content);
static uint64_t override_window(const void *override);

/* Per design: whether a content's pte_chain charge is not 0, and for the
 * charges alone [0] and the anonymous pages' and the others' apart [1], the
 * last sums a visit came with and what the adds made of them. */
struct run_charges {
	bool charged, kept[2];
	double in[2][2], out[2][2];
};

struct run_entry {
	uint32_t content, chunks;       /* chunks 0: an empty slot */
	bool pmd_none;                  /* no content PMD-mapped by its records */
	struct record_figures figures;  /* chain_bytes, chain_bytes_anon NULL */
	struct run_charges *charges;    /* per design */
};

/* The runs' table, the two tables of mapping costs, the cut parts' table. */
uint64_t model_walk_run_bytes(uint64_t designs)
{
	return RUN_SLOTS * (sizeof(struct run_entry) + designs * (3 * sizeof(uint64_t) + sizeof(struct run_charges))) +
	       CUT_SLOTS * (sizeof(struct record_figures) + 12 + designs * (2 * sizeof(double) + 3 * sizeof(uint64_t))) +
	       2 * MAPPING_COSTS_M * (2 * designs * sizeof(struct mapping_cost) + sizeof(uint64_t));
}

static void runs_make(struct model_context *c)
{
	size_t designs = c->result->design_count;
	c->runs = xcalloc(RUN_SLOTS, sizeof(*c->runs));
	uint64_t *counts = xcalloc(RUN_SLOTS * 3 * designs + 1, sizeof(*counts));
	struct run_charges *charges = xcalloc(RUN_SLOTS * designs + 1, sizeof(*charges));
	for (size_t i = 0; i < RUN_SLOTS; i++) {
		c->runs[i].figures.chain_allocations = counts + i * 3 * designs;
		c->runs[i].figures.chain_frees = counts + i * 3 * designs + designs;
		c->runs[i].figures.direct_pages = counts + i * 3 * designs + 2 * designs;
		c->runs[i].charges = charges + i * designs;
	}
}

static void runs_free(struct model_context *c)
{
	if (c->runs) {
		free(c->runs[0].figures.chain_allocations);
		free(c->runs[0].charges);
	}
	free(c->runs);
	c->runs = NULL;
}

/* A content's counts added to sum's (the per-design arrays apart). */
static void add_counts(struct record_figures *sum, const struct record_figures *f)
{
	sum->present += f->present;
	sum->swap += f->swap;
	sum->zero_page += f->zero_page;
	sum->mapped += f->mapped;
	sum->mapped_anon += f->mapped_anon;
	sum->with_pfn += f->with_pfn;
	sum->shared += f->shared;
	sum->shared_anon |= f->shared_anon;
}

/* Where content id's per-design figures lie: per design two doubles and
 * three counts, each kind in its own stride of (contents + 1) x (designs +
 * 1) (figure_contents allocates them so; the last content is a spare). */
static size_t content_stride(const struct model_context *c)
{
	return (c->snapshot->content_count + 2) * (c->result->design_count + 1);
}

static void content_arrays(const struct model_context *c, size_t id, struct record_figures *f)
{
	size_t designs = c->result->design_count + 1, stride = content_stride(c);
	f->chain_bytes = c->content_bytes + id * designs;
	f->chain_bytes_anon = c->content_bytes + stride + id * designs;
	f->chain_allocations = c->content_counts + id * designs;
	f->chain_frees = c->content_counts + stride + id * designs;
	f->direct_pages = c->content_counts + 2 * stride + id * designs;
}

/* A content's figures made in *out: its counts, and its per-design arrays
 * (NULL without PFNs, as figure_contents leaves them unwritten). */
static const struct record_figures *content_figures(const struct model_context *c, uint32_t content,
						    struct record_figures *out)
{
	const struct content_totals *t = &c->content_totals[content];
	*out = (struct record_figures){ .present = t->present, .swap = t->swap, .zero_page = t->zero_page,
					.mapped = t->mapped, .mapped_anon = t->mapped_anon, .with_pfn = t->with_pfn,
					.shared = t->shared, .shared_anon = t->shared_anon };
	if (!c->snapshot->contents[content].without_pfns)
		content_arrays(c, content, out);
	return out;
}

static void run_add(struct model_context *c, struct run_entry *e, uint32_t content)
{
	struct record_figures one;
	const struct record_figures *f = content_figures(c, content, &one);
	struct record_figures *sum = &e->figures;
	add_counts(sum, f);
	if (!f->chain_allocations) {    /* a content without PFNs: no charge */
		model_figure_without_pfns(c, f->mapped, f->mapped_anon, sum);
		e->pmd_none &= content_pmd_kind(c, content) == PMD_NONE;
		return;
	}
	for (size_t d = 0; d < c->result->design_count; d++) {
		sum->chain_allocations[d] += f->chain_allocations[d];
		sum->chain_frees[d] += f->chain_frees[d];
		sum->direct_pages[d] += f->direct_pages[d];
		/* without a PFN run no byte was charged (the doubles are 0, not read) */
		e->charges[d].charged |= f->with_pfn && (f->chain_bytes[d] != 0 || f->chain_bytes_anon[d] != 0);
	}
	e->pmd_none &= content_pmd_kind(c, content) == PMD_NONE;
}

/* The run of `chunks` contents from `content`, summed (once while its slot
 * keeps it). */
static struct run_entry *run_figures(struct model_context *c, uint32_t content, uint32_t chunks)
{
	uint64_t key = ((uint64_t)content << 32 | chunks) * UINT64_C(0x9e3779b97f4a7c15);
	struct run_entry *e = &c->runs[key >> 55 & (RUN_SLOTS - 1)];
	if (e->chunks == chunks && e->content == content)
		return e;
	size_t designs = c->result->design_count;
	struct record_figures sum = { .chain_allocations = e->figures.chain_allocations,
				      .chain_frees = e->figures.chain_frees, .direct_pages = e->figures.direct_pages };
	memset(sum.chain_allocations, 0, 3 * designs * sizeof(uint64_t));
	memset(e->charges, 0, designs * sizeof(*e->charges));
	*e = (struct run_entry){ content, chunks, true, sum, e->charges };
	for (uint32_t k = 0; k < chunks; k++)
		run_add(c, e, content + k);
	return e;
}

/* A run segment's pte_chain charges under design d added to *bytes (all
 * its pages'; with anon, the anonymous pages' to *anon and the others' to
 * *bytes), content by content in order; or, when the sums come as the last
 * ones did, what those adds made of them. */
void model_run_add_charges(const struct model_context *c, const struct segment *seg, size_t d, double *bytes, double *anon)
{
	struct run_charges *r = &seg->run->charges[d];
	int kind = anon != NULL;
	double in[2] = { *bytes, anon ? *anon : 0 };
	if (!r->charged)
		return;         /* every charge is +0: no bit changes */
	if (r->kept[kind] && !memcmp(r->in[kind], in, sizeof(in))) {
		*bytes = r->out[kind][0];
		if (anon)
			*anon = r->out[kind][1];
		return;
	}
	for (uint32_t k = 0; k < seg->chunks; k++) {
		struct record_figures one;
		const struct record_figures *f = content_figures(c, seg->content + k, &one);
		if (!f->chain_bytes)
			continue;       /* without PFNs: its charges are +0, no bit changes */
		if (anon) {
			*anon += f->chain_bytes_anon[d];
			*bytes += f->chain_bytes[d] - f->chain_bytes_anon[d];
		} else {
			*bytes += f->chain_bytes[d];
		}
	}
	memcpy(r->in[kind], in, sizeof(in));
	r->out[kind][0] = *bytes;
	r->out[kind][1] = anon ? *anon : 0;
	r->kept[kind] = true;
}

static uint64_t range_end_key(const void *range)
{
	return ((const struct address_range *)range)->end;
}

/* Does the process say (PID/pmd_mapped) that no PMD maps anything in
 * [start, end)?  Then window_pmd_kind is PMD_NONE for every window there. */
bool model_range_pmd_none(const struct model_context *c, const struct process *p, uint64_t start, uint64_t end)
{
	if (!p->has_pmd_map || end <= start)   /* end 0: past the top, wrapped */
		return false;
	const struct address_range *ranges = c->snapshot->pmd_ranges + p->pmd_first;
	size_t i = array_lower_bound(ranges, p->pmd_count, sizeof(*ranges), range_end_key, start + 1);
	return i >= p->pmd_count || ranges[i].start >= end;
}

/* Is no window of [base, end) of the process PMD-mapped, by what it says
 * (PID/pmd_mapped) or by smaps' overrides and the records?  Then every
 * chunk's window_pmd_kind is PMD_NONE (PTE pages of one chunk only). */
static bool run_pmd_none(const struct model_context *c, const struct process *p, uint64_t base, uint64_t end,
			 bool records_pmd_none)
{
	const struct snapshot *s = c->snapshot;
	if (p->has_pmd_map)
		return model_range_pmd_none(c, p, base, end);
	if (!records_pmd_none)
		return false;
	if (!c->overrides)
		return true;
	size_t index = (size_t)(p - s->processes);
	const struct pmd_override *o = c->overrides + c->override_first[index];
	size_t low = array_lower_bound(o, c->override_count[index], sizeof(*o), override_window, base >> c->pte_shift);
	return low >= c->override_count[index] || o[low].window >= end >> c->pte_shift;
}

/* Is no window of chunks [chunk, chunk + chunks) of the process, holding
 * contents content .. (one pagemap run), PMD-mapped?  false: it may be. */
/* What the records of contents [content, content + chunks) say: no PMD
 * maps any (a run's pmd_none, without summing the run's figures into the
 * runs' table; with PID/pmd_mapped it is not read). */
static bool contents_pmd_none(struct model_context *c, const struct process *p, uint32_t content, uint64_t chunks)
{
	bool none = true;
	for (uint64_t k = 0; !p->has_pmd_map && none && k < chunks; k++)
		none = content_pmd_kind(c, content + (uint32_t)k) == PMD_NONE;
	return none;
}

bool model_walk_chunks_pmd_none(struct model_context *c, const struct process *p, uint32_t content, uint64_t chunk,
				uint64_t chunks)
{
	if (c->chunks_per_window_shift || !chunks || chunks > UINT32_MAX)
		return false;
	uint64_t base = chunk << PAGEMAP_CHUNK_SHIFT;
	return run_pmd_none(c, p, base, base + (chunks << PAGEMAP_CHUNK_SHIFT), contents_pmd_none(c, p, content, chunks));
}

/* Chunks [i, length) of pagemap run r from the one at `base`: how many
 * from i one VMA holds whole (*vma), as one segment, 0 when fewer than
 * RUN_MIN or a window of them may be PMD-mapped; *e their sums. */
static uint64_t whole_run(struct model_context *c, const struct process *p, size_t *v, const struct pagemap_run *run,
			  uint64_t i, size_t place, enum walk_figures figures, struct segment *seg)
{
	uint64_t base = (run->chunk + i) << PAGEMAP_CHUNK_SHIFT;
	if (run->length - i < RUN_MIN || c->chunks_per_window_shift || !(seg->vma = whole_vma(c, p, v, base, place)))
		return 0;
	uint64_t held = (seg->vma->end - base) >> PAGEMAP_CHUNK_SHIFT, left = run->length - i;
	uint64_t chunks = held < left ? held : left;
	uint32_t content = run->content + (uint32_t)i;
	if (chunks < RUN_MIN || chunks > UINT32_MAX)
		return 0;
	if (figures == WALK_DESIGNS) {
		seg->run = run_figures(c, content, (uint32_t)chunks);
		seg->figures = &seg->run->figures;
	}
	bool none = figures == WALK_DESIGNS ? seg->run->pmd_none : contents_pmd_none(c, p, content, chunks);
	if (!run_pmd_none(c, p, base, base + (chunks << PAGEMAP_CHUNK_SHIFT), none))
		return 0;
	if (figures != WALK_DESIGNS) {
		/* the counts alone, summed here: the runs' table (every design's
		 * sums, kept per run) is for the walk that reads them */
		c->run_counts = (struct record_figures){ 0 };
		for (uint32_t k = 0; k < chunks; k++)
			add_counts(&c->run_counts, content_figures(c, content + k, &c->whole_figures));
		seg->figures = &c->run_counts;
	}
	return chunks;
}

/* A cut part's figures, every design: records [first, first + count) of a
 * content, worked out as figure_records does, kept in a table of CUT_SLOTS
 * (the last part hashed to each), so the same part in many processes (a
 * library's edge in every process) is worked out once: the same figures,
 * the same bits. */
struct cut_entry {
	uint32_t content, first, count; /* count 0: an empty slot */
	struct record_figures figures;
};

static void cuts_make(struct model_context *c)
{
	size_t designs = c->result->design_count;
	c->cut_parts = xcalloc(CUT_SLOTS, sizeof(*c->cut_parts));
	double *bytes = xcalloc(CUT_SLOTS * 2 * designs + 1, sizeof(*bytes));
	uint64_t *counts = xcalloc(CUT_SLOTS * 3 * designs + 1, sizeof(*counts));
	for (size_t i = 0; i < CUT_SLOTS; i++) {
		struct record_figures *f = &c->cut_parts[i].figures;
		f->chain_bytes = bytes + i * 2 * designs;
		f->chain_bytes_anon = bytes + i * 2 * designs + designs;
		f->chain_allocations = counts + i * 3 * designs;
		f->chain_frees = counts + i * 3 * designs + designs;
		f->direct_pages = counts + i * 3 * designs + 2 * designs;
	}
}

static void cuts_free(struct model_context *c)
{
	if (c->cut_parts) {
		free(c->cut_parts[0].figures.chain_bytes);
		free(c->cut_parts[0].figures.chain_allocations);
	}
	free(c->cut_parts);
	c->cut_parts = NULL;
}

static const struct record_figures *cut_figures(struct model_context *c, uint32_t content, uint32_t first,
						 uint32_t count, const struct pagemap_extent *from)
{
	uint64_t key = ((uint64_t)content << 20 | (uint64_t)first << 10 | count) * UINT64_C(0x9e3779b97f4a7c15);
	struct cut_entry *e = &c->cut_parts[key >> 56 & (CUT_SLOTS - 1)];
	if (e->count != count || e->content != content || e->first != first) {
		size_t designs = c->result->design_count;
		memset(e->figures.chain_bytes, 0, designs * sizeof(double));
		memset(e->figures.chain_bytes_anon, 0, designs * sizeof(double));
		memset(e->figures.chain_allocations, 0, designs * sizeof(uint64_t));
		memset(e->figures.chain_frees, 0, designs * sizeof(uint64_t));
		memset(e->figures.direct_pages, 0, designs * sizeof(uint64_t));
		figure_records(c, content, first, count, from, &e->figures);
		e->content = content;
		e->first = first;
		e->count = count;
	}
	return &e->figures;
}

/* The segments of chunk `chunk` of a process, holding `content`. */
static void walk_chunk(struct model_context *c, size_t index, size_t *v, uint32_t content, uint64_t chunk,
		       size_t place, enum walk_figures figures, segment_visit visit, void *data)
{
	const struct process *p = &c->snapshot->processes[index];
	const struct pagemap_content *pc = &c->snapshot->contents[content];
	struct segment seg = { .process = index, .content = content, .base = chunk << PAGEMAP_CHUNK_SHIFT, .chunks = 1 };
	const struct pagemap_extent *e = c->snapshot->content_extents + pc->first_extent;
	for (uint32_t k = 0; k < pc->count;) {
		seg.first = k;
		/* segments ascend: the extents are walked once; the first holds
		 * record 0, so a chunk one VMA holds reads none (a cache miss) */
		while (k && e->rank + e->length <= k)
			e++;
		seg.extent = e;
		uint32_t end = next_segment(c, p, v, &seg, pc->count, place, &seg.vma);
		seg.count = end - k;
		seg.whole = k == 0 && end == pc->count;
		seg.figures = NULL;
		if (figures != WALK_BARE && seg.whole) {
			seg.figures = content_figures(c, content, &c->whole_figures);
		} else if (figures == WALK_DESIGNS) {
			seg.figures = cut_figures(c, content, k, end - k, e);
		} else if (figures == WALK_COUNTS) {
			figure_records(c, content, k, end - k, e, &c->scratch_counts);
			seg.figures = &c->scratch_counts;
		}
		visit(c, &seg, data);
		k = end;
	}
}

/* Every segment of a process in address order: with figures (the whole
 * content's, worked out once per content, or a cut part's) or without
 * (seg.figures NULL).  With runs, a run of whole chunks of one VMA that no
 * PMD maps is one segment (seg.chunks of them, whole_run). */
#define WALK_AHEAD 4
static void walk_process(struct model_context *c, size_t index, enum walk_figures figures, bool runs,
			 segment_visit visit, void *data)
{
	const struct process *p = &c->snapshot->processes[index];
	size_t v = 0, place = c->cuts.whole_first ? c->cuts.whole_first[index] : 0;
	if (c->cuts.first && c->cuts.kept)
		c->cuts.next = c->cuts.first[index];
	else if (c->cuts.first)
		c->cuts.first[index] = c->cuts.count;
	for (size_t r = 0; r < p->run_count; place += p->runs[r].length, r++) {
		const struct pagemap_run *run = &p->runs[r];
		/* runs of one chunk name contents far apart: each a cache miss,
		 * fetched a few runs ahead */
		if (r + WALK_AHEAD < p->run_count) {
			__builtin_prefetch(&c->snapshot->contents[p->runs[r + WALK_AHEAD].content]);
			if (figures != WALK_BARE)
				__builtin_prefetch(&c->content_totals[p->runs[r + WALK_AHEAD].content]);
		}
		for (uint64_t i = 0; i < run->length;) {
			struct segment seg = { .process = index, .content = run->content + (uint32_t)i, .whole = true,
					       .base = (run->chunk + i) << PAGEMAP_CHUNK_SHIFT };
			uint64_t chunks = runs ? whole_run(c, p, &v, run, i, place + i, figures, &seg) : 0;
			if (chunks) {
				seg.chunks = (uint32_t)chunks;
				seg.count = c->snapshot->contents[seg.content].count;
				visit(c, &seg, data);
				i += chunks;
				continue;
			}
			walk_chunk(c, index, &v, seg.content, run->chunk + i, place + i, figures, visit, data);
			i++;
		}
	}
}

/* Each chunk of a run segment as the walk without runs gives it: a whole
 * content, its own figures. */
void model_segment_chunks(struct model_context *c, const struct segment *run, segment_visit visit, void *data)
{
	struct segment seg = *run;
	seg.chunks = 1;
	seg.run = NULL;
	for (uint32_t k = 0; k < run->chunks; k++) {
		seg.content = run->content + k;
		seg.base = run->base + ((uint64_t)k << PAGEMAP_CHUNK_SHIFT);
		seg.count = c->snapshot->contents[seg.content].count;
		seg.figures = content_figures(c, seg.content, &c->whole_figures);
		visit(c, &seg, data);
	}
}

/* The last walk is over: what the walks kept is freed before the sharing
 * rules' tables are made (a walk after this searches the records). */
void model_walk_segments_end(struct model_context *c)
{
	FREE_ALL(c->cuts.items, c->cuts.first, c->cuts.whole_vmas, c->cuts.whole_first);
	c->cuts = (struct cut_segments){ 0 };
}

/* Every segment of a process: a chunk's records that fall in one VMA (the
 * whole content, figures worked out once per content, or where a VMA
 * boundary cuts the chunk a part, its per-design figures only when
 * `designs`), and a run of whole chunks of one VMA that no PMD maps as one
 * segment (seg.chunks > 1: its counts summed, its charges by
 * model_run_add_charges). */
void model_walk_segment_runs(struct model_context *c, size_t index, bool designs, segment_visit visit, void *data)
{
	walk_process(c, index, designs ? WALK_DESIGNS : WALK_COUNTS, true, visit, data);
}

void model_walk_segment_wholes(struct model_context *c, size_t index, segment_visit visit, void *data)
{
	walk_process(c, index, WALK_WHOLE, true, visit, data);
}

const struct record_figures *model_segment_counts(struct model_context *c, const struct segment *seg)
{
	if (seg->figures)
		return seg->figures;
	figure_records(c, seg->content, seg->first, seg->count, segment_extent(c, seg), &c->scratch_counts);
	return &c->scratch_counts;
}

/* ---- pass 1: the PFN table, once per distinct content ---- */

struct cut_list {
	uint64_t *keys;                 /* PFN_CUT_KEY */
	size_t count, capacity;
};

/* An exclusive anonymous page: a present record (the zero page's too) with
 * pagemap bit 61 clear and bit 56 set.  The three bits are in the entry's
 * top byte, the same at both ends of an extent of step 0 or of one whose
 * top byte does not change (the word only grows). */
#define EXCLUSIVE_BITS (PAGEMAP_PRESENT | PAGEMAP_FILE_OR_SHARED | PAGEMAP_EXCLUSIVE)
#define IS_EXCLUSIVE_ANON(entry) (((entry) & EXCLUSIVE_BITS) == (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE))

/* Does one of records [first, end) of a content, from e (the extent
 * holding record first), map an exclusive anonymous page? */
static bool records_exclusive_anon(const struct pagemap_extent *e, uint32_t first, uint32_t end)
{
	for (uint32_t at = e->rank; at < end; at += e->length, e++) {
		uint32_t from = at < first ? first - at : 0, to = end - at < e->length ? end - at : e->length;
		uint64_t head = e->entry + (uint64_t)from * e->step, last = e->entry + (uint64_t)(to - 1) * e->step;
		if ((head >> 56) == (last >> 56)) {
			if (IS_EXCLUSIVE_ANON(head))
				return true;
			continue;
		}
		for (uint32_t i = from; i < to; i++)
			if (IS_EXCLUSIVE_ANON(e->entry + (uint64_t)i * e->step))
				return true;
	}
	return false;
}

/* What the first walk gives later ones besides the cuts: the PFN cut
 * keys, and per content whether it maps an exclusive anonymous page
 * (0: not looked at yet, 1: no, 2: yes). */
struct first_walk {
	struct cut_list cuts;
	uint8_t *exclusive;
};

/* Does the segment map an exclusive anonymous page?  A part of a content
 * can only if the whole content does. */
static bool segment_exclusive_anon(struct model_context *c, const struct segment *seg, uint8_t *exclusive)
{
	const struct pagemap_content *pc = &c->snapshot->contents[seg->content];
	if (!exclusive[seg->content])
		exclusive[seg->content] = records_exclusive_anon(c->snapshot->content_extents + pc->first_extent, 0,
								  pc->count) ? 2 : 1;
	if (exclusive[seg->content] == 1 || seg->whole)
		return exclusive[seg->content] == 2;
	return records_exclusive_anon(seg->extent, seg->first, seg->first + seg->count);
}

/* A segment that starts inside its chunk breaks the PFN runs there; a
 * content without PFNs has none (collect_record_runs skips it): no key.
 * An exclusive anonymous page: only a VMA with an anon_vma maps one (a VMA
 * smaps counts anonymous pages in is marked already, model.c sum_vmas). */
static void visit_first(struct model_context *c, const struct segment *seg, void *data)
{
	struct first_walk *first = data;
	if (seg->first > 0 && !c->snapshot->contents[seg->content].without_pfns)
		*ARRAY_PUSH(first->cuts.keys, first->cuts.count, first->cuts.capacity) =
			PFN_CUT_KEY(seg->content, seg->first);
	if (seg->vma && !c->vma_has_anon_vma[seg->vma - c->snapshot->vmas] &&
	    segment_exclusive_anon(c, seg, first->exclusive))
		c->vma_has_anon_vma[seg->vma - c->snapshot->vmas] = true;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The PFN table in runs, broken wherever some process's VMA edge cuts a chunk. */
static void count_pfns(struct model_context *c, process_visit before)
{
	const struct snapshot *s = c->snapshot;
	struct first_walk first = { .exclusive = xcalloc(s->content_count + 1, 1) };
	c->cuts.first = xcalloc(s->process_count + 1, sizeof(*c->cuts.first));
	c->cuts.whole_first = xcalloc(s->process_count + 1, sizeof(*c->cuts.whole_first));
	size_t chunks = 0;
	for (size_t i = 0; i < s->process_count; i++) {
		c->cuts.whole_first[i] = chunks;
		for (size_t r = 0; r < s->processes[i].run_count; r++)
			chunks += s->processes[i].runs[r].length;
	}
	c->cuts.whole_vmas = xcalloc(chunks + 1, sizeof(*c->cuts.whole_vmas));
	for (size_t i = 0; i < s->process_count; i++) {
		before(c, i);
		walk_process(c, i, WALK_BARE, false, visit_first, &first);
	}
	c->cuts.kept = true;
	c->cuts.items = xreallocarray(c->cuts.items, c->cuts.count + 1, sizeof(*c->cuts.items));
	array_sort(first.cuts.keys, first.cuts.count, sizeof(*first.cuts.keys), by_key);
	pfn_table_build(&c->pfns, s, first.cuts.keys, first.cuts.count);
	FREE_ALL(first.cuts.keys, first.exclusive);
	c->record_pfns = xcalloc(s->content_record_count + 1, sizeof(*c->record_pfns));
	pfn_table_number(&c->pfns, s, c->record_pfns);
	c->result->distinct_pfns = c->pfns.pages;
}

/* Per content, every figure of its records; two arrays hold the per-design parts. */
static void figure_contents(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	size_t contents = s->content_count + 1;
	c->content_totals = xcalloc(contents, sizeof(*c->content_totals));
	c->content_pmd = xcalloc(contents, sizeof(*c->content_pmd));
	uint8_t *uniform = xcalloc(contents, sizeof(*uniform));
	c->content_bytes = xcalloc(2 * content_stride(c), sizeof(*c->content_bytes));
	c->content_counts = xcalloc(3 * content_stride(c), sizeof(*c->content_counts));
	for (size_t id = 0; id < contents; id++) {
		struct record_figures f = { 0 };
		/* a content without PFNs prices each mapping as a page mapped
		 * once: its per-design counts follow from its counts
		 * (model_figure_without_pfns), its charges are 0, so none is kept
		 * (NULL) and those calloc pages are never touched */
		if (id == s->content_count || !s->contents[id].without_pfns)
			content_arrays(c, id, &f);
		if (id < s->content_count && s->contents[id].references &&
		    figure_records(c, (uint32_t)id, 0, s->contents[id].count, NULL, &f) == 1)
			uniform[id] = uniform_kind(pagemap_content_record(s, (uint32_t)id, 0).entry,
						   content_record_pfn(c, (uint32_t)id, 0) != NULL);
		c->content_totals[id] = (struct content_totals){ (uint16_t)f.present, (uint16_t)f.swap,
								 (uint16_t)f.zero_page, (uint16_t)f.mapped,
								 (uint16_t)f.mapped_anon, (uint16_t)f.with_pfn,
								 (uint16_t)f.shared, f.shared_anon };
	}
	c->content_uniform = uniform;
}

static void free_contents(struct model_context *c)
{
	FREE_ALL(c->content_bytes, c->content_counts, c->content_totals, c->content_pmd, c->content_uniform, c->record_pfns, c->overrides, c->override_first,
		 c->override_count, c->mapping_costs, c->mapping_costs_high, c->mapping_costs_high_m, c->cuts.items, c->cuts.first, c->cuts.whole_vmas, c->cuts.whole_first);
}

/* ---- PTE windows mapped by PMD leaves ---- */

/* A window is PMD-mapped when its 2^(shift-12) records are present and map
 * consecutive PFNs from an aligned compound head that is a THP or hugetlb
 * page (section 8).  The records may span several chunks (PTE pages of
 * 4 MiB): they are checked in order, as one list. */
struct pmd_check {
	uint64_t slots, seen, first_pfn;
	bool broken;
};

static void pmd_check_records(const struct model_context *c, uint32_t content, struct pmd_check *check)
{
	struct content_cursor cursor;
	struct pagemap_record record;
	content_cursor_start(&cursor, c->snapshot, content, 0, c->snapshot->contents[content].count);
	while (!check->broken && content_cursor_next(&cursor, &record)) {
		uint64_t pfn = record_pfn(&record);
		if (check->seen == 0)
			check->first_pfn = pfn;
		if (!record_present(&record) || pfn != check->first_pfn + check->seen)
			check->broken = true;
		check->seen++;
	}
}

static enum pmd_kind pmd_check_result(const struct model_context *c, const struct pmd_check *check)
{
	if (check->broken || check->seen != check->slots || check->first_pfn == 0 ||
	    check->first_pfn % check->slots || !c->snapshot->kpage_runs)
		return PMD_NONE;
	const struct kpage_run *head = snapshot_find_kpage(c->snapshot, check->first_pfn);
	if (!head || !(head->flags >> KPF_COMPOUND_HEAD & 1) ||
	    !((head->flags >> KPF_THP & 1) || (head->flags >> KPF_HUGE & 1)))
		return PMD_NONE;
	return head->flags >> KPF_ANON & 1 ? PMD_ANON : PMD_FILE;
}

static enum pmd_kind content_pmd_kind(struct model_context *c, uint32_t content)
{
	if (c->content_pmd[content] == PMD_UNKNOWN) {
		struct pmd_check check = { .slots = (uint64_t)1 << (c->pte_shift - 12) };
		if (c->snapshot->contents[content].count == check.slots && c->snapshot->kpage_runs)
			pmd_check_records(c, content, &check);
		c->content_pmd[content] = (uint8_t)pmd_check_result(c, &check);
	}
	return (enum pmd_kind)c->content_pmd[content];
}

/* With the capture's PMD-mapped ranges (PID/pmd_mapped) a window is
 * PMD-mapped exactly when a range covers it, whatever its PFNs look like;
 * anonymous when its first page is (kpageflags ANON, else pagemap bit 61
 * clear), as only an anonymous huge PMD has a deposited PTE page; a
 * hugetlb PMD never has one. */
static enum pmd_kind member_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	const struct snapshot *s = c->snapshot;
	uint64_t base = window << c->pte_shift;
	if (!process_pmd_mapped(s, p, base))
		return PMD_NONE;
	const struct vma *vma = process_find_vma(p, base);
	if (vma && VMA_HAS_FLAG(vma, VMF_HT))
		return PMD_FILE;
	struct pagemap_record record;
	if (!process_next_record(s, p, base, base + ((uint64_t)1 << c->pte_shift), &record))
		return PMD_FILE;
	const struct kpage_run *head = s->kpage_runs ? snapshot_find_kpage(s, record.entry & PAGEMAP_PFN_MASK) : NULL;
	bool anon = head ? (head->flags >> KPF_ANON & 1) : !(record.entry & PAGEMAP_FILE_OR_SHARED);
	return anon ? PMD_ANON : PMD_FILE;
}

static enum pmd_kind records_pmd_kind(struct model_context *c, const struct process *p, uint64_t window);

static uint64_t override_window(const void *override)
{
	return ((const struct pmd_override *)override)->window;
}

/* An override of smaps' count for the window, or PMD_UNKNOWN. */
static enum pmd_kind override_kind(const struct model_context *c, const struct process *p, uint64_t window)
{
	if (!c->overrides)
		return PMD_UNKNOWN;
	size_t index = (size_t)(p - c->snapshot->processes);
	if (!c->override_count[index])
		return PMD_UNKNOWN;     /* mostly: no search */
	const struct pmd_override *o = c->overrides + c->override_first[index];
	size_t low = array_lower_bound(o, c->override_count[index], sizeof(*o), override_window, window);
	return low < c->override_count[index] && o[low].window == window ? (enum pmd_kind)o[low].kind : PMD_UNKNOWN;
}

enum pmd_kind window_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	if (p->has_pmd_map)
		return member_pmd_kind(c, p, window);
	enum pmd_kind kind = override_kind(c, p, window);
	return kind != PMD_UNKNOWN ? kind : records_pmd_kind(c, p, window);
}

/* With a window of one chunk (the common geometry) the segment names its
 * content: records_pmd_kind without looking it up (segment_pmd_kind, in
 * model_internal.h, answers the commonest case itself). */
enum pmd_kind model_segment_pmd_kind(struct model_context *c, const struct segment *seg)
{
	const struct process *p = &c->snapshot->processes[seg->process];
	uint64_t window = seg->base >> c->pte_shift;
	if (p->has_pmd_map || c->chunks_per_window_shift)
		return window_pmd_kind(c, p, window);
	enum pmd_kind kind = override_kind(c, p, window);
	return kind != PMD_UNKNOWN ? kind : content_pmd_kind(c, seg->content);
}

/* What the records alone suggest (section 8's rule). */
static enum pmd_kind records_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	unsigned k = c->chunks_per_window_shift;
	if (k == 0) {
		long content = process_chunk_content(p, window);
		return content < 0 ? PMD_NONE : content_pmd_kind(c, (uint32_t)content);
	}
	struct pmd_check check = { .slots = (uint64_t)1 << (c->pte_shift - 12) };
	uint64_t total = 0;
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = process_chunk_content(p, chunk);
		total += content < 0 ? 0 : c->snapshot->contents[content].count;
	}
	if (total != check.slots || !c->snapshot->kpage_runs)
		return PMD_NONE;
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = process_chunk_content(p, chunk);
		if (content >= 0)
			pmd_check_records(c, (uint32_t)content, &check);
	}
	return pmd_check_result(c, &check);
}

/* ---- PMD-mapped windows without PID/pmd_mapped: smaps' count ---- */

/* Windows of a VMA mapped by PMD leaves, as smaps counts them. */
uint64_t model_smaps_pmd_windows(const struct model_context *c, const struct vma *v, bool *anon)
{
	/* a VMA holds only its counters that are not 0: mostly none of these */
	const uint32_t held = UINT32_C(1) << SMAPS_ANON_HUGE_PAGES | UINT32_C(1) << SMAPS_SHMEM_PMD_MAPPED |
			      UINT32_C(1) << SMAPS_FILE_PMD_MAPPED;
	*anon = true;
	if (!(v->counter_fields & held))
		return 0;
	uint64_t anon_kb = vma_kb(v, SMAPS_ANON_HUGE_PAGES), file_kb = vma_kb(v, SMAPS_SHMEM_PMD_MAPPED) + vma_kb(v, SMAPS_FILE_PMD_MAPPED);
	*anon = anon_kb >= file_kb;
	return (anon_kb + file_kb) >> (c->pte_shift - 10);     /* windows of 2^pte_shift bytes, in kB */
}

/* Does smaps count PMD mappings for this VMA?  (AnonHugePages since 2.6.38;
 * a hand-built or foreign smaps may lack every such line.) */
static bool smaps_counts_pmds(const struct vma *v)
{
	const uint32_t fields = 1u << SMAPS_ANON_HUGE_PAGES | 1u << SMAPS_SHMEM_PMD_MAPPED | 1u << SMAPS_FILE_PMD_MAPPED;
	return (v->present_fields & fields) != 0;
}

/* A whole window of present records: without kpages the only sign of a
 * PMD mapping the records give (PFNs, where known, consecutive from an
 * aligned one); its kind from pagemap bit 61. */
static enum pmd_kind full_window_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	uint64_t base = window << c->pte_shift, slots = (uint64_t)1 << (c->pte_shift - 12), seen = 0, first = 0;
	struct pagemap_record record;
	bool anon = false;
	for (uint64_t at = base; seen < slots && process_next_record(c->snapshot, p, at, base + (slots << 12), &record);
	     at = record.vaddr + 4096, seen++) {
		uint64_t pfn = record.entry & PAGEMAP_PFN_MASK;
		if (record.vaddr != base + (seen << 12) || !(record.entry & PAGEMAP_PRESENT))
			return PMD_NONE;
		if (seen == 0) {
			first = pfn;
			anon = !(record.entry & PAGEMAP_FILE_OR_SHARED);
		}
		if (first && (first % slots || pfn != first + seen))
			return PMD_NONE;
	}
	return seen == slots ? (anon ? PMD_ANON : PMD_FILE) : PMD_NONE;
}

struct override_list {
	struct pmd_override *items;
	size_t count, capacity;
};

static void add_override(struct override_list *list, uint64_t window, enum pmd_kind kind)
{
	struct pmd_override *o = ARRAY_PUSH(list->items, list->count, list->capacity);
	o->window = window;
	o->kind = (uint8_t)kind;
}

/* The first window from address `at` (a window's start) with a record below
 * `end`, and what its records suggest (records_pmd_kind); false: none.  With
 * PTE pages of one chunk, from the process's runs (every chunk of one holds
 * a record, its content known), *run a cursor that only moves on (asked
 * windows ascend); else by search.  A chunk starting below end whose
 * records all lie above it is given: it ends above end, as the caller
 * checks. */
static bool next_record_window(struct model_context *c, const struct process *p, uint64_t end, uint64_t at,
			       size_t *run, uint64_t *window, enum pmd_kind *kind)
{
	if (c->chunks_per_window_shift) {
		struct pagemap_record record;
		if (!process_next_record(c->snapshot, p, at, end, &record))
			return false;
		*window = record.vaddr >> c->pte_shift;
		*kind = records_pmd_kind(c, p, *window);
		return true;
	}
	uint64_t chunk = at >> PAGEMAP_CHUNK_SHIFT;
	while (*run < p->run_count && p->runs[*run].chunk + p->runs[*run].length <= chunk)
		(*run)++;
	if (*run == p->run_count)
		return false;
	const struct pagemap_run *r = &p->runs[*run];
	*window = r->chunk > chunk ? r->chunk : chunk;
	if (*window << PAGEMAP_CHUNK_SHIFT >= end)
		return false;
	*kind = content_pmd_kind(c, r->content + (uint32_t)(*window - r->chunk));
	return true;
}

/* One VMA: the windows that look PMD-mapped (candidates), against smaps'
 * count k.  Up to k candidates are taken as PMD-mapped, in address order,
 * the rest as mapped by PTEs (a 2 MiB page-cache folio mapped by 512 PTEs
 * looks like a PMD mapping); page tables are then exact, which windows
 * they are is not, so each one that may be wrong is counted twice in
 * pmd_ambiguous_windows. */
static void resolve_vma(struct model_context *c, const struct process *p, const struct vma *v,
			struct override_list *list, size_t *run)
{
	bool anon;
	uint64_t allowed = model_smaps_pmd_windows(c, v, &anon), candidates = 0, size = (uint64_t)1 << c->pte_shift;
	uint64_t at = (v->start + size - 1) & ~(size - 1), window;
	enum pmd_kind kind;
	if (!allowed && !c->snapshot->kpage_runs)
		return;         /* without kpages only full_window_kind finds a candidate */
	while (at < v->end && v->end - at >= size && next_record_window(c, p, v->end, at, run, &window, &kind)) {
		at = (window + 1) << c->pte_shift;
		if (at == 0 || at > v->end)
			break;
		if (kind == PMD_NONE && !c->snapshot->kpage_runs && allowed)
			kind = full_window_kind(c, p, window);
		if (kind == PMD_NONE || kind == PMD_UNKNOWN)
			continue;
		candidates++;
		if (candidates > allowed)
			add_override(list, window, PMD_NONE);
		else if (!c->snapshot->kpage_runs)
			add_override(list, window, kind);
	}
	if (candidates > allowed) {
		uint64_t extra = candidates - allowed;
		c->result->pmd_ambiguous_windows += 2 * (allowed < extra ? allowed : extra);
	}
}

static void resolve_pmd_windows(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct override_list list = { 0 };
	c->override_first = xcalloc(s->process_count + 1, sizeof(*c->override_first));
	c->override_count = xcalloc(s->process_count + 1, sizeof(*c->override_count));
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		size_t run = 0;
		c->override_first[i] = list.count;
		/* without kpages only a VMA smaps counts PMD-mapped windows in
		 * can have one (resolve_vma): none, no VMA is read again */
		if (p->has_pmd_map || !p->has_pagemap || (!s->kpage_runs && !c->process_smaps_pmds[i]))
			continue;
		for (size_t v = 0; v < p->vma_count; v++)
			if (smaps_counts_pmds(&p->vmas[v]))
				resolve_vma(c, p, &p->vmas[v], &list, &run);
		c->override_count[i] = list.count - c->override_first[i];
	}
	c->overrides = list.items ? list.items : xcalloc(1, sizeof(*c->overrides));
}


/* Pass 1, before any rule: the PFN table, the figures of every content and
 * the PMD windows smaps overrides (`before` each process's first walk). */
void model_walk_begin(struct model_context *c, process_visit before)
{
	count_pfns(c, before);
	make_mapping_costs(c);
	figure_contents(c);
	resolve_pmd_windows(c);
	runs_make(c);
	cuts_make(c);
}

void model_walk_end(struct model_context *c)
{
	free_contents(c);
	runs_free(c);
	cuts_free(c);
	pfn_table_free(&c->pfns);
}
