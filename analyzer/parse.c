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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "analyzer/libclang.h"

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
};

static char *cursor_usr(CXCursor cursor)
{
	CXString usr = clang_getCursorUSR(cursor);
	char *text = xstrdup(clang_getCString(usr));
	clang_disposeString(usr);
	return text;
}

/* File and line where the cursor appears after macro expansion. */
static bool cursor_place(CXCursor cursor, char **file_name, unsigned *line)
{
	CXFile file = NULL;
	clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, line, NULL, NULL);
	if (!file)
		return false;
	if (file_name) {
		/* the real path: headers reached through the shim's asm symlink
		 * are named by where they are in the tree */
		CXString name = clang_File_tryGetRealPathName(file);
		if (!clang_getCString(name) || !clang_getCString(name)[0]) {
			clang_disposeString(name);
			name = clang_getFileName(file);
		}
		*file_name = xstrdup(clang_getCString(name));
		clang_disposeString(name);
	}
	return true;
}

static bool in_main_file(CXCursor cursor)
{
	return clang_Location_isFromMainFile(clang_getCursorLocation(cursor));
}

/*
 * The function index for a function declaration or definition, adding it
 * on first sight.  A later sight of the definition upgrades the entry.
 * CG_NONE for builtins (no file).
 */
static uint32_t function_index(struct walker *walker, CXCursor cursor)
{
	CXCursor definition = clang_getCursorDefinition(cursor);
	bool defined = !clang_Cursor_isNull(definition);
	if (defined)
		cursor = definition;
	char *file = NULL;
	unsigned line = 0;
	if (!cursor_place(cursor, &file, &line))
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
	if (walker->current == CG_NONE || !cursor_place(call, NULL, &line))
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
	struct cg_strings seen;
};

static void inclusion_visitor(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	(void)stack, (void)depth;
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
		if (cg_intern(&walk->seen, path) == before)
			tu_add_input(walk->facts, path);
		free(path);
	}
	clang_disposeString(name);
}

/* Every file of libclang's inclusion list, with its size and mtime now. */
static void record_inputs(struct tu_facts *facts, CXTranslationUnit unit, const struct tu_job *job)
{
	struct inclusion_walk walk = { .facts = facts, .directory = job->directory };
	clang_getInclusions(unit, inclusion_visitor, &walk);
	cg_strings_free(&walk.seen);
}

/* libclang's own version ("Debian clang version 14.0.6"): facts from
 * another libclang may differ, so it is part of every cache key. */
char *parse_libclang_version(void)
{
	if (libclang_load(NULL, 0))
		return xstrdup("unknown");
	CXString version = clang_getClangVersion();
	char *text = xstrdup(clang_getCString(version) ? clang_getCString(version) : "unknown");
	clang_disposeString(version);
	return text;
}

void *parse_index_create(void)
{
	return libclang_load(NULL, 0) ? NULL : clang_createIndex(0, 0);
}

void parse_index_dispose(void *index)
{
	clang_disposeIndex(index);
}

void parse_unit(void *index, struct tu_job *job)
{
	struct tu_facts *facts = &job->facts;
	CXTranslationUnit unit = NULL;
	enum CXErrorCode code = clang_parseTranslationUnit2(index, job->path,
		(const char *const *)job->arguments.items, (int)job->arguments.count,
		NULL, 0, CXTranslationUnit_KeepGoing, &unit);
	if (code != CXError_Success || !unit) {
		facts->failed = true;
		facts->errors++;
		if (!facts->first_error)
			facts->first_error = xasprintf("%s: libclang could not parse (error %d)",
						       job->path, (int)code);
		return;
	}
	record_diagnostics(facts, unit);
	record_inputs(facts, unit, job);
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
	clang_disposeTranslationUnit(unit);
}

/* --- kbuild's generated constants ----------------------------------------- */

struct constants {
	char **lines;               /* the file's lines: DEFINE is a macro, so
				       the symbol is read from the source line */
	size_t line_count;
	struct buffer *out;
	size_t count;
};

/* DEFINE(NAME, value) in kernel/bounds.c is an asm statement whose operand
 * is the value: the source line names the symbol, clang evaluates the operand. */
static enum CXChildVisitResult constant_visitor(CXCursor cursor, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct constants *constants = data;
	if (clang_getCursorKind(cursor) != CXCursor_AsmStmt)
		return CXChildVisit_Recurse;
	unsigned line = 0;
	struct children children = children_of(cursor);
	char name[128];
	if (!cursor_place(cursor, NULL, &line) || line == 0 || line > constants->line_count ||
	    children.count != 1 || !strstr(constants->lines[line - 1], "DEFINE(") ||
	    sscanf(strstr(constants->lines[line - 1], "DEFINE(") + 7, " %127[A-Za-z0-9_]", name) != 1)
		return CXChildVisit_Continue;
	CXEvalResult result = clang_Cursor_Evaluate(children.items[0]);
	if (result && clang_EvalResult_getKind(result) == CXEval_Int) {
		buffer_printf(constants->out, "#define %s %lld\n", name,
				 clang_EvalResult_getAsLongLong(result));
		constants->count++;
	}
	if (result)
		clang_EvalResult_dispose(result);
	return CXChildVisit_Continue;
}

size_t parse_constants(const char *path, const struct cg_list *arguments, struct buffer *out)
{
	char *text;
	size_t size;
	if (libclang_load(NULL, 0) || !cg_read_file(path, &text, &size))
		return 0;
	struct constants constants = { .out = out };
	size_t capacity = 0;
	for (char *line = text; line; ) {
		array_reserve(&constants.lines, &capacity, constants.line_count + 1, sizeof(char *));
		constants.lines[constants.line_count++] = line;
		line = strchr(line, '\n');
		if (line)
			*line++ = '\0';
	}
	CXIndex index = clang_createIndex(0, 0);
	CXTranslationUnit unit = NULL;
	if (clang_parseTranslationUnit2(index, path, (const char *const *)arguments->items,
					(int)arguments->count, NULL, 0, CXTranslationUnit_KeepGoing,
					&unit) == CXError_Success && unit) {
		clang_visitChildren(clang_getTranslationUnitCursor(unit), constant_visitor, &constants);
		clang_disposeTranslationUnit(unit);
	}
	clang_disposeIndex(index);
	free(constants.lines);
	free(text);
	return constants.count;
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

int parse_struct_sizes(const struct tu_job *job, const char *const *names, size_t count,
		       long long *bytes, char *err, size_t err_size)
{
	struct size_query query = { names, count, bytes };
	for (size_t i = 0; i < count; i++)
		bytes[i] = -1;
	if (libclang_load(err, err_size))
		return 2;
	CXIndex index = clang_createIndex(0, 0);
	CXTranslationUnit unit = NULL;
	/* sizes need the declarations only: function bodies are skipped */
	if (clang_parseTranslationUnit2(index, job->path, (const char *const *)job->arguments.items,
					(int)job->arguments.count, NULL, 0,
					CXTranslationUnit_KeepGoing | CXTranslationUnit_SkipFunctionBodies,
					&unit) != CXError_Success || !unit) {
		snprintf(err, err_size, "%s: libclang could not parse it", job->path);
		clang_disposeIndex(index);
		return 1;
	}
	clang_visitChildren(clang_getTranslationUnitCursor(unit), size_visitor, &query);
	clang_disposeTranslationUnit(unit);
	clang_disposeIndex(index);
	return 0;
}
