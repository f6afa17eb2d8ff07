/*
 * outputs/bench_run.h - `ptscope bench` from its options to what its
 * writer takes.  The command (builtin/cmd_bench.c) parses and refuses; these
 * time, count, predict and compare; bench_write or bench_write_comparison
 * (bench.h) writes.
 */
#ifndef PTSCOPE_OUTPUTS_BENCH_RUN_H
#define PTSCOPE_OUTPUTS_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "outputs/bench.h"

/* What `bench` times on this kernel. */
struct bench_job {
	size_t runs;                            /* timed runs of each measurement */
	int cpu;                                /* -1: the lowest this process may use */
	bool selected[LATENCY_KIND_COUNT];      /* the measurements, without --like */
	bool hugetlb;                           /* `bench hugetlb` too */
	const char *like;                       /* --like SNAPSHOT[:PID]: fork alone, in that layout */
	const struct calibration *calibration;  /* --calibration: the fork priced beside, or NULL */
	const char *calibration_path;
};
/* Pinned, warmed up, timed; the fork counted by tracepoints and predicted
 * by the model.  RUN is filled; 0, or -1 with error set. */
int bench_time(const struct bench_job *job, struct bench_run *run, struct error *error);

/* "SNAPSHOT:PID" (the last colon followed by digits only) or "SNAPSHOT". */
void bench_split_like(const char *argument, char *path, size_t size, int *pid);

/* --compare --model: every process of P->snapshot forking once under each
 * of P's COUNT ids, at P->calibration's costs.  0, or -1 with error set. */
int bench_predict_change(struct compare_prediction *p, size_t count, struct error *error);

/* --compare: COUNT (2 or 3) posted timing files read into SETS (the caller
 * frees them, and the comparison) and compared.  0, or -1 with error set
 * (also when they share no measure). */
int bench_compare(int count, char **paths, struct timing_set *sets, struct timing_comparison *comparison,
		  struct error *error);

#endif
