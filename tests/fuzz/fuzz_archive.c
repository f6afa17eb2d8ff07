/*
 * libFuzzer target for whole snapshots: the input is taken as a snapshot
 * file (tar, compressed tar, or garbage) and read through snapshot_read,
 * libarchive and the builder; an accepted snapshot goes through the model
 * and every report format (fuzz_common.h).
 *
 *   make fuzz; build-fuzz/fuzz_archive -max_total_time=60 CORPUS_DIR
 */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path);
	if (fd < 0)
		return 0;
	struct snapshot *snapshot;
	struct error error;
	struct read_options options = { .skip_bad = size & 1 };
	if (snapshot_read(path, &options, &snapshot, &error) == 0) {
		fuzz_model_and_report(snapshot);
		snapshot_free(snapshot);
	}
	close(fd);
	return 0;
}
