/*
 * libFuzzer target for whole snapshots: the input is taken as a snapshot
 * file (tar, compressed tar, or garbage) and read through snapshot_read,
 * libarchive and the builder.  Any crash, leak or undefined behaviour is a
 * bug; a refusal with a message is the expected outcome for most inputs.
 *
 *   make fuzz; build-fuzz/fuzz_archive -max_total_time=60 CORPUS_DIR
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "inputs/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("snapshot", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		struct snapshot *snapshot;
		struct input_error error;
		struct read_options options = { .skip_bad = size & 1 };
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (snapshot_read(path, &options, &snapshot, &error) == 0)
			snapshot_free(snapshot);
	}
	close(fd);
	return 0;
}
