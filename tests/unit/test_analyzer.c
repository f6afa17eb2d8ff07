/*
 * Unit tests of the call-graph analyzer's pieces: configuration, kbuild
 * object lists, the facts cache, libclang extraction of one small unit, and
 * the merged graph (identity, indirect calls, paths, depth, roles).
 * Every expected value is worked out by hand from the inputs written here.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "test.h"

static char *write_temp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", test_tmpdir(), name);
	FILE *file = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	fputs(text, file);
	fclose(file);
	return path;
}

/* --- kconfig ----------------------------------------------------------------- */

static void test_kconfig_values_and_header(void)
{
	char *path = write_temp("a.config",
		"# comment\n\nCONFIG_MMU=y\nCONFIG_ZRAM=m\n# CONFIG_NUMA is not set\n"
		"CONFIG_NR_CPUS=64\nCONFIG_LOCALVERSION=\"-x\"\r\n");
	struct kconfig config = { 0 };
	struct error error;
	CU_ASSERT_EQUAL_FATAL(kconfig_read(path, &config, &error), 0);
	CU_ASSERT_STRING_EQUAL(kconfig_get(&config, "CONFIG_MMU"), "y");
	CU_ASSERT_STRING_EQUAL(kconfig_get(&config, "CONFIG_ZRAM"), "m");
	CU_ASSERT_PTR_NULL(kconfig_get(&config, "CONFIG_NUMA"));
	CU_ASSERT_STRING_EQUAL(kconfig_get(&config, "CONFIG_LOCALVERSION"), "\"-x\"");
	struct buffer header = { 0 };
	kconfig_header(&config, &header);
	CU_ASSERT_PTR_NOT_NULL(strstr(header.data, "\n#define CONFIG_MMU 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(header.data, "\n#define CONFIG_ZRAM_MODULE 1\n"));
	CU_ASSERT_PTR_NULL(strstr(header.data, "CONFIG_ZRAM 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(header.data, "\n#define CONFIG_NR_CPUS 64\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(header.data, "\n#define CONFIG_LOCALVERSION \"-x\"\n"));
	CU_ASSERT_PTR_NULL(strstr(header.data, "NUMA"));
	buffer_free(&header);
	kconfig_free(&config);
	free(path);
}

static void test_kconfig_bad_line(void)
{
	char *path = write_temp("bad.config", "CONFIG_A=y\n# fine\nCONFIG_B y\n");
	struct kconfig config = { 0 };
	struct error error;
	CU_ASSERT_EQUAL(kconfig_read(path, &config, &error), -1);
	char *want = xasprintf("%s:3: not a kconfig line", path);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, want));
	free(want);
	/* the fields say where, the status that the input is at fault */
	CU_ASSERT_STRING_EQUAL(error.file, path);
	CU_ASSERT_EQUAL(error.line, 3);
	CU_ASSERT_EQUAL(error.status, STATUS_BAD_INPUT);
	kconfig_free(&config);
	free(path);
}

/* Debian ships configurations compressed: a gzip one is read as well. */
static void test_kconfig_compressed(void)
{
	char *path = xasprintf("%s/c.config.gz", test_tmpdir());
	struct archive *archive = archive_write_new();
	archive_write_add_filter_gzip(archive);
	archive_write_set_format_raw(archive);
	CU_ASSERT_EQUAL_FATAL(archive_write_open_filename(archive, path), ARCHIVE_OK);
	struct archive_entry *entry = archive_entry_new();
	archive_entry_set_filetype(entry, AE_IFREG);
	archive_write_header(archive, entry);
	const char *text = "CONFIG_SWAP=y\n";
	archive_write_data(archive, text, strlen(text));
	archive_entry_free(entry);
	archive_write_free(archive);
	struct kconfig config = { 0 };
	struct error error;
	CU_ASSERT_EQUAL(kconfig_read(path, &config, &error), 0);
	CU_ASSERT_STRING_EQUAL(kconfig_get(&config, "CONFIG_SWAP") ? kconfig_get(&config, "CONFIG_SWAP") : "", "y");
	kconfig_free(&config);
	free(path);
}

/* --- kbuild ------------------------------------------------------------------ */

/* A configuration set symbol by symbol (not read from a file), from
 * NAME, VALUE pairs ending in NULL. */
static struct kconfig config_of(const char *const *settings)
{
	struct kconfig config = { 0 };
	for (const char *const *s = settings; *s; s += 2)
		kconfig_set(&config, s[0], s[1]);
	return config;
}

static void test_kbuild_objects(void)
{
	char *makefile = write_temp("Makefile",
		"mmu-y\t\t:= nommu.o\n"
		"mmu-$(CONFIG_MMU)\t:= memory.o \\\n\t\t   rmap.o\n"
		"obj-y := filemap.o $(mmu-y)\n"
		"obj-$(CONFIG_HIGHMEM) += highmem.o\n"
		"obj-$(CONFIG_ZSMALLOC) += zsmalloc.o\n"
		"obj-$(CONFIG_KFENCE) += kfence/\n"
		"ifdef CONFIG_NUMA\nobj-y += mempolicy.o\nelse\nobj-y += flat.o\nendif\n"
		"ifeq ($(CONFIG_MMU),y)\nobj-y += mmap.o\nendif\n"
		"ifneq ($(CONFIG_SWAP),y)\nobj-y += noswap.o\nendif\n"
		"obj-y += parts.o\nparts-y := part_a.o part_b.o\n"
		"$(obj)/x.o: y\n\tobj-y += recipe.o\n");
	struct kconfig config = config_of((const char *const[]){ "CONFIG_MMU", "y", "CONFIG_ZSMALLOC", "m",
		"CONFIG_KFENCE", "y", "CONFIG_SWAP", "y", NULL });
	struct cg_list objects = { 0 };
	kbuild_objects(makefile, &config, &objects);
	/* obj-y first, then obj-m; parts-y is expanded where parts.o is named, and
	 * parts-y is only set after obj-y += parts.o: recursively expanded, so it counts */
	const char *want[] = { "filemap", "memory", "rmap", "flat", "mmap", "part_a", "part_b",
			       "parts", "zsmalloc" };
	CU_ASSERT_EQUAL(objects.count, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < objects.count && i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_STRING_EQUAL(objects.items[i], want[i]);
	cg_list_free(&objects);
	kconfig_free(&config);
	free(makefile);
}

/* Per-file flags: := expands at once, with srctree/src preset as kbuild does. */
static void test_kbuild_values(void)
{
	char *makefile = write_temp("Makefile.flags",
		"CFLAGS_fault.o := -I $(srctree)/$(src)/../include/asm/trace\n"
		"ccflags-$(CONFIG_DEBUG_VM) += -DDEBUG\n"
		"ccflags-y += -DALWAYS\n"
		"CFLAGS_init-mm.o += $(call cc-disable-warning, override-init)\n");
	struct kconfig config = config_of((const char *const[]){ "CONFIG_DEBUG_VM", "y", NULL });
	const char *presets[] = { "srctree=/k", "src=arch/x86/mm", NULL };
	struct kbuild *kbuild = kbuild_load(makefile, &config, presets);
	char *value = kbuild_get(kbuild, "CFLAGS_fault.o");
	CU_ASSERT_STRING_EQUAL(value, "-I /k/arch/x86/mm/../include/asm/trace");
	free(value);
	value = kbuild_get(kbuild, "ccflags-y");
	CU_ASSERT_STRING_EQUAL(value, "-DDEBUG -DALWAYS");
	free(value);
	value = kbuild_get(kbuild, "CFLAGS_init-mm.o");
	CU_ASSERT_STRING_EQUAL(value, "");   /* make functions expand to nothing */
	free(value);
	CU_ASSERT_PTR_NULL(kbuild_get(kbuild, "CFLAGS_other.o"));
	kbuild_free(kbuild);
	kconfig_free(&config);
	free(makefile);
}

/* References nested ten wide and six deep: 10^6 copies of L0's 10 bytes
 * (10,000,000 bytes) in make; the expansion stops at its 1 MiB budget
 * (analyzer/kbuild.c EXPANSION_MAX_BYTES), every byte written an x. */
static void test_kbuild_expansion_budget(void)
{
	struct buffer text = { 0 };
	buffer_printf(&text, "L0 = xxxxxxxxxx\n");
	for (int level = 1; level <= 6; level++) {
		buffer_printf(&text, "L%d =", level);
		for (int i = 0; i < 10; i++)
			buffer_printf(&text, " $(L%d)", level - 1);
		buffer_printf(&text, "\n");
	}
	buffer_printf(&text, "obj-y = $(L6)\nobj-m = $(L2)\n");
	char *makefile = write_temp("Makefile.nested", text.data);
	struct kbuild *kbuild = kbuild_load(makefile, NULL, NULL);
	char *value = kbuild_get(kbuild, "obj-y");
	CU_ASSERT_PTR_NOT_NULL_FATAL(value);
	size_t length = strlen(value);
	CU_ASSERT(length > 0 && length <= (size_t)1 << 20);
	CU_ASSERT_EQUAL(strspn(value, "x "), length);
	free(value);
	/* within the budget nothing is cut: L2 is 100 copies, 1,099 bytes with
	 * the spaces between them ("L1 = $(L0) ..." keeps its separators) */
	value = kbuild_get(kbuild, "obj-m");
	CU_ASSERT_EQUAL(strlen(value), 100 * 10 + 9 * 10 + 9);
	free(value);
	kbuild_free(kbuild);
	free(makefile);
	buffer_free(&text);
}

/* --- the cache ----------------------------------------------------------------- */

static void make_facts(struct tu_facts *facts)
{
	uint32_t a = tu_add_function(facts, "c:@F@a", "a", "/t/mm/a.c", 10, true);
	uint32_t b = tu_add_function(facts, "c:@F@b", "b", "/t/include/x.h", 3, false);
	facts->calls = calloc(2, sizeof(*facts->calls));
	facts->calls[0] = (struct tu_call){ .caller = a, .callee = b, .field = CG_NONE, .line = 12 };
	facts->calls[1] = (struct tu_call){ .caller = a, .callee = CG_NONE,
		.field = cg_intern(&facts->strings, "c:@S@ops@FI@run"), .line = 13 };
	facts->call_count = facts->call_capacity = 2;
	facts->stores = calloc(1, sizeof(*facts->stores));
	facts->stores[0] = (struct tu_store){ .field = cg_intern(&facts->strings, "c:@S@ops@FI@run"), .function = b };
	facts->store_count = facts->store_capacity = 1;
	facts->errors = 3;
	facts->warnings = 4;
	facts->first_error = xstrdup("x.h:1: error: it\nbroke");
}

/* The files a unit read: unchanged, they vouch for the cached facts; a
 * change of size or mtime (an edited header) or a vanished file does not. */
static void test_cache_inputs(void)
{
	char folder[] = "/tmp/ptscope-inputs.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(folder) != NULL);
	char *header = xasprintf("%s/rmap.h", folder);
	CU_ASSERT_FATAL(cg_write_file_atomic(header, "static inline void f(void) {}\n", 31));
	struct tu_facts facts = { 0 }, back = { 0 };
	make_facts(&facts);
	tu_add_input(&facts, header);
	CU_ASSERT_EQUAL(facts.inputs[0].size, 31);
	CU_ASSERT_TRUE(tu_inputs_current(&facts, NULL));
	struct buffer text = { 0 };
	cache_serialise(&facts, &text);
	CU_ASSERT_TRUE_FATAL(cache_parse(text.data, text.length, &back));
	CU_ASSERT_EQUAL_FATAL(back.input_count, 1);
	CU_ASSERT_STRING_EQUAL(back.inputs[0].path, header);
	CU_ASSERT_TRUE(tu_inputs_current(&back, NULL));
	/* same size, another mtime */
	struct timespec times[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
	CU_ASSERT_FATAL(utimensat(AT_FDCWD, header, times, 0) == 0);
	CU_ASSERT_FALSE(tu_inputs_current(&back, NULL));
	tu_facts_free(&back);
	/* gone */
	unlink(header);
	CU_ASSERT_FALSE(tu_inputs_current(&facts, NULL));
	rmdir(folder);
	free(header);
	buffer_free(&text);
	tu_facts_free(&facts);
}

/* A run stats each input once (struct input_states): units that share a
 * header are checked against its one state, and a unit that recorded
 * another state of it is still refused. */
static void test_cache_input_states(void)
{
	char folder[] = "/tmp/ptscope-states.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(folder) != NULL);
	char *shared = xasprintf("%s/mm.h", folder), *own = xasprintf("%s/rmap.h", folder);
	CU_ASSERT_FATAL(cg_write_file_atomic(shared, "struct page;\n", 13));
	CU_ASSERT_FATAL(cg_write_file_atomic(own, "void f(void);\n", 14));
	struct tu_facts first = { 0 }, second = { 0 }, stale = { 0 };
	tu_add_input(&first, shared);
	tu_add_input(&first, own);
	tu_add_input(&second, own);
	tu_add_input(&second, shared);
	tu_add_input(&stale, shared);
	stale.inputs[0].size = 14; /* the size rmap.h has: a memo that mixed entries would pass it */
	struct input_states states = { 0 };
	CU_ASSERT_TRUE(tu_inputs_current(&first, &states));
	CU_ASSERT_EQUAL(states.count, 2);
	CU_ASSERT_TRUE(tu_inputs_current(&second, &states));
	CU_ASSERT_FALSE(tu_inputs_current(&stale, &states));
	CU_ASSERT_EQUAL(states.count, 2);
	input_states_free(&states);
	/* gone: a new run's memo sees it */
	unlink(shared);
	CU_ASSERT_FALSE(tu_inputs_current(&second, &states));
	input_states_free(&states);
	unlink(own);
	rmdir(folder);
	free(shared);
	free(own);
	tu_facts_free(&first);
	tu_facts_free(&second);
	tu_facts_free(&stale);
}

static void test_cache_round_trip(void)
{
	struct tu_facts facts = { 0 }, back = { 0 };
	make_facts(&facts);
	struct buffer text = { 0 };
	cache_serialise(&facts, &text);
	char *copy = xstrdup(text.data);
	CU_ASSERT_TRUE_FATAL(cache_parse(copy, text.length, &back));
	CU_ASSERT_EQUAL(back.function_count, 2);
	CU_ASSERT_EQUAL(back.call_count, 2);
	CU_ASSERT_EQUAL(back.store_count, 1);
	CU_ASSERT_EQUAL(back.errors, 3);
	CU_ASSERT_EQUAL(back.warnings, 4);
	CU_ASSERT_STRING_EQUAL(back.first_error, "x.h:1: error: it broke");   /* one line */
	CU_ASSERT_STRING_EQUAL(back.strings.text[back.functions[1].file], "/t/include/x.h");
	CU_ASSERT_FALSE(back.functions[1].defined);
	CU_ASSERT_EQUAL(back.functions[0].line, 10);
	CU_ASSERT_EQUAL(back.calls[1].callee, CG_NONE);
	CU_ASSERT_STRING_EQUAL(back.strings.text[back.calls[1].field], "c:@S@ops@FI@run");
	CU_ASSERT_EQUAL(back.calls[0].line, 12);
	/* serialising what was read gives the same text */
	struct buffer again = { 0 };
	cache_serialise(&back, &again);
	CU_ASSERT_STRING_EQUAL(again.data, text.data);
	buffer_free(&again);
	tu_facts_free(&back);
	free(copy);

	/* cut short (no "end"): rejected */
	struct tu_facts cut = { 0 };
	copy = xstrdup(text.data);
	size_t length = text.length - 4;
	copy[length] = '\0';
	CU_ASSERT_FALSE(cache_parse(copy, length, &cut));
	tu_facts_free(&cut);
	free(copy);
	/* a call naming a function that does not exist: rejected */
	struct tu_facts bad = { 0 };
	char *damaged = xasprintf("ptscope-facts 3\ncounts 0 0 0 0\ns x\nf 0 0 0 1 1\nc 0 5 - 3\nend\n");
	CU_ASSERT_FALSE(cache_parse(damaged, strlen(damaged), &bad));
	tu_facts_free(&bad);
	free(damaged);
	/* a well-formed file of the previous format (other builds share the
	 * folder): ignored, never read as this one */
	struct tu_facts old = { 0 };
	char *previous = xasprintf("ptscope-facts 2\ncounts 0 0 0 0\ns x\nf 0 0 0 1 1\nend\n");
	CU_ASSERT_FALSE(cache_parse(previous, strlen(previous), &old));
	tu_facts_free(&old);
	free(previous);
	buffer_free(&text);
	tu_facts_free(&facts);
}

static void test_field_names_and_flags(void)
{
	char *name = field_display_name("c:@S@rmap_walk_control@FI@rmap_one");
	CU_ASSERT_STRING_EQUAL(name, "rmap_walk_control.rmap_one");
	free(name);
	name = field_display_name("c:@S@vm_operations_struct@FI@fault");
	CU_ASSERT_STRING_EQUAL(name, "vm_operations_struct.fault");
	free(name);
	name = field_display_name("c:@F@plain");
	CU_ASSERT_STRING_EQUAL(name, "c:@F@plain");
	free(name);
	CU_ASSERT_TRUE(sources_gcc_only_flag("-mpreferred-stack-boundary=3"));
	CU_ASSERT_TRUE(sources_gcc_only_flag("-mindirect-branch=thunk-extern"));
	CU_ASSERT_TRUE(sources_gcc_only_flag("-fno-allow-store-data-races"));
	CU_ASSERT_FALSE(sources_gcc_only_flag("-O2"));
	CU_ASSERT_FALSE(sources_gcc_only_flag("-D__KERNEL__"));
}

/* --- libclang extraction of one unit ----------------------------------------- */

static const char unit_header[] =
	"struct ops { void (*open)(int); int (*run)(int); int (*stop)(int); };\n"
	"static inline int used_helper(int x) { return x + 1; }\n"
	"static inline int unused_helper(int x) { return x - 1; }\n"
	"int run_a(int);\nint run_b(int);\nint run_c(int);\nint run_d(int);\nint never_stored(int);\n";

static const char unit_source[] =
	"#include \"unit.h\"\n"                                                   /* 1 */
	"#define CALL_HELPER(x) used_helper(x)\n"                                 /* 2 */
	"struct ops by_name = { .run = run_a };\n"                                /* 3 */
	"struct ops by_place = { 0, run_b };\n"                                   /* 4 */
	"struct ops gnu_style = { run: run_c };\n"                                /* 5 */
	"int caller(struct ops *o, int (*fn)(int))\n"                             /* 6 */
	"{\n"                                                                     /* 7 */
	"\to->run = run_d;\n"                                                     /* 8 */
	"\tif (o->run == never_stored)\n"                                         /* 9 */
	"\t\treturn 0;\n"                                                         /* 10 */
	"\tfn(1);\n"                                                              /* 11 */
	"\treturn o->run(2) + CALL_HELPER(3) + (*o->stop)(4);\n"                  /* 12 */
	"}\n";                                                                    /* 13 */

static uint32_t function_named(const struct tu_facts *facts, const char *name)
{
	for (size_t i = 0; i < facts->function_count; i++)
		if (!strcmp(facts->strings.text[facts->functions[i].name], name))
			return (uint32_t)i;
	return CG_NONE;
}

static bool stored(const struct tu_facts *facts, const char *field_suffix, const char *function)
{
	for (size_t i = 0; i < facts->store_count; i++) {
		const char *field = facts->strings.text[facts->stores[i].field];
		const char *name = facts->strings.text[facts->functions[facts->stores[i].function].name];
		size_t a = strlen(field), b = strlen(field_suffix);
		if (a >= b && !strcmp(field + a - b, field_suffix) && !strcmp(name, function))
			return true;
	}
	return false;
}

static void test_parse_unit(void)
{
	char *header = write_temp("unit.h", unit_header);
	char *source = write_temp("unit.c", unit_source);
	struct tu_job job = { .path = source };
	cg_list_add(&job.arguments, "-std=gnu11");
	void *index = parse_index_create();
	parse_unit(index, &job);
	parse_index_dispose(index);
	struct tu_facts *facts = &job.facts;
	CU_ASSERT_FALSE(facts->failed);
	CU_ASSERT_EQUAL(facts->errors, 0);
	/* stores: designated, positional (after a 0 for open), GNU "field:" and an
	 * assignment; the comparison with never_stored is not a store */
	CU_ASSERT_EQUAL(facts->store_count, 4);
	CU_ASSERT_TRUE(stored(facts, "@FI@run", "run_a"));
	CU_ASSERT_TRUE(stored(facts, "@FI@run", "run_b"));
	CU_ASSERT_TRUE(stored(facts, "@FI@run", "run_c"));
	CU_ASSERT_TRUE(stored(facts, "@FI@run", "run_d"));
	CU_ASSERT_FALSE(stored(facts, "@FI@run", "never_stored"));
	/* calls of caller: o->run (line 12), used_helper via the macro (line 12),
	 * (*o->stop) (line 12); fn(1) through a variable is unresolved */
	uint32_t caller = function_named(facts, "caller");
	uint32_t helper = function_named(facts, "used_helper");
	CU_ASSERT_NOT_EQUAL_FATAL(caller, CG_NONE);
	CU_ASSERT_NOT_EQUAL_FATAL(helper, CG_NONE);
	CU_ASSERT_TRUE(facts->functions[helper].defined);
	CU_ASSERT_EQUAL(function_named(facts, "unused_helper"), CG_NONE);   /* never reached */
	CU_ASSERT_EQUAL(facts->unresolved_pointer_calls, 1);
	CU_ASSERT_EQUAL(facts->call_count, 3);
	size_t direct = 0, run = 0, stop = 0;
	for (size_t i = 0; i < facts->call_count; i++) {
		const struct tu_call *call = &facts->calls[i];
		CU_ASSERT_EQUAL(call->caller, caller);
		CU_ASSERT_EQUAL(call->line, 12);
		if (call->callee == helper)
			direct++;
		else if (call->field != CG_NONE && strstr(facts->strings.text[call->field], "@FI@run"))
			run++;
		else if (call->field != CG_NONE && strstr(facts->strings.text[call->field], "@FI@stop"))
			stop++;
	}
	CU_ASSERT_EQUAL(direct, 1);
	CU_ASSERT_EQUAL(run, 1);
	CU_ASSERT_EQUAL(stop, 1);
	/* the helper is named by the header it is written in */
	CU_ASSERT_PTR_NOT_NULL(strstr(facts->strings.text[facts->functions[helper].file], "unit.h"));
	tu_facts_free(facts);
	cg_list_free(&job.arguments);
	free(header);
	free(source);
}

/* --- the merged graph ------------------------------------------------------------ */

/* Unit 1 (/t/mm/one.c): static helper (one.c), entry_fn -> helper, entry_fn -> leaf,
 * entry_fn -> shared (declared only), entry_fn calls ops.run twice on line 7 and once
 * ops.none (nothing stored).  Unit 2 (/t/mm/sink.c): static helper (sink.c),
 * shared -> sink_fn, stores target into ops.run, helper -> sink_fn. */
static void build_jobs(struct tu_job jobs[2])
{
	memset(jobs, 0, 2 * sizeof(*jobs));
	struct tu_facts *one = &jobs[0].facts, *two = &jobs[1].facts;
	uint32_t entry = tu_add_function(one, "c:@F@entry_fn", "entry_fn", "/t/mm/one.c", 5, true);
	uint32_t helper1 = tu_add_function(one, "c:one.c@F@helper", "helper", "/t/mm/one.c", 2, true);
	uint32_t leaf = tu_add_function(one, "c:@F@leaf", "leaf", "/t/include/leaf.h", 1, false);
	uint32_t shared1 = tu_add_function(one, "c:@F@shared", "shared", "/t/include/s.h", 9, false);
	uint32_t run = cg_intern(&one->strings, "c:@S@ops@FI@run");
	uint32_t none = cg_intern(&one->strings, "c:@S@ops@FI@none");
	struct tu_call calls1[] = {
		{ entry, helper1, CG_NONE, 6 }, { entry, leaf, CG_NONE, 6 }, { entry, shared1, CG_NONE, 8 },
		{ entry, CG_NONE, run, 7 }, { entry, CG_NONE, run, 7 }, { entry, CG_NONE, none, 9 },
	};
	one->calls = malloc(sizeof(calls1));
	memcpy(one->calls, calls1, sizeof(calls1));
	one->call_count = one->call_capacity = 6;

	uint32_t shared2 = tu_add_function(two, "c:@F@shared", "shared", "/t/mm/sink.c", 20, true);
	uint32_t sink = tu_add_function(two, "c:@F@sink_fn", "sink_fn", "/t/mm/sink.c", 30, true);
	uint32_t target = tu_add_function(two, "c:@F@target", "target", "/t/mm/sink.c", 40, true);
	uint32_t helper2 = tu_add_function(two, "c:sink.c@F@helper", "helper", "/t/mm/sink.c", 50, true);
	struct tu_call calls2[] = { { shared2, sink, CG_NONE, 21 }, { helper2, sink, CG_NONE, 51 } };
	two->calls = malloc(sizeof(calls2));
	memcpy(two->calls, calls2, sizeof(calls2));
	two->call_count = two->call_capacity = 2;
	two->stores = malloc(sizeof(struct tu_store));
	two->stores[0] = (struct tu_store){ cg_intern(&two->strings, "c:@S@ops@FI@run"), target };
	two->store_count = two->store_capacity = 1;
}

static const struct cg_node *node_named(const struct callgraph *graph, const char *name, const char *file)
{
	for (size_t i = 0; i < graph->node_count; i++)
		if (!strcmp(graph->nodes[i].name, name) && (!file || !strcmp(graph->nodes[i].file, file)))
			return &graph->nodes[i];
	return NULL;
}

static bool has_edge(const struct callgraph *graph, const char *from, const char *to,
		     enum cg_edge_kind kind, unsigned line)
{
	for (size_t i = 0; i < graph->edge_count; i++) {
		const struct cg_edge *edge = &graph->edges[i];
		if (!strcmp(graph->nodes[edge->from].name, from) && !strcmp(graph->nodes[edge->to].name, to) &&
		    edge->kind == kind && edge->line == line)
			return true;
	}
	return false;
}

static struct callgraph *build(struct tu_job jobs[2], bool all, int depth, const char *extra_sink)
{
	struct cg_list entries = { 0 }, sinks = { 0 };
	cg_list_add(&entries, "entry_*");
	cg_list_add(&sinks, "mm/sink.c");
	if (extra_sink)
		cg_list_add(&sinks, extra_sink);
	struct graph_request request = { .root = "/t", .entries = &entries, .sinks = &sinks,
					 .depth = depth, .all = all };
	struct callgraph *graph = graph_build(jobs, 2, &request);
	cg_list_free(&entries);
	cg_list_free(&sinks);
	return graph;
}

static void free_jobs(struct tu_job jobs[2])
{
	tu_facts_free(&jobs[0].facts);
	tu_facts_free(&jobs[1].facts);
}

static void test_graph_identity_and_indirect(void)
{
	struct tu_job jobs[2];
	build_jobs(jobs);
	struct callgraph *graph = build(jobs, true, 0, NULL);
	/* entry_fn, two helpers, leaf, shared, sink_fn, target */
	CU_ASSERT_EQUAL(graph->node_count, 7);
	CU_ASSERT_PTR_NOT_NULL(node_named(graph, "helper", "mm/one.c"));
	CU_ASSERT_PTR_NOT_NULL(node_named(graph, "helper", "mm/sink.c"));
	const struct cg_node *shared = node_named(graph, "shared", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shared);
	CU_ASSERT_TRUE(shared->defined);                 /* the definition's place wins */
	CU_ASSERT_STRING_EQUAL(shared->file, "mm/sink.c");
	CU_ASSERT_EQUAL(shared->line, 20);
	const struct cg_node *leaf = node_named(graph, "leaf", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(leaf);
	CU_ASSERT_FALSE(leaf->defined);
	/* 5 direct + 1 indirect (two call sites on one line are one edge) */
	CU_ASSERT_EQUAL(graph->edge_count, 6);
	CU_ASSERT_TRUE(has_edge(graph, "entry_fn", "target", CG_EDGE_INDIRECT, 7));
	CU_ASSERT_TRUE(has_edge(graph, "entry_fn", "shared", CG_EDGE_DIRECT, 8));
	CU_ASSERT_TRUE(has_edge(graph, "shared", "sink_fn", CG_EDGE_DIRECT, 21));
	for (size_t i = 0; i < graph->edge_count; i++)
		if (graph->edges[i].kind == CG_EDGE_INDIRECT)
			CU_ASSERT_STRING_EQUAL(graph->edges[i].field, "ops.run");
	CU_ASSERT_EQUAL(graph->summary.indirect_sites, 3);
	CU_ASSERT_EQUAL(graph->summary.indirect_unresolved, 1);   /* ops.none */
	CU_ASSERT_EQUAL(graph->summary.functions, 7);
	/* roles with --all: entry_fn entry; sink.c functions sinks; leaf other */
	CU_ASSERT_EQUAL(node_named(graph, "entry_fn", NULL)->role, CG_ROLE_ENTRY);
	CU_ASSERT_EQUAL(node_named(graph, "target", NULL)->role, CG_ROLE_SINK);
	CU_ASSERT_EQUAL(leaf->role, CG_ROLE_OTHER);
	CU_ASSERT_EQUAL(node_named(graph, "helper", "mm/one.c")->role, CG_ROLE_OTHER);
	callgraph_free(graph);
	free_jobs(jobs);
}

static void test_graph_paths_and_depth(void)
{
	struct tu_job jobs[2];
	build_jobs(jobs);
	/* paths: entry_fn -> target (sink), entry_fn -> shared (sink) -> sink_fn (sink);
	 * helpers and leaf do not lead to a sink reached from an entry */
	struct callgraph *graph = build(jobs, false, 0, NULL);
	CU_ASSERT_EQUAL(graph->node_count, 4);
	CU_ASSERT_EQUAL(graph->edge_count, 3);
	CU_ASSERT_PTR_NULL(node_named(graph, "leaf", NULL));
	CU_ASSERT_PTR_NULL(node_named(graph, "helper", "mm/sink.c"));  /* a sink nobody reaches */
	callgraph_free(graph);
	free_jobs(jobs);

	/* depth 1: only edges from an entry straight into a sink */
	build_jobs(jobs);
	graph = build(jobs, false, 1, NULL);
	CU_ASSERT_EQUAL(graph->edge_count, 2);
	CU_ASSERT_TRUE(has_edge(graph, "entry_fn", "shared", CG_EDGE_DIRECT, 8));
	CU_ASSERT_TRUE(has_edge(graph, "entry_fn", "target", CG_EDGE_INDIRECT, 7));
	CU_ASSERT_PTR_NULL(node_named(graph, "sink_fn", NULL));
	callgraph_free(graph);
	free_jobs(jobs);

	/* an extra sink by name: leaf is body-less, so it cannot be a sink */
	build_jobs(jobs);
	graph = build(jobs, false, 0, "leaf");
	CU_ASSERT_PTR_NULL(node_named(graph, "leaf", NULL));
	callgraph_free(graph);
	free_jobs(jobs);
}

void suite_analyzer(void)
{
	ADD_SUITE("analyzer", test_kconfig_values_and_header, test_kconfig_bad_line,
		  test_kconfig_compressed, test_kbuild_objects, test_kbuild_values, test_kbuild_expansion_budget, test_cache_round_trip, test_cache_inputs,
		  test_cache_input_states,
		  test_field_names_and_flags, test_parse_unit, test_graph_identity_and_indirect,
		  test_graph_paths_and_depth);
}
