/*
 * analyzer/libclang.h - libclang, loaded when the analyzer first needs it.
 *
 * Linking libclang pulls libLLVM (100 MB) into every ptscope command: 0.1 s
 * and 60 MB before `report` or `info` could read a byte.  Only the analyzer
 * needs it, so it is opened with dlopen on first use; the calls below keep
 * their libclang names and go through one table of function pointers.
 * Include this instead of <clang-c/Index.h>.
 */
#ifndef PTSCOPE_ANALYZER_LIBCLANG_H
#define PTSCOPE_ANALYZER_LIBCLANG_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "base/error.h"

#define LIBCLANG_FUNCTIONS(X) \
	X(Cursor_Evaluate) \
	X(Cursor_isNull) \
	X(EvalResult_dispose) \
	X(EvalResult_getAsLongLong) \
	X(EvalResult_getKind) \
	X(File_tryGetRealPathName) \
	X(Location_isFromMainFile) \
	X(Type_getSizeOf) \
	X(Type_visitFields) \
	X(createIndex) \
	X(disposeDiagnostic) \
	X(disposeIndex) \
	X(disposeString) \
	X(disposeTokens) \
	X(disposeTranslationUnit) \
	X(equalCursors) \
	X(equalLocations) \
	X(formatDiagnostic) \
	X(getCString) \
	X(getClangVersion) \
	X(getCanonicalType) \
	X(getCursorDefinition) \
	X(getCursorExtent) \
	X(getCursorKind) \
	X(getCursorLocation) \
	X(getCursorReferenced) \
	X(getCursorSpelling) \
	X(getCursorType) \
	X(getCursorUSR) \
	X(getDiagnostic) \
	X(getDiagnosticLocation) \
	X(getDiagnosticSpelling) \
	X(getDiagnosticSeverity) \
	X(getExpansionLocation) \
	X(getFileName) \
	X(getInclusions) \
	X(getNullCursor) \
	X(getNumDiagnostics) \
	X(getRangeStart) \
	X(getTokenKind) \
	X(getTokenSpelling) \
	X(getTranslationUnitCursor) \
	X(isCursorDefinition) \
	X(isFileMultipleIncludeGuarded) \
	X(parseTranslationUnit2) \
	X(saveTranslationUnit) \
	X(tokenize) \
	X(visitChildren)

struct libclang {
#define X(name) __typeof__(clang_##name) *name;
	LIBCLANG_FUNCTIONS(X)
#undef X
};
extern struct libclang libclang;

/* Open libclang once (thread-safe); 0, or -1 with error set (internal;
 * error may be NULL). */
int libclang_load(struct error *error);
/* Before the first load: a version ("16") or library file to open instead of
 * the newest installed (--libclang; PTSCOPE_LIBCLANG is read at load). */
void libclang_prefer(const char *which);
/* The library name that was opened ("libclang-19.so.1"); "" before. */
const char *libclang_loaded(void);

#define clang_Cursor_Evaluate (libclang.Cursor_Evaluate)
#define clang_Cursor_isNull (libclang.Cursor_isNull)
#define clang_EvalResult_dispose (libclang.EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (libclang.EvalResult_getAsLongLong)
#define clang_EvalResult_getKind (libclang.EvalResult_getKind)
#define clang_File_tryGetRealPathName (libclang.File_tryGetRealPathName)
#define clang_Location_isFromMainFile (libclang.Location_isFromMainFile)
#define clang_Type_getSizeOf (libclang.Type_getSizeOf)
#define clang_Type_visitFields (libclang.Type_visitFields)
#define clang_createIndex (libclang.createIndex)
#define clang_disposeDiagnostic (libclang.disposeDiagnostic)
#define clang_disposeIndex (libclang.disposeIndex)
#define clang_disposeString (libclang.disposeString)
#define clang_disposeTokens (libclang.disposeTokens)
#define clang_disposeTranslationUnit (libclang.disposeTranslationUnit)
#define clang_equalCursors (libclang.equalCursors)
#define clang_equalLocations (libclang.equalLocations)
#define clang_formatDiagnostic (libclang.formatDiagnostic)
#define clang_getCString (libclang.getCString)
#define clang_getClangVersion (libclang.getClangVersion)
#define clang_getCanonicalType (libclang.getCanonicalType)
#define clang_getCursorDefinition (libclang.getCursorDefinition)
#define clang_getCursorExtent (libclang.getCursorExtent)
#define clang_getCursorKind (libclang.getCursorKind)
#define clang_getCursorLocation (libclang.getCursorLocation)
#define clang_getCursorReferenced (libclang.getCursorReferenced)
#define clang_getCursorSpelling (libclang.getCursorSpelling)
#define clang_getCursorType (libclang.getCursorType)
#define clang_getCursorUSR (libclang.getCursorUSR)
#define clang_getDiagnostic (libclang.getDiagnostic)
#define clang_getDiagnosticLocation (libclang.getDiagnosticLocation)
#define clang_getDiagnosticSeverity (libclang.getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (libclang.getDiagnosticSpelling)
#define clang_getExpansionLocation (libclang.getExpansionLocation)
#define clang_getFileName (libclang.getFileName)
#define clang_getInclusions (libclang.getInclusions)
#define clang_getNullCursor (libclang.getNullCursor)
#define clang_getNumDiagnostics (libclang.getNumDiagnostics)
#define clang_getRangeStart (libclang.getRangeStart)
#define clang_getTokenKind (libclang.getTokenKind)
#define clang_getTokenSpelling (libclang.getTokenSpelling)
#define clang_getTranslationUnitCursor (libclang.getTranslationUnitCursor)
#define clang_isCursorDefinition (libclang.isCursorDefinition)
#define clang_isFileMultipleIncludeGuarded (libclang.isFileMultipleIncludeGuarded)
#define clang_parseTranslationUnit2 (libclang.parseTranslationUnit2)
#define clang_saveTranslationUnit (libclang.saveTranslationUnit)
#define clang_tokenize (libclang.tokenize)
#define clang_visitChildren (libclang.visitChildren)

#endif
