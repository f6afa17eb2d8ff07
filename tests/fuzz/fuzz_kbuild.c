/*
 * libFuzzer target for the analyzer's readers of a kernel tree's build files:
 * the first byte picks a kernel .config (kconfig_read, also undoing any
 * built-in compression) or a kbuild Makefile (kbuild_load, kbuild_get,
 * kbuild_objects under a small configuration); the rest is the file.
 *
 *   make fuzz; build-fuzz/fuzz_kbuild -max_total_time=60 CORPUS_DIR
 */
#include "analyzer/internal.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct error error;
	if (size == 0)
		return 0;
	int fd = fuzz_file(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	struct kconfig config = { 0 };
	if (data[0] & 1) {
		if (kconfig_read(path, &config, &error) == 0) {
			struct buffer header = { 0 };
			kconfig_header(&config, &header);
			buffer_free(&header);
		}
	} else {
		kconfig_set(&config, "CONFIG_MMU", "y");
		kconfig_set(&config, "CONFIG_SWAP", "m");
		static const char *const presets[] = { "srctree=.", "ARCH=x86", NULL };
		struct kbuild *kbuild = kbuild_load(path, &config, presets);
		free(kbuild_get(kbuild, "obj-y"));
		free(kbuild_get(kbuild, "SUBARCH"));
		kbuild_free(kbuild);
		struct cg_list objects = { 0 };
		kbuild_objects(path, &config, &objects);
		cg_list_free(&objects);
	}
	kconfig_free(&config);
	close(fd);
	return 0;
}
