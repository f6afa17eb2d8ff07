/*
 * libFuzzer target for workload profiles as text (inputs/perf_samples.c):
 * perf report --stdio, opreport -l and readprofile output; and the same
 * bytes as posted timings (inputs/timings.c: time, lmbench, perf stat,
 * kernbench), which bench --compare reads, each measure pooled as it
 * prints them (timing_summary).
 *
 *   make fuzz; build-fuzz/fuzz_profile_text -max_total_time=60 CORPUS_DIR
 */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path);
	if (fd < 0)
		return 0;
	struct perf_samples samples = { 0 };
	struct error error;
	if (perf_samples_read(path, &samples, &error) == 0)
		perf_samples_free(&samples);
	/* whole, and as the row 2.5.62 of its tables of kernels */
	for (int named = 0; named < 2; named++) {
		struct timing_set timings;
		if (timing_read_text("posted.txt", (const char *)data, size, named ? "2.5.62" : NULL, &timings, &error))
			continue;
		for (size_t i = 0; i < timings.measure_count; i++) {
			struct timing_summary summary;
			timing_summary(&timings.measures[i], &summary);
			if (summary.runs == 0)   /* a measure has a value, so at least one run */
				__builtin_trap();
		}
		timing_set_free(&timings);
	}
	close(fd);
	return 0;
}
