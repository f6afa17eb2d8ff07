/*
 * base/alloc.c - allocate or exit 2 with a message (base/alloc.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"

_Noreturn void out_of_memory(void)
{
	/* write(2), not stdio: stderr may itself need memory to format */
	static const char message[] = "ptscope: out of memory\n";
	if (write(STDERR_FILENO, message, sizeof(message) - 1) < 0) {
		/* nothing else to say it with */
	}
	exit(2);
}

/* malloc(0) may return NULL; one byte keeps "NULL means failure" true. */
void *xmalloc(size_t bytes)
{
	void *pointer = malloc(bytes ? bytes : 1);
	if (!pointer)
		out_of_memory();
	return pointer;
}

void *xcalloc(size_t count, size_t bytes)
{
	void *pointer = calloc(count ? count : 1, bytes ? bytes : 1);
	if (!pointer)
		out_of_memory();
	return pointer;
}

void *xrealloc(void *pointer, size_t bytes)
{
	pointer = realloc(pointer, bytes ? bytes : 1);
	if (!pointer)
		out_of_memory();
	return pointer;
}

void *xreallocarray(void *pointer, size_t count, size_t bytes)
{
	if (bytes && count > SIZE_MAX / bytes)
		out_of_memory();
	return xrealloc(pointer, count * bytes);
}

char *xstrndup(const char *text, size_t length)
{
	char *copy = xmalloc(length + 1);
	memcpy(copy, text, length);
	copy[length] = '\0';
	return copy;
}

char *xstrdup(const char *text)
{
	return xstrndup(text, strlen(text));
}

char *xasprintf(const char *format, ...)
{
	va_list args;
	char *text = NULL;
	va_start(args, format);
	int length = vasprintf(&text, format, args);
	va_end(args);
	if (length < 0)
		out_of_memory();
	return text;
}

void free_each(void *const *pointers, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(pointers[i]);
}
