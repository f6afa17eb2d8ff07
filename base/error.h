/*
 * base/error.h - the one error type and the one exit-status rule.
 *
 * A library function that can fail returns 0, or -1 with a struct error
 * filled; the command that called it prints the error once and returns the
 * status (docs/architecture.md "Errors and exit status").  Nothing below a
 * command prints errors or exits, except base/alloc.h's out of memory.
 */
#ifndef PTSCOPE_BASE_ERROR_H
#define PTSCOPE_BASE_ERROR_H

#include <stdarg.h>

/* The process exit status, the same for every command. */
enum exit_status {
	STATUS_OK = 0,
	STATUS_BAD_INPUT = 1,   /* bad input or usage: the user can fix it */
	STATUS_INTERNAL = 2,    /* internal or output failure, out of memory included */
};

struct error {
	char file[512];         /* what the problem is in: "PATH" or "PATH: MEMBER"; "" if none */
	unsigned long line;     /* 1-based line in it; 0 when not about a line */
	/* What the command exits with: error_set makes it STATUS_BAD_INPUT,
	 * error_internal / error_mark_internal STATUS_INTERNAL (an output or
	 * internal failure the user's input did not cause). */
	enum exit_status status;
	/* The whole text, "FILE:LINE: problem" ("FILE: problem" without a
	 * line, "problem" without a file), ready to print after "ptscope: ". */
	char message[1024];
};

/* Fill error (file may be NULL; line 0 = none); returns -1 so that
 * `return error_set(...)` reports the failure. */
int error_set(struct error *error, const char *file, unsigned long line, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
int error_setv(struct error *error, const char *file, unsigned long line, const char *format,
	       va_list args);
/* Mark an error already filled (by a callee) as internal; returns -1. */
int error_mark_internal(struct error *error);
/* error_set with status STATUS_INTERNAL; -1. */
#define error_internal(error, ...) (error_set((error), __VA_ARGS__), error_mark_internal(error))
/* "FILE: strerror(errnum)" with an optional action: "FILE: cannot write: No space ...".
 * Status STATUS_BAD_INPUT (a file the user named cannot be read). */
int error_from_errno(struct error *error, const char *file, const char *action, int errnum);
/* Print "ptscope: MESSAGE" on stderr. */
void error_print(const struct error *error);

#endif
