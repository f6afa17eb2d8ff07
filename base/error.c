/*
 * base/error.c - filling and printing the one error type (base/error.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"

int error_setv(struct error *error, const char *file, unsigned long line, const char *format,
	       va_list args)
{
	size_t size = sizeof(error->message);
	snprintf(error->file, sizeof(error->file), "%s", file ? file : "");
	error->line = line;
	error->status = STATUS_BAD_INPUT;
	int prefix = 0;
	if (error->file[0] && line)
		prefix = snprintf(error->message, size, "%s:%lu: ", error->file, line);
	else if (error->file[0])
		prefix = snprintf(error->message, size, "%s: ", error->file);
	size_t used = prefix < 0 ? 0 : (size_t)prefix < size ? (size_t)prefix : size - 1;
	vsnprintf(error->message + used, size - used, format, args);
	return -1;
}

int error_set(struct error *error, const char *file, unsigned long line, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	error_setv(error, file, line, format, args);
	va_end(args);
	return -1;
}

int error_mark_internal(struct error *error)
{
	error->status = STATUS_INTERNAL;
	return -1;
}

int error_from_errno(struct error *error, const char *file, const char *action, int errnum)
{
	if (action)
		return error_set(error, file, 0, "%s: %s", action, strerror(errnum));
	return error_set(error, file, 0, "%s", strerror(errnum));
}

void error_print(const struct error *error)
{
	fprintf(stderr, "ptscope: %s\n", error->message);
}
