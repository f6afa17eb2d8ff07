/*
 * analyzer/parse.c - one translation unit to facts, through libclang.
 *
 * What is walked: every function defined in the unit's own .c file, plus
 * the header functions (static inline) that those reach, found lazily
 * through clang_getCursorDefinition.  Walking only what is reached keeps
 * the facts (and the cache) small: a kernel unit defines thousands of
 * inline helpers it never calls, and any unit that does call one has its
 * own copy of the definition, so nothing is lost.
 *
 * What is recorded: functions (USR, name, file, line, has a body), call
 * sites (direct to a function, or through a function-pointer field), and
 * every function stored into a function-pointer field, by designated or
 * positional initialiser or by assignment.  Call-site lines are expansion
 * lines, so a call written inside a macro counts at the macro's use.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analyzer/internal.h"
#include "analyzer/libclang.h"

/* Real paths already worked out, by file (a unit's walk asks thousands of times). */
struct real_names {
	CXFile *files;
	char **names;
	size_t count, capacity;
};

struct walker {
	struct tu_facts *facts;
	CXTranslationUnit unit;
	uint32_t *function_of_string;    /* interned USR -> function index */
	size_t function_of_string_capacity;
	bool *walked;                    /* per function index: body visited */
	size_t walked_capacity;
	CXCursor *pending;               /* header definitions still to walk */
	size_t pending_count, pending_capacity;
	uint32_t current;                /* function whose body is being walked */
	struct real_names real_names;
};

static char *cursor_usr(CXCursor cursor)
{
	CXString usr = clang_getCursorUSR(cursor);
	char *text = xstrdup(clang_getCString(usr));
	clang_disposeString(usr);
	return text;
}

/* The real path of a file: a header reached through the shim's asm link is
 * named by where it is in the tree.  libclang knows it for a file it opened;
 * for one read back from a precompiled header (pch.c) it has only the name
 * the header was opened by, so the link is resolved here. */
static char *real_name(CXFile file, struct real_names *known)
{
	for (size_t i = 0; known && i < known->count; i++)
		if (known->files[i] == file)
			return xstrdup(known->names[i]);
	CXString name = clang_File_tryGetRealPathName(file);
	if (!clang_getCString(name) || !clang_getCString(name)[0]) {
		clang_disposeString(name);
		name = clang_getFileName(file);
	}
	const char *text = clang_getCString(name) ? clang_getCString(name) : "";
	char *real = text[0] == '/' ? realpath(text, NULL) : NULL;
	char *result = real ? real : xstrdup(text);
	clang_disposeString(name);
	if (known) {
		array_reserve(&known->files, &known->capacity, known->count + 1, sizeof(*known->files));
		known->names = xrealloc(known->names, known->capacity * sizeof(*known->names));
		known->files[known->count] = file;
		known->names[known->count++] = xstrdup(result);
	}
	return result;
}

static void real_names_free(struct real_names *known)
{
	for (size_t i = 0; i < known->count; i++)
		free(known->names[i]);
	free(known->files);
	free(known->names);
}

/* File and line where the cursor appears after macro expansion. */
static bool cursor_place(CXCursor cursor, char **file_name, unsigned *line, struct real_names *known)
{
	CXFile file = NULL;
	clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, line, NULL, NULL);
	if (!file)
		return false;
	if (file_name)
		*file_name = real_name(file, known);
	return true;
}

static bool in_main_file(CXCursor cursor)
{
	return clang_Location_isFromMainFile(clang_getCursorLocation(cursor));
}

/* The prefixes of the names clang keeps for its own functions. */
static const char *const builtin_prefixes[] = { "__builtin_", "__sync_", "__atomic_", "__c11_atomic_" };

/*
 * A compiler builtin (__builtin_expect...) that the tree does not declare:
 * clang declares it itself, over its name where a unit first uses it (a
 * declaration the tree writes starts with its type, before the name).
 * That place is no fact of the tree, and it moves with the order a unit
 * reads its headers in (a precompiled header reads them in another), so a
 * builtin is no node of the graph.
 */
static bool is_builtin(CXCursor cursor)
{
	CXString name = clang_getCursorSpelling(cursor);
	const char *text = clang_getCString(name);
	bool reserved = false;
	for (size_t i = 0; text && !reserved && i < sizeof(builtin_prefixes) / sizeof(builtin_prefixes[0]); i++)
		reserved = !strncmp(text, builtin_prefixes[i], strlen(builtin_prefixes[i]));
	clang_disposeString(name);
	return reserved && clang_equalLocations(clang_getCursorLocation(cursor),
						 clang_getRangeStart(clang_getCursorExtent(cursor)));
}

/*
 * The function index for a function declaration or definition, adding it
 * on first sight.  A later sight of the definition upgrades the entry.
 * CG_NONE for builtins (is_builtin, or no file).
 */
static uint32_t function_index(struct walker *walker, CXCursor cursor)
{
	CXCursor definition = clang_getCursorDefinition(cursor);
	bool defined = !clang_Cursor_isNull(definition);
	if (defined)
		cursor = definition;
	else if (is_builtin(cursor))
		return CG_NONE;
	char *file = NULL;
	unsigned line = 0;
	if (!cursor_place(cursor, &file, &line, &walker->real_names))
		return CG_NONE;
	char *usr = cursor_usr(cursor);
	struct tu_facts *facts = walker->facts;
	uint32_t key = cg_intern(&facts->strings, usr);
	if (key >= walker->function_of_string_capacity) {
		size_t old = walker->function_of_string_capacity;
		array_reserve(&walker->function_of_string, &walker->function_of_string_capacity, key + 1, sizeof(uint32_t));
		for (size_t i = old; i < walker->function_of_string_capacity; i++)
			walker->function_of_string[i] = CG_NONE;
	}
	uint32_t index = walker->function_of_string[key];
	if (index == CG_NONE) {
		CXString name = clang_getCursorSpelling(cursor);
		index = tu_add_function(facts, usr, clang_getCString(name), file, line, defined);
		clang_disposeString(name);
		walker->function_of_string[key] = index;
		size_t old = walker->walked_capacity;
		array_reserve(&walker->walked, &walker->walked_capacity, index + 1, sizeof(bool));
		memset(walker->walked + old, 0, walker->walked_capacity - old);
	}
	free(usr);
	free(file);
	/* A header definition reached from here: walk it later. */
	if (defined && !walker->walked[index] && !in_main_file(cursor)) {
		walker->walked[index] = true;
		array_reserve(&walker->pending, &walker->pending_capacity, walker->pending_count + 1, sizeof(CXCursor));
		walker->pending[walker->pending_count++] = cursor;
	}
	return index;
}

/* --- looking through expressions ----------------------------------------- */

struct children {
	CXCursor items[8];
	unsigned count;
};

static enum CXChildVisitResult collect_child(CXCursor child, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct children *children = data;
	if (children->count < 8)
		children->items[children->count] = child;
	children->count++;
	return CXChildVisit_Continue;
}

static struct children children_of(CXCursor cursor)
{
	struct children children = { .count = 0 };
	clang_visitChildren(cursor, collect_child, &children);
	if (children.count > 8)
		children.count = 8;
	return children;
}

/* Wrappers that do not change what an expression names: casts, parens, & and *. */
static bool is_wrapper(enum CXCursorKind kind)
{
	return kind == CXCursor_UnexposedExpr || kind == CXCursor_ParenExpr ||
	       kind == CXCursor_UnaryOperator || kind == CXCursor_CStyleCastExpr;
}

/* The declaration an expression names once wrappers are peeled: a
 * function, a field (member access) or a variable; a null cursor if none. */
static CXCursor named_declaration(CXCursor expression)
{
	for (int depth = 0; depth < 16; depth++) {
		enum CXCursorKind kind = clang_getCursorKind(expression);
		if (kind == CXCursor_DeclRefExpr || kind == CXCursor_MemberRefExpr)
			return clang_getCursorReferenced(expression);
		if (!is_wrapper(kind))
			break;
		struct children children = children_of(expression);
		if (children.count == 0)
			break;
		/* a C cast lists its type first; the operand is last */
		expression = children.items[children.count - 1];
	}
	return clang_getNullCursor();
}

static bool is_function(CXCursor cursor)
{
	return !clang_Cursor_isNull(cursor) && clang_getCursorKind(cursor) == CXCursor_FunctionDecl;
}

/* --- call sites ----------------------------------------------------------- */

static void add_call(struct walker *walker, uint32_t callee, uint32_t field, unsigned line)
{
	struct tu_facts *facts = walker->facts;
	array_reserve(&facts->calls, &facts->call_capacity, facts->call_count + 1, sizeof(*facts->calls));
	facts->calls[facts->call_count++] = (struct tu_call){
		.caller = walker->current, .callee = callee, .field = field, .line = line,
	};
}

static void record_call(struct walker *walker, CXCursor call)
{
	unsigned line = 0;
	if (walker->current == CG_NONE || !cursor_place(call, NULL, &line, NULL))
		return;
	CXCursor target = clang_getCursorReferenced(call);
	if (clang_Cursor_isNull(target)) {
		struct children children = children_of(call);
		if (children.count > 0)
			target = named_declaration(children.items[0]);
	}
	enum CXCursorKind kind = clang_Cursor_isNull(target) ? CXCursor_NoDeclFound
							     : clang_getCursorKind(target);
	if (kind == CXCursor_FunctionDecl) {
		uint32_t callee = function_index(walker, target);
		if (callee != CG_NONE)
			add_call(walker, callee, CG_NONE, line);
	} else if (kind == CXCursor_FieldDecl) {
		char *usr = cursor_usr(target);
		add_call(walker, CG_NONE, cg_intern(&walker->facts->strings, usr), line);
		free(usr);
	} else {
		walker->facts->unresolved_pointer_calls++;
	}
}

/* --- functions stored in fields ------------------------------------------ */

static void record_store(struct walker *walker, CXCursor field, CXCursor value)
{
	CXCursor function = named_declaration(value);
	if (!is_function(function) || clang_getCursorKind(field) != CXCursor_FieldDecl)
		return;
	uint32_t index = function_index(walker, function);
	if (index == CG_NONE)
		return;
	char *usr = cursor_usr(field);
	struct tu_facts *facts = walker->facts;
	array_reserve(&facts->stores, &facts->store_capacity, facts->store_count + 1, sizeof(*facts->stores));
	facts->stores[facts->store_count++] = (struct tu_store){
		.field = cg_intern(&facts->strings, usr), .function = index,
	};
	free(usr);
}

struct fields {
	CXCursor *items;
	size_t count, capacity;
};

static enum CXVisitorResult collect_field(CXCursor field, CXClientData data)
{
	struct fields *fields = data;
	array_reserve(&fields->items, &fields->capacity, fields->count + 1, sizeof(CXCursor));
	fields->items[fields->count++] = field;
	return CXVisit_Continue;
}

struct init_walk {
	struct walker *walker;
	struct fields fields;
	size_t position;            /* next field for a positional initialiser */
};

static enum CXChildVisitResult init_element(CXCursor element, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct init_walk *walk = data;
	struct children children = children_of(element);
	CXCursor field = clang_getNullCursor();
	CXCursor value = element;
	if (clang_getCursorKind(element) == CXCursor_UnexposedExpr && children.count >= 2 &&
	    clang_getCursorKind(children.items[0]) == CXCursor_MemberRef) {
		/* .a.b = value: the last designator names the field */
		for (unsigned i = 0; i + 1 < children.count; i++)
			if (clang_getCursorKind(children.items[i]) == CXCursor_MemberRef)
				field = clang_getCursorReferenced(children.items[i]);
		value = children.items[children.count - 1];
		for (size_t i = 0; i < walk->fields.count; i++)
			if (clang_equalCursors(walk->fields.items[i], field))
				walk->position = i + 1;
	} else if (walk->position < walk->fields.count) {
		field = walk->fields.items[walk->position++];
	}
	if (!clang_Cursor_isNull(field))
		record_store(walk->walker, field, value);
	return CXChildVisit_Continue;
}

static void record_init_list(struct walker *walker, CXCursor list)
{
	CXType type = clang_getCanonicalType(clang_getCursorType(list));
	if (type.kind != CXType_Record)
		return;
	struct init_walk walk = { .walker = walker };
	clang_Type_visitFields(type, collect_field, &walk.fields);
	if (walk.fields.count)
		clang_visitChildren(list, init_element, &walk);
	free(walk.fields.items);
}

/* Is this binary operator an assignment (not ==, !=, && or ||)?  libclang 14
 * does not expose the operator, so read the first such token at depth 0. */
static bool is_assignment(struct walker *walker, CXCursor operator)
{
	CXToken *tokens = NULL;
	unsigned count = 0;
	clang_tokenize(walker->unit, clang_getCursorExtent(operator), &tokens, &count);
	bool assignment = false;
	int depth = 0;
	for (unsigned i = 0; i < count; i++) {
		if (clang_getTokenKind(tokens[i]) != CXToken_Punctuation)
			continue;
		CXString spelling = clang_getTokenSpelling(walker->unit, tokens[i]);
		const char *text = clang_getCString(spelling);
		bool done = false;
		if (strchr("([{", text[0]) && !text[1])
			depth++;
		else if (strchr(")]}", text[0]) && !text[1])
			depth--;
		else if (depth == 0 && (!strcmp(text, "=") || !strcmp(text, "==") ||
					!strcmp(text, "!=") || !strcmp(text, "&&") || !strcmp(text, "||"))) {
			assignment = !strcmp(text, "=");
			done = true;
		}
		clang_disposeString(spelling);
		if (done)
			break;
	}
	clang_disposeTokens(walker->unit, tokens, count);
	return assignment;
}

static void record_assignment(struct walker *walker, CXCursor operator)
{
	struct children children = children_of(operator);
	if (children.count != 2)
		return;
	CXCursor field = named_declaration(children.items[0]);
	if (clang_Cursor_isNull(field) || clang_getCursorKind(field) != CXCursor_FieldDecl ||
	    !is_function(named_declaration(children.items[1])))
		return;
	if (is_assignment(walker, operator))
		record_store(walker, field, children.items[1]);
}

/* --- walking ------------------------------------------------------------- */

static enum CXChildVisitResult body_visitor(CXCursor cursor, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct walker *walker = data;
	switch (clang_getCursorKind(cursor)) {
	case CXCursor_CallExpr:
		record_call(walker, cursor);
		break;
	case CXCursor_InitListExpr:
		record_init_list(walker, cursor);
		break;
	case CXCursor_BinaryOperator:
		record_assignment(walker, cursor);
		break;
	default:
		break;
	}
	return CXChildVisit_Recurse;
}

static void walk_body(struct walker *walker, uint32_t function, CXCursor definition)
{
	walker->current = function;
	clang_visitChildren(definition, body_visitor, walker);
	walker->current = CG_NONE;
}

static enum CXChildVisitResult top_visitor(CXCursor cursor, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct walker *walker = data;
	if (!in_main_file(cursor))
		return CXChildVisit_Continue;
	enum CXCursorKind kind = clang_getCursorKind(cursor);
	if (kind == CXCursor_FunctionDecl && clang_isCursorDefinition(cursor)) {
		uint32_t index = function_index(walker, cursor);
		if (index != CG_NONE && !walker->walked[index]) {
			walker->walked[index] = true;
			walk_body(walker, index, cursor);
		}
	} else if (kind == CXCursor_VarDecl) {
		/* ops tables: static const struct vm_operations_struct x = { ... } */
		walk_body(walker, CG_NONE, cursor);
	}
	return CXChildVisit_Continue;
}

static void record_diagnostics(struct tu_facts *facts, CXTranslationUnit unit)
{
	unsigned count = clang_getNumDiagnostics(unit);
	for (unsigned i = 0; i < count; i++) {
		CXDiagnostic diagnostic = clang_getDiagnostic(unit, i);
		enum CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(diagnostic);
		if (severity >= CXDiagnostic_Error) {
			facts->errors++;
			CXString site = clang_formatDiagnostic(diagnostic, CXDiagnostic_DisplaySourceLocation);
			const char *text = clang_getCString(site);
			if (text && facts->error_sites.count < TU_ERROR_SITES &&
			    !cg_list_has(&facts->error_sites, text))
				cg_list_add(&facts->error_sites, text);
			clang_disposeString(site);
			if (!facts->first_error) {
				CXString text = clang_formatDiagnostic(diagnostic,
					CXDiagnostic_DisplaySourceLocation);
				facts->first_error = xstrdup(clang_getCString(text));
				clang_disposeString(text);
			}
		} else if (severity == CXDiagnostic_Warning) {
			facts->warnings++;
		}
		clang_disposeDiagnostic(diagnostic);
	}
}

/* --- what the unit read ------------------------------------------------- */

struct inclusion_walk {
	struct tu_facts *facts;
	const char *directory;      /* relative names are relative to it */
	const struct read_roots *roots;
	struct cg_strings seen;
};

/* A file the unit read outside the tree, the cache and the system headers:
 * the first one, with the line that included it. */
static void check_outside(struct inclusion_walk *walk, const char *path, CXSourceLocation *stack, unsigned depth)
{
	char resolved[PATH_MAX];
	if (!walk->roots || walk->facts->outside || (realpath(path, resolved) && read_roots_allow(walk->roots, resolved)))
		return;
	const char *shown = realpath(path, resolved) ? resolved : path;
	if (depth == 0) {
		walk->facts->outside = xasprintf("%s: the file itself is outside the tree and the system headers", shown);
		return;
	}
	CXFile includer;
	unsigned line;
	clang_getExpansionLocation(stack[0], &includer, &line, NULL, NULL);
	CXString name = clang_getFileName(includer);
	const char *text = clang_getCString(name);
	walk->facts->outside = xasprintf("%s:%u: includes %s, outside the tree and the system headers",
					 text && text[0] ? text : "?", line, shown);
	clang_disposeString(name);
}

static void inclusion_visitor(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	struct inclusion_walk *walk = data;
	/* the real path: a header reached through the shim's asm link is the
	 * tree's file, and that file's size and mtime are what matter */
	CXString name = clang_File_tryGetRealPathName(file);
	if (!clang_getCString(name) || !clang_getCString(name)[0]) {
		clang_disposeString(name);
		name = clang_getFileName(file);
	}
	const char *text = clang_getCString(name);
	if (text && text[0]) {
		char *path = text[0] == '/' ? xstrdup(text) : xasprintf("%s/%s", walk->directory, text);
		uint32_t before = (uint32_t)walk->seen.count;
		if (cg_intern(&walk->seen, path) == before) {
			tu_add_input(walk->facts, path);
			check_outside(walk, path, stack, depth);
		}
		free(path);
	}
	clang_disposeString(name);
}

/* A file libclang could not open, outside the roots or inside them but no
 * regular file (a device, a FIFO): the kernel refused it (bounded.c
 * confines the worker's reads) before it was ever opened, and libclang says
 * "cannot open file 'PATH': Permission denied", fatal.  The first such
 * diagnostic becomes the unit's refusal. */
static void check_denied(struct inclusion_walk *walk, CXTranslationUnit unit)
{
	static const char said[] = "cannot open file '";
	unsigned count = walk->roots ? clang_getNumDiagnostics(unit) : 0;
	for (unsigned i = 0; i < count && !walk->facts->outside; i++) {
		CXDiagnostic diagnostic = clang_getDiagnostic(unit, i);
		CXString spelling = clang_getDiagnosticSpelling(diagnostic);
		const char *text = clang_getCString(spelling), *end = text ? strrchr(text, '\'') : NULL;
		if (text && !strncmp(text, said, sizeof(said) - 1) && end > text + sizeof(said) - 1) {
			const char *name = text + sizeof(said) - 1;
			int length = (int)(end - name);
			char *path = name[0] == '/' ? xasprintf("%.*s", length, name)
						    : xasprintf("%s/%.*s", walk->directory, length, name);
			char resolved[PATH_MAX];
			const char *shown = realpath(path, resolved) ? resolved : path;
			CXFile includer;
			unsigned line = 0;
			clang_getExpansionLocation(clang_getDiagnosticLocation(diagnostic), &includer, &line, NULL, NULL);
			CXString file = clang_getFileName(includer);
			const char *includer_name = clang_getCString(file) ? clang_getCString(file) : "?";
			struct stat st;
			if (!read_roots_allow(walk->roots, shown))
				walk->facts->outside = xasprintf("%s:%u: includes %s, outside the tree and the system "
								 "headers: refused before it was opened",
								 includer_name, line, shown);
			else if (stat(shown, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				walk->facts->outside = xasprintf("%s:%u: includes %s, %s: the analyzer lets libclang "
								 "read regular files only: refused before it was opened",
								 includer_name, line, shown, confine_file_kind(st.st_mode));
			clang_disposeString(file);
			free(path);
		}
		clang_disposeString(spelling);
		clang_disposeDiagnostic(diagnostic);
	}
}

/* Every file of libclang's inclusion list, with its size and mtime now.
 * A unit parsed with a precompiled header lists only what it read beyond
 * it (clang_getInclusions leaves the header's files out): those are the
 * header's build's, as they were when it was built (a file changed since
 * makes libclang refuse the header). */
static void record_inputs(struct tu_facts *facts, CXTranslationUnit unit, const char *directory,
			  const struct read_roots *roots, const struct pch *pch)
{
	struct inclusion_walk walk = { .facts = facts, .directory = directory, .roots = roots };
	check_denied(&walk, unit);
	clang_getInclusions(unit, inclusion_visitor, &walk);
	for (size_t i = 0; pch && i < pch->facts.input_count; i++) {
		const struct tu_input *input = &pch->facts.inputs[i];
		uint32_t before = (uint32_t)walk.seen.count;
		/* the generated header is the key's, not the unit's */
		if (cg_intern(&walk.seen, input->path) != before || !strcmp(input->path, pch->header))
			continue;
		array_reserve(&facts->inputs, &facts->input_capacity, facts->input_count + 1, sizeof(*facts->inputs));
		facts->inputs[facts->input_count] = *input;
		facts->inputs[facts->input_count++].path = xstrdup(input->path);
	}
	cg_strings_free(&walk.seen);
}

/* libclang's own version ("Debian clang version 14.0.6"): facts from
 * another libclang may differ, so it is part of every cache key. */
char *parse_libclang_version(void)
{
	if (libclang_load(NULL))
		return xstrdup("unknown");
	CXString version = clang_getClangVersion();
	char *text = xstrdup(clang_getCString(version) ? clang_getCString(version) : "unknown");
	clang_disposeString(version);
	return text;
}

void *parse_index_create(void)
{
	/* declarations read from a precompiled header (pch.c) are not walked
	 * from the top: only the unit's own file is (parse.c top_visitor), and
	 * visiting each would read the whole header back */
	return libclang_load(NULL) ? NULL : clang_createIndex(1, 0);
}

/* Parse a tiny unit with job's flags here, before the children are forked:
 * what libclang sets up once per process (targets, option and diagnostic
 * tables) is then inherited by every child instead of being built again in
 * each.  libclang's crash recovery stays off, as in the children. */
void parse_warm_up(const struct tu_job *job)
{
	if (libclang_load(NULL))
		return;
	bool set = getenv("LIBCLANG_DISABLE_CRASH_RECOVERY") == NULL;
	if (set)
		setenv("LIBCLANG_DISABLE_CRASH_RECOVERY", "1", 1);
	CXIndex index = clang_createIndex(0, 0);
	if (set)
		unsetenv("LIBCLANG_DISABLE_CRASH_RECOVERY");
	static char text[] = "int ptscope_warm_up(void) { return 0; }\n";
	struct CXUnsavedFile file = { "/ptscope-warm-up.c", text, sizeof(text) - 1 };
	CXTranslationUnit unit = NULL;
	if (clang_parseTranslationUnit2(index, file.Filename, (const char *const *)job->arguments.items,
					(int)job->arguments.count, &file, 1, CXTranslationUnit_KeepGoing,
					&unit) == CXError_Success && unit)
		clang_disposeTranslationUnit(unit);
	clang_disposeIndex(index);
}

void parse_index_dispose(void *index)
{
	clang_disposeIndex(index);
}

/* The unit's flags, with "-include-pch FILE" when it is to use one. */
static CXTranslationUnit parse_with(void *index, const struct tu_job *job, const struct pch *pch,
				    unsigned options, enum CXErrorCode *code)
{
	size_t count = job->arguments.count;
	const char **arguments = xcalloc(count + 2, sizeof(*arguments));
	if (count) /* a unit with no flags left has no items: memcpy from NULL is undefined */
		memcpy(arguments, job->arguments.items, count * sizeof(*arguments));
	if (pch) {
		arguments[count++] = "-include-pch";
		arguments[count++] = pch->file;
	}
	CXTranslationUnit unit = NULL;
	*code = clang_parseTranslationUnit2(index, job->path, arguments, (int)count, NULL, 0, options, &unit);
	free(arguments);
	return unit;
}

/* Did libclang refuse the precompiled header (changed since, another
 * clang's, damaged)?  It says so in a fatal diagnostic naming it. */
static bool pch_refused(CXTranslationUnit unit, const struct pch *pch)
{
	bool refused = false;
	unsigned count = clang_getNumDiagnostics(unit);
	for (unsigned i = 0; i < count && !refused; i++) {
		CXDiagnostic diagnostic = clang_getDiagnostic(unit, i);
		if (clang_getDiagnosticSeverity(diagnostic) == CXDiagnostic_Fatal) {
			CXString text = clang_formatDiagnostic(diagnostic, 0);
			const char *message = clang_getCString(text);
			refused = message && (strstr(message, pch->file) || strstr(message, "precompiled header") ||
					      strstr(message, "PCH file"));
			clang_disposeString(text);
		}
		clang_disposeDiagnostic(diagnostic);
	}
	return refused;
}

void parse_unit(void *index, struct tu_job *job)
{
	struct tu_facts *facts = &job->facts;
	enum CXErrorCode code;
	const struct pch *pch = job->pch;
	CXTranslationUnit unit = parse_with(index, job, pch, CXTranslationUnit_KeepGoing, &code);
	if (pch && (code != CXError_Success || !unit || pch_refused(unit, pch))) {
		if (unit)
			clang_disposeTranslationUnit(unit);
		pch = NULL;   /* parsed as if there were none */
		unit = parse_with(index, job, NULL, CXTranslationUnit_KeepGoing, &code);
	}
	job->used_pch = pch != NULL;
	if (code != CXError_Success || !unit) {
		facts->failed = true;
		facts->errors++;
		if (!facts->first_error)
			facts->first_error = xasprintf("%s: libclang could not parse (error %d)",
						       job->path, (int)code);
		return;
	}
	record_diagnostics(facts, unit);
	/* what the header's build warned about, this unit would have */
	if (pch)
		facts->warnings += pch->facts.warnings;
	record_inputs(facts, unit, job->directory, job->roots, pch);
	struct walker walker = { .facts = facts, .unit = unit, .current = CG_NONE };
	clang_visitChildren(clang_getTranslationUnitCursor(unit), top_visitor, &walker);
	while (walker.pending_count > 0) {
		CXCursor definition = walker.pending[--walker.pending_count];
		uint32_t index = function_index(&walker, definition);
		if (index != CG_NONE)
			walk_body(&walker, index, definition);
	}
	free(walker.function_of_string);
	free(walker.walked);
	free(walker.pending);
	real_names_free(&walker.real_names);
	clang_disposeTranslationUnit(unit);
}

/* In the child (bounded.c): 'P' (parsed with its precompiled header) or
 * '-', then the unit's facts, serialised as the cache keeps them; or a
 * refusal when it read outside its roots. */
void parse_unit_work(void *data, struct buffer *out, char **refused)
{
	struct tu_job *job = data;
	void *index = parse_index_create();
	if (!index) {
		*refused = xstrdup("libclang could not make an index");
		return;
	}
	parse_unit(index, job);
	if (job->facts.outside) {
		*refused = xstrdup(job->facts.outside);
	} else {
		buffer_add(out, job->used_pch ? "P" : "-", 1);
		cache_serialise(&job->facts, out);
	}
}

/* --- a precompiled header (pch.c) ------------------------------------------- */

struct guard_walk {
	CXTranslationUnit unit;
	const char *header;         /* the generated header */
	char *unguarded;            /* the first header it includes without a guard */
};

/* A header the generated one includes is included again by each file that
 * uses it: only a guarded one is then read as nothing. */
static void guard_visitor(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	struct guard_walk *walk = data;
	if (depth != 1 || walk->unguarded)
		return;
	CXFile includer = NULL;
	clang_getExpansionLocation(stack[0], &includer, NULL, NULL, NULL);
	CXString name = clang_getFileName(includer);
	bool from_header = clang_getCString(name) && !strcmp(clang_getCString(name), walk->header);
	clang_disposeString(name);
	if (from_header && !clang_isFileMultipleIncludeGuarded(walk->unit, file)) {
		CXString text = clang_getFileName(file);
		walk->unguarded = xstrdup(clang_getCString(text) ? clang_getCString(text) : "?");
		clang_disposeString(text);
	}
}

/* Why the unit built for pch may not be saved, or NULL. */
static char *pch_doubt(CXTranslationUnit unit, const struct pch *pch, const struct tu_facts *facts)
{
	if (facts->outside)
		return xstrdup(facts->outside);
	if (facts->errors)
		return xasprintf("its headers have errors (%s)", facts->first_error ? facts->first_error : "");
	struct guard_walk walk = { .unit = unit, .header = pch->header };
	clang_getInclusions(unit, guard_visitor, &walk);
	if (walk.unguarded) {
		char *why = xasprintf("%s has no include guard", walk.unguarded);
		free(walk.unguarded);
		return why;
	}
	return NULL;
}

/* Save the unit where pch says: libclang writes it next to the name and
 * renames it, in CACHE/pch only; the child may write no file (bounded.c)
 * but this one, and no more than the parse children may read. */
static bool pch_save(CXTranslationUnit unit, const struct pch *pch)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_FSIZE, &limit) == 0) {
		limit.rlim_cur = limit.rlim_max != RLIM_INFINITY && limit.rlim_max < FILE_LIMIT_SOURCE_BYTES
				 ? limit.rlim_max : FILE_LIMIT_SOURCE_BYTES;
		setrlimit(RLIMIT_FSIZE, &limit);
	}
	signal(SIGXFSZ, SIG_IGN);   /* past the bound the write fails, and the header is not used */
	return clang_saveTranslationUnit(unit, pch->file, 0) == CXSaveError_None;
}

void parse_pch_work(void *data, struct buffer *out, char **refused)
{
	const struct pch *pch = data;
	void *index = parse_index_create();
	if (!index) {
		*refused = xstrdup("libclang could not make an index");
		return;
	}
	size_t count = pch->arguments.count;
	const char **arguments = xcalloc(count + 2, sizeof(*arguments));
	memcpy(arguments, pch->arguments.items, count * sizeof(*arguments));
	arguments[count++] = "-x";
	arguments[count++] = "c-header";
	CXTranslationUnit unit = NULL;
	struct tu_facts facts = { 0 };
	unsigned options = CXTranslationUnit_KeepGoing | CXTranslationUnit_ForSerialization |
			   CXTranslationUnit_Incomplete;
	if (clang_parseTranslationUnit2(index, pch->header, arguments, (int)count, NULL, 0, options, &unit) ||
	    !unit) {
		buffer_printf(out, "no libclang could not parse it\n");
	} else {
		record_diagnostics(&facts, unit);
		record_inputs(&facts, unit, pch->directory, pch->roots, NULL);
		char *why = pch_doubt(unit, pch, &facts);
		if (!why && !pch_save(unit, pch))
			why = xstrdup("libclang could not save it");
		buffer_printf(out, "%s%s\n", why ? "no " : "ok", why ? why : "");
		free(why);
		clang_disposeTranslationUnit(unit);
	}
	cache_serialise(&facts, out);
	tu_facts_free(&facts);
	free(arguments);
	parse_index_dispose(index);
}

/* --- kbuild's generated constants ----------------------------------------- */

/*
 * kernel/bounds.c and arch/ARCH/kernel/asm-offsets.c are compiled by kbuild
 * to assembly whose ".ascii \"->NAME value\"" lines become bounds.h and
 * asm-offsets.h.  Here each DEFINE(NAME, value) is an asm statement whose one
 * operand clang evaluates; its NAME is read from the source line, through the
 * macros the file itself defines above the line (asm-offsets_64.c:
 * "#define ENTRY(entry) OFFSET(pt_regs_ ## entry, pt_regs, entry)", then
 * "ENTRY(bx);"), since DEFINE stringifies it out of reach of libclang.
 */
struct source_lines {
	char *path, *text;
	char **lines;
	size_t count;
};

struct constants {
	struct source_lines files[8];   /* the unit's .c and the .c files it includes */
	size_t file_count;
	struct cg_strings names;        /* emitted once each */
	struct buffer *out;
	size_t count;
};

static const struct source_lines *lines_of(struct constants *c, const char *path)
{
	for (size_t i = 0; i < c->file_count; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	if (c->file_count == sizeof(c->files) / sizeof(c->files[0]))
		return NULL;
	struct source_lines *f = &c->files[c->file_count];
	size_t size, capacity = 0;
	if (!cg_read_file(path, &f->text, &size))
		return NULL;
	f->path = xstrdup(path);
	f->lines = NULL;
	f->count = 0;
	for (char *line = f->text; line; ) {
		array_reserve(&f->lines, &capacity, f->count + 1, sizeof(char *));
		f->lines[f->count++] = line;
		line = strchr(line, '\n');
		if (line)
			*line++ = '\0';
	}
	c->file_count++;
	return f;
}

static bool is_word_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The arguments of the call at text (pointing at '('), split at top-level
 * commas into args (trimmed); the count, or -1 when unbalanced. */
static int split_arguments(const char *text, char args[][128], int max)
{
	int count = 0, depth = 0;
	size_t length = 0;
	for (const char *p = text + 1; *p; p++) {
		if ((*p == ',' && depth == 0) || (*p == ')' && depth == 0)) {
			while (length && args[count][length - 1] == ' ')
				length--;
			args[count][length] = '\0';
			count++;
			length = 0;
			if (*p == ')' || count == max)
				return *p == ')' ? count : -1;
			continue;
		}
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if ((length || *p != ' ') && length < 127)
			args[count][length++] = *p == '\t' ? ' ' : *p;
	}
	return -1;
}

/* Replace the parameters of "#define NAME(params) body" by args. */
static bool expand_macro(const struct source_lines *f, unsigned before, const char *name,
			 char args[][128], int arg_count, char *out, size_t size)
{
	size_t name_length = strlen(name);
	for (unsigned l = before; l-- > 0; ) {
		const char *p = f->lines[l];
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p++ != '#')
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "define", 6))
			continue;
		p += 6;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, name, name_length) || p[name_length] != '(')
			continue;
		char params[8][128];
		int param_count = split_arguments(p + name_length, params, 8);
		if (param_count != arg_count)
			return false;
		const char *body = strchr(p, ')') + 1;
		size_t used = 0;
		for (const char *b = body; *b && used + 130 < size; ) {
			if (is_word_char(*b) && (b == body || !is_word_char(b[-1]))) {
				size_t word = 0;
				while (is_word_char(b[word]))
					word++;
				int which = -1;
				for (int i = 0; i < param_count; i++)
					if (strlen(params[i]) == word && !strncmp(params[i], b, word))
						which = i;
				const char *with = which >= 0 ? args[which] : b;
				size_t with_length = which >= 0 ? strlen(args[which]) : word;
				used += (size_t)snprintf(out + used, size - used, "%.*s", (int)with_length, with);
				b += word;
			} else {
				out[used++] = *b++;
			}
		}
		out[used] = '\0';
		return true;
	}
	return false;
}

/* NAME from a DEFINE(NAME, v) or OFFSET(NAME, s, m) line ("a ## b" pasted). */
static bool constant_name(const struct source_lines *f, unsigned line, char *name, size_t size)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s", f->lines[line - 1]);
	for (int depth = 0; depth < 4; depth++) {
		static const char *const terminals[] = { "DEFINE(", "OFFSET(" };
		for (int t = 0; t < 2; t++) {
			const char *at = strstr(text, terminals[t]);
			if (!at || (at > text && is_word_char(at[-1])))
				continue;
			char args[4][128];
			if (split_arguments(at + 6, args, 4) < 2)
				return false;
			size_t used = 0;
			for (const char *p = args[0]; *p && used + 1 < size; p++)
				if (is_word_char(*p))
					name[used++] = *p;
				else if (*p != ' ' && *p != '#')
					return false;
			name[used] = '\0';
			return used > 0;
		}
		/* MACRO(args) of the file's own: expand one level */
		const char *p = text;
		while (*p == ' ' || *p == '\t')
			p++;
		char macro[64];
		size_t length = 0;
		while (is_word_char(p[length]) && length + 1 < sizeof(macro))
			macro[length] = p[length], length++;
		macro[length] = '\0';
		char args[8][128], expanded[1024];
		int count = p[length] == '(' ? split_arguments(p + length, args, 8) : -1;
		if (!length || count < 0 || !expand_macro(f, line - 1, macro, args, count, expanded, sizeof(expanded)))
			return false;
		snprintf(text, sizeof(text), "%s", expanded);
	}
	return false;
}

static enum CXChildVisitResult constant_visitor(CXCursor cursor, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct constants *constants = data;
	if (clang_getCursorKind(cursor) != CXCursor_AsmStmt)
		return CXChildVisit_Recurse;
	unsigned line = 0;
	char *file = NULL, name[128];
	struct children children = children_of(cursor);
	const struct source_lines *f = NULL;
	/* the unit's own .c files only: headers' inline asm defines nothing */
	if (children.count == 1 && cursor_place(cursor, &file, &line, NULL) && strlen(file) > 2 &&
	    !strcmp(file + strlen(file) - 2, ".c"))
		f = lines_of(constants, file);
	free(file);
	if (!f || line == 0 || line > f->count || !constant_name(f, line, name, sizeof(name)) ||
	    cg_lookup(&constants->names, name) != CG_NONE)
		return CXChildVisit_Continue;
	CXEvalResult result = clang_Cursor_Evaluate(children.items[0]);
	if (result && clang_EvalResult_getKind(result) == CXEval_Int) {
		buffer_printf(constants->out, "#define %s %lld\n", name,
				 clang_EvalResult_getAsLongLong(result));
		cg_intern(&constants->names, name);
		constants->count++;
	}
	if (result)
		clang_EvalResult_dispose(result);
	return CXChildVisit_Continue;
}

struct constants_request {
	const char *path;
	const struct cg_list *arguments;
	const struct read_roots *roots;
};

/* Every file the unit read inside roots: the first one outside, or NULL. */
static char *outside_roots(CXTranslationUnit unit, const char *directory, const struct read_roots *roots)
{
	struct tu_facts facts = { 0 };
	struct inclusion_walk walk = { .facts = &facts, .directory = directory, .roots = roots };
	check_denied(&walk, unit);
	clang_getInclusions(unit, inclusion_visitor, &walk);
	cg_strings_free(&walk.seen);
	char *outside = facts.outside ? xstrdup(facts.outside) : NULL;
	tu_facts_free(&facts);
	return outside;
}

static void constants_work(void *data, struct buffer *out, char **refused)
{
	const struct constants_request *request = data;
	struct constants constants = { .out = out };
	CXIndex index = clang_createIndex(0, 0);
	CXTranslationUnit unit = NULL;
	if (clang_parseTranslationUnit2(index, request->path, (const char *const *)request->arguments->items,
					(int)request->arguments->count, NULL, 0, CXTranslationUnit_KeepGoing,
					&unit) == CXError_Success && unit) {
		*refused = outside_roots(unit, "/", request->roots);
		if (!*refused)
			clang_visitChildren(clang_getTranslationUnitCursor(unit), constant_visitor, &constants);
		clang_disposeTranslationUnit(unit);
	}
	clang_disposeIndex(index);
	for (size_t i = 0; i < constants.file_count; i++) {
		free(constants.files[i].path);
		free(constants.files[i].text);
		free(constants.files[i].lines);
	}
	cg_strings_free(&constants.names);
}

long parse_constants(const char *path, const struct cg_list *arguments, const struct read_roots *roots,
		     struct buffer *out, struct error *error)
{
	if (libclang_load(NULL) || !cg_is_file(path))
		return 0;
	struct constants_request request = { path, arguments, roots };
	struct buffer answer = { 0 };
	char *refused = NULL;
	if (!bounded_run_one(constants_work, &request, roots, &answer, &refused)) {
		error_set(error, path, 0, "%s", refused);
		free(refused);
		return -1;
	}
	long count = 0;
	for (size_t i = 0; i < answer.length; i++)
		count += answer.data[i] == '\n';
	if (answer.length)
		buffer_add(out, answer.data, answer.length);
	buffer_free(&answer);
	return count;
}

/* ---- struct sizes (ptscope profiles --from-source) ---- */

struct size_query {
	const char *const *names;
	size_t count;
	long long *bytes;
};

static enum CXChildVisitResult size_visitor(CXCursor cursor, CXCursor parent, CXClientData data)
{
	struct size_query *query = data;
	(void)parent;
	if (clang_getCursorKind(cursor) != CXCursor_StructDecl || !clang_isCursorDefinition(cursor))
		return CXChildVisit_Continue;
	CXString spelling = clang_getCursorSpelling(cursor);
	const char *name = clang_getCString(spelling);
	for (size_t i = 0; i < query->count; i++)
		if (query->bytes[i] < 0 && name && !strcmp(name, query->names[i]))
			query->bytes[i] = clang_Type_getSizeOf(clang_getCursorType(cursor));
	clang_disposeString(spelling);
	return CXChildVisit_Continue;
}

struct size_request {
	const struct tu_job *job;
	struct size_query query;
};

/* In the child: each size as one line, -1 where the struct is not defined. */
static void size_work(void *data, struct buffer *out, char **refused)
{
	struct size_request *request = data;
	const struct tu_job *job = request->job;
	CXIndex index = clang_createIndex(0, 0);
	CXTranslationUnit unit = NULL;
	/* sizes need the declarations only: function bodies are skipped */
	if (clang_parseTranslationUnit2(index, job->path, (const char *const *)job->arguments.items,
					(int)job->arguments.count, NULL, 0,
					CXTranslationUnit_KeepGoing | CXTranslationUnit_SkipFunctionBodies,
					&unit) != CXError_Success || !unit) {
		clang_disposeIndex(index);
		*refused = xstrdup("libclang could not parse it");
		return;
	}
	*refused = outside_roots(unit, job->directory, job->roots);
	if (!*refused) {
		clang_visitChildren(clang_getTranslationUnitCursor(unit), size_visitor, &request->query);
		for (size_t i = 0; i < request->query.count; i++)
			buffer_printf(out, "%lld\n", request->query.bytes[i]);
	}
	clang_disposeTranslationUnit(unit);
	clang_disposeIndex(index);
}

int parse_struct_sizes(const struct tu_job *job, const char *const *names, size_t count,
		       long long *bytes, struct error *error)
{
	struct size_request request = { job, { names, count, bytes } };
	for (size_t i = 0; i < count; i++)
		bytes[i] = -1;
	if (libclang_load(error))
		return -1;
	struct buffer answer = { 0 };
	char *refused = NULL;
	if (!bounded_run_one(size_work, &request, job->roots, &answer, &refused)) {
		error_set(error, job->path, 0, "%s", refused);
		free(refused);
		return -1;
	}
	const char *at = answer.data ? answer.data : "";
	for (size_t i = 0; i < count; i++) {
		char *end;
		bytes[i] = strtoll(at, &end, 10);
		if (end == at || *end != '\n') {
			buffer_free(&answer);
			return error_internal(error, job->path, 0, "libclang's process answered something unreadable");
		}
		at = end + 1;
	}
	buffer_free(&answer);
	return 0;
}
