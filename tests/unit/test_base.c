/*
 * The base layer (base/): allocation, arrays and buffers, the hash table,
 * whole-file reads, atomic outputs (with their signal cleanup) and errors.
 * Every expected value is worked out here by hand or by a second method.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/output.h"
#include "test.h"

static void test_alloc_strings(void)
{
	char *copy = xstrndup("page tables", 4);
	CU_ASSERT_STRING_EQUAL(copy, "page");
	free(copy);
	char *text = xasprintf("%s=%d", "nrpte", 1024);
	CU_ASSERT_STRING_EQUAL(text, "nrpte=1024");
	free(text);
	unsigned char *zeros = xcalloc(100, 3);
	size_t nonzero = 0;
	for (size_t i = 0; i < 300; i++)
		nonzero += zeros[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0);
	free(zeros);
}

/* A child that asks for more than any machine has: message and status 2. */
static void test_out_of_memory_exits_2(void)
{
	int pipe_fds[2];
	CU_ASSERT_FATAL(pipe(pipe_fds) == 0);
	pid_t child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		dup2(pipe_fds[1], STDERR_FILENO);
		volatile size_t huge = SIZE_MAX / 2;
		void *p = xreallocarray(NULL, huge, 4);  /* wraps: refused before malloc */
		_exit(p ? 0 : 3);
	}
	close(pipe_fds[1]);
	char said[128] = "";
	ssize_t n = read(pipe_fds[0], said, sizeof(said) - 1);
	close(pipe_fds[0]);
	int status = 0;
	waitpid(child, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	CU_ASSERT(n > 0 && !strcmp(said, "ptscope: out of memory\n"));
}

static void test_array_push(void)
{
	int *items = NULL;
	size_t count = 0, capacity = 0;
	for (int i = 0; i < 1000; i++)
		*ARRAY_PUSH(items, count, capacity) = i * 3;
	CU_ASSERT_EQUAL(count, 1000);
	/* 16 doubled until 1000 fit: 16, 32, ..., 1024 */
	CU_ASSERT_EQUAL(capacity, 1024);
	long sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += items[i];
	CU_ASSERT_EQUAL(sum, 3L * 999 * 1000 / 2);
	ARRAY_RESERVE(items, capacity, 1024);
	CU_ASSERT_EQUAL(capacity, 1024);
	ARRAY_RESERVE(items, capacity, 1025);
	CU_ASSERT_EQUAL(capacity, 2048);
	free(items);
}

/*
 * The radix sort against insertion (stable by construction): items of
 * 24 bytes, the key in the middle, keys from a small set (so many are
 * equal: their order must be kept, told by a sequence number) spread over
 * bytes 0, 2 and 5 (so passes are skipped and made), and the edges: none,
 * one, two equal.
 */
struct keyed { uint32_t sequence, pad; uint64_t key; uint64_t tail; };

static void test_sort_by_u64(void)
{
	static const uint64_t keys[] = { 0, 7, UINT64_C(0x30000), UINT64_C(0x30007), UINT64_C(0x9900000000),
					 UINT64_C(0x9900030000), UINT64_C(0x9900030007), 5 };
	enum { N = 3000 };
	struct keyed *items = calloc(N, sizeof(*items)), *want = calloc(N, sizeof(*want));
	uint32_t state = 12345;
	for (uint32_t i = 0; i < N; i++) {
		state = state * 1103515245u + 12345u;
		items[i] = (struct keyed){ .sequence = i, .key = keys[(state >> 16) % 8], .tail = ~(uint64_t)i };
	}
	memcpy(want, items, N * sizeof(*items));
	for (size_t i = 1; i < N; i++)          /* insertion: stable */
		for (size_t j = i; j > 0 && want[j - 1].key > want[j].key; j--) {
			struct keyed t = want[j];
			want[j] = want[j - 1];
			want[j - 1] = t;
		}
	array_sort_by_u64(items, N, sizeof(*items), offsetof(struct keyed, key));
	CU_ASSERT_EQUAL(memcmp(items, want, N * sizeof(*items)), 0);
	array_sort_by_u64(NULL, 0, sizeof(*items), offsetof(struct keyed, key));
	struct keyed two[2] = { { 1, 0, 4, 0 }, { 0, 0, 4, 0 } };
	array_sort_by_u64(two, 2, sizeof(two[0]), offsetof(struct keyed, key));
	CU_ASSERT(two[0].sequence == 1 && two[1].sequence == 0);
	free(items);
	free(want);
}

static void test_buffer(void)
{
	struct buffer b = { 0 };
	buffer_add_string(&b, "VmPTE:");
	buffer_printf(&b, "%8d kB", 52);
	CU_ASSERT_EQUAL(b.length, 6 + 11);
	CU_ASSERT_STRING_EQUAL(b.data, "VmPTE:      52 kB");
	/* a long printf crosses the first 4096 bytes */
	for (int i = 0; i < 1000; i++)
		buffer_printf(&b, "%04d\n", i);
	CU_ASSERT_EQUAL(b.length, 17 + 5000);
	CU_ASSERT(b.capacity > b.length);
	CU_ASSERT_EQUAL(b.data[b.length], '\0');
	CU_ASSERT_EQUAL(memcmp(b.data + 17 + 5 * 999, "0999\n", 5), 0);
	char *owned = buffer_release(&b);
	CU_ASSERT_PTR_NULL(b.data);
	CU_ASSERT_EQUAL(b.length, 0);
	free(owned);
}

/* ---- the hash table: integer keys, string keys, collisions ---- */

struct pair { uint64_t key, value; };
struct pairs { struct pair *items; size_t count, capacity; struct hash_table table; };

static uint64_t pair_hash(const void *context, size_t index)
{
	const struct pairs *pairs = context;
	return hash_u64(pairs->items[index].key);
}

static struct pair *pair_find(const struct pairs *pairs, uint64_t key)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&pairs->table, hash_u64(key), &probe); i != HASH_NONE;
	     i = hash_next(&pairs->table, &probe))
		if (pairs->items[i].key == key)
			return &pairs->items[i];
	return NULL;
}

static struct pair *pair_add(struct pairs *pairs, uint64_t key)
{
	struct pair *found = pair_find(pairs, key);
	if (found)
		return found;
	*ARRAY_PUSH(pairs->items, pairs->count, pairs->capacity) = (struct pair){ key, 0 };
	hash_add(&pairs->table, hash_u64(key), pairs->count - 1, pair_hash, pairs);
	return &pairs->items[pairs->count - 1];
}

static void test_hash_integer_keys(void)
{
	struct pairs pairs = { 0 };
	/* keys 0, 7, 14, ... counted twice each: every value ends at 2 */
	for (int round = 0; round < 2; round++)
		for (uint64_t k = 0; k < 70000; k += 7)
			pair_add(&pairs, k)->value++;
	CU_ASSERT_EQUAL(pairs.count, 10000);
	CU_ASSERT_EQUAL(pairs.table.count, 10000);
	/* at most half full: 10000 entries need 32768 slots */
	CU_ASSERT_EQUAL(pairs.table.mask + 1, 32768);
	size_t twos = 0, absent = 0;
	for (uint64_t k = 0; k < 70000; k++) {
		struct pair *p = pair_find(&pairs, k);
		if (k % 7 == 0) {
			twos += p && p->value == 2;
		} else {
			absent += p == NULL;
		}
	}
	CU_ASSERT_EQUAL(twos, 10000);
	CU_ASSERT_EQUAL(absent, 60000);
	hash_clear(&pairs.table);
	CU_ASSERT_PTR_NULL(pair_find(&pairs, 7));
	hash_free(&pairs.table);
	free(pairs.items);
}

/* Every key hashing alike still finds its own entry (linear probing). */
static uint64_t same_hash(const void *context, size_t index)
{
	(void)context;
	(void)index;
	return 42;
}

static void test_hash_collisions(void)
{
	const char *names[] = { "anon_vma", "pte_chain", "address_space", "vm_area_struct", "page" };
	struct hash_table table = { 0 };
	for (size_t i = 0; i < 5; i++)
		hash_add(&table, 42, i, same_hash, NULL);
	for (size_t want = 0; want < 5; want++) {
		struct hash_probe probe;
		size_t found = HASH_NONE, steps = 0;
		for (size_t i = hash_first(&table, 42, &probe); i != HASH_NONE; i = hash_next(&table, &probe)) {
			steps++;
			if (!strcmp(names[i], names[want])) {
				found = i;
				break;
			}
		}
		CU_ASSERT_EQUAL(found, want);
		CU_ASSERT_EQUAL(steps, want + 1);
	}
	/* a key hashing to 43 lands inside 42's run: slots 43..46 are
	 * candidates (entries 1..4), then the empty slot 47 ends the probe */
	struct hash_probe probe;
	size_t candidates = 0;
	for (size_t i = hash_first(&table, 43, &probe); i != HASH_NONE; i = hash_next(&table, &probe))
		candidates++;
	CU_ASSERT_EQUAL(candidates, 4);
	CU_ASSERT_EQUAL(hash_first(&table, 41, &probe), HASH_NONE);
	hash_free(&table);
	/* FNV-1a of "a" (the published test vector) */
	CU_ASSERT_EQUAL(hash_bytes("a", 1), UINT64_C(0xaf63dc4c8601ec8c));
}

/* ---- keyed hashing of input strings ---- */

#define COLLIDING_STAGES 11                     /* 2^11 keys */
#define COLLIDING_BLOCK 6                       /* bytes a stage adds */
#define COLLIDING_CANDIDATES (1u << 15)
#define COLLIDING_BITS 0xffffffu                /* the low 24 bits collide */

struct candidate { uint32_t low; uint32_t index; };

static int candidate_order(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	return x->low != y->low ? (x->low < y->low ? -1 : 1) : (x->index < y->index ? -1 : x->index > y->index);
}

/* Bytes 1..255 spread from the index (letters alone are too regular:
 * FNV-1a's low bits then never collide), no NUL: keys stay C strings. */
static void candidate_block(uint32_t index, unsigned char *block)
{
	uint64_t bits = hash_u64(index + 1);
	for (int i = 0; i < COLLIDING_BLOCK; i++, bits >>= 8)
		block[i] = (unsigned char)(bits % 255 + 1);
}

/* Two blocks that take FNV-1a from any state with these low bits to one
 * state's low bits: the low bits of (h ^ byte) * prime depend on the low
 * bits of h alone, so a collision of the low bits holds after any prefix
 * that ends in them, and stages chain (Joux's multicollisions): 2^stages
 * keys, every one of the same low 24 bits under hash_bytes. */
static void colliding_stage(uint64_t state, unsigned char pair[2][COLLIDING_BLOCK])
{
	struct candidate *c = xcalloc(COLLIDING_CANDIDATES, sizeof(*c));
	unsigned char block[COLLIDING_BLOCK];
	for (uint32_t i = 0; i < COLLIDING_CANDIDATES; i++) {
		candidate_block(i, block);
		c[i] = (struct candidate){ (uint32_t)hash_bytes_more(state, block, sizeof(block)) & COLLIDING_BITS, i };
	}
	qsort(c, COLLIDING_CANDIDATES, sizeof(*c), candidate_order);
	size_t i = 0;
	while (i + 1 < COLLIDING_CANDIDATES && c[i].low != c[i + 1].low)
		i++;
	CU_ASSERT_FATAL(i + 1 < COLLIDING_CANDIDATES);   /* about 32 pairs expected among 2^15 */
	candidate_block(c[i].index, pair[0]);
	candidate_block(c[i + 1].index, pair[1]);
	free(c);
}

static uint64_t rehash_keyed(const void *context, size_t index)
{
	const char (*keys)[COLLIDING_STAGES * COLLIDING_BLOCK + 1] = context;
	return hash_keyed(keys[index], strlen(keys[index]));
}

/* Keys chosen to collide under the fixed FNV-1a fill a table in linear
 * time under hash_keyed: its probes stay near one a lookup.  Under
 * hash_bytes every key would sit in one run: about 2^10 probes a lookup. */
static void test_hash_keyed_colliding_keys(void)
{
	enum { KEYS = 1 << COLLIDING_STAGES, LENGTH = COLLIDING_STAGES * COLLIDING_BLOCK };
	unsigned char pairs[COLLIDING_STAGES][2][COLLIDING_BLOCK];
	uint64_t state = HASH_BYTES_START;
	for (int stage = 0; stage < COLLIDING_STAGES; stage++) {
		colliding_stage(state, pairs[stage]);
		state = hash_bytes_more(state, pairs[stage][0], COLLIDING_BLOCK);
	}
	char (*keys)[LENGTH + 1] = xcalloc(KEYS, sizeof(*keys));
	for (size_t k = 0; k < KEYS; k++)
		for (int stage = 0; stage < COLLIDING_STAGES; stage++)
			memcpy(keys[k] + stage * COLLIDING_BLOCK, pairs[stage][k >> stage & 1], COLLIDING_BLOCK);
	/* the set is what it claims: distinct keys, one low 24 bits under FNV-1a */
	size_t same = 0;
	for (size_t k = 0; k < KEYS; k++)
		same += (hash_bytes(keys[k], LENGTH) & COLLIDING_BITS) == (hash_bytes(keys[0], LENGTH) & COLLIDING_BITS);
	CU_ASSERT_EQUAL(same, KEYS);
	CU_ASSERT(strcmp(keys[0], keys[KEYS - 1]) != 0);

	struct hash_table table = { 0 };
	size_t probes = 0;
	for (size_t k = 0; k < KEYS; k++)
		hash_add(&table, hash_keyed(keys[k], LENGTH), k, rehash_keyed, keys);
	for (size_t k = 0; k < KEYS; k++) {
		struct hash_probe probe;
		size_t i = hash_first(&table, hash_keyed(keys[k], LENGTH), &probe);
		for (probes++; i != HASH_NONE && i != k; probes++)
			i = hash_next(&table, &probe);
		CU_ASSERT_EQUAL(i, k);
	}
	/* at most half full: about 1.5 probes a hit (Knuth 6.4); 4 is far above */
	CU_ASSERT(probes < 4 * (size_t)KEYS);
	/* a key is one process's, not the code's: the same input, the same hash */
	CU_ASSERT_EQUAL(hash_keyed(keys[7], LENGTH), hash_keyed(keys[7], LENGTH));
	hash_free(&table);
	free(keys);
}

/* ---- whole-file reads ---- */

/* Exactly the bytes asked for through a pipe; end of file first is -1 with
 * errno 0, so a caller tells a peer that went away from an error. */
static void test_file_exact(void)
{
	int fds[2];
	CU_ASSERT_FATAL(pipe(fds) == 0);
	CU_ASSERT_EQUAL(file_write_exact(fds[1], "abcdefg", 7), 0);
	char got[8] = { 0 };
	CU_ASSERT_EQUAL(file_read_exact(fds[0], got, 4), 0);
	CU_ASSERT_STRING_EQUAL(got, "abcd");
	close(fds[1]);
	errno = EINVAL;
	CU_ASSERT_EQUAL(file_read_exact(fds[0], got, 4), -1);  /* 3 bytes left, then EOF */
	CU_ASSERT_EQUAL(errno, 0);
	close(fds[0]);
	CU_ASSERT_FATAL(pipe(fds) == 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	CU_ASSERT_EQUAL(file_write_exact(fds[1], "x", 1), -1);  /* no reader */
	CU_ASSERT_EQUAL(errno, EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
}

static void test_file_read(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/base-file", test_tmpdir());
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < 50000; i++)
		fprintf(f, "%04d\n", i % 10000);  /* 250000 bytes: several reads */
	fclose(f);
	struct buffer b = { 0 };
	CU_ASSERT_EQUAL(file_read_at(AT_FDCWD, path, &b), 0);
	CU_ASSERT_EQUAL(b.length, 250000);
	CU_ASSERT_EQUAL(b.data[b.length], '\0');
	CU_ASSERT_EQUAL(memcmp(b.data + 5 * 49999, "9999\n", 5), 0);
	/* /proc files claim size 0 */
	struct stat st;
	CU_ASSERT(stat("/proc/self/status", &st) == 0 && st.st_size == 0);
	CU_ASSERT_EQUAL(file_read_at(AT_FDCWD, "/proc/self/status", &b), 0);
	CU_ASSERT(b.length > 100 && !strncmp(b.data, "Name:", 5));
	snprintf(path, sizeof(path), "%s/no-such-file", test_tmpdir());
	CU_ASSERT_EQUAL(file_read_at(AT_FDCWD, path, &b), ENOENT);
	buffer_free(&b);
}

/* ---- atomic outputs ---- */

static size_t entries_in(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static const char *fresh_dir(const char *name)
{
	static char dir[600];
	snprintf(dir, sizeof(dir), "%s/%s", test_tmpdir(), name);
	mkdir(dir, 0755);
	return dir;
}

static void publish_and_check(bool without_tmpfile, const char *name)
{
	const char *dir = fresh_dir(name);
	char path[700];
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	struct error error;
	struct output out;
	output_without_tmpfile = without_tmpfile;
	CU_ASSERT_EQUAL_FATAL(output_open(&out, path, &error), 0);
	fputs("page tables: 11.3 MiB\n", output_stream(&out));
	CU_ASSERT_EQUAL(access(path, F_OK), -1);  /* not there before publish */
	/* unnamed (O_TMPFILE): nothing visible; named: exactly the temporary */
	CU_ASSERT_EQUAL(entries_in(dir), without_tmpfile ? 1 : 0);
	CU_ASSERT_EQUAL(output_publish(&out, &error), 0);
	output_without_tmpfile = false;
	CU_ASSERT_EQUAL(entries_in(dir), 1);
	struct buffer b = { 0 };
	CU_ASSERT_EQUAL(file_read_at(AT_FDCWD, path, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "page tables: 11.3 MiB\n");
	struct stat st;
	mode_t mask = umask(0);
	umask(mask);
	CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
	buffer_free(&b);
}

static void test_output_publish(void)
{
	publish_and_check(false, "out-unnamed");
	publish_and_check(true, "out-named");
}

static void test_output_discard_and_replace(void)
{
	const char *dir = fresh_dir("out-discard");
	char path[700];
	snprintf(path, sizeof(path), "%s/graph.svg", dir);
	struct error error;
	struct output out;
	for (int named = 0; named < 2; named++) {
		output_without_tmpfile = named;
		CU_ASSERT_EQUAL_FATAL(output_open(&out, path, &error), 0);
		fputs("half a picture", output_stream(&out));
		output_discard(&out);
		CU_ASSERT_EQUAL(entries_in(dir), 0);
	}
	output_without_tmpfile = false;
	/* publishing over an existing file replaces it */
	FILE *old = fopen(path, "w");
	fputs("old", old);
	fclose(old);
	CU_ASSERT_EQUAL_FATAL(output_open(&out, path, &error), 0);
	CU_ASSERT(write(output_fd(&out), "new", 3) == 3);
	CU_ASSERT_EQUAL(output_publish(&out, &error), 0);
	struct buffer b = { 0 };
	CU_ASSERT_EQUAL(file_read_at(AT_FDCWD, path, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "new");
	CU_ASSERT_EQUAL(entries_in(dir), 1);
	buffer_free(&b);
	/* a folder that does not exist: the error names the path */
	char missing[800];
	snprintf(missing, sizeof(missing), "%s/no/such/x.json", dir);
	CU_ASSERT_EQUAL(output_open(&out, missing, &error), -1);
	char want[900];
	snprintf(want, sizeof(want), "%s: cannot write here: No such file or directory", missing);
	CU_ASSERT_STRING_EQUAL(error.message, want);
	CU_ASSERT_EQUAL(error.status, STATUS_INTERNAL);   /* an output failure: 2, not 1 */
}

/* A named temporary is removed when SIGTERM ends the run, and a SIGTERM the
 * process inherited as ignored stays ignored (the temporary stays until the
 * run itself discards it). */
static void test_output_signal_cleanup(void)
{
	for (int ignored = 0; ignored < 2; ignored++) {
		const char *dir = fresh_dir(ignored ? "out-signal-ignored" : "out-signal");
		char path[700];
		snprintf(path, sizeof(path), "%s/s.tar", dir);
		pid_t child = fork();
		CU_ASSERT_FATAL(child >= 0);
		if (child == 0) {
			if (ignored)
				signal(SIGTERM, SIG_IGN);
			struct output out;
			struct error error;
			output_without_tmpfile = true;
			if (output_open(&out, path, &error) != 0)
				_exit(3);
			fputs("part", output_stream(&out));
			fflush(output_stream(&out));
			raise(SIGTERM);
			_exit(entries_in(dir) == 1 ? 0 : 4);  /* reached only when ignored */
		}
		int status = 0;
		waitpid(child, &status, 0);
		bool ended_as_expected = ignored ? WIFEXITED(status) && WEXITSTATUS(status) == 0
						 : WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM;
		CU_ASSERT(ended_as_expected);
		/* the ignored case's child left its temporary (it exited without
		 * discarding); the caught case's handler removed it */
		CU_ASSERT_EQUAL(entries_in(dir), ignored ? 1 : 0);
	}
}

/* A FIFO named with -o is written in place: renaming a file over it would
 * replace the node (as root, `-o /dev/null` replaced /dev/null). */
static void test_output_in_place(void)
{
	const char *dir = fresh_dir("out-fifo");
	char path[700];
	snprintf(path, sizeof(path), "%s/pipe", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	int reader = open(path, O_RDONLY | O_NONBLOCK);
	CU_ASSERT_FATAL(reader >= 0);
	struct output out;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(output_open(&out, path, &error), 0);
	fputs("page tables: 11.3 MiB\n", output_stream(&out));
	CU_ASSERT_EQUAL(output_publish(&out, &error), 0);
	char got[64] = "";
	CU_ASSERT_EQUAL(read(reader, got, sizeof(got) - 1), 22);
	CU_ASSERT_STRING_EQUAL(got, "page tables: 11.3 MiB\n");
	close(reader);
	struct stat st;
	CU_ASSERT(stat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	CU_ASSERT_EQUAL(entries_in(dir), 1);   /* no temporary beside it */
}

/* A write larger than stdio's buffer that fails: glibc's own stream keeps
 * no errno for fflush to find; output_stream_over keeps the first one. */
static void test_output_stream_keeps_errno(void)
{
	int fds[2];
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	close(fds[0]);   /* no reader: EPIPE, with SIGPIPE ignored */
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int write_errno = 0;
	FILE *stream = output_stream_over(fds[1], &write_errno);
	static char big[3 * BUFSIZ];
	memset(big, 'x', sizeof(big));
	CU_ASSERT_NOT_EQUAL(fwrite(big, 1, sizeof(big), stream), sizeof(big));
	errno = 0;   /* what a later, unrelated call would leave */
	CU_ASSERT(fflush(stream) != 0 || ferror(stream));
	CU_ASSERT_EQUAL(write_errno, EPIPE);
	fclose(stream);
	signal(SIGPIPE, old);
}

static void test_error_text(void)
{
	struct error e;
	CU_ASSERT_EQUAL(error_set(&e, "pg.tar: 42/smaps", 7, "Size %d kB is not the VMA's length", 8), -1);
	CU_ASSERT_STRING_EQUAL(e.message, "pg.tar: 42/smaps:7: Size 8 kB is not the VMA's length");
	CU_ASSERT_STRING_EQUAL(e.file, "pg.tar: 42/smaps");
	CU_ASSERT_EQUAL(e.line, 7);
	error_set(&e, "pg.tar", 0, "not a snapshot");
	CU_ASSERT_STRING_EQUAL(e.message, "pg.tar: not a snapshot");
	error_set(&e, NULL, 0, "out of memory");
	CU_ASSERT_STRING_EQUAL(e.message, "out of memory");
	CU_ASSERT_EQUAL(e.line, 0);
	error_from_errno(&e, "x.svg", "cannot write", ENOSPC);
	CU_ASSERT_STRING_EQUAL(e.message, "x.svg: cannot write: No space left on device");
}

/* The exit status travels in the error: what the user can fix is 1, what
 * the program or its output failed at is 2 (docs/architecture.md). */
static void test_error_status(void)
{
	struct error e;
	/* an error filled by a callee that knows nothing else is bad input */
	error_internal(&e, NULL, 0, "before");
	error_set(&e, "a.config", 3, "not a kconfig line");
	CU_ASSERT_EQUAL(e.status, STATUS_BAD_INPUT);
	CU_ASSERT_EQUAL(e.status, 1);
	error_from_errno(&e, "snap.tar", NULL, ENOENT);
	CU_ASSERT_EQUAL(e.status, STATUS_BAD_INPUT);
	/* internal, with the same text a bad-input error of those words has */
	CU_ASSERT_EQUAL(error_internal(&e, "/tmp/shim", 0, "cannot write the configuration shim folder"), -1);
	CU_ASSERT_EQUAL(e.status, STATUS_INTERNAL);
	CU_ASSERT_EQUAL(e.status, 2);
	CU_ASSERT_STRING_EQUAL(e.message, "/tmp/shim: cannot write the configuration shim folder");
	CU_ASSERT_STRING_EQUAL(e.file, "/tmp/shim");
	/* a caller that knows better marks what a callee filled: text kept */
	error_set(&e, "profile.xsd", 12, "element 'x': not expected");
	CU_ASSERT_EQUAL(error_mark_internal(&e), -1);
	CU_ASSERT_EQUAL(e.status, STATUS_INTERNAL);
	CU_ASSERT_STRING_EQUAL(e.message, "profile.xsd:12: element 'x': not expected");
	CU_ASSERT_EQUAL(e.line, 12);
}

void suite_base(void)
{
	ADD_SUITE("base", test_alloc_strings, test_out_of_memory_exits_2, test_array_push, test_sort_by_u64, test_buffer,
		  test_hash_integer_keys, test_hash_collisions, test_hash_keyed_colliding_keys, test_file_read, test_file_exact, test_output_publish,
		  test_output_discard_and_replace, test_output_signal_cleanup, test_output_in_place,
		  test_output_stream_keeps_errno, test_error_text, test_error_status);
}
