/*
 * builder.c - turns members, in whatever order a container yields them,
 * into one struct snapshot, and checks the rules that span members
 * (a pagemap's addresses must fall inside that process's VMAs).
 *
 * A broken process either fails the whole read or, with skip_bad, is
 * dropped and counted: a snapshot of 500 processes should not be lost to
 * one truncated file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "internal.h"

/* A binary member (pagemap, kpages) arriving in pieces: whole records are
 * checked and kept as they come, a record cut by a piece's end waits in
 * tail; the record before is kept for the order check. */
struct record_stream {
	size_t record_bytes, tail_bytes;
	size_t count;                   /* records so far */
	uint64_t member_bytes;
	/* a pagemap streamed after its process's smaps: its VMAs [vma, vma_end)
	 * walked as the records come (both ascend); inside while every record
	 * so far lies in one, high the end of the VMA of the last */
	size_t vma, vma_end;
	uint64_t high;
	bool inside;
	union {
		unsigned char bytes[sizeof(struct pagemap_run_record)];
		struct pagemap_record pagemap;
		struct kpage_record kpage;
		struct pagemap_run_record run;
	} tail, previous;
};

/* pagemap_chunks and kpage_runs arriving in pieces: each block is a 4-byte
 * length and its encoding, gathered whole (at most limit bytes), then
 * decoded: a chunk is kept once, a block's kpage runs appended. */
enum framed_member { FRAMED_NONE, FRAMED_CHUNKS, FRAMED_KPAGE_RUNS };
#define FRAMED_MAX_BYTES (KPAGE_BLOCK_MAX_ENCODED_BYTES > PAGEMAP_CHUNK_MAX_ENCODED_BYTES ? \
			  KPAGE_BLOCK_MAX_ENCODED_BYTES : PAGEMAP_CHUNK_MAX_ENCODED_BYTES)
struct block_stream {
	unsigned char bytes[4 + FRAMED_MAX_BYTES];
	size_t have, need, limit;
	size_t count;                   /* blocks taken */
	const char *unit;               /* "chunk" or "block", for messages */
	uint64_t member_bytes;
	struct kpage_codec kpages;      /* kpage_runs: the run before */
};

enum process_member { MEMBER_SMAPS, MEMBER_STAT, MEMBER_CMDLINE, MEMBER_STATUS, MEMBER_PAGEMAP, MEMBER_CGROUP,
		      MEMBER_PMD_MAPPED, MEMBER_PAGEMAP_RUNS, MEMBER_KINDS };
static const char *const process_member_names[MEMBER_KINDS] = {
	"smaps", "stat", "cmdline", "status", "pagemap", "cgroup", "pmd_mapped", "pagemap_runs",
};

struct process_build {
	struct process process;
	size_t vma_first;
	unsigned seen;                  /* bit per enum process_member */
	bool bad;
	bool runs_unresolved;           /* runs from pagemap_runs name chunk positions */
	bool vmas_read;                 /* its smaps parsed whole */
	bool pagemap_inside;            /* each pagemap record seen in a VMA as it streamed */
	uint64_t size_kb;               /* Σ its VMAs' Size, at most KERNEL_MAX_TOTAL_BYTES >> 10 + 1 */
};

struct snapshot_builder {
	struct snapshot *snapshot;
	struct read_options options;
	struct error first_bad;   /* the first dropped process, for the warning */
	struct process_build *processes;
	size_t process_count, process_capacity;
	struct hash_table pid_index;    /* processes by pid */
	struct vma_array vmas;
	struct extra_array extras;
	bool has_info, has_version, has_meminfo;
	unsigned top_seen;              /* bit per top_members entry: each is read once */
	char *slub;                     /* the slub member, applied once slabinfo is read */
	size_t slub_size;
	size_t smaps_read;              /* for the progress line */
	uint64_t total_size_kb;         /* Σ VMA Size so far, for the total check */
	uint64_t total_status_kb[6];    /* Σ of each status counter so far */
	size_t smaps_parsed;            /* for the memory check's message */
	uint64_t position_bytes, total_bytes; /* of the file, when the container knows */
	/* the member being streamed (MEMBER_STREAM): an smaps, a pagemap or
	 * pagemap_runs (stream_kind) while stream_process is set, kpages while
	 * stream_kpages, pagemap_chunks or kpage_runs while stream_framed */
	struct process_build *stream_process;
	enum process_member stream_kind;
	bool stream_kpages;
	enum framed_member stream_framed;
	struct block_stream blocks;
	uint32_t *content_of_chunk;     /* pagemap_chunks: each chunk's content */
	size_t chunk_count, chunk_capacity;
	uint64_t run_bytes;             /* runs read from pagemap_runs, all processes */
	struct smaps_parser stream;
	struct record_stream records;
	size_t kpage_capacity;
	struct parse_place stream_place;
};

void builder_set_position(struct snapshot_builder *b, uint64_t done, uint64_t total)
{
	b->position_bytes = done;
	b->total_bytes = total;
}

/* What the snapshot holds so far: the VMA array and the distinct pagemap
 * contents as allocated, and the member being read. */
static uint64_t kept_bytes(const struct snapshot_builder *b, size_t member_bytes)
{
	return (uint64_t)b->vmas.capacity * sizeof(struct vma) + pagemap_kept_bytes(b->snapshot) + member_bytes +
	       b->run_bytes + (uint64_t)b->chunk_capacity * sizeof(*b->content_of_chunk);
}

/* A snapshot that cannot fit is refused as soon as that is clear, with what
 * it would need (extrapolated from the share of the file read), not after
 * minutes of swapping or by the out-of-memory killer. */
static int check_budget(struct snapshot_builder *b, size_t member_bytes, const struct parse_place *place)
{
	uint64_t kept = kept_bytes(b, member_bytes), budget = b->options.memory_budget_bytes;
	if (!budget || kept <= budget)
		return 0;
	char need[96] = "more";
	if (b->total_bytes && b->position_bytes && b->position_bytes < b->total_bytes)
		snprintf(need, sizeof(need), "about %" PRIu64 " MiB",
			 (uint64_t)((double)kept * (double)b->total_bytes / (double)b->position_bytes) >> 20);
	parse_fail(place, 0, "does not fit in memory: after %zu processes the snapshot keeps %" PRIu64
		   " MiB (VMAs and distinct pagemap contents), %" PRIu64 " MiB are available; reading it "
		   "all needs %s", b->smaps_parsed, kept >> 20, budget >> 20, need);
	return -2;
}

struct snapshot_builder *builder_create(const char *source, const struct read_options *options)
{
	struct snapshot_builder *b = xcalloc(1, sizeof(*b));
	b->snapshot = xcalloc(1, sizeof(*b->snapshot));
	b->snapshot->arena = arena_create();
	b->snapshot->source = xstrdup(source);
	if (options)
		b->options = *options;
	struct snapshot_info *info = &b->snapshot->info;
	info->page_size = 4096;
	info->processes = info->skipped = info->changed = info->unreadable = -1;
	return b;
}

void builder_abort(struct snapshot_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->process_count; i++)
		free(b->processes[i].process.runs);
	free(b->processes);
	hash_free(&b->pid_index);
	free(b->vmas.items);
	free(b->extras.items);
	free(b->slub);
	free(b->content_of_chunk);
	if (b->stream_process && b->stream_kind == MEMBER_SMAPS)
		buffer_free(&b->stream.tail);
	snapshot_free(b->snapshot);
	free(b);
}

/* Processes by pid: the base hash table over b->processes (base/hash.h). */
static uint64_t rehash_pid(const void *context, size_t index)
{
	const struct snapshot_builder *b = context;
	return hash_u64((uint64_t)b->processes[index].process.pid);
}

static struct process_build *process_for(struct snapshot_builder *b, int pid)
{
	struct hash_probe probe;
	uint64_t hash = hash_u64((uint64_t)pid);
	for (size_t i = hash_first(&b->pid_index, hash, &probe); i != HASH_NONE; i = hash_next(&b->pid_index, &probe))
		if (b->processes[i].process.pid == pid)
			return &b->processes[i];
	struct process_build *pb = ARRAY_PUSH(b->processes, b->process_count, b->process_capacity);
	memset(pb, 0, sizeof(*pb));
	pb->process.pid = pid;
	pb->process.comm = pb->process.cmdline = "";
	hash_add(&b->pid_index, hash, b->process_count - 1, rehash_pid, b);
	return pb;
}

/* A line on stderr every 64 processes, for a person waiting on a big snapshot. */
static void show_progress(struct snapshot_builder *b, bool last)
{
	if (!b->options.progress || (!last && ++b->smaps_read % 64))
		return;
	fprintf(stderr, "\rreading %s: %zu processes, %zu VMAs%s", b->snapshot->source, b->smaps_read,
		b->vmas.count, last ? "\n" : "");
}

/* Pagemap records arrive in malloc'd memory, are checked, then kept once
 * per distinct chunk content (pagemap_store.c) and freed. */
static int adopt_pagemap(struct snapshot_builder *b, struct process *p, void *data, size_t size,
			 const struct parse_place *place)
{
	struct snapshot *s = b->snapshot;
	s->pagemap_bytes += size;
	p->has_pagemap = true;
	int status = parse_pagemap(data, size, place);
	if (status == 0 && (pagemap_feed_begin(s, p) ||
			    pagemap_feed(s, p, data, size / sizeof(struct pagemap_record)) ||
			    pagemap_feed_end(s, p)))
		status = parse_fail(place, 0, "more than 512 records in one 2 MiB chunk");
	free(data);
	return status ? status : check_budget(b, size, place);
}

/* An smaps member parsed whole or streamed: its VMAs are the process's. */
static int smaps_parsed(struct snapshot_builder *b, struct process_build *pb, size_t member_bytes,
			const struct parse_place *place)
{
	pb->process.vma_count = b->vmas.count - pb->vma_first;
	pb->vmas_read = true;
	/* summed now, while the VMAs just parsed are in the cache: at the end
	 * (check_totals) it was 15 % of info, one cold read per VMA; stops past
	 * the limit, so it never wraps (each Size < 2^47) */
	const uint64_t limit_kb = KERNEL_MAX_TOTAL_BYTES >> 10;
	pb->size_kb = 0;
	for (size_t v = pb->vma_first; v < b->vmas.count && pb->size_kb <= limit_kb; v++)
		pb->size_kb += vma_kb(&b->vmas.items[v], SMAPS_SIZE);
	b->smaps_parsed++;
	show_progress(b, false);
	return check_budget(b, member_bytes, place);
}

static int add_process_member(struct snapshot_builder *b, struct process_build *pb,
			      enum process_member kind, const void *data, size_t size,
			      const struct parse_place *place)
{
	struct snapshot *s = b->snapshot;
	struct process *p = &pb->process;
	int stat_pid;
	void *copy;

	switch (kind) {
	case MEMBER_SMAPS:
		pb->vma_first = b->vmas.count;
		if (parse_smaps(data, size, s->arena, &b->vmas, &b->extras, place))
			return -1;
		return smaps_parsed(b, pb, size, place);
	case MEMBER_STAT:
		/* smemcap writes an empty member for a file it could not open:
		 * the process ended between listing and reading (its smaps is
		 * empty too, so it counts as gone, like a kernel thread) */
		if (size == 0)
			return 0;
		if (parse_stat(data, size, s->arena, &stat_pid, &p->ppid, &p->comm, place))
			return -1;
		if (stat_pid != p->pid)
			return parse_fail(place, 1, "pid %d in the file of process %d", stat_pid, p->pid);
		parse_stat_extra(data, size, p);
		return 0;
	case MEMBER_CMDLINE:
		p->cmdline = parse_cmdline(data, size, s->arena);
		return 0;
	case MEMBER_CGROUP:
		p->cgroup = parse_cgroup(data, size, s->arena);
		return 0;
	case MEMBER_STATUS:
		p->has_status = true;
		return parse_status(data, size, &p->status, place);
	case MEMBER_PMD_MAPPED:
		p->has_pmd_map = true;
		return parse_pmd_ranges(data, size, s, &p->pmd_first, &p->pmd_count, place);
	case MEMBER_PAGEMAP:
		copy = xmalloc(size ? size : 1);
		memcpy(copy, data, size);
		return adopt_pagemap(b, p, copy, size, place);
	default:
		return 0;
	}
}

/* A process's runs go: they hold references once resolved. */
static void release_runs(struct snapshot_builder *b, struct process_build *pb)
{
	if (!pb->runs_unresolved) {
		pagemap_release_process(b->snapshot, &pb->process);
		return;
	}
	b->run_bytes -= pb->process.run_count * sizeof(*pb->process.runs);
	free(pb->process.runs);
	pb->process.runs = NULL;
	pb->process.run_count = 0;
	pb->runs_unresolved = false;
}

/* A broken process fails the read, saying how to read the rest (a capture
 * of a busy machine by another tool holds a process torn as it changed),
 * or with skip_bad is marked and dropped later. */
static int process_problem(struct snapshot_builder *b, struct process_build *pb,
			   struct error *error)
{
	if (!b->options.skip_bad) {
		size_t length = strlen(error->message);
		if (b->options.skip_bad_offered)
			snprintf(error->message + length, sizeof(error->message) - length,
				 " (--skip-bad reads the rest without process %d)", pb->process.pid);
		return -1;
	}
	if (!b->first_bad.message[0])
		b->first_bad = *error;
	if (!pb->bad)
		release_runs(b, pb);
	pb->bad = true;
	return 0;
}

/*
 * Member names: "meminfo", "1234/smaps"; also "./1234/smaps", "/1234/smaps"
 * and smem's "proc/1234/smaps".  pid is 0 for a top-level member; kind is
 * -1 for a per-process file that is not ours to read.
 */
struct member_name {
	const char *name;
	int pid, kind;
};

static bool resolve_member(const char *name, struct member_name *m)
{
	uint64_t pid;
	const char *end;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	while (name[0] == '/')
		name++;
	if (!strncmp(name, "proc/", 5))
		name += 5;
	*m = (struct member_name){ name, 0, -1 };
	const char *slash = strchr(name, '/');
	if (!slash)
		return true;
	if (!parse_u64(name, slash, &pid, &end) || end != slash || pid == 0 || pid > INT32_MAX ||
	    strchr(slash + 1, '/'))
		return false;
	m->pid = (int)pid;
	for (int kind = 0; kind < MEMBER_KINDS; kind++)
		if (!strcmp(slash + 1, process_member_names[kind]))
			m->kind = kind;
	return true;
}

static const char *const top_members[] = { "snapshot.info", "version", "meminfo", "kpages",
					   "slabinfo", "slub", "users", "pagemap_chunks", "kpage_runs" };

/* Each top-level member's bit in top_seen; 0 for another name. */
static unsigned top_member_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(top_members) / sizeof(top_members[0]); i++)
		if (!strcmp(name, top_members[i]))
			return 1u << i;
	return 0;
}

/* A top-level member read twice (a tar may repeat a name) took the last
 * silently: refused, as a repeated process member is. */
static int claim_top_member(struct snapshot_builder *b, const char *name, const struct parse_place *place)
{
	unsigned bit = top_member_bit(name);
	if (b->top_seen & bit)
		return parse_fail(place, 0, "member appears twice");
	b->top_seen |= bit;
	return 0;
}

/* kpages (a record a PFN) or format 2's kpage_runs, claimed: once, never
 * both (which would say two things of one PFN); the runs so far dropped. */
static int claim_kpages(struct snapshot_builder *b, const char *name, const struct parse_place *place)
{
	if (claim_top_member(b, name, place))
		return -1;
	unsigned both = top_member_bit("kpages") | top_member_bit("kpage_runs");
	if ((b->top_seen & both) == both)
		return parse_fail(place, 0, "the snapshot has both kpages and kpage_runs");
	free(b->snapshot->kpage_runs);
	b->snapshot->kpage_runs = NULL;
	b->snapshot->kpage_run_count = b->kpage_capacity = 0;
	b->snapshot->kpage_count = 0;
	return 0;
}

static bool kpages_member(const struct member_name *m)
{
	return !m->pid && (!strcmp(m->name, "kpages") || !strcmp(m->name, "kpage_runs"));
}

/* The members that hold pagemap records: PID/pagemap (format 1),
 * PID/pagemap_runs and pagemap_chunks (format 2). */
static bool pagemap_member(const struct member_name *m)
{
	return m->pid ? m->kind == MEMBER_PAGEMAP || m->kind == MEMBER_PAGEMAP_RUNS
		      : !strcmp(m->name, "pagemap_chunks");
}

enum member_use builder_member_use(const struct snapshot_builder *b, const char *name)
{
	struct member_name m;
	bool known = false;
	if (!resolve_member(name, &m))
		return MEMBER_IGNORE;
	for (size_t i = 0; !m.pid && i < sizeof(top_members) / sizeof(top_members[0]); i++)
		known |= !strcmp(m.name, top_members[i]);
	if (m.pid ? m.kind < 0 : !known)
		return MEMBER_IGNORE;
	if (pagemap_member(&m))
		return b->options.pagemap_sizes_only ? MEMBER_SIZE_ONLY : MEMBER_STREAM;
	return m.kind == MEMBER_SMAPS || kpages_member(&m) ? MEMBER_STREAM : MEMBER_COPY;
}

/*
 * The most bytes a member can hold, so that a container refuses a bigger one
 * from its header or file size, before reading (a meminfo of 4 GiB was read
 * whole).  Text members have a kernel-made size: /proc/version, meminfo,
 * stat and status are a few KiB on any machine, snapshot.info is ours,
 * cmdline is at most the argument area (a quarter of the stack limit, far
 * below 64 MiB).  smaps, pagemap and kpages grow with the workload.
 */
uint64_t builder_member_max_bytes(const char *name)
{
	static const struct { const char *name; int kind; uint64_t bytes; } limits[] = {
		{ "version", -1, 64 << 10 }, { "snapshot.info", -1, 64 << 10 }, { "meminfo", -1, 1 << 20 },
		{ "users", -1, 64 << 20 },   /* 131,072 names of at most 255 bytes */
		{ NULL, MEMBER_STAT, 64 << 10 }, { NULL, MEMBER_STATUS, 1 << 20 },
		{ NULL, MEMBER_CMDLINE, 64 << 20 },
		/* one range per PMD leaf at most: 64 MiB is 4 Mi ranges, 8 TiB of THPs */
		{ NULL, MEMBER_PMD_MAPPED, 64 << 20 },
	};
	struct member_name m;
	if (!resolve_member(name, &m))
		return MEMBER_MAX_BYTES;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (m.pid ? limits[i].kind == m.kind : limits[i].name && !strcmp(limits[i].name, m.name))
			return limits[i].bytes;
	return MEMBER_MAX_BYTES;
}

/*
 * Find the process a member belongs to and claim the member, once.
 * Returns NULL with *status set when there is nothing more to do.
 */
static struct process_build *claim_member(struct snapshot_builder *b, const struct member_name *m,
					  const struct parse_place *place, int *status)
{
	struct process_build *pb = process_for(b, m->pid);
	*status = 0;
	if (pb->bad)
		return NULL;
	if (pb->seen & (1u << m->kind)) {
		parse_fail(place, 0, "member appears twice");
		*status = process_problem(b, pb, place->error);
		return NULL;
	}
	unsigned both = 1u << MEMBER_PAGEMAP | 1u << MEMBER_PAGEMAP_RUNS;
	if ((1u << m->kind) & both && pb->seen & both) {
		parse_fail(place, 0, "the process has both pagemap and pagemap_runs");
		*status = process_problem(b, pb, place->error);
		return NULL;
	}
	pb->seen |= 1u << m->kind;
	return pb;
}

static int add_top_member(struct snapshot_builder *b, const char *name, const void *data,
			  size_t size, struct error *error)
{
	struct snapshot *s = b->snapshot;
	struct parse_place place = { s->source, name, error };

	if (claim_top_member(b, name, &place))
		return -1;
	if (!strcmp(name, "snapshot.info")) {
		b->has_info = true;
		return parse_info(data, size, &s->info, &place);
	}
	if (!strcmp(name, "version")) {
		b->has_version = true;
		free(s->version);
		s->version = xstrndup(data, size);
		if (memchr(data, '\0', size))
			return parse_fail(&place, 0, "binary data in a text file");
		return 0;
	}
	if (!strcmp(name, "meminfo")) {
		b->has_meminfo = true;
		free(s->meminfo);
		s->meminfo = NULL;
		return parse_meminfo(data, size, s->arena, &s->meminfo, &s->meminfo_count, &place);
	}
	if (!strcmp(name, "slabinfo")) {
		free(s->slabs);
		s->slabs = NULL;
		s->slab_count = 0;
		return parse_slabinfo(data, size, s->arena, &s->slabs, &s->slab_count, &place);
	}
	if (!strcmp(name, "users")) {
		free(s->user_names);
		free(s->group_names);
		s->user_names = s->group_names = NULL;
		s->user_name_count = s->group_name_count = 0;
		return parse_users(data, size, s, &place);
	}
	if (!strcmp(name, "slub")) {
		free(b->slub);
		b->slub = xstrndup(data, size);
		b->slub_size = size;
		return 0;
	}
	return 0;
}

/* A binary member read whole (a directory's file): the same checks as when
 * it is streamed, in one piece. */
static int add_whole_streamed(struct snapshot_builder *b, const char *name, const void *data, size_t size,
			      struct error *error)
{
	int status = builder_stream_begin(b, name, error);
	if (status == 0)
		status = builder_stream_feed(b, data, size, error);
	return status ? (status < 0 ? -1 : 0) : builder_stream_end(b, error);
}

int builder_add_member(struct snapshot_builder *b, const char *name, const void *data,
		       size_t size, struct error *error)
{
	struct member_name m;
	int status;
	if (!resolve_member(name, &m))
		return 0;
	/* binary members read whole (a directory's file) take the streamed path */
	if ((pagemap_member(&m) && (!m.pid || m.kind == MEMBER_PAGEMAP_RUNS)) || kpages_member(&m))
		return add_whole_streamed(b, name, data, size, error);
	if (!m.pid)
		return add_top_member(b, m.name, data, size, error);
	if (m.kind < 0)
		return 0;
	struct parse_place place = { b->snapshot->source, m.name, error };
	struct process_build *pb = claim_member(b, &m, &place, &status);
	if (!pb)
		return status;
	status = add_process_member(b, pb, (enum process_member)m.kind, data, size, &place);
	/* -2: the snapshot does not fit; no process is to blame */
	return status == -2 ? -1 : status ? process_problem(b, pb, error) : 0;
}

int builder_adopt_member(struct snapshot_builder *b, const char *name, void *data, size_t size,
			 struct error *error)
{
	struct member_name m;
	int status;
	if (!resolve_member(name, &m) || m.kind != MEMBER_PAGEMAP) {
		status = builder_add_member(b, name, data, size, error);
		free(data);
		return status;
	}
	struct parse_place place = { b->snapshot->source, m.name, error };
	struct process_build *pb = claim_member(b, &m, &place, &status);
	if (!pb) {
		free(data);
		return status;
	}
	status = adopt_pagemap(b, &pb->process, data, size, &place);
	return status == -2 ? -1 : status ? process_problem(b, pb, error) : 0;
}

/* A streamed member's problem: the read fails, or with skip_bad the process
 * is dropped and the rest of the member is not wanted (1).  kpages belong to
 * no process: their problem fails the read. */
static int stream_problem(struct snapshot_builder *b, int status, struct error *error)
{
	struct process_build *pb = b->stream_process;
	b->stream_process = NULL;
	if (b->stream_kpages || b->stream_framed) {
		b->stream_kpages = false;
		b->stream_framed = FRAMED_NONE;
		return -1;
	}
	if (b->stream_kind == MEMBER_SMAPS)
		buffer_free(&b->stream.tail);   /* a budget refusal leaves the parser its piece */
	if (status == -2 || process_problem(b, pb, error))
		return -1;
	return 1;
}

/*
 * A record of PID/pagemap_runs: chunk-aligned, at least one chunk, above
 * the run before, no address past 2^64, chunk positions within 32 bits.
 * Whether pagemap_chunks holds the chunks named is known once both are read.
 */
static int check_run_record(const struct pagemap_run_record *run, const struct pagemap_run_record *previous,
			    size_t index, const struct parse_place *place)
{
	const uint64_t chunks_in_space = UINT64_C(1) << (64 - PAGEMAP_CHUNK_SHIFT);
	if (run->vaddr & (PAGEMAP_CHUNK_BYTES - 1))
		return parse_fail(place, 0, "run %zu: address %#" PRIx64 " is not 2 MiB-aligned", index, run->vaddr);
	if (run->length == 0 || run->length > chunks_in_space - (run->vaddr >> PAGEMAP_CHUNK_SHIFT))
		return parse_fail(place, 0, "run %zu: length %" PRIu64 " chunks is 0 or runs past the address space",
				  index, run->length);
	if (run->chunk > UINT32_MAX || run->length > UINT32_MAX - run->chunk)
		return parse_fail(place, 0, "run %zu: chunks %" PRIu64 " + %" PRIu64 " pass 2^32", index, run->chunk,
				  run->length);
	if (previous && run->vaddr >> PAGEMAP_CHUNK_SHIFT <
			    (previous->vaddr >> PAGEMAP_CHUNK_SHIFT) + previous->length)
		return parse_fail(place, 0, "run %zu: address %#" PRIx64 " not above the previous run's end",
				  index, run->vaddr);
	return 0;
}

/* Move bytes of a piece (*data, *size) into buffer until it holds need
 * (*have so far): true when it does, false when the piece ran out first. */
static bool gather(unsigned char *buffer, size_t *have, size_t need, const unsigned char **data, size_t *size)
{
	size_t take = need - *have < *size ? need - *have : *size;
	memcpy(buffer + *have, *data, take);
	*have += take;
	*data += take;
	*size -= take;
	return *have == need;
}

/* The record at vaddr is past the VMA of the one before (high): the VMA
 * holding it, and that VMA's end (UINT64_MAX once a record lies in none:
 * the finish then checks every record, and says which). */
static uint64_t walk_vmas(struct record_stream *r, const struct vma *vmas, uint64_t vaddr)
{
	while (r->vma < r->vma_end && vmas[r->vma].end <= vaddr)
		r->vma++;
	r->inside = r->vma < r->vma_end && vaddr >= vmas[r->vma].start;
	return r->high = r->inside ? vmas[r->vma].end : UINT64_MAX;
}

/* One whole record of the member being streamed: checked, then kept. */
static int stream_record(struct snapshot_builder *b, const void *bytes)
{
	struct record_stream *r = &b->records;
	struct snapshot *s = b->snapshot;
	const void *previous = r->count ? &r->previous : NULL;
	if (b->stream_kpages) {
		struct kpage_record k;
		memcpy(&k, bytes, sizeof(k));   /* little-endian on disk, as the hosts this runs on */
		if (check_kpage_record(&k, previous, r->count, &b->stream_place))
			return -1;
		kpage_push_run(s, &(struct kpage_run){ k.pfn, 1, k.mapcount, k.flags }, &b->kpage_capacity);
		r->previous.kpage = k;
	} else if (b->stream_kind == MEMBER_PAGEMAP_RUNS) {
		struct pagemap_run_record run;
		memcpy(&run, bytes, sizeof(run));
		if (check_run_record(&run, previous, r->count, &b->stream_place))
			return -1;
		pagemap_push_run(&b->stream_process->process, &(struct pagemap_run){
			run.vaddr >> PAGEMAP_CHUNK_SHIFT, run.length, (uint32_t)run.chunk });
		b->run_bytes += sizeof(struct pagemap_run);
		r->previous.run = run;
	} else {
		struct pagemap_record p;
		memcpy(&p, bytes, sizeof(p));
		if (check_pagemap_record(&p, previous, r->count, &b->stream_place))
			return -1;
		if (p.vaddr >= r->high)
			walk_vmas(r, b->vmas.items, p.vaddr);
		if (pagemap_feed(s, &b->stream_process->process, &p, 1))
			return parse_fail(&b->stream_place, 0, "more than 512 records in one 2 MiB chunk");
		r->previous.pagemap = p;
	}
	r->count++;
	return 0;
}

/* The whole pagemap records lying in a piece, count of them: checked and
 * kept in one pass (pagemap_feed_fitting), in place when aligned, else
 * through a copy.  The pass stops at a record past the VMA of the last
 * (the walk moves on) or one that fails its check, which says why: the
 * records before it are kept, as one at a time would. */
static int stream_pagemap_records(struct snapshot_builder *b, const unsigned char *bytes, size_t count)
{
	struct record_stream *r = &b->records;
	struct process *p = &b->stream_process->process;
	struct pagemap_record copy[256];
	for (size_t done = 0, take; done < count; done += take) {
		const struct pagemap_record *records = (const void *)(bytes + done * sizeof(*records));
		take = count - done;
		if ((uintptr_t)records % _Alignof(struct pagemap_record)) {
			take = take < 256 ? take : 256;
			records = memcpy(copy, records, take * sizeof(*records));
		}
		for (size_t good = 0, n; good < take; good += n) {
			uint64_t low = r->count ? r->previous.pagemap.vaddr + 1 : 0;
			if (pagemap_feed_fitting(b->snapshot, p, records + good, take - good, low, r->high, &n))
				return parse_fail(&b->stream_place, 0, "more than 512 records in one 2 MiB chunk");
			if (n) {
				r->previous.pagemap = records[good + n - 1];
				r->count += n;
				low = records[good + n - 1].vaddr + 1;
			}
			if (good + n == take)
				break;
			if (!pagemap_record_fits(&records[good + n], low)) {   /* it fails: its check says why */
				check_pagemap_record(&records[good + n], r->count ? &r->previous.pagemap : NULL,
						     r->count, &b->stream_place);
				return -1;
			}
			walk_vmas(r, b->vmas.items, records[good + n].vaddr);
		}
	}
	return 0;
}

static int feed_records(struct snapshot_builder *b, const unsigned char *data, size_t size)
{
	struct record_stream *r = &b->records;
	r->member_bytes += size;
	for (;;) {
		const unsigned char *record = data;
		if (r->tail_bytes == 0 && size >= r->record_bytes && !b->stream_kpages &&
		    b->stream_kind == MEMBER_PAGEMAP) {
			/* whole pagemap records in the piece: as one run */
			size_t count = size / r->record_bytes;
			data += count * r->record_bytes;
			size -= count * r->record_bytes;
			if (stream_pagemap_records(b, record, count))
				return -1;
			continue;
		}
		if (r->tail_bytes == 0 && size >= r->record_bytes) {
			/* a whole record in the piece: read where it lies */
			data += r->record_bytes;
			size -= r->record_bytes;
		} else if (gather(r->tail.bytes, &r->tail_bytes, r->record_bytes, &data, &size)) {
			r->tail_bytes = 0;
			record = r->tail.bytes;
		} else {
			return 0;
		}
		if (stream_record(b, record))
			return -1;
	}
}

/* pagemap_chunks: a chunk whole, decoded, kept once; its content noted by position. */
static int take_chunk(struct snapshot_builder *b, const unsigned char *bytes, size_t size, char *problem,
		      size_t problem_size)
{
	struct pagemap_record records[PAGEMAP_CODEC_PAGES];
	uint32_t count;
	if (pagemap_chunk_decode(bytes, size, records, &count, problem, problem_size))
		return -1;
	if (b->chunk_count >= UINT32_MAX) {
		snprintf(problem, problem_size, "more than 2^32 chunks");
		return -1;
	}
	uint32_t content = pagemap_add_chunk(b->snapshot, records, count);
	*(uint32_t *)ARRAY_PUSH(b->content_of_chunk, b->chunk_count, b->chunk_capacity) = content;
	return 0;
}

/* kpage_runs: a block's runs, appended (joined where they continue the last). */
static int take_kpage_block(struct snapshot_builder *b, const unsigned char *bytes, size_t size, char *problem,
			    size_t problem_size)
{
	struct kpage_run runs[KPAGE_BLOCK_RUNS];
	size_t count;
	if (kpage_block_decode(bytes, size, &b->blocks.kpages, runs, &count, problem, problem_size))
		return -1;
	for (size_t i = 0; i < count; i++)
		kpage_push_run(b->snapshot, &runs[i], &b->kpage_capacity);
	return 0;
}

static int take_block(struct snapshot_builder *b)
{
	struct block_stream *c = &b->blocks;
	char problem[160];
	int status = b->stream_framed == FRAMED_CHUNKS
			     ? take_chunk(b, c->bytes + 4, c->need - 4, problem, sizeof(problem))
			     : take_kpage_block(b, c->bytes + 4, c->need - 4, problem, sizeof(problem));
	if (status)
		return parse_fail(&b->stream_place, 0, "%s %zu: %s", c->unit, c->count, problem);
	c->count++;
	return 0;
}

static int feed_blocks(struct snapshot_builder *b, const unsigned char *data, size_t size)
{
	struct block_stream *c = &b->blocks;
	c->member_bytes += size;
	while (gather(c->bytes, &c->have, c->need, &data, &size)) {
		if (c->need == 4) {
			uint32_t length;
			memcpy(&length, c->bytes, 4);   /* little-endian, as every member */
			if (length == 0 || length > c->limit)
				return parse_fail(&b->stream_place, 0, "%s %zu: length %" PRIu32 " is not 1 to %zu bytes",
						  c->unit, c->count, length, c->limit);
			c->need = 4 + length;
			continue;
		}
		if (take_block(b))
			return -1;
		c->have = 0;
		c->need = 4;
	}
	return 0;
}

/* A member of blocks begins: nothing gathered, no run before. */
static void begin_blocks(struct snapshot_builder *b, enum framed_member kind)
{
	struct block_stream *c = &b->blocks;
	c->have = c->member_bytes = c->count = 0;
	c->need = 4;
	c->kpages = (struct kpage_codec){ 0 };
	c->limit = kind == FRAMED_CHUNKS ? PAGEMAP_CHUNK_MAX_ENCODED_BYTES : KPAGE_BLOCK_MAX_ENCODED_BYTES;
	c->unit = kind == FRAMED_CHUNKS ? "chunk" : "block";
	b->stream_framed = kind;
}

static void begin_records(struct snapshot_builder *b, size_t record_bytes)
{
	b->records = (struct record_stream){ .record_bytes = record_bytes, .high = UINT64_MAX };
}

int builder_stream_begin(struct snapshot_builder *b, const char *name, struct error *error)
{
	struct member_name m;
	int status;
	b->stream_process = NULL;
	b->stream_kpages = false;
	b->stream_framed = FRAMED_NONE;
	if (!resolve_member(name, &m))
		return 1;
	b->stream_place = (struct parse_place){ b->snapshot->source,
						arena_intern(b->snapshot->arena, m.name, strlen(m.name)), error };
	if (kpages_member(&m)) {
		if (claim_kpages(b, m.name, &b->stream_place))
			return -1;
		if (m.name[5] == 's') {
			begin_records(b, sizeof(struct kpage_record));
			b->stream_kpages = true;
		} else {
			begin_blocks(b, FRAMED_KPAGE_RUNS);
		}
		return 0;
	}
	if (!m.pid && !strcmp(m.name, "pagemap_chunks")) {
		if (claim_top_member(b, m.name, &b->stream_place))
			return -1;
		begin_blocks(b, FRAMED_CHUNKS);
		return 0;
	}
	if (m.kind != MEMBER_SMAPS && m.kind != MEMBER_PAGEMAP && m.kind != MEMBER_PAGEMAP_RUNS)
		return 1;
	struct process_build *pb = claim_member(b, &m, &b->stream_place, &status);
	if (!pb)
		return status ? status : 1;
	b->stream_kind = (enum process_member)m.kind;
	if (m.kind == MEMBER_SMAPS) {
		pb->vma_first = b->vmas.count;
		smaps_parser_begin(&b->stream, b->snapshot->arena, &b->vmas, &b->extras, &b->stream_place);
	} else if (m.kind == MEMBER_PAGEMAP_RUNS) {
		pb->process.has_pagemap = true;
		pb->runs_unresolved = true;
		begin_records(b, sizeof(struct pagemap_run_record));
	} else {
		pagemap_feed_begin(b->snapshot, &pb->process);
		begin_records(b, sizeof(struct pagemap_record));
		if (pb->vmas_read) {    /* the first record finds its VMA */
			b->records.vma = pb->vma_first;
			b->records.vma_end = pb->vma_first + pb->process.vma_count;
			b->records.high = 0;
			b->records.inside = true;
		}
	}
	b->stream_process = pb;
	return 0;
}

int builder_stream_feed(struct snapshot_builder *b, const void *data, size_t size, struct error *error)
{
	if (!b->stream_process && !b->stream_kpages && !b->stream_framed)
		return 1;
	b->stream_place.error = error;
	bool smaps = b->stream_process && b->stream_kind == MEMBER_SMAPS;
	if (b->stream_framed ? feed_blocks(b, data, size)
	    : smaps ? smaps_parser_feed(&b->stream, data, size) : feed_records(b, data, size))
		return stream_problem(b, -1, error);
	/* what is kept grows as it is parsed: a snapshot that cannot fit stops here */
	int status = check_budget(b, smaps ? b->stream.tail.capacity
				       : b->kpage_capacity * sizeof(struct kpage_run), &b->stream_place);
	if (status)
		return stream_problem(b, status, error);
	return 0;
}

/* The end of a binary member: no record left cut. */
static int end_records(struct snapshot_builder *b)
{
	struct record_stream *r = &b->records;
	if (r->tail_bytes)
		return parse_fail(&b->stream_place, 0, "length %" PRIu64 " is not a multiple of %zu bytes (truncated?)",
				  r->member_bytes, r->record_bytes);
	if (b->stream_kpages)
		return 0;
	struct snapshot *s = b->snapshot;
	s->pagemap_bytes += r->member_bytes;
	if (b->stream_kind == MEMBER_PAGEMAP) {
		pagemap_feed_end(s, &b->stream_process->process);
		b->stream_process->pagemap_inside = r->inside;
	}
	return check_budget(b, 0, &b->stream_place);
}

/* The end of pagemap_chunks or kpage_runs: no block left cut. */
static int end_blocks(struct snapshot_builder *b)
{
	struct block_stream *c = &b->blocks;
	if (c->have)
		return parse_fail(&b->stream_place, 0, "%s %zu: cut short after %zu of its bytes (truncated?)", c->unit,
				  c->count, c->have);
	if (b->stream_framed == FRAMED_CHUNKS)
		b->snapshot->pagemap_bytes += c->member_bytes;
	return check_budget(b, 0, &b->stream_place);
}

int builder_stream_end(struct snapshot_builder *b, struct error *error)
{
	struct process_build *pb = b->stream_process;
	if (!pb && !b->stream_kpages && !b->stream_framed)
		return 0;
	b->stream_place.error = error;
	int status;
	if (b->stream_framed)
		status = end_blocks(b);
	else if (b->stream_kpages || b->stream_kind != MEMBER_SMAPS)
		status = end_records(b);
	else if ((status = smaps_parser_end(&b->stream)) == 0)
		status = smaps_parsed(b, pb, 0, &b->stream_place);
	if (status == 0) {
		b->stream_process = NULL;
		b->stream_kpages = false;
		b->stream_framed = FRAMED_NONE;
		return 0;
	}
	return stream_problem(b, status, error) < 0 ? -1 : 0;
}

int builder_size_member(struct snapshot_builder *b, const char *name, uint64_t size,
			struct error *error)
{
	struct member_name m;
	int status;
	if (!resolve_member(name, &m) || !pagemap_member(&m))
		return 0;
	struct parse_place place = { b->snapshot->source, m.name, error };
	if (!m.pid) {
		b->snapshot->pagemap_bytes += size;
		return claim_top_member(b, m.name, &place);
	}
	struct process_build *pb = claim_member(b, &m, &place, &status);
	if (!pb)
		return status;
	pb->process.has_pagemap = true;
	b->snapshot->pagemap_bytes += size;
	size_t record_bytes = m.kind == MEMBER_PAGEMAP ? sizeof(struct pagemap_record) : sizeof(struct pagemap_run_record);
	if (size % record_bytes == 0)
		return 0;
	parse_fail(&place, 0, "length %" PRIu64 " is not a multiple of %zu bytes (truncated?)", size, record_bytes);
	return process_problem(b, pb, error);
}

/* ---- finishing ---- */

/* Every PMD-mapped range must lie in the process's VMAs (a range may run
 * across neighbours: the scan joins adjacent leaves). */
static int check_pmd_ranges(struct snapshot_builder *b, const struct process_build *pb, struct error *error)
{
	const struct snapshot *s = b->snapshot;
	const struct process *p = &pb->process;
	const struct vma *vmas = b->vmas.items + pb->vma_first;
	size_t v = 0;
	for (size_t i = 0; i < p->pmd_count; i++) {
		const struct address_range *range = &s->pmd_ranges[p->pmd_first + i];
		uint64_t at = range_outside_spans(vmas, p->vma_count, sizeof(*vmas), &v, range->start, range->end);
		if (at < range->end) {
			char member[64];
			snprintf(member, sizeof(member), "%d/pmd_mapped", p->pid);
			input_error_set(error, s->source, member, 0, "range %zu: address %#" PRIx64 " is outside every VMA",
					i, at);
			return -1;
		}
	}
	return 0;
}

/* The first record of a content (its chunk at `base`) outside every VMA:
 * its index in the content, with *vaddr; -1 if none.  *v walks the VMAs in
 * order.  Extents are walked, not records: a chunk whose last record falls
 * in the VMA of a record before it is inside it from there, an extent
 * likewise. */
static long first_record_outside(const struct snapshot *s, uint32_t content, uint64_t base, const struct vma *vmas,
				 size_t vma_count, size_t *v, uint64_t *vaddr)
{
	const struct pagemap_content *c = &s->contents[content];
	const struct pagemap_extent *e = s->content_extents + c->first_extent;
	const struct pagemap_extent *tail = &e[c->extent_count - 1];
	uint64_t last = base + tail->offset + (uint64_t)(tail->length - 1) * 4096;
	long index = 0;
	for (uint32_t x = 0; x < c->extent_count; index += e[x].length, x++) {
		for (uint32_t k = 0; k < e[x].length; k++) {
			*vaddr = base + e[x].offset + (uint64_t)k * 4096;
			while (*v < vma_count && vmas[*v].end <= *vaddr)
				(*v)++;
			if (*v == vma_count || *vaddr < vmas[*v].start)
				return index + k;
			if (last < vmas[*v].end)
				return -1;      /* the rest of the chunk is in this VMA too */
			if (*vaddr + (uint64_t)(e[x].length - 1 - k) * 4096 < vmas[*v].end)
				break;          /* the rest of the extent is */
		}
	}
	return -1;
}

/* Every record must lie in a VMA.  Chunks, VMAs and records all ascend, so
 * one walk checks them. */
static int check_pagemap_addresses(struct snapshot_builder *b, const struct process_build *pb,
				   struct error *error)
{
	const struct snapshot *s = b->snapshot;
	const struct process *p = &pb->process;
	const struct vma *vmas = b->vmas.items + pb->vma_first;
	size_t v = 0, index = 0;
	for (size_t r = 0; r < p->run_count; r++) {
		for (uint64_t i = 0; i < p->runs[r].length; i++) {
			uint32_t content = (uint32_t)(p->runs[r].content + i);
			uint64_t base = (p->runs[r].chunk + i) << PAGEMAP_CHUNK_SHIFT, vaddr;
			long k = first_record_outside(s, content, base, vmas, p->vma_count, &v, &vaddr);
			if (k >= 0) {
				char member[64];
				snprintf(member, sizeof(member), "%d/%s", p->pid,
					 pb->seen & (1u << MEMBER_PAGEMAP_RUNS) ? "pagemap_runs" : "pagemap");
				input_error_set(error, s->source, member, 0,
						"record %zu: address %#" PRIx64 " is outside every VMA",
						index + (size_t)k, vaddr);
				return -1;
			}
			index += s->contents[content].count;
		}
	}
	return 0;
}

/*
 * Every counter is bounded where it is read (internal.h), but their sums
 * over thousands of processes could still pass 2^64: refuse a snapshot whose
 * VMAs or status counters add up to more than KERNEL_MAX_TOTAL_BYTES (no
 * machine maps 4 EiB), so every byte total downstream fits in 64 bits.
 * smaps counters are each at most their VMA's Size, so Σ Size bounds them all.
 */
static int check_totals(struct snapshot_builder *b, const struct process_build *pb,
			struct error *error)
{
	const uint64_t limit_kb = KERNEL_MAX_TOTAL_BYTES >> 10;
	const struct process *p = &pb->process;
	const struct process_status *st = &p->status;
	const uint64_t status_kb[6] = { st->vm_pte_kb, st->vm_rss_kb, st->rss_anon_kb, st->rss_file_kb,
					st->rss_shmem_kb, st->vm_swap_kb };
	uint64_t size_kb = b->total_size_kb, totals[6];
	const char *member = "smaps";
	size_kb += pb->size_kb;          /* each at most limit + 1: no wrap */
	bool over = size_kb > limit_kb;
	for (size_t i = 0; i < 6 && !over; i++) {
		totals[i] = b->total_status_kb[i] + status_kb[i];
		over = totals[i] > limit_kb;
		member = "status";
	}
	if (over) {
		char name[64];
		snprintf(name, sizeof(name), "%d/%s", p->pid, member);
		input_error_set(error, b->snapshot->source, name, 0,
				"the snapshot's %s add up to more than 2^62 bytes here: no machine has that much",
				member[1] == 'm' ? "VMAs" : "status counters");
		return -1;
	}
	b->total_size_kb = size_kb;
	memcpy(b->total_status_kb, totals, sizeof(totals));
	return 0;
}

/* pagemap_runs name chunks of pagemap_chunks by position: now that both
 * are read, each must exist; then they count as references. */
static int resolve_runs(struct snapshot_builder *b, struct process_build *pb, struct error *error)
{
	size_t bad;
	if (!pb->runs_unresolved)
		return 0;
	uint64_t bytes = pb->process.run_count * sizeof(*pb->process.runs);
	if (pagemap_resolve_runs(b->snapshot, &pb->process, b->content_of_chunk, b->chunk_count, &bad)) {
		char member[64];
		snprintf(member, sizeof(member), "%d/pagemap_runs", pb->process.pid);
		input_error_set(error, b->snapshot->source, member, 0,
				"run %zu: chunks %" PRIu32 " to %" PRIu64 ", but pagemap_chunks holds %zu", bad,
				pb->process.runs[bad].content,
				pb->process.runs[bad].content + pb->process.runs[bad].length - 1, b->chunk_count);
		return process_problem(b, pb, error);
	}
	b->run_bytes -= bytes;
	pb->runs_unresolved = false;
	return 0;
}

static int check_process(struct snapshot_builder *b, struct process_build *pb,
			 struct error *error)
{
	if (!(pb->seen & (1u << MEMBER_STAT))) {
		char member[64];
		snprintf(member, sizeof(member), "%d/stat", pb->process.pid);
		input_error_set(error, b->snapshot->source, member, 0, "missing (every process needs its stat)");
		return process_problem(b, pb, error);
	}
	if ((!pb->pagemap_inside && check_pagemap_addresses(b, pb, error)) || check_pmd_ranges(b, pb, error) || check_totals(b, pb, error))
		return process_problem(b, pb, error);
	return 0;
}

static int compare_process_pid(const void *a, const void *b)
{
	const struct process_build *x = a, *y = b;
	return (x->process.pid > y->process.pid) - (x->process.pid < y->process.pid);
}

/* Keep the good processes with VMAs, in pid order, their VMAs laid out in the same order. */
static void assemble(struct snapshot_builder *b, struct snapshot *s)
{
	size_t vma_total = 0, kept = 0;
	if (b->process_count)     /* qsort's array may not be NULL, even when empty */
		array_sort(b->processes, b->process_count, sizeof(*b->processes), compare_process_pid);
	for (size_t i = 0; i < b->process_count; i++) {
		struct process_build *pb = &b->processes[i];
		if (pb->bad)
			s->skipped_bad++;
		else if (pb->process.vma_count == 0 && (pb->process.state == 'Z' || pb->process.state == 'X'))
			s->zombies++;   /* exited, not yet reaped: no mm, but no kernel thread either */
		else if (pb->process.vma_count == 0)
			s->kernel_threads++;
		else
			vma_total += pb->process.vma_count;
	}
	/* Captures list processes in pid order: then the VMAs already lie right. */
	bool in_place = vma_total == b->vmas.count && b->vmas.items; /* none parsed: nothing to keep */
	for (size_t i = 0, next = 0; in_place && i < b->process_count; i++) {
		const struct process_build *pb = &b->processes[i];
		if (pb->process.vma_count && !pb->bad) {
			in_place = pb->vma_first == next;
			next += pb->process.vma_count;
		}
	}
	/* in place with no VMAs at all (no processes) is a NULL array, not a
	 * failure: allocation failure never returns (base/alloc.h) */
	s->vmas = in_place ? b->vmas.items : xreallocarray(NULL, vma_total, sizeof(*s->vmas));
	s->processes = xreallocarray(NULL, b->process_count, sizeof(*s->processes));
	if (in_place)
		b->vmas.items = NULL;
	size_t next_vma = 0;
	for (size_t i = 0; i < b->process_count; i++) {
		struct process_build *pb = &b->processes[i];
		struct process *p = &pb->process;
		if (pb->bad || p->vma_count == 0) {
			if (!pb->bad)
				pagemap_release_process(s, p);
			free(p->runs);
			p->runs = NULL;
			continue;
		}
		if (!in_place)
			memcpy(s->vmas + next_vma, b->vmas.items + pb->vma_first, p->vma_count * sizeof(*s->vmas));
		p->vmas = s->vmas + next_vma;
		next_vma += p->vma_count;
		s->processes[kept++] = *p;
		p->runs = NULL; /* now owned by the snapshot */
	}
	s->vma_count = vma_total;
	s->process_count = kept;
	s->extras = b->extras.items;
	s->extra_count = b->extras.count;
	b->extras.items = NULL;
}

/* Without snapshot.info (smemcap), say what the members show. */
static void infer_pagemap_mode(struct snapshot *s)
{
	s->info.pagemap = PAGEMAP_NONE;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		if (!p->has_pagemap)
			continue;
		if (s->info.pagemap == PAGEMAP_NONE)
			s->info.pagemap = PAGEMAP_PRESENT_ONLY;
	}
	/* contents of dropped processes hold no references */
	for (size_t c = 0; s->info.pagemap != PAGEMAP_NONE && c < s->content_count; c++)
		if (s->contents[c].references && !s->contents[c].without_pfns) {
			/* the store found a present record with a PFN in it */
			s->info.pagemap = PAGEMAP_PFN;
			return;
		}
}

/* Without snapshot.info (smemcap), the release is the third word of
 * /proc/version: "Linux version 6.1.0-13-amd64 (...) ...". */
static void kernel_from_version(struct snapshot *s)
{
	char release[sizeof(s->info.kernel)];
	if (s->version && sscanf(s->version, "Linux version %127s", release) == 1)
		snprintf(s->info.kernel, sizeof(s->info.kernel), "%s", release);
}

int builder_finish(struct snapshot_builder *b, struct snapshot **result, struct error *error)
{
	struct snapshot *s = b->snapshot;
	const char *missing = !b->has_version ? "version" : !b->has_meminfo ? "meminfo" : NULL;
	if (missing) {
		input_error_set(error, s->source, missing, 0, "missing (is this a snapshot?)");
		builder_abort(b);
		return -1;
	}
	for (size_t i = 0; i < b->process_count; i++) {
		struct process_build *pb = &b->processes[i];
		if ((!pb->bad && resolve_runs(b, pb, error)) ||
		    (!pb->bad && pb->process.vma_count && check_process(b, pb, error))) {
			builder_abort(b);
			return -1;
		}
	}
	assemble(b, s);
	pagemap_store_trim(s);
	if (s->kpage_runs)      /* grown by doubling, like the contents */
		s->kpage_runs = xreallocarray(s->kpage_runs, s->kpage_run_count + 1, sizeof(*s->kpage_runs));
	if (!b->has_info) {
		infer_pagemap_mode(s);
		kernel_from_version(s);
	}
	/* Nothing to measure: say why instead of reporting zeros. */
	if (s->process_count == 0) {
		input_error_set(error, s->source, NULL, 0, "no process in this snapshot: kernel threads %zu, "
				"zombies %zu, broken %zu, skipped at capture %ld (refused, permission denied: %ld)",
				s->kernel_threads, s->zombies, s->skipped_bad, s->info.skipped < 0 ? 0 : s->info.skipped,
				s->info.unreadable < 0 ? 0 : s->info.unreadable);
		builder_abort(b);
		return -1;
	}
	struct parse_place slub_place = { s->source, "slub", error };
	if (b->slub && parse_slub(b->slub, b->slub_size, s, &slub_place)) {
		builder_abort(b);
		return -1;
	}
	if (b->smaps_read >= 64)
		show_progress(b, true);
	if (s->skipped_bad) {
		/* said on stderr now and kept for the report, which may go to a file */
		s->first_bad = arena_intern(s->arena, b->first_bad.message, strlen(b->first_bad.message));
		fprintf(stderr, "ptscope: warning: skipped %zu broken process%s; the first: %s\n",
			s->skipped_bad, s->skipped_bad == 1 ? "" : "es", s->first_bad);
	}
	b->snapshot = NULL;
	*result = s;
	builder_abort(b);
	return 0;
}
