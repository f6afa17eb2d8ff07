/*
 * inputs/live.c - read_live: the live /proc read through the capture's walk
 * (inputs/capture.c), every member handed to the one snapshot builder that
 * every container feeds.  Apart from capture.c so that ptscope-capture,
 * which writes a tar, links neither the builder nor the parsers.
 */
#include "internal.h"

static int add_to_builder(void *builder, const char *name, const void *bytes, size_t size, struct error *error)
{
	return builder_add_member(builder, name, bytes, size, error);
}

int read_live(const char *proc_root, struct snapshot_builder *builder, struct error *error)
{
	return capture_to_sink(proc_root, add_to_builder, builder, error);
}
