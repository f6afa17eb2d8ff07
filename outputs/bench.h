/*
 * outputs/bench.h - what `ptscope bench` prints: the measured latencies of
 * the running kernel (inputs/latency.c) as text for people or as JSON.
 */
#ifndef PTSCOPE_OUTPUTS_BENCH_H
#define PTSCOPE_OUTPUTS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "inputs/snapshot.h"

enum bench_format { BENCH_TEXT, BENCH_JSON };

struct bench_run {
	struct latency_machine machine;
	size_t runs, warmup;
	const char *image;              /* what was forked: "ptscope itself" */
	struct latency_result results[LATENCY_KIND_COUNT];
	size_t result_count;
};

/* "text" / "json" -> format; -1 when unknown. */
int bench_format_parse(const char *name, enum bench_format *format);
/* 0, or -1 with errno set by the failing write. */
int bench_write(FILE *out, const struct bench_run *run, enum bench_format format);

#endif
