/*
 * analyzer/libclang.c - dlopen a libclang and fill the function table.
 *
 * Any libclang from 14 to 19 will do: the C API ptscope uses is in all of
 * them (Debian 12 ships 14, 16 and 19; newer distributions drop 14).  The
 * newest installed is taken unless one is asked for, by --libclang or by
 * PTSCOPE_LIBCLANG: a version ("16") or a library file or name
 * ("/usr/lib/llvm-16/lib/libclang.so.1").  The per-file cache is keyed by
 * the loaded library's version string (analyzer/run.c), so facts of two
 * versions never mix.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/libclang.h"

struct libclang libclang;

enum { OLDEST = 14, NEWEST = 19 };

/* Debian's libclang1-N names its library libclang-N.so.1 (14 also .so.13);
 * libclang-N-dev adds the unversioned libclang-N.so. */
static const char *const name_patterns[] = { "libclang-%d.so.1", "libclang-%d.so.%d", "libclang-%d.so" };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static char requested[256];
static char loaded[256];

void libclang_prefer(const char *which)
{
	if (which && *which)
		snprintf(requested, sizeof(requested), "%s", which);
}

const char *libclang_loaded(void)
{
	return loaded;
}

static bool all_digits(const char *text)
{
	if (!*text)
		return false;
	for (; *text; text++)
		if (!isdigit((unsigned char)*text))
			return false;
	return true;
}

/* libclang of version N under any of its names; NULL if none loads. */
static void *open_version(int version)
{
	char name[64];
	for (size_t i = 0; i < sizeof(name_patterns) / sizeof(name_patterns[0]); i++) {
		snprintf(name, sizeof(name), name_patterns[i], version, version == 14 ? 13 : version);
		void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
		if (handle) {
			snprintf(loaded, sizeof(loaded), "%s", name);
			return handle;
		}
	}
	return NULL;
}

static void *open_requested(const char *which, const char *from)
{
	if (all_digits(which)) {
		int version = atoi(which);
		void *handle = version >= OLDEST && version <= NEWEST ? open_version(version) : NULL;
		if (!handle)
			snprintf(load_error, sizeof(load_error), "%s %s: %s", from, which,
				 version >= OLDEST && version <= NEWEST
				 ? "that libclang is not installed (Debian: libclang1-N)"
				 : "supported libclang versions are 14 to 19");
		return handle;
	}
	void *handle = dlopen(which, RTLD_NOW | RTLD_LOCAL);
	if (handle)
		snprintf(loaded, sizeof(loaded), "%s", which);
	else
		snprintf(load_error, sizeof(load_error), "%s %s: cannot load: %s", from, which, dlerror());
	return handle;
}

static void load(void)
{
	const char *environment = getenv("PTSCOPE_LIBCLANG");
	void *handle = NULL;
	if (requested[0])
		handle = open_requested(requested, "--libclang");
	else if (environment && *environment)
		handle = open_requested(environment, "PTSCOPE_LIBCLANG");
	else
		for (int version = NEWEST; !handle && version >= OLDEST; version--)
			handle = open_version(version);
	if (!handle) {
		if (!load_error[0])
			snprintf(load_error, sizeof(load_error),
				 "cannot load libclang (any of 14 to 19): install libclang1-19 or libclang-14-dev ('make deps')");
		return;
	}
#define X(name)                                                                           \
	if (!load_error[0] && !(*(void **)&libclang.name = dlsym(handle, "clang_" #name)))   \
		snprintf(load_error, sizeof(load_error), "%s has no clang_%s", loaded, #name);
	LIBCLANG_FUNCTIONS(X)
#undef X
}

int libclang_load(struct error *error)
{
	pthread_once(&load_once, load);
	if (!load_error[0])
		return 0;
	/* a missing library is the installation's failure, not the input's */
	return error ? error_internal(error, NULL, 0, "%s", load_error) : -1;
}
