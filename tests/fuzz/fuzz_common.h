/*
 * tests/fuzz/fuzz_common.h - shared by the libFuzzer targets: the input as a
 * file (the readers take paths), and the model and every report format run
 * over a snapshot that was accepted, so that what a parser lets through is
 * exercised too.  Any crash, leak or undefined behaviour is a bug, and so is
 * a NaN or Infinity in the JSON (abort()).
 */
#ifndef PTSCOPE_FUZZ_COMMON_H
#define PTSCOPE_FUZZ_COMMON_H

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes in a memfd; path gets "/proc/self/fd/N".  The fd, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/* Abort on a number JSON has no way to say (json-c's tokener reads NaN and
 * Infinity, so the tree is walked). */
static inline void fuzz_finite_json(struct json_object *value)
{
	switch (json_object_get_type(value)) {
	case json_type_double:
		if (!isfinite(json_object_get_double(value)))
			abort();
		break;
	case json_type_object: {
		json_object_object_foreach(value, key, child) {
			(void)key;
			fuzz_finite_json(child);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(value); i++)
			fuzz_finite_json(json_object_array_get_idx(value, i));
		break;
	default:
		break;
	}
}

/* Model and report an accepted snapshot in every format. */
static inline void fuzz_model_and_report(const struct snapshot *snapshot)
{
	static struct profile_set profiles;
	static int loaded;
	struct error error;
	if (!loaded) {
		if (profiles_load_builtin(&profiles, &error))
			abort();
		loaded = 1;
	}
	struct model_options options = { .profiles = &profiles };
	struct model_result *result;
	if (model_run(snapshot, &options, &result, &error))
		return;
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_JSON, REPORT_XML, REPORT_CSV, REPORT_HTML };
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		char *text = NULL;
		size_t length = 0;
		FILE *out = open_memstream(&text, &length);
		struct report_options report = { .format = formats[f], .per_process = true, .per_file = true };
		if (!out)
			abort();
		report_write(out, result, &report);
		fclose(out);
		if (formats[f] == REPORT_JSON) {
			struct json_object *tree = json_tokener_parse(text ? text : "");
			if (!tree)
				abort();        /* the JSON writer wrote something that is not JSON */
			fuzz_finite_json(tree);
			json_object_put(tree);
		}
		free(text);
	}
	model_free(result);
}

#endif
