/*
 * libFuzzer target for compile_commands.json (analyzer/sources.c): the input
 * is read as a compilation database and turned into the analyzer's plan
 * (files, directories, arguments with gcc-only flags dropped).
 *
 *   make fuzz; build-fuzz/fuzz_compile_commands -max_total_time=60 CORPUS_DIR
 */
#include "analyzer/analyzer.h"
#include "analyzer/internal.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct error error;
	int fd = fuzz_file(data, size, path);
	if (fd < 0)
		return 0;
	struct analyzer_options options = { .source = path };
	struct source_plan plan;
	sources_plan(&options, NULL, &plan, &error);
	sources_free(&plan);
	close(fd);
	return 0;
}
