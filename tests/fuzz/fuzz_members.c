/*
 * libFuzzer target for the snapshot readers' parsers: the first byte picks
 * a member, the rest is its content, handed to a builder as a container
 * would, around a small valid snapshot; an accepted snapshot goes through
 * the model and every report format (fuzz_common.h).
 *
 *   make fuzz            builds build-fuzz/fuzz_* (clang, libFuzzer, ASan, UBSan)
 *   build-fuzz/fuzz_members -max_total_time=60 tests/fixtures/proc
 */
#include "inputs/internal.h"
#include "tests/fuzz/fuzz_common.h"

static const char *const members[] = {
	"1/smaps", "1/status", "1/stat", "1/cmdline", "1/pagemap", "kpages", "meminfo",
	"snapshot.info", "version",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char stat[] = "1 (fuzz) S 0 1 1 0 -1\n";
	static const char smaps[] = "00400000-00402000 r-xp 00000000 08:01 7 /bin/x\nSize: 8 kB\nRss: 4 kB\n";
	static const uint64_t pagemap[2] = { 0x400000, (UINT64_C(1) << 63) | 5 };
	static const uint64_t kpages[3] = { 5, 1, 0 };
	/* a small valid snapshot around the fuzzed member, so the cross-member checks run too */
	static const struct { const char *name; const void *data; size_t size; } context[] = {
		{ "version", "Linux\n", 6 }, { "meminfo", "MemTotal: 1024 kB\n", 18 },
		{ "1/stat", stat, sizeof(stat) - 1 }, { "1/smaps", smaps, sizeof(smaps) - 1 },
		{ "1/pagemap", pagemap, sizeof(pagemap) }, { "kpages", kpages, sizeof(kpages) },
	};
	struct error error;
	struct snapshot *snapshot;
	if (size == 0)
		return 0;
	const char *member = members[data[0] % (sizeof(members) / sizeof(members[0]))];
	struct read_options options = { .skip_bad = data[0] & 0x80 };
	struct snapshot_builder *builder = builder_create("fuzz", &options);
	int status = builder_add_member(builder, member, data + 1, size - 1, &error);
	for (size_t i = 0; status == 0 && i < sizeof(context) / sizeof(context[0]); i++)
		if (strcmp(context[i].name, member))
			status = builder_add_member(builder, context[i].name, context[i].data, context[i].size, &error);
	if (status) {
		builder_abort(builder);
		return 0;
	}
	if (builder_finish(builder, &snapshot, &error) == 0) { /* frees the builder either way */
		fuzz_model_and_report(snapshot);
		snapshot_free(snapshot);
	}
	return 0;
}
