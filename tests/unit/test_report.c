/*
 * tests/unit/test_report.c - the report writers, all five formats, on the
 * committed snapshot tests/fixtures/report-snapshot (made from
 * tests/fixtures/proc by tests/kit/report-snapshot.py, which says how).
 *
 * The snapshot is read through the inputs door, the model runs on it, and
 * report_write() writes into memory.  Every figure asserted was worked out
 * by hand from the fixture's files and docs/cost-model.md; the working is
 * beside each assertion.  Each format is also read back by a real reader:
 * JSON by json-c, XML by libxml2, HTML by libxml2's HTML parser, CSV by
 * libcsv.
 *
 * The fixture, by hand (both processes are the one `sleep` of
 * tests/fixtures/proc plus a 4 MiB locale-archive VMA; pids 5969 and 5970):
 *   VMAs: 37 of sleep's smaps + 1 added = 38 a process, 76 in all.
 *   Records: Rss 1788 kB + 8 kB = 1796 kB = 449 pages a process, 898 in all;
 *     Anonymous 108 kB = 27 of them anonymous (PFN private to the process),
 *     422 file pages (PFN the same in both: mapped twice, kpagecount 2).
 *   2 MiB windows a process (cost-model.md section 4), by first address:
 *     0x55fc0b400000 (sleep's 5 VMAs), 0x55fc49400000 (heap), 0x7fd9d8000000
 *     and 0x7fd9d8200000 (locale-archive, one page each), 0x7fd9d8600000
 *     (LC_CTYPE's first 43 pages alone), 0x7fd9d8800000 and 0x7fd9d8a00000
 *     (the rest of the libraries), 0x7ffec2a00000 (stack): 8 PTE pages
 *     ([vsyscall] has no records).
 *   1 GiB windows (>> 30): 0x157f0 (sleep), 0x157f1 (heap), 0x1ff67 (the
 *     libraries), 0x1fffb (stack): 4 PMD pages.  512 GiB windows (>> 39):
 *     0xab, 0xff: 2 PUD pages.  14 pages = 57344 B a process = VmPTE 56 kB.
 */
#include <CUnit/CUnit.h>
#include <csv.h>
#include <json-c/json.h>
#include <json-c/json_pointer.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "model/model.h"
#include "outputs/report.h"
#include "test.h"

/* The designs built in, `grep -c '<rmap-profile'` over model/profiles/:
 * 11 + 12 = 23; with arch="x86_64": 4 + 6 = 10. */
#define BUILTIN_DESIGNS 23
#define X86_64_DESIGNS 10

struct loaded {
	struct profile_set profiles;
	struct snapshot *snapshot;
	struct model_result *result;
};

/* Read the fixture as `ptscope report` does: every built-in design and rule. */
static void load(struct loaded *l)
{
	struct error error;
	memset(l, 0, sizeof(*l));
	CU_ASSERT_EQUAL_FATAL(profiles_load_builtin(&l->profiles, &error), 0);
	CU_ASSERT_EQUAL_FATAL(snapshot_read(test_fixture("report-snapshot"), NULL, &l->snapshot, &error), 0);
	struct model_options options = { .profiles = &l->profiles, .top_files = 10 };
	CU_ASSERT_EQUAL_FATAL(model_run(l->snapshot, &options, &l->result, &error), 0);
}

static void unload(struct loaded *l)
{
	model_free(l->result);
	snapshot_free(l->snapshot);
	profiles_free(&l->profiles);
}

/* The report as report_write() writes it, in memory (NUL-terminated). */
static char *render(const struct model_result *result, const struct report_options *options, size_t *length)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_write(out, result, options), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	if (length)
		*length = size;
	return text;
}

/* The fixture loaded and its report written with these options. */
static char *render_fixture(struct loaded *l, const struct report_options *options, size_t *length)
{
	load(l);
	return render(l->result, options, length);
}

/* ---- JSON (json-c; RFC 6901 pointers) ---- */

static struct json_object *json_at(struct json_object *root, const char *pointer)
{
	struct json_object *value = NULL;
	if (json_pointer_get(root, pointer, &value) != 0) {
		fprintf(stderr, "\nno %s in the JSON report\n", pointer);
		return NULL;
	}
	return value;
}

static int64_t json_int(struct json_object *root, const char *pointer)
{
	struct json_object *value = json_at(root, pointer);
	CU_ASSERT_PTR_NOT_NULL(value);
	return value ? json_object_get_int64(value) : -1;
}

static const char *json_text(struct json_object *root, const char *pointer)
{
	struct json_object *value = json_at(root, pointer);
	CU_ASSERT_PTR_NOT_NULL(value);
	return value ? json_object_get_string(value) : "";
}

/* The element of the array at `pointer` whose "id" is id. */
static struct json_object *json_by_id(struct json_object *root, const char *pointer, const char *id)
{
	struct json_object *array = json_at(root, pointer);
	for (size_t i = 0; array && i < json_object_array_length(array); i++) {
		struct json_object *item = json_object_array_get_idx(array, i), *key = NULL;
		if (json_object_object_get_ex(item, "id", &key) && !strcmp(json_object_get_string(key), id))
			return item;
	}
	fprintf(stderr, "\nno %s with id %s in the JSON report\n", pointer, id);
	CU_FAIL("id not found");
	return NULL;
}

static struct json_object *parse_json(const char *text)
{
	struct json_tokener *tokener = json_tokener_new();
	struct json_object *root = json_tokener_parse_ex(tokener, text, (int)strlen(text));
	CU_ASSERT_EQUAL(json_tokener_get_error(tokener), json_tokener_success);
	/* the whole text is the one document (a newline after it) */
	CU_ASSERT_EQUAL(strspn(text + json_tokener_get_parse_end(tokener), "\n"),
			strlen(text + json_tokener_get_parse_end(tokener)));
	json_tokener_free(tokener);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	return root;
}

/* Numbers under a JSON value (objects and arrays walked), and how many are not 0. */
static size_t json_numbers(struct json_object *value, size_t *nonzero)
{
	size_t count = 0;
	if (json_object_is_type(value, json_type_object)) {
		json_object_object_foreach(value, key, child) {
			(void)key;
			count += json_numbers(child, nonzero);
		}
	} else if (json_object_is_type(value, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(value); i++)
			count += json_numbers(json_object_array_get_idx(value, i), nonzero);
	} else if (json_object_is_type(value, json_type_int) || json_object_is_type(value, json_type_double)) {
		*nonzero += json_object_get_double(value) != 0;
		count++;
	}
	return count;
}

/*
 * The totals worked by hand, as paths below `totals` (JSON pointer syntax):
 * the JSON, XML and --versus CSV checks all read this one table.
 */
struct figure {
	const char *path;
	double value;
};

static const struct figure totals[] = {
	{ "processes", 2 },
	{ "vmas", 76 },                                 /* 2 x 38 */
	{ "present_ptes", 898 },                        /* 2 x 449 */
	{ "swap_ptes", 0 },
	/* page tables: 8 PTE + 4 PMD + 2 PUD pages a process (top of file) */
	{ "pte_pages", 16 },                            /* 2 x 8 */
	{ "upper_level_pages", 12 },                    /* 2 x (4 + 2) */
	{ "pagetable_bytes", 114688 },                  /* 28 x 4096 */
	/* beside it, the kernel's VmPTE: 56 kB in each status, 2 x 56 x 1024 */
	{ "vmpte_bytes", 114688 },
	{ "processes_pagetable_exact", 2 },
	{ "pmd_mapped_windows", 0 },
	/* VMAs holding an anon_vma: smaps Anonymous > 0: sleep's RELRO and data,
	 * heap, 3 anonymous, libc's RELRO and data, ld.so's RELRO and data,
	 * stack = 11 a process */
	{ "vmas_with_anon_vma", 22 },
	/* pte_chain bytes, section 8: each present record pays C(m)/m, m = 2 for
	 * the 2 x 422 file records, 1 for the 2 x 27 anonymous ones */
	{ "pte_chain_bytes/2.4-rmap-x86_64", 14368 },   /* D1, s1 16: 16 each: 898 x 16 */
	{ "pte_chain_bytes/2.4-rmap-i386", 7184 },      /* s1 8: 898 x 8 */
	{ "pte_chain_bytes/2.5-direct-x86_64", 13504 }, /* D2: m = 1 free; 2 x 16 / 2: 844 x 16 */
	{ "pte_chain_bytes/2.5-array-x86_64-l1-64", 27008 },  /* NRPTE 7: C(2) 64, / 2: 844 x 32 */
	{ "pte_chain_bytes/2.5-array-x86_64-l1-128", 54016 }, /* NRPTE 15: C(2) 128, / 2: 844 x 64 */
	{ "pte_chain_bytes/2.5.62-objrmap-x86_64-l1-64", 0 }, /* D4: file pages free, anon m = 1 */
	{ "pte_chain_bytes/6.1-x86_64", 0 },
	/* object rmap, sections 3 and 9.  6.1-x86_64 (VMA fields 40, anon_vma
	 * 104, chain 64 B): anon_vmas: the 11 VMAs less the 3 RELRO/data pairs
	 * that share one (sleep, libc, ld.so: adjacent, offset running on) = 8 a
	 * process; chains: depth 0 (the parent 5965 is not captured), 1 a VMA:
	 *   76 x 40 + 16 x 104 + 22 x 64 = 3040 + 1664 + 1408 */
	{ "object_rmap_bytes/6.1-x86_64", 6112 },
	{ "object_rmap_bytes/2.6.34-avc-x86_64", 4480 },     /* 24 B, 48 B: 3040 + 384 + 1056 */
	/* 2.6.7 (anon_vma 24 B, no chains; no anonymous PFN is shared, so a
	 * family is a process's group): 3040 + 16 x 24 */
	{ "object_rmap_bytes/2.6.7-anon_vma-x86_64", 3424 },
	{ "object_rmap_bytes/2.4-rmap-x86_64", 0 },
	/* sharing, sections 5 and 8: only the locale-archive VMA is eligible (the
	 * one file VMA of >= 2 MiB); partners: the two processes; its two 2 MiB
	 * windows are wholly inside and populated by both: 2 x (2 - 1) */
	{ "sharable_pte_pages/shpt-2006", 2 },
	/* windows holding only shared file pages: locale-archive's two and
	 * LC_CTYPE's 0x7fd9d8600000, in both processes alike; every other one
	 * holds anonymous pages, whose PFNs differ */
	{ "sharable_pte_pages/identical", 3 },
	{ "sharable_pte_pages/aligned-what-if", 2 },    /* the same group, 2 windows */
	/* no 1 GiB window inside a VMA, no hugetlb, no 512 GiB region */
	{ "sharable_pte_pages/shpt-2006-pmd", 0 },
	{ "sharable_pte_pages/hugetlb-pmd", 0 },
	{ "sharable_pte_pages/mshare", 0 },
	/* fork today (6.1: VMAs with an anon_vma): their 27 PTEs a process, in 5
	 * windows (sleep's, heap, 0x7fd9d8800000, 0x7fd9d8a00000, stack); the shared
	 * locale-archive windows hold none of them, so shpt-2006 copies as much */
	{ "fork_pte_pages_copied/none", 10 },
	{ "fork_ptes_copied/none", 54 },
	{ "fork_ptes_copied/shpt-2006", 54 },
	{ "fork_pte_pages_copied/shpt-2006", 10 },
};
#define TOTALS (sizeof(totals) / sizeof(totals[0]))

/* A figure as a format holds it; NAN when it is not there. */
typedef double figure_reader(void *document, const char *path);

/* Each figure at prefix + path against the value worked by hand. */
static void check_figures(void *document, figure_reader *read, const char *prefix, const struct figure *figures,
			  size_t count)
{
	for (size_t i = 0; i < count; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s%s", prefix, figures[i].path);
		double found = read(document, path);
		if (found != figures[i].value)
			fprintf(stderr, "\n%s: the report says %g, worked by hand %g\n", path, found, figures[i].value);
		CU_ASSERT(found == figures[i].value);
	}
}

static double json_number(void *root, const char *pointer)
{
	struct json_object *value = json_at(root, pointer);
	return value ? json_object_get_double(value) : NAN;
}

/* The snapshot's names and the totals, checked in a JSON tree. */
static void check_json_figures(struct json_object *r)
{
	CU_ASSERT_STRING_EQUAL(json_text(r, "/snapshot/hostname"), "report-fixture");
	CU_ASSERT_STRING_EQUAL(json_text(r, "/snapshot/kernel"), "6.18.44-fc-v782");   /* version's 3rd word */
	CU_ASSERT_STRING_EQUAL(json_text(r, "/snapshot/pagemap"), "pfn");
	CU_ASSERT_STRING_EQUAL(json_text(r, "/snapshot/geometry"), "x86_64-4level");
	check_figures(r, json_number, "/totals/", totals, TOTALS);
}

static void check_json_tree(struct json_object *r)
{
	check_json_figures(r);
	/* headlines: the first address rule and the snapshot's own design */
	CU_ASSERT_STRING_EQUAL(json_text(r, "/headlines/sharing/rule"), "shpt-2006");
	CU_ASSERT_EQUAL(json_int(r, "/headlines/sharing/pages"), 2);
	CU_ASSERT_EQUAL(json_int(r, "/headlines/sharing/bytes"), 8192);                /* 2 x 4096 */
	CU_ASSERT_EQUAL(json_int(r, "/headlines/sharing/pagetable_bytes"), 114688);
	CU_ASSERT_STRING_EQUAL(json_text(r, "/headlines/rmap/design"), "6.1-x86_64"); /* kernel 6.18 */
	CU_ASSERT_EQUAL(json_int(r, "/headlines/rmap/rmap_bytes"), 6112);
	CU_ASSERT_STRING_EQUAL(json_text(r, "/headlines/rmap/baseline"), "2.4-rmap-x86_64");
	CU_ASSERT_EQUAL(json_int(r, "/headlines/rmap/baseline_rmap_bytes"), 14368);

	CU_ASSERT_EQUAL(json_object_array_length(json_at(r, "/designs")), BUILTIN_DESIGNS);
	struct json_object *now = json_by_id(r, "/designs", "6.1-x86_64");
	CU_ASSERT_EQUAL(json_int(now, "/anon_vmas"), 16);
	CU_ASSERT_EQUAL(json_int(now, "/anon_vma_chains"), 22);
	CU_ASSERT_EQUAL(json_int(now, "/vma_field_bytes"), 3040);     /* 76 x 40 */
	CU_ASSERT_EQUAL(json_int(now, "/rmap_bytes"), 6112);
	CU_ASSERT_EQUAL(json_int(now, "/saves_bytes"), 8256);         /* 14368 - 6112 */
	/* page field: MemTotal 24683620 kB = 6170905 pages; _mapcount 4 B each */
	CU_ASSERT_EQUAL(json_int(now, "/page_field_bytes"), 24683620);
	CU_ASSERT_EQUAL(json_int(now, "/total_bytes"), 24689732);     /* 6112 + 24683620 */
	/* work: exit removes every present PTE; 6.1's lazy fork copies the 54
	 * anonymous ones; anon_vma_fork per VMA with one (22), chains 22 + 22 */
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/exit_rmap_calls"), 898);
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/fork_rmap_calls"), 54);
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/fork_anon_vma_calls"), 22);
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/fork_chain_allocations"), 44);
	struct json_object *old = json_by_id(r, "/designs", "2.4-rmap-x86_64");
	CU_ASSERT_EQUAL(json_int(old, "/rmap_bytes"), 14368);
	CU_ASSERT_EQUAL(json_int(old, "/saves_bytes"), 0);            /* its own baseline */
	CU_ASSERT_EQUAL(json_int(old, "/page_field_bytes"), 49367240);/* 6170905 x 8 */
	CU_ASSERT_EQUAL(json_int(old, "/work_per_event/fork_rmap_calls"), 898); /* copies every PTE */
	CU_ASSERT(json_object_get_boolean(json_at(old, "/pte_chain_exact")));
	/* faulting every page in allocates the chains the pages hold: 14368 / 16
	 * (D1) a mapping; exit frees one a mapping too */
	CU_ASSERT_EQUAL(json_int(old, "/work_per_event/faults/all/chain_allocations"), 898);
	CU_ASSERT_EQUAL(json_int(old, "/work_per_event/exit_chain_frees"), 898);
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/exit_anon_vma_chain_frees"), 22);
	CU_ASSERT_EQUAL(json_int(now, "/work_per_event/faults/all/chain_allocations"), 0);
	struct json_object *array = json_by_id(r, "/designs", "2.5-array-x86_64-l1-64");
	CU_ASSERT_EQUAL(json_int(array, "/saves_bytes"), -12640);     /* 14368 - 27008 */
	CU_ASSERT_EQUAL(json_int(array, "/work_per_event/faults/all/chain_allocations"), 422);  /* 27008 / 64 */

	struct json_object *shpt = json_by_id(r, "/sharing", "shpt-2006");
	CU_ASSERT_EQUAL(json_int(shpt, "/pages"), 2);
	CU_ASSERT_EQUAL(json_int(shpt, "/bytes"), 8192);
	CU_ASSERT_EQUAL(json_int(shpt, "/eligible_vmas"), 2);         /* locale-archive in each */
	/* 8192 / 114688 = 7.14 % */
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(json_at(shpt, "/percent_of_pagetables")), 7.1, 1e-9);
	CU_ASSERT_EQUAL(json_object_array_length(json_at(shpt, "/files")), 1);
	CU_ASSERT_STRING_EQUAL(json_text(shpt, "/files/0/path"), "/usr/lib/locale/locale-archive");
	CU_ASSERT_EQUAL(json_int(shpt, "/files/0/inode"), 320472);
	CU_ASSERT_EQUAL(json_int(shpt, "/files/0/pages"), 2);
	CU_ASSERT_EQUAL(json_int(shpt, "/files/0/mappings"), 2);
	/* 12288 / 114688 = 10.71 % */
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(json_at(json_by_id(r, "/sharing", "identical"),
							     "/percent_of_pagetables")), 10.7, 1e-9);

	/* kernel counters: meminfo PageTables 1436 kB = 1470464 B; the model's
	 * tables 114688; the rest 1355776.  slabinfo's active objects beside the
	 * model's count (6.1: 16 anon_vmas, 22 chains; VMAs but [vsyscall]:
	 * 2 x 37 = 74); no slub member, so no slack and no lower bound. */
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/meminfo_pagetables_bytes"), 1470464);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/model_pagetables_bytes"), 114688);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/pagetables_remainder_bytes"), 1355776);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/anon_vma/objects"), 1059);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/anon_vma/model"), 16);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/anon_vma_chain/objects"), 2107);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/anon_vma_chain/model"), 22);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/vm_area_struct/objects"), 3350);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/vm_area_struct/model"), 74);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/vm_area_struct/lower"), 0);
	CU_ASSERT_EQUAL(json_int(r, "/kernel_counters/slab/vm_area_struct/upper"), 3350);
	CU_ASSERT(json_object_get_boolean(json_at(r, "/kernel_counters/partial_capture")));
	CU_ASSERT_FALSE(json_object_get_boolean(json_at(r, "/kernel_counters/slab/vm_area_struct/lower_known")));
	CU_ASSERT(json_object_get_boolean(json_at(r, "/kernel_counters/slab/vm_area_struct/within")));
	CU_ASSERT(json_object_is_type(json_at(r, "/kernel_counters/slab/anon_vma/slack"), json_type_null));
}

static void test_json(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_JSON };
	char *text = render_fixture(&l, &options, NULL);
	struct json_object *root = parse_json(text);
	check_json_tree(root);
	/* no rows per process unless asked */
	CU_ASSERT_PTR_NULL(json_object_object_get(root, "processes"));
	json_object_put(root);
	free(text);
	unload(&l);
}

/* ---- --per-process ---- */

static void test_json_per_process(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_JSON, .per_process = true };
	char *text = render_fixture(&l, &options, NULL);
	struct json_object *root = parse_json(text);
	/* pid order; each process: 14 page-table pages, 449 records, VmPTE
	 * 56 kB, Rss 1796 kB; pte_chain 2.4-rmap-x86_64 449 x 16; shpt-2006's 2
	 * pages split between the two partners: 1.0 each */
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(json_at(root, "/processes")), 2);
	static const int pids[] = { 5969, 5970 };
	for (size_t i = 0; i < 2; i++) {
		char pointer[64];
		struct json_object *p = json_object_array_get_idx(json_at(root, "/processes"), i);
		CU_ASSERT_EQUAL(json_int(p, "/pid"), pids[i]);
		CU_ASSERT_STRING_EQUAL(json_text(p, "/comm"), "sleep");
		CU_ASSERT_STRING_EQUAL(json_text(p, "/cmdline"), "sleep 1000");
		CU_ASSERT_EQUAL(json_int(p, "/uid"), 0);
		CU_ASSERT_EQUAL(json_int(p, "/pte_pages"), 8);
		CU_ASSERT_EQUAL(json_int(p, "/pagetable_bytes"), 57344);      /* 14 x 4096 */
		CU_ASSERT_EQUAL(json_int(p, "/vmpte_bytes"), 57344);          /* 56 x 1024 */
		CU_ASSERT_EQUAL(json_int(p, "/present_ptes"), 449);
		CU_ASSERT_EQUAL(json_int(p, "/rss_bytes"), 1839104);          /* 1796 x 1024 */
		CU_ASSERT_EQUAL(json_int(p, "/pte_chain_bytes/2.4-rmap-x86_64"), 7184);
		CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(json_at(p, "/sharable_pte_pages/shpt-2006")), 1.0, 1e-9);
		snprintf(pointer, sizeof(pointer), "/fork_pte_pages_copied/none");
		CU_ASSERT_EQUAL(json_int(p, pointer), 5);
	}
	json_object_put(root);
	free(text);
	unload(&l);
}

/* ---- XML (libxml2, XPath) ---- */

static double xml_number(void *doc, const char *expression)
{
	xmlXPathContextPtr context = xmlXPathNewContext(doc);
	xmlXPathObjectPtr value = xmlXPathEvalExpression(BAD_CAST expression, context);
	double number = value ? xmlXPathCastToNumber(value) : -1;
	if (number != number)
		fprintf(stderr, "\n%s is not a number in the document\n", expression);
	xmlXPathFreeObject(value);
	xmlXPathFreeContext(context);
	return number;
}

/* string(EXPRESSION) compared with want. */
static bool xml_string_is(xmlDocPtr doc, const char *expression, const char *want)
{
	xmlXPathContextPtr context = xmlXPathNewContext(doc);
	xmlXPathObjectPtr value = xmlXPathEvalExpression(BAD_CAST expression, context);
	xmlChar *text = value ? xmlXPathCastToString(value) : NULL;
	bool same = text && !strcmp((const char *)text, want);
	if (!same)
		fprintf(stderr, "\n%s is \"%s\", not \"%s\"\n", expression, text ? (const char *)text : "", want);
	xmlFree(text);
	xmlXPathFreeObject(value);
	xmlXPathFreeContext(context);
	return same;
}

/* A path of the report tree ("totals/pte_chain_bytes/6.1-x86_64") in the
 * XML the writer makes of it (report_formats.c): a key that is an XML name
 * is an element, another key (a profile id) <value key="...">. */
static double xml_tree_number(void *doc, const char *path)
{
	char expression[1024] = "/ptscope-report", copy[512];
	snprintf(copy, sizeof(copy), "%s", path);
	char *save = NULL;
	for (char *key = strtok_r(copy, "/", &save); key; key = strtok_r(NULL, "/", &save)) {
		size_t used = strlen(expression);
		bool name = (isalpha((unsigned char)key[0]) || key[0] == '_') &&
			    strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == strlen(key);
		snprintf(expression + used, sizeof(expression) - used, name ? "/%s" : "/value[@key='%s']", key);
	}
	return xml_number(doc, expression);
}

static const struct figure xml_figures[] = {
	{ "count(/ptscope-report/designs/design)", BUILTIN_DESIGNS },
	/* 6.1-x86_64: 16 anon_vmas, 22 chains, rmap 6112 B, saves 14368 - 6112 */
	{ "/ptscope-report/designs/design[id='6.1-x86_64']/object_rmap_bytes", 6112 },
	{ "/ptscope-report/designs/design[id='6.1-x86_64']/anon_vmas", 16 },
	{ "/ptscope-report/designs/design[id='6.1-x86_64']/anon_vma_chains", 22 },
	{ "/ptscope-report/designs/design[id='6.1-x86_64']/saves_bytes", 8256 },
	{ "/ptscope-report/sharing/sharing-item[id='shpt-2006']/pages", 2 },
	{ "/ptscope-report/sharing/sharing-item[id='shpt-2006']/percent_of_pagetables", 7.1 }, /* 8192 / 114688 */
	{ "/ptscope-report/kernel_counters/slab/anon_vma_chain/model", 22 },
	{ "/ptscope-report/kernel_counters/meminfo_pagetables_bytes", 1470464 },      /* 1436 kB */
	{ "/ptscope-report/headlines/rmap/baseline_rmap_bytes", 14368 },
	/* --per-process: two <process> elements, pid order, 14 pages each */
	{ "count(/ptscope-report/processes/process)", 2 },
	{ "/ptscope-report/processes/process[2]/pid", 5970 },
	{ "/ptscope-report/processes/process[pid=5969]/pagetable_bytes", 57344 },
};

/* What test_html reads from the page (XPath over libxml2's HTML tree). */
static const struct figure html_figures[] = {
	/* the headline figures, each in its row, exact in data-value */
	{ "//tr[@id='h-sharing-pages']/td/@data-value", 2 },
	{ "//tr[@id='h-sharing-bytes']/td/@data-value", 8192 },          /* 2 x 4096 */
	{ "//tr[@id='h-pagetables']/td/@data-value", 114688 },
	{ "//tr[@id='h-rmap']/td/@data-value", 6112 },
	{ "//tr[@id='h-rmap-baseline']/td/@data-value", 14368 },
	/* design table: a row per design; columns design, family, arch,
	 * pte_chain, object rmap, rmap, baseline, saves, ... */
	{ "count(//table[@id='designs']/tbody/tr)", BUILTIN_DESIGNS },
	{ "//table[@id='designs']/tbody/tr[td[1]='6.1-x86_64']/td[6]/@data-value", 6112 },
	{ "//table[@id='designs']/tbody/tr[td[1]='6.1-x86_64']/td[8]/@data-value", 8256 },
	{ "//table[@id='designs']/tbody/tr[td[1]='2.5-array-x86_64-l1-128']/td[4]/@data-value", 54016 }, /* 844 x 64 */
	/* the chart has a bar per x86_64 design */
	{ "count(//*[@id='chart-designs']/rect)", X86_64_DESIGNS },
	/* rules: pages, bytes */
	{ "//table[@id='rules']/tbody/tr[td[1]='identical']/td[2]/@data-value", 3 },
	{ "//table[@id='rules']/tbody/tr[td[1]='shpt-2006']/td[3]/@data-value", 8192 },
	/* --per-process: both rows, VmPTE and model 57344 each */
	{ "count(//table[@id='processes']/tbody/tr)", 2 },
	{ "//table[@id='processes']/tbody/tr[td[1]/@data-value='5970']/td[4]/@data-value", 57344 },
	{ "//table[@id='processes']/tbody/tr[td[1]/@data-value='5970']/td[5]/@data-value", 57344 },
	/* no comparison without --versus */
	{ "count(//table[@id='versus'])", 0 },
};

static void test_xml(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_XML, .per_process = true };
	size_t length;
	char *text = render_fixture(&l, &options, &length);
	xmlDocPtr doc = xmlReadMemory(text, (int)length, "report.xml", NULL, XML_PARSE_NONET);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_STRING_EQUAL((const char *)xmlDocGetRootElement(doc)->name, "ptscope-report");
	check_figures(doc, xml_tree_number, "totals/", totals, TOTALS);
	check_figures(doc, xml_number, "", xml_figures, sizeof(xml_figures) / sizeof(xml_figures[0]));
	CU_ASSERT(xml_string_is(doc, "/ptscope-report/designs/design[id='6.1-x86_64']/baseline", "2.4-rmap-x86_64"));
	CU_ASSERT(xml_string_is(doc, "/ptscope-report/sharing/sharing-item[id='shpt-2006']/files/file/path",
				"/usr/lib/locale/locale-archive"));
	xmlFreeDoc(doc);
	free(text);
	unload(&l);
}

/* ---- CSV (libcsv, RFC 4180) ---- */

struct csv_table {
	char **cells;                   /* row-major */
	size_t cell_count, cell_capacity;
	size_t *widths;                 /* fields of each row */
	size_t row_count, row_capacity;
	size_t current;                 /* fields of the row being read */
};

static void csv_field(void *data, size_t length, void *table_pointer)
{
	struct csv_table *t = table_pointer;
	char *cell = malloc(length + 1);
	memcpy(cell, data, length);
	cell[length] = 0;
	*ARRAY_PUSH(t->cells, t->cell_count, t->cell_capacity) = cell;
	t->current++;
}

static void csv_row(int terminator, void *table_pointer)
{
	struct csv_table *t = table_pointer;
	(void)terminator;
	*ARRAY_PUSH(t->widths, t->row_count, t->row_capacity) = t->current;
	t->current = 0;
}

static void parse_csv(const char *text, size_t length, struct csv_table *t)
{
	struct csv_parser parser;
	memset(t, 0, sizeof(*t));
	CU_ASSERT_EQUAL_FATAL(csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI), 0);
	CU_ASSERT_EQUAL(csv_parse(&parser, text, length, csv_field, csv_row, t), length);
	CU_ASSERT_EQUAL(csv_fini(&parser, csv_field, csv_row, t), 0);
	csv_free(&parser);
	/* a table: every row as wide as the header */
	for (size_t r = 0; r < t->row_count; r++)
		CU_ASSERT_EQUAL(t->widths[r], t->widths[0]);
	/* RFC 4180 line ends: every line, the last one too */
	size_t bare = 0;
	for (size_t i = 0; i < length; i++)
		bare += text[i] == '\n' && (i == 0 || text[i - 1] != '\r');
	CU_ASSERT_EQUAL(bare, 0);
	CU_ASSERT_EQUAL(length >= 2 ? strcmp(text + length - 2, "\r\n") : 1, 0);
}

static void free_csv(struct csv_table *t)
{
	for (size_t i = 0; i < t->cell_count; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->widths);
}

static const char *csv_cell(const struct csv_table *t, size_t row, size_t column)
{
	return row < t->row_count && column < t->widths[0] ? t->cells[row * t->widths[0] + column] : "";
}

/* The column with this header, or SIZE_MAX. */
static size_t csv_column(const struct csv_table *t, const char *name)
{
	for (size_t c = 0; t->row_count && c < t->widths[0]; c++)
		if (!strcmp(csv_cell(t, 0, c), name))
			return c;
	fprintf(stderr, "\nno CSV column %s\n", name);
	CU_FAIL("no such column");
	return SIZE_MAX;
}

/* The row whose column `key` holds value, or SIZE_MAX. */
static size_t csv_row_of(const struct csv_table *t, const char *key, const char *value)
{
	size_t c = csv_column(t, key);
	for (size_t r = 1; r < t->row_count; r++)
		if (!strcmp(csv_cell(t, r, c), value))
			return r;
	fprintf(stderr, "\nno CSV row with %s = %s\n", key, value);
	CU_FAIL("no such row");
	return SIZE_MAX;
}

static const char *csv_value(const struct csv_table *t, const char *key, const char *value, const char *column)
{
	return csv_cell(t, csv_row_of(t, key, value), csv_column(t, column));
}

/* One column of a --versus table, looked up by key ("pte_chain_bytes/ID" is
 * the row "pte_chain_bytes.ID"). */
struct csv_view {
	struct csv_table table;
	const char *column;
};

static double csv_key_number(void *view_pointer, const char *path)
{
	struct csv_view *view = view_pointer;
	char key[512];
	snprintf(key, sizeof(key), "%s", path);
	for (char *slash = strchr(key, '/'); slash; slash = strchr(slash, '/'))
		*slash = '.';
	const char *cell = csv_value(&view->table, "key", key, view->column);
	return cell[0] ? strtod(cell, NULL) : NAN;
}

static void test_csv(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_CSV };
	size_t length;
	char *text = render_fixture(&l, &options, &length);
	struct csv_table t;
	parse_csv(text, length, &t);
	/* a row per design, after the header, then the host's totals (112 KiB of
	 * page tables: 114688 B); every row names host, kernel, time */
	CU_ASSERT_EQUAL(t.row_count, 1 + BUILTIN_DESIGNS + 1);
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "(host totals)", "pagetable_bytes"), "114688");
	CU_ASSERT_STRING_EQUAL(csv_cell(&t, 0, 0), "host");
	CU_ASSERT_STRING_EQUAL(csv_cell(&t, 0, 1), "kernel");
	CU_ASSERT_STRING_EQUAL(csv_cell(&t, 0, 2), "captured_at");
	for (size_t r = 1; r < t.row_count; r++) {
		CU_ASSERT_STRING_EQUAL(csv_cell(&t, r, 0), "report-fixture");
		CU_ASSERT_STRING_EQUAL(csv_cell(&t, r, 1), "6.18.44-fc-v782");
		CU_ASSERT_STRING_EQUAL(csv_cell(&t, r, 2), "2026-12-01T09:00:00Z");
	}
	/* the figures of check_json_figures */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "2.4-rmap-x86_64", "pte_chain_bytes"), "14368");   /* 898 x 16 */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "2.5-direct-x86_64", "pte_chain_bytes"), "13504"); /* 844 x 16 */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "6.1-x86_64", "rmap_bytes"), "6112");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "6.1-x86_64", "anon_vma_chains"), "22");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "6.1-x86_64", "saves_bytes"), "8256");            /* 14368 - 6112 */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "6.1-x86_64", "work_per_event.exit_rmap_calls"), "898");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "2.6.34-avc-x86_64", "object_rmap_bytes"), "4480");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "id", "2.4-rmap-x86_64", "page_field_bytes"), "49367240");
	/* a field holding a comma survives quoting: 2.4-rmap-i386's kernels */
	CU_ASSERT_PTR_NOT_NULL(strchr(csv_value(&t, "id", "2.4-rmap-i386", "kernels"), ','));
	free_csv(&t);
	free(text);

	/* --per-process: a row per process, pid order */
	options.per_process = true;
	text = render(l.result, &options, &length);
	parse_csv(text, length, &t);
	CU_ASSERT_EQUAL(t.row_count, 1 + 2);
	CU_ASSERT_STRING_EQUAL(csv_cell(&t, 1, csv_column(&t, "pid")), "5969");
	CU_ASSERT_STRING_EQUAL(csv_cell(&t, 2, csv_column(&t, "pid")), "5970");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "pid", "5970", "pagetable_bytes"), "57344");           /* 14 x 4096 */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "pid", "5970", "vmpte_bytes"), "57344");               /* 56 kB */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "pid", "5969", "pte_chain_bytes.2.4-rmap-x86_64"), "7184"); /* 449 x 16 */
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "pid", "5969", "sharable_pte_pages.shpt-2006"), "1.0");
	CU_ASSERT_STRING_EQUAL(csv_value(&t, "pid", "5969", "cmdline"), "sleep 1000");
	free_csv(&t);
	free(text);
	unload(&l);
}

/* ---- HTML (libxml2's HTML parser) ---- */

/* Errors of the HTML parser but "unknown tag": libxml2's HTML 4 parser does
 * not know HTML5's figure, svg and its children, which browsers render. */
static void count_html_error(void *count, xmlErrorPtr error)
{
	if (error->code != XML_HTML_UNKNOWN_TAG) {
		fprintf(stderr, "\nHTML line %d: %s", error->line, error->message);
		(*(size_t *)count)++;
	}
}

/* Occurrences of "<NAME" followed by a space or ">" (opening tags) or of
 * "</NAME>". */
static size_t count_tags(const char *text, const char *name, bool closing)
{
	char open[32];
	snprintf(open, sizeof(open), closing ? "</%s>" : "<%s", name);
	size_t count = 0;
	for (const char *p = strstr(text, open); p; p = strstr(p + 1, open))
		count += closing || p[strlen(open)] == ' ' || p[strlen(open)] == '>';
	return count;
}

/* The HTML parser mends what a browser would (a missing </table>): every
 * element the writer opens, it closes. */
static void check_closed(const char *text)
{
	static const char *const elements[] = { "html", "head", "title", "style", "body", "h1", "h2", "h3", "p",
		"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "b", "figure", "figcaption", "svg", "text",
		"rect", "script" };
	for (size_t i = 0; i < sizeof(elements) / sizeof(elements[0]); i++) {
		size_t opened = count_tags(text, elements[i], false), closed = count_tags(text, elements[i], true);
		if (opened != closed)
			fprintf(stderr, "\nHTML: %zu <%s> but %zu </%s>\n", opened, elements[i], closed, elements[i]);
		CU_ASSERT_EQUAL(opened, closed);
	}
}

static xmlDocPtr parse_html(const char *text, size_t length)
{
	check_closed(text);
	size_t errors = 0;
	xmlSetStructuredErrorFunc(&errors, count_html_error);
	htmlDocPtr doc = htmlReadMemory(text, (int)length, "report.html", "UTF-8", HTML_PARSE_NONET);
	xmlSetStructuredErrorFunc(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(errors, 0);
	/* one document: doctype, html with head and body, nothing after </html> */
	CU_ASSERT_EQUAL(strncmp(text, "<!DOCTYPE html>", 15), 0);
	CU_ASSERT_EQUAL(length >= 8 ? strcmp(text + length - 8, "</html>\n") : 1, 0);
	CU_ASSERT_EQUAL(xml_number(doc, "count(/html/head/title)"), 1);
	CU_ASSERT_EQUAL(xml_number(doc, "count(/html/body)"), 1);
	return doc;
}

static void test_html(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_HTML, .per_process = true };
	size_t length;
	char *text = render_fixture(&l, &options, &length);
	xmlDocPtr doc = parse_html(text, length);
	CU_ASSERT(xml_string_is(doc, "/html/head/title", "ptscope report: report-fixture"));
	check_figures(doc, xml_number, "", html_figures, sizeof(html_figures) / sizeof(html_figures[0]));
	/* ... and as people read them: 114688 B = 112.0 KiB, 6112 B = 6.0 KiB */
	CU_ASSERT(xml_string_is(doc, "//tr[@id='h-pagetables']/td", "112.0 KiB"));
	CU_ASSERT(xml_string_is(doc, "//tr[@id='h-rmap']/td", "6.0 KiB"));
	/* a pid reads as a name, not a count */
	CU_ASSERT(xml_string_is(doc, "//table[@id='processes']/tbody/tr[2]/td[1]", "5970"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "shared page tables (shpt-2006) would save 2 PTE pages = 8.0 KiB of the "
				      "112.0 KiB of page tables"));
	CU_ASSERT(xml_string_is(doc, "//table[@id='files']/tbody/tr[td[1]='shpt-2006']/td[2]",
				"/usr/lib/locale/locale-archive"));
	xmlFreeDoc(doc);
	free(text);
	unload(&l);
}

/* ---- text ---- */

static void expect_text(const char *text, const char *want)
{
	if (!strstr(text, want)) {
		fprintf(stderr, "\nthe text report lacks:\n%s\n", want);
		CU_FAIL("text report lacks a line");
	}
}

static void test_text(void)
{
	struct loaded l;
	struct report_options options = { .format = REPORT_TEXT, .per_process = true };
	char *text = render_fixture(&l, &options, NULL);
	expect_text(text, "  kernel 6.18.44-fc-v782, x86_64, 2 processes, pagemap: pfn, kpages: yes\n");
	/* headlines: 2 pages = 8192 B = 8.0 KiB of 114688 B = 112.0 KiB; 6112 B =
	 * 6.0 KiB, 14368 B = 14.0 KiB (wrapped at 100 columns) */
	expect_text(text, "\nshared page tables (shpt-2006) would save 2 PTE pages = 8.0 KiB of the 112.0 KiB of "
		    "page tables\n");
	expect_text(text, "\nobject rmap (6.1-x86_64) costs 6.0 KiB for these processes; 2.4-rmap-x86_64 pte_chains "
		    "would cost\n  14.0 KiB\n");
	/* page tables beside VmPTE: 16 PTE + 12 upper pages; VmPTE 2 x 56 kB */
	expect_text(text, "Page tables: 112.0 KiB exact from pagemap (16 PTE + 12 higher-level pages, x86_64-4level)\n"
		    "  of 2 processes; their VmPTE says 112.0 KiB\n  2 of 2 processes match VmPTE to the page\n");
	/* meminfo 1470464 B = 1.4 MiB; remainder 1355776 B = 1.3 MiB.  Two
	 * processes without pid 1 are a part of the machine: the remainder is
	 * not divided among them, and the slab counts give no lower bound */
	expect_text(text, "  meminfo PageTables 1.4 MiB is the whole machine's; these processes' tables are 112.0 KiB "
		    "of it. A\n    part of the machine was captured (pid 1 is not in it): the other 1.3 MiB belong");
	expect_text(text, "  anon_vma              1059         16          -       1059  yes");
	expect_text(text, "  vm_area_struct        3350         74          -       3350  yes");
	CU_ASSERT_PTR_NULL(strstr(text, "a process)"));
	/* designs: rmap 6112 B = 6.0 KiB, saves 8256 B = 8.1 KiB, page field
	 * 24683620 B = 23.5 MiB; 2.5-array l1-64 27008 B = 26.4 KiB, saves
	 * -12640 B = -12.3 KiB */
	expect_text(text, "\n6.1-x86_64                  D5  =       0 B   6.0 KiB   6.0 KiB   8.1 KiB   23.5 MiB");
	expect_text(text, "\n2.4-rmap-x86_64             D1  =  14.0 KiB       0 B  14.0 KiB  baseline   47.1 MiB");
	expect_text(text, "\n2.5-array-x86_64-l1-64      D3  =  26.4 KiB       0 B  26.4 KiB -12.3 KiB   47.1 MiB");
	expect_text(text, "  13 designs of other architectures are in --format json");   /* 23 - 10 */
	/* work: 898 exit calls; 6.1 forks 54 PTEs, 22 anon_vma_fork, 44 chains */
	expect_text(text, "\n6.1-x86_64                              54               44              22            898\n");
	/* trade-off: 2.4-rmap 898 + 898 rmap calls, 898 pte_chains allocated and
	 * 898 freed, 898 allocated faulting the pages in (14368 / 16); 6.1 54 +
	 * 898 calls, 44 chains allocated + 22 freed, none faulting */
	expect_text(text, "\n2.4-rmap-x86_64               14.0 KiB       1,796       1,796         898");
	expect_text(text, "\n6.1-x86_64                     6.0 KiB         952          66           0");
	/* sharing: 2 pages = 8.0 KiB = 7.1 %; identical 3 = 12.0 KiB = 10.7 % */
	expect_text(text, "\nshpt-2006               2   8.0 KiB     7.1%        2  /usr/lib/locale/locale-archive 2\n");
	expect_text(text, "\nidentical               3  12.0 KiB    10.7%        0  identical PTE pages");
	expect_text(text, "\n  today                             10 / 54\n");
	/* --per-process: 56.0 KiB of VmPTE and model, Rss 1839104 B = 1.8 MiB,
	 * sharable 1 page = 4.0 KiB */
	expect_text(text, "\n   5969 0         56.0 KiB  56.0 KiB    1.8 MiB ");
	expect_text(text, "\n   5970 0         56.0 KiB  56.0 KiB    1.8 MiB ");
	expect_text(text, "   4.0 KiB  sleep 1000\n");
	expect_text(text, "Processes by pagetables: 2 of 2\n");
	/* and the fork table per process: 5 PTE pages today */
	expect_text(text, "\n      5970 sleep                     5");
	free(text);
	unload(&l);
}

/* ---- --versus: the snapshot against itself ---- */

static void test_versus(void)
{
	struct loaded after, before;
	load(&after);
	load(&before);
	struct report_options options = { .format = REPORT_JSON, .versus = before.result };
	char *text = render(after.result, &options, NULL);
	struct json_object *root = parse_json(text);
	/* the report is the snapshot's own, with the same figures */
	check_json_figures(root);
	/* BEFORE's totals: the same figures */
	check_figures(root, json_number, "/versus/", totals, TOTALS);
	/* every delta is 0, and there is one for every number of the totals */
	size_t nonzero = 0, totals_nonzero = 0;
	size_t deltas = json_numbers(json_at(root, "/delta"), &nonzero);
	size_t numbers = json_numbers(json_at(root, "/totals"), &totals_nonzero);
	CU_ASSERT_EQUAL(nonzero, 0);
	CU_ASSERT_EQUAL(deltas, numbers);
	CU_ASSERT(totals_nonzero > 0);
	/* a person's formats leave out the page field over RAM (rmap_total_bytes)
	 * and the designs of other architectures (pte_chain, object, rmap) */
	struct json_object *designs = json_at(root, "/designs");
	const char *arch = json_object_get_string(json_at(root, "/snapshot/arch"));
	size_t other_arch = 0;
	for (size_t d = 0; d < json_object_array_length(designs); d++)
		other_arch += strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(designs, d),
										  "arch")), arch) != 0;
	size_t in_words = numbers - (size_t)json_object_object_length(json_at(root, "/totals/rmap_total_bytes")) -
			  3 * other_arch;
	CU_ASSERT(other_arch > 0);
	json_object_put(root);
	free(text);

	/* CSV: one row per number of the totals (key dotted), before = after,
	 * delta 0 */
	options.format = REPORT_CSV;
	size_t length;
	text = render(after.result, &options, &length);
	struct csv_view view = { .column = "before" };
	parse_csv(text, length, &view.table);
	CU_ASSERT_EQUAL(view.table.row_count, 1 + numbers);
	check_figures(&view, csv_key_number, "", totals, TOTALS);
	view.column = "after";
	check_figures(&view, csv_key_number, "", totals, TOTALS);
	size_t delta = csv_column(&view.table, "delta");
	for (size_t r = 1; r < view.table.row_count; r++)
		CU_ASSERT_STRING_EQUAL(csv_cell(&view.table, r, delta), "0");
	free_csv(&view.table);
	free(text);

	/* XML: the same tree with versus and delta */
	options.format = REPORT_XML;
	text = render(after.result, &options, &length);
	xmlDocPtr doc = xmlReadMemory(text, (int)length, "versus.xml", NULL, XML_PARSE_NONET);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	check_figures(doc, xml_tree_number, "versus/", totals, TOTALS);
	CU_ASSERT_EQUAL(xml_number(doc, "count(/ptscope-report/delta//*[not(*)])"), numbers);
	CU_ASSERT_EQUAL(xml_number(doc, "count(/ptscope-report/delta//*[not(*)][. != '0'])"), 0);
	xmlFreeDoc(doc);
	free(text);

	/* HTML: the comparison table, a row per total, every delta 0 */
	options.format = REPORT_HTML;
	text = render(after.result, &options, &length);
	doc = parse_html(text, length);
	CU_ASSERT_EQUAL(xml_number(doc, "count(//table[@id='versus']/tbody/tr)"), in_words);
	CU_ASSERT(xml_string_is(doc, "//table[@id='versus']/tbody/tr[td[1]='page tables (exact from pagemap)']/td[2]",
				"114688"));
	CU_ASSERT_EQUAL(xml_number(doc, "count(//table[@id='versus']/tbody/tr[td[4] != '0'])"), 0);
	xmlFreeDoc(doc);
	free(text);

	/* text: totals side by side, no change */
	options.format = REPORT_TEXT;
	text = render(after.result, &options, NULL);
	expect_text(text, "  page tables (exact from pagemap)                  112.0 KiB    112.0 KiB          0 B      0.0%\n");
	expect_text(text, "  present PTEs                                            898          898            0      0.0%\n");
	expect_text(text, "  2.4-rmap-x86_64                                    14.0 KiB     14.0 KiB          0 B      0.0%\n");
	free(text);
	unload(&before);
	unload(&after);
}

void suite_report(void)
{
	ADD_SUITE("report", test_json, test_json_per_process, test_xml, test_csv, test_html, test_text, test_versus);
}
