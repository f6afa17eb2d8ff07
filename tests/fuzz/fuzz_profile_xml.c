/*
 * libFuzzer target for kernel profile XML (model/profiles.c): the input is
 * one user profile file, validated against profile.xsd and loaded.
 *
 *   make fuzz; build-fuzz/fuzz_profile_xml -max_total_time=60 model/profiles
 */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_set set = { 0 };
	struct error error;
	profiles_load_buffer(&set, "fuzz.xml", (const char *)data, size, &error);
	profiles_free(&set);
	return 0;
}
