/*
 * libFuzzer target for compile_commands.json (analyzer/sources.c): the input
 * is read as a compilation database and turned into the analyzer's plan
 * (files, directories, arguments through the flag allowlist).  Besides any
 * crash, a plan whose arguments break the allowlist's promise is a bug
 * (abort()): every argument is a macro, a plain code-generation or warning
 * word with no path in it, or an include folder or file that resolves
 * inside the tree, the cache or the system headers; nothing that asks
 * libclang to write (-M..., -H, -X..., -o) ever passes.  Seeds carry the
 * hostile flags (tests/fuzz/run.sh).
 *
 *   make fuzz; build-fuzz/fuzz_compile_commands -max_total_time=60 CORPUS_DIR
 */
#include <limits.h>

#include "analyzer/analyzer.h"
#include "analyzer/internal.h"
#include "tests/fuzz/fuzz_common.h"

static bool under(const char *path, const char *folder)
{
	size_t n = strlen(folder);
	return !strncmp(path, folder, n) && (path[n] == '/' || path[n] == '\0' || folder[n - 1] == '-');
}

/* An include path: absolute, already resolved, inside the tree or the system headers. */
static void check_path(const char *root, const char *path)
{
	static const char *const system[] = {
		"/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib/clang", "/usr/lib/llvm-",
	};
	char resolved[PATH_MAX];
	if (path[0] != '/' || !realpath(path, resolved) || strcmp(resolved, path))
		abort();
	if (strcmp(root, "/") && under(path, root))
		return;
	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (under(path, system[i]))
			return;
	abort();
}

static void check_arguments(const char *root, const struct cg_list *arguments)
{
	static const char *const paths[] = { "-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros" };
	static const char *const words[] = { "-D", "-U", "-std=", "--target=", "-f", "-m", "-O", "-W", "-w",
					     "-nostdinc", "-ansi" };
	for (size_t i = 0; i < arguments->count; i++) {
		const char *a = arguments->items[i];
		bool path_flag = false, word_flag = false;
		for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++)
			path_flag |= !strcmp(a, paths[p]);
		if (path_flag) {
			if (i + 1 >= arguments->count)
				abort();
			check_path(root, arguments->items[++i]);
			continue;
		}
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			word_flag |= !strncmp(a, words[w], strlen(words[w]));
		if (!word_flag || !strncmp(a, "-mllvm", 6) || !strncmp(a, "-fplugin", 8) ||
		    !strncmp(a, "-ftime-trace", 12) || !strncmp(a, "-fmodule", 8) ||
		    !strncmp(a, "-fprofile", 9) || !strncmp(a, "-fcrash", 7) || !strncmp(a, "-Wl,", 4) ||
		    !strncmp(a, "-Wa,", 4) || !strncmp(a, "-Wp,", 4))
			abort();
		if (a[1] != 'D' && a[1] != 'U' && strchr(a, '/'))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct error error;
	int fd = fuzz_file(data, size, path);
	if (fd < 0)
		return 0;
	struct analyzer_options options = { .source = path };
	struct source_plan plan;
	if (sources_plan(&options, NULL, &plan, &error) == 0)
		for (size_t i = 0; i < plan.job_count; i++)
			check_arguments(plan.root, &plan.jobs[i].arguments);
	sources_free(&plan);
	close(fd);
	return 0;
}
