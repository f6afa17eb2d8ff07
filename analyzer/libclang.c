/*
 * analyzer/libclang.c - dlopen libclang-14 and fill the function table.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/libclang.h"

struct libclang libclang;

/* Debian's libclang-14 package names its library by the LLVM 14 ABI. */
static const char *const library_names[] = {
	"libclang-14.so.1", "libclang-14.so.13", "libclang-14.so", "libclang.so.1",
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void)
{
	void *handle = NULL;
	for (size_t i = 0; !handle && i < sizeof(library_names) / sizeof(library_names[0]); i++)
		handle = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		snprintf(load_error, sizeof(load_error),
			 "cannot load libclang-14 (%s): install libclang-14-dev ('make deps')", dlerror());
		return;
	}
#define X(name)                                                                           \
	if (!load_error[0] && !(*(void **)&libclang.name = dlsym(handle, "clang_" #name)))   \
		snprintf(load_error, sizeof(load_error), "libclang has no clang_%s", #name);
	LIBCLANG_FUNCTIONS(X)
#undef X
}

int libclang_load(char *err, size_t err_size)
{
	pthread_once(&load_once, load);
	if (!load_error[0])
		return 0;
	if (err)
		snprintf(err, err_size, "%s", load_error);
	return -1;
}
