/*
 * base/alloc.h - the one allocation rule: allocate or end the run.
 *
 * Out of memory is an internal failure (status 2, docs/architecture.md
 * "Exit status"): every folder allocates through these, so no caller carries
 * a NULL check it cannot act on, and no "bad input" status hides a full
 * memory.  The same rule as git's xmalloc and Redis's zmalloc.
 */
#ifndef PTSCOPE_BASE_ALLOC_H
#define PTSCOPE_BASE_ALLOC_H

#include <stddef.h>

/* Print "ptscope: out of memory" and exit with status 2. */
_Noreturn void out_of_memory(void);

void *xmalloc(size_t bytes);
void *xcalloc(size_t count, size_t bytes);
/* count * bytes, refused (out of memory) when the product wraps. */
void *xreallocarray(void *pointer, size_t count, size_t bytes);
void *xrealloc(void *pointer, size_t bytes);
char *xstrdup(const char *text);
char *xstrndup(const char *text, size_t length);
/* A freshly allocated printf result. */
char *xasprintf(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* free() each of `count` pointers (NULL ones too, as free does). */
void free_each(void *const *pointers, size_t count);
/* FREE_ALL(s->a, s->b, s->c): free every (non-const) pointer named. */
#define FREE_ALL(...) \
	free_each((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
