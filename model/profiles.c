/*
 * model/profiles.c - kernel profiles as data.
 *
 * Profiles are XML (the files of model/profiles, or a user's file) validated against
 * model/profiles/profile.xsd by libxml2 before anything is read from them, so
 * the reading code below can trust types and required attributes.  Parsing
 * never touches the network and never loads a DTD or expands an entity: a
 * document that carries a DTD at all is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "model/model.h"
#include "base/file.h"
#include "model/model_internal.h"
#include "model/builtin_profiles.h"

/* The one place a family letter becomes behaviour (docs/cost-model.md section 1). */
const struct rmap_family_rule rmap_families[RMAP_FAMILY_COUNT] = {
	[RMAP_D1] = { "D1", "one pte_chain {next, ptep} per mapping of every page (2.4 rmap)",
		      CHAIN_LIST,  false, false, false },
	[RMAP_D2] = { "D2", "D1, but a page mapped once keeps its PTE address in struct page (PG_direct)",
		      CHAIN_LIST,  true,  false, false },
	[RMAP_D3] = { "D3", "pte_chain blocks of one cache line (l1-N: N-byte lines) of NRPTE PTE addresses, plus PG_direct",
		      CHAIN_ARRAY, true,  false, false },
	[RMAP_D4] = { "D4", "file pages found through their file's i_mmap (object rmap); anonymous pages keep D3 blocks",
		      CHAIN_ARRAY, true,  true,  false },
	[RMAP_D5] = { "D5", "full object rmap: anonymous pages through an anon_vma (avc: anon_vma_chain, 2.6.34+)",
		      CHAIN_NONE,  true,  true,  true  },
};

static const char *const partners_names[] = {
	[PARTNERS_ADDRESS] = "address", [PARTNERS_FILE_INDEX] = "file-index",
	[PARTNERS_LENGTH] = "length", [PARTNERS_CONTENT] = "content",
};

static const char *const kernel_names[] = {
	[KERNEL_PROPOSAL] = "proposal", [KERNEL_MAINLINE] = "mainline", [KERNEL_BOUND] = "bound",
	[KERNEL_WHAT_IF] = "what-if",
};

const char *sharing_kernel_name(enum sharing_kernel kernel)
{
	return kernel_names[kernel];
}

static const char *const anon_vma_names[] = {
	[ANON_VMA_NONE] = "none", [ANON_VMA_SHARED] = "shared", [ANON_VMA_CHAIN] = "chain",
};

static const char *const file_walk_names[] = { [FILE_WALK_LIST] = "list", [FILE_WALK_RANGE] = "range" };


const char *rmap_family_name(enum rmap_family family)
{
	return family < RMAP_FAMILY_COUNT ? rmap_families[family].name : "?";
}

const char *sharing_partners_name(enum sharing_partners partners)
{
	return partners <= PARTNERS_CONTENT ? partners_names[partners] : "?";
}

uint64_t rmap_page_cost(const struct rmap_profile *profile, uint64_t m, bool anonymous)
{
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	if (anonymous ? rule->anon_by_object : rule->file_by_object)
		return 0;
	if (m == 0 || (m == 1 && rule->direct))
		return 0;
	switch (rule->layout) {
	case CHAIN_LIST:
		return m * profile->pte_chain_bytes;
	case CHAIN_ARRAY:
		return (m + profile->nrpte - 1) / profile->nrpte * profile->cache_line_bytes;
	case CHAIN_NONE:
		break;
	}
	return 0;
}

void rmap_share_range(const struct rmap_profile *profile, uint64_t m_max, bool anonymous,
		      double *lowest, double *highest)
{
	/* C(m)/m over 2 <= m <= m_max.  Lists cost s1 per mapping whatever m;
	 * arrays cost ceil(m/N)·L1/m, which falls between multiples of N (each
	 * reaching L1/N) and jumps just after them, the jumps shrinking.  So
	 * the extremes sit at m = 2, N, N + 1 or m_max. */
	double low = 0, high = 0;
	bool first = true;
	if (m_max < 2)
		m_max = 2;
	uint64_t candidates[4] = { 2, m_max, profile->nrpte, (uint64_t)profile->nrpte + 1 };
	for (int c = 0; c < 4; c++) {
		uint64_t m = candidates[c];
		if (m < 2 || m > m_max)
			continue;
		double share = (double)rmap_page_cost(profile, m, anonymous) / (double)m;
		if (first || share < low)
			low = share;
		if (first || share > high)
			high = share;
		first = false;
	}
	*lowest = low;
	*highest = high;
}

/* ---- errors ---- */

/* "NAME:LINE: problem" (libxml2 gives line 0 or -1 when it has none). */
static int fail_at(struct error *error, const char *name, long line, const char *format, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct error *error, const char *name, long line, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	error_setv(error, name, line > 0 ? (unsigned long)line : 0, format, ap);
	va_end(ap);
	return -1;
}

/* libxml2 reports through a global handler: keep the first error, print none. */
static struct {
	char text[300];
	int line;
	bool seen;
} xml_first_error;

static void collect_xml_error(void *unused, xmlErrorPtr e)
{
	(void)unused;
	if (!e)
		return;
	/* libxml2 out of memory is ours too (base/alloc.h): not "invalid XML", status 2 */
	if (e->code == XML_ERR_NO_MEMORY)
		out_of_memory();
	if (xml_first_error.seen)
		return;
	xml_first_error.seen = true;
	xml_first_error.line = e->line;
	snprintf(xml_first_error.text, sizeof(xml_first_error.text), "%s", e->message ? e->message : "invalid XML");
	size_t n = strlen(xml_first_error.text);
	while (n && (xml_first_error.text[n - 1] == '\n' || xml_first_error.text[n - 1] == ' '))
		xml_first_error.text[--n] = 0;
}

static void silence_generic(void *unused, const char *format, ...)
{
	(void)unused;
	(void)format;
}

static void xml_errors_begin(void)
{
	memset(&xml_first_error, 0, sizeof(xml_first_error));
	xmlSetGenericErrorFunc(NULL, silence_generic);
	xmlSetStructuredErrorFunc(NULL, collect_xml_error);
}

static void xml_errors_end(void)
{
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlSetGenericErrorFunc(NULL, NULL);
}

/* ---- the schema, compiled once ---- */

const char *profiles_builtin_text(const char *name)
{
	for (size_t i = 0; i < sizeof(builtin_files) / sizeof(builtin_files[0]); i++)
		if (!strcmp(builtin_files[i].name, name))
			return builtin_files[i].text;
	return NULL;
}

size_t profiles_builtin_count(void)
{
	return sizeof(builtin_files) / sizeof(builtin_files[0]);
}

const char *profiles_builtin_name(size_t index)
{
	return index < profiles_builtin_count() ? builtin_files[index].name : NULL;
}

const char *profiles_schema(void)
{
	return profiles_builtin_text("profile.xsd");
}

static xmlSchemaPtr load_schema(struct error *error)
{
	static xmlSchemaPtr schema;
	if (schema)
		return schema;
	const char *text = profiles_schema();
	if (!text) {
		fail_at(error, "profile.xsd", 0, "built-in schema missing");
		return NULL;
	}
	xml_errors_begin();
	xmlSchemaParserCtxtPtr parser = xmlSchemaNewMemParserCtxt(text, (int)strlen(text));
	schema = parser ? xmlSchemaParse(parser) : NULL;
	xmlSchemaFreeParserCtxt(parser);
	xml_errors_end();
	if (!schema)
		fail_at(error, "profile.xsd", xml_first_error.line, "%s",
			xml_first_error.seen ? xml_first_error.text : "cannot compile the schema");
	return schema;
}

/* ---- reading validated documents ---- */

static const char *attribute(xmlNodePtr node, const char *name, char *buffer, size_t size)
{
	xmlChar *value = xmlGetProp(node, (const xmlChar *)name);
	snprintf(buffer, size, "%s", value ? (const char *)value : "");
	xmlFree(value);
	return buffer;
}

static unsigned long long number_attribute(xmlNodePtr node, const char *name)
{
	char text[64];
	return strtoull(attribute(node, name, text, sizeof(text)), NULL, 10);
}

/* A yes/no attribute, with the schema's default when absent. */
static bool flag_attribute(xmlNodePtr node, const char *name, bool fallback)
{
	char text[8];
	attribute(node, name, text, sizeof(text));
	return text[0] ? !strcmp(text, "yes") : fallback;
}

static int lookup(const char *const *names, size_t count, const char *value)
{
	for (size_t i = 0; i < count; i++)
		if (names[i] && !strcmp(names[i], value))
			return (int)i;
	return -1;
}

static void element_text(xmlNodePtr node, char *buffer, size_t size)
{
	xmlChar *text = xmlNodeGetContent(node);
	snprintf(buffer, size, "%s", text ? (const char *)text : "");
	xmlFree(text);
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr c = parent->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
			return c;
	return NULL;
}

/* "pf io" -> bits of enum vma_flag; -1 on an unknown code. */
static int parse_flag_list(const char *text, uint64_t *bits, char *bad, size_t bad_size)
{
	*bits = 0;
	while (*text) {
		while (*text == ' ')
			text++;
		size_t n = strcspn(text, " ");
		if (!n)
			break;
		size_t f;
		for (f = 0; f < VMF_OTHER; f++)
			if (n == 2 && !strncmp(vma_flag_codes[f], text, 2))
				break;
		if (f == VMF_OTHER) {
			snprintf(bad, bad_size, "%.*s", (int)n, text);
			return -1;
		}
		*bits |= UINT64_C(1) << f;
		text += n;
	}
	return 0;
}

/* libxml2 gives lines as long; messages print int. */
static int line_of(xmlNodePtr node)
{
	return (int)xmlGetLineNo(node);
}

static void *append(void *array, size_t *count, size_t *capacity, size_t size)
{
	if (*count == *capacity) {
		size_t next = *capacity ? *capacity * 2 : 16;
		array = xreallocarray(array, next, size);
		*capacity = next;
	}
	memset((char *)array + *count * size, 0, size);
	(*count)++;
	return array;
}

static bool id_taken(const struct profile_set *set, const char *id)
{
	for (size_t i = 0; i < set->work_count; i++)
		if (!strcmp(set->works[i].id, id))
			return true;
	return profiles_find_rmap(set, id) || profiles_find_rule(set, id);
}

static int read_geometry(xmlNodePtr node, struct geometry *geometry, const char *name,
			 struct error *error)
{
	attribute(node, "name", geometry->name, sizeof(geometry->name));
	geometry->physical_address_bits = (unsigned)number_attribute(node, "physical-address-bits");
	unsigned previous = 0;
	for (xmlNodePtr level = node->children; level; level = level->next) {
		if (level->type != XML_ELEMENT_NODE)
			continue;
		struct geometry_level *l = &geometry->levels[geometry->level_count++];
		attribute(level, "name", l->name, sizeof(l->name));
		l->shift = (unsigned)number_attribute(level, "shift");
		l->counted = flag_attribute(level, "counted", false);
		if (l->shift <= previous)
			return fail_at(error, name, line_of(level),
				       "geometry levels must be listed lowest first, with growing shifts");
		previous = l->shift;
	}
	return 0;
}

static int read_rmap_profile(xmlNodePtr node, struct profile_set *set, const char *name,
			     struct error *error)
{
	struct rmap_profile p = { 0 };
	char text[32];
	attribute(node, "id", p.id, sizeof(p.id));
	attribute(node, "arch", p.arch, sizeof(p.arch));
	attribute(node, "kernels", p.kernels, sizeof(p.kernels));
	attribute(node, "default-from", p.default_from, sizeof(p.default_from));
	attribute(node, "family", text, sizeof(text));
	for (int f = 0; f < RMAP_FAMILY_COUNT; f++)
		if (!strcmp(rmap_families[f].name, text))
			p.family = (enum rmap_family)f;
	snprintf(p.origin, sizeof(p.origin), "%s:%d", name, line_of(node));
	element_text(child(node, "description"), p.description, sizeof(p.description));
	if (read_geometry(child(node, "geometry"), &p.geometry, name, error))
		return -1;
	xmlNodePtr sizes = child(node, "sizes");
	p.pointer_bytes = (unsigned)number_attribute(sizes, "pointer");
	p.pte_chain_bytes = (unsigned)number_attribute(sizes, "pte-chain");
	p.cache_line_bytes = (unsigned)number_attribute(sizes, "cache-line");
	p.pte_addr_bytes = (unsigned)number_attribute(sizes, "pte-addr");
	p.page_field_bytes = (unsigned)number_attribute(sizes, "page-field");
	p.anon_vma_bytes = (unsigned)number_attribute(sizes, "anon-vma");
	p.anon_vma_chain_bytes = (unsigned)number_attribute(sizes, "anon-vma-chain");
	p.vma_rmap_bytes = (unsigned)number_attribute(sizes, "vma-rmap-fields");
	xmlNodePtr fork = child(node, "fork");
	p.fork_copies_file_ptes = flag_attribute(fork, "copies-file-ptes", true);
	char bad[16];
	attribute(fork, "copies-vmflags", p.fork_copy_vmflags, sizeof(p.fork_copy_vmflags));
	if (parse_flag_list(p.fork_copy_vmflags, &p.fork_copy_flags, bad, sizeof(bad)))
		return fail_at(error, name, line_of(fork), "unknown VmFlags code '%s' in copies-vmflags", bad);
	attribute(fork, "kernels", p.fork_kernels, sizeof(p.fork_kernels));
	int anon = lookup(anon_vma_names, 3, attribute(fork, "anon-vma", text, sizeof(text)));
	p.anon_vma_fork = anon < 0 ? ANON_VMA_NONE : (enum anon_vma_fork)anon;
	/* the schema's default when a profile says nothing: the walk of 2.6.7 on */
	xmlNodePtr reclaim = child(node, "reclaim");
	int walk = reclaim ? lookup(file_walk_names, 2, attribute(reclaim, "file-walk", text, sizeof(text))) : -1;
	p.file_walk = walk < 0 ? FILE_WALK_RANGE : (enum file_walk)walk;
	/* no element: a design without THP maps the same pages by PTEs */
	xmlNodePtr huge_pmd = child(node, "huge-pmd");
	p.huge_pmd_whole = huge_pmd && !strcmp(attribute(huge_pmd, "rmap", text, sizeof(text)), "whole");
	p.huge_pmd_reclaim_folio = p.huge_pmd_whole && !strcmp(attribute(huge_pmd, "reclaim", text, sizeof(text)), "folio");
	/* NRPTE = floor((L1 - sizeof(long)) / sizeof(pte_addr_t)), sizeof(long) = pointer */
	if (rmap_families[p.family].layout == CHAIN_ARRAY) {
		if (p.pte_addr_bytes == 0 || p.cache_line_bytes <= p.pointer_bytes ||
		    (p.cache_line_bytes - p.pointer_bytes) / p.pte_addr_bytes == 0)
			return fail_at(error, name, line_of(sizes), "profile %s: a cache line of %u bytes holds no "
				       "pte_addr_t of %u bytes after its %u-byte header",
				       p.id, p.cache_line_bytes, p.pte_addr_bytes, p.pointer_bytes);
		p.nrpte = (p.cache_line_bytes - p.pointer_bytes) / p.pte_addr_bytes;
	}
	if (rmap_families[p.family].layout == CHAIN_LIST && p.pte_chain_bytes == 0)
		return fail_at(error, name, line_of(sizes), "profile %s: a pte_chain design needs pte-chain > 0",
			       p.id);
	if (id_taken(set, p.id))
		return fail_at(error, name, line_of(node), "profile id '%s' is already defined", p.id);
	set->rmaps = append(set->rmaps, &set->rmap_count, &set->rmap_capacity, sizeof(p));
	set->rmaps[set->rmap_count - 1] = p;
	return 0;
}

static int read_sharing_rule(xmlNodePtr node, struct profile_set *set, const char *name,
			     struct error *error)
{
	struct sharing_rule r = { 0 };
	char text[256], bad[16];
	attribute(node, "id", r.id, sizeof(r.id));
	snprintf(r.origin, sizeof(r.origin), "%s:%d", name, line_of(node));
	element_text(child(node, "description"), r.description, sizeof(r.description));
	r.window_shift = (unsigned)number_attribute(node, "window-shift");
	r.partners = (enum sharing_partners)lookup(partners_names, 4, attribute(node, "partners", text, sizeof(text)));
	r.shares_subtree = !strcmp(attribute(node, "shares", text, sizeof(text)), "subtree");
	/* the schema says which words; a rule that does not say is a proposal */
	attribute(node, "kernel", text, sizeof(text));
	r.kernel = text[0] ? (enum sharing_kernel)lookup(kernel_names, 4, text) : KERNEL_PROPOSAL;
	attribute(node, "since", r.since, sizeof(r.since));
	if (r.kernel == KERNEL_MAINLINE && !r.since[0])
		return fail_at(error, name, line_of(node), "sharing rule %s: kernel=\"mainline\" needs since=\"RELEASE\"",
			       r.id);
	r.skip_pmd_mapped = flag_attribute(node, "skip-pmd-mapped", true);
	xmlNodePtr eligible = child(node, "eligible");
	r.has_eligibility = eligible != NULL;
	if (eligible) {
		r.file_backed = flag_attribute(eligible, "file-backed", false);
		r.hugetlb_only = flag_attribute(eligible, "hugetlb-only", false);
		r.writable_needs_shared = flag_attribute(eligible, "writable-needs-shared", false);
		r.min_bytes = number_attribute(eligible, "min-bytes");
		const char *lists[2] = { "exclude-flags", "require-flags" };
		uint64_t *bits[2] = { &r.exclude_flags, &r.require_flags };
		for (int i = 0; i < 2; i++)
			if (parse_flag_list(attribute(eligible, lists[i], text, sizeof(text)), bits[i], bad, sizeof(bad)))
				return fail_at(error, name, line_of(eligible), "unknown VmFlags code '%s' in %s",
					       bad, lists[i]);
	}
	if (r.partners != PARTNERS_CONTENT && !eligible)
		return fail_at(error, name, line_of(node), "sharing rule %s: partners=\"%s\" needs an "
			       "<eligible> element", r.id, partners_names[r.partners]);
	if (id_taken(set, r.id))
		return fail_at(error, name, line_of(node), "profile id '%s' is already defined", r.id);
	set->rules = append(set->rules, &set->rule_count, &set->rule_capacity, sizeof(r));
	set->rules[set->rule_count - 1] = r;
	return 0;
}

/* A name may stand in one piece of work only: the join of two listings must
 * not depend on which entry is read first. */
static const char *work_of(const struct profile_set *set, const char *function)
{
	for (size_t w = 0; w < set->work_count; w++)
		for (size_t f = 0; f < set->works[w].function_count; f++)
			if (!strcmp(set->works[w].functions[f], function))
				return set->works[w].id;
	return NULL;
}

static int read_same_work(xmlNodePtr node, struct profile_set *set, const char *name, struct error *error)
{
	struct same_work w = { 0 };
	attribute(node, "id", w.id, sizeof(w.id));
	snprintf(w.origin, sizeof(w.origin), "%s:%d", name, line_of(node));
	element_text(child(node, "description"), w.description, sizeof(w.description));
	for (xmlNodePtr c = node->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "name"))
			continue;   /* the schema bounds the count by SAME_WORK_NAMES */
		char *function = w.functions[w.function_count];
		attribute(c, "function", function, sizeof(w.functions[0]));
		attribute(c, "kernels", w.kernels[w.function_count], sizeof(w.kernels[0]));
		const char *taken = work_of(set, function);
		for (size_t f = 0; !taken && f < w.function_count; f++)
			taken = strcmp(w.functions[f], function) ? NULL : w.id;
		if (taken)
			return fail_at(error, name, line_of(c), "same-work %s: %s is already a name of %s",
				       w.id, function, taken);
		w.function_count++;
	}
	if (id_taken(set, w.id))
		return fail_at(error, name, line_of(node), "profile id '%s' is already defined", w.id);
	set->works = append(set->works, &set->work_count, &set->work_capacity, sizeof(w));
	set->works[set->work_count - 1] = w;
	return 0;
}

static int validate(xmlDocPtr doc, const char *name, struct error *error)
{
	xmlSchemaPtr schema = load_schema(error);
	if (!schema)
		return -1;
	xml_errors_begin();
	xmlSchemaValidCtxtPtr context = xmlSchemaNewValidCtxt(schema);
	int status = context ? xmlSchemaValidateDoc(context, doc) : -1;
	xmlSchemaFreeValidCtxt(context);
	xml_errors_end();
	if (status != 0)
		return fail_at(error, name, xml_first_error.line, "%s",
			       xml_first_error.seen ? xml_first_error.text : "does not match profile.xsd");
	return 0;
}

/* libxml2 keeps no line for a DTD node: find "<!DOCTYPE" in the text. */
static int doctype_line(const char *text, size_t length)
{
	int line = 1;
	for (size_t i = 0; i < length; i++) {
		if (!strncmp(text + i, "<!DOCTYPE", length - i < 9 ? length - i : 9))
			return line;
		line += text[i] == '\n';
	}
	return 1;
}

int profiles_load_buffer(struct profile_set *set, const char *name, const char *text,
			 size_t length, struct error *error)
{
	/* NONET: never fetch anything; no NOENT/DTDLOAD/DTDVALID: entities stay
	 * unexpanded and no external subset is read. */
	if (length > FILE_LIMIT_PROFILE_BYTES)   /* libxml2 takes an int: never cut a longer text short */
		return fail_at(error, name, 0, "%zu bytes: no profile is that large", length);
	xml_errors_begin();
	xmlDocPtr doc = xmlReadMemory(text, (int)length, name, NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA);
	xml_errors_end();
	if (!doc)
		return fail_at(error, name, xml_first_error.line, "%s",
			       xml_first_error.seen ? xml_first_error.text : "not well-formed XML");
	int status = 0;
	if (doc->intSubset || doc->extSubset)
		status = fail_at(error, name, doctype_line(text, length), "a DOCTYPE is not allowed in a profile");
	if (!status)
		status = validate(doc, name, error);
	for (xmlNodePtr node = status ? NULL : xmlDocGetRootElement(doc)->children; node; node = node->next) {
		if (node->type != XML_ELEMENT_NODE)
			continue;
		const char *element = (const char *)node->name;
		status = !strcmp(element, "rmap-profile") ? read_rmap_profile(node, set, name, error)
			 : !strcmp(element, "same-work") ? read_same_work(node, set, name, error)
			 : read_sharing_rule(node, set, name, error);
		if (status)
			break;
	}
	xmlFreeDoc(doc);
	return status;
}

int profiles_load_file(struct profile_set *set, const char *path, struct error *error)
{
	struct buffer text = { 0 };
	int status = file_read_input(path, "profile", FILE_LIMIT_PROFILE_BYTES, &text, error)  /* base/file.h */
		? -1 : profiles_load_buffer(set, path, text.data ? text.data : "", text.length, error);
	buffer_free(&text);
	return status;
}

int profiles_load_builtin(struct profile_set *set, struct error *error)
{
	for (size_t i = 0; i < profiles_builtin_count(); i++) {
		const char *name = builtin_files[i].name;
		size_t n = strlen(name);
		if (n < 4 || strcmp(name + n - 4, ".xml"))
			continue;
		size_t first = set->rmap_count;
		if (profiles_load_buffer(set, name, builtin_files[i].text, strlen(builtin_files[i].text), error))
			return -1;
		for (size_t r = first; r < set->rmap_count; r++)
			set->rmaps[r].builtin = true;
	}
	return 0;
}

void profiles_free(struct profile_set *set)
{
	free(set->rmaps);
	free(set->rules);
	free(set->works);
	memset(set, 0, sizeof(*set));
}

const struct rmap_profile *profiles_find_rmap(const struct profile_set *set, const char *id)
{
	for (size_t i = 0; i < set->rmap_count; i++)
		if (!strcmp(set->rmaps[i].id, id))
			return &set->rmaps[i];
	return NULL;
}

const struct sharing_rule *profiles_find_rule(const struct profile_set *set, const char *id)
{
	for (size_t i = 0; i < set->rule_count; i++)
		if (!strcmp(set->rules[i].id, id))
			return &set->rules[i];
	return NULL;
}

/* "2.6.34" as a number that orders releases: 2 * 1e6 + 6 * 1e3 + 34; -1 when unparsable. */
static long release_number(const char *release)
{
	unsigned long part[3] = { 0, 0, 0 };
	if (!release || sscanf(release, "%lu.%lu.%lu", &part[0], &part[1], &part[2]) < 2)
		return -1;
	return (long)(part[0] * 1000000 + (part[1] % 1000) * 1000 + part[2] % 1000);
}

const struct rmap_profile *profiles_fit(const struct profile_set *set, const char *arch,
					const char *release)
{
	if (!arch || !arch[0] || !profiles_current(set, arch))
		arch = "x86_64";
	long wanted = release_number(release), best = -1;
	const struct rmap_profile *fit = NULL;
	for (size_t i = 0; wanted >= 0 && i < set->rmap_count; i++) {
		long from = release_number(set->rmaps[i].default_from);
		if (set->rmaps[i].builtin && !strcmp(set->rmaps[i].arch, arch) && from >= 0 && from <= wanted &&
		    from >= best) {
			best = from;
			fit = &set->rmaps[i];
		}
	}
	return fit ? fit : profiles_current(set, arch);
}

const struct rmap_profile *profiles_current(const struct profile_set *set, const char *arch)
{
	for (size_t i = set->rmap_count; i-- > 0;)
		if (set->rmaps[i].builtin && !strcmp(set->rmaps[i].arch, arch))
			return &set->rmaps[i];
	return NULL;
}

unsigned geometry_pte_bytes(const struct geometry *g)
{
	unsigned shift = g->level_count ? g->levels[0].shift : 21;
	return shift >= 12 && shift - 12 < 13 ? MODEL_PAGE_BYTES >> (shift - 12) : 0;
}

uint64_t geometry_addressable_bytes(const struct geometry *g)
{
	unsigned bits = g->physical_address_bits;
	return bits && bits < 64 ? UINT64_C(1) << bits : UINT64_MAX;
}

const struct rmap_profile *profiles_baseline(const struct profile_set *set, const struct rmap_profile *profile)
{
	const struct rmap_profile *best = profile;
	for (size_t i = 0; i < set->rmap_count; i++) {
		const struct rmap_profile *p = &set->rmaps[i];
		if (strcmp(p->arch, profile->arch) ||
		    geometry_pte_bytes(&p->geometry) != geometry_pte_bytes(&profile->geometry))
			continue;
		/* profile is one of set->rmaps: the pointers compare load order */
		if (p->family < best->family || (p->family == best->family && p < best))
			best = p;
	}
	return best;
}

struct sharing_kind_key sharing_vma_kind_key(const struct vma *vma)
{
	return (struct sharing_kind_key){ vma->vm_flags, vma->inode == 0, vma->perms[1] == 'w' && vma->perms[3] != 's' };
}

bool sharing_kind_eligible(const struct sharing_rule *rule, struct sharing_kind_key key)
{
	if (!rule->has_eligibility)
		return true;
	if (rule->file_backed && key.anonymous)
		return false;
	if (key.vm_flags & rule->exclude_flags)
		return false;
	if ((key.vm_flags & rule->require_flags) != rule->require_flags)
		return false;
	if (rule->hugetlb_only && !((key.vm_flags >> VMF_HT) & 1))
		return false;
	return !(rule->writable_needs_shared && key.writable_private);
}

bool sharing_vma_eligible_any_size(const struct sharing_rule *rule, const struct vma *vma)
{
	return sharing_kind_eligible(rule, sharing_vma_kind_key(vma));
}

bool sharing_vma_large_enough(const struct sharing_rule *rule, const struct vma *vma)
{
	return !rule->has_eligibility || vma->end - vma->start >= rule->min_bytes;
}

bool sharing_vma_eligible(const struct sharing_rule *rule, const struct vma *vma)
{
	return sharing_vma_eligible_any_size(rule, vma) && sharing_vma_large_enough(rule, vma);
}
