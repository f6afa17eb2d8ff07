/*
 * outputs/bench.h - what `ptscope bench` prints: the measured latencies of
 * the running kernel (inputs/latency.c) as text for people or as JSON.
 */
#ifndef PTSCOPE_OUTPUTS_BENCH_H
#define PTSCOPE_OUTPUTS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "inputs/snapshot.h"
#include "model/model.h"

enum bench_format { BENCH_TEXT, BENCH_JSON };

/* One fork + exit counted by tracepoints, with the model's prediction for
 * a capture of the same process taken just before. */
struct bench_work {
	bool counted;                   /* false: why_not_counted */
	char why_not_counted[300];
	uint64_t counts[TRACE_COUNTER_COUNT];
	bool merged[TRACE_COUNTER_COUNT];
	bool predicted;                 /* false: why_not_predicted */
	char why_not_predicted[1100];
	char design[64];
	struct fork_events model;
	size_t vmas_captured, vmas_at_fork;   /* the layout the model saw, and the one forked */
};

/* --like: the captured process rebuilt in the forked one, and how much of
 * it a capture of that process found again. */
enum { BENCH_MOST_OTHERS = 32 };
struct bench_like {
	char source[1024];              /* the snapshot */
	int pid;
	char comm[64];
	size_t vmas, skipped;           /* VMAs to rebuild; the kernel's own, not rebuilt */
	size_t vmas_found;              /* found again: a VMA at the place it was mapped, its size */
	uint64_t pages, pages_found;    /* present pages to touch; present there again */
	size_t other_vmas;              /* the forked process's own (ptscope-subject's, or ptscope's) */
	char subject[4096];             /* ptscope-subject's path; "" when a child of ptscope was forked */
	/* the other VMAs, by name ("[anon]" for none), each with its count */
	struct { char name[128]; size_t count; } others[BENCH_MOST_OTHERS];
	size_t other_names;
};
/* What a capture of the subject (AGAIN, its one process) shows of the
 * layout: VMAs at their place and size, present pages, and the rest. */
void bench_like_found(const struct snapshot *again, const struct layout *layout, struct bench_like *like);

/* Every process of a snapshot forking once and its child exiting, priced
 * at a calibration's costs (outputs/report_time.c) under ID: a design's id
 * (its counted steps at today's costs) or a sharing rule's (today's design
 * with that rule).  -1 when ID names neither (or the snapshot has no design). */
struct time_prediction {
	char what[160];
	double us[3], error_us[3];       /* whole, fork, exit: enum calibration_part */
	uint64_t pte_chains_not_priced;
};
struct bench_run {
	struct latency_machine machine;
	size_t runs, warmup;
	const char *image;              /* what was forked: "ptscope itself" */
	struct latency_result results[LATENCY_KIND_COUNT];
	size_t result_count;
	bool has_like;
	struct bench_like like;
	bool has_work;                  /* fork was measured: work holds its kernel work */
	struct bench_work work;
	bool has_hugetlb;               /* `bench hugetlb`: measured or skipped */
	struct hugetlb_result hugetlb;
	bool has_price;                 /* --like --calibration: the fork priced, beside */
	char calibration_path[1024];
	struct time_prediction price;
};

/*
 * bench --compare BEFORE AFTER [BASE]: one measure's change as the kernel
 * list printed it.  BEFORE is the kernel as it was (with rmap), AFTER the
 * patched one, BASE the kernel without the feature (no rmap):
 *   win % = (before - after) / before x 100 of the means;
 *   overhead ratio = (after - base) / (before - base): what is left of the
 *   feature's overhead (0.70 = 30 % of it removed); after / base beside it.
 */
struct timing_change {
	const char *name, *unit;
	struct timing_summary before, after, base;
	bool has_base;
	double win_percent;
	bool has_ratio;                 /* before != base */
	double overhead_ratio, after_over_base;
};
struct timing_comparison {
	const char *paths[3];           /* BEFORE, AFTER, BASE (NULL when two) */
	const struct timing_set *sets[3];
	struct timing_change *changes;  /* the measures BEFORE and AFTER (and BASE) share */
	size_t change_count;
	const char *unmatched[16];      /* measures only one set has */
	size_t unmatched_count;
	const struct compare_prediction *prediction;   /* NULL: none asked for */
};
/* Work out the changes (sets[2] may be NULL); free with timing_compare_free. */
void timing_compare(const struct timing_set *before, const struct timing_set *after, const struct timing_set *base,
		    struct timing_comparison *comparison);
void timing_compare_free(struct timing_comparison *comparison);
int bench_write_comparison(FILE *out, const struct timing_comparison *comparison, enum bench_format format);

/* ---- bench --calibrate (outputs/calibration.c) ---- */
enum { CALIBRATION_TERMS = 5, CALIBRATION_HELD_OUT = 3, CALIBRATION_VERSION = 2 };
/* fork, vma, pte_page, pte, anon_vma: the terms of the fit, in order */
extern const char *const calibration_term_names[CALIBRATION_TERMS];
/* A layout held out of the fits: each fit's prediction beside the fastest
 * measured run (the whole, then the parts: enum calibration_part). */
struct calibration_check {
	char layout[96];
	double counts[CALIBRATION_TERMS];
	double measured_us[3], predicted_us[3];
};
/* A fit of one part of a fork + exit (or of the whole), over the terms. */
struct calibration_fit {
	struct fit_result fit;
	double base_us;                 /* the fork term less own_vmas x vma */
};
/* The whole fork + exit + wait, then its parts: fork() returning in the
 * parent, and the child's exit with the parent's wait. */
enum calibration_part { CALIBRATION_WHOLE, CALIBRATION_FORK, CALIBRATION_EXIT, CALIBRATION_PARTS };
extern const char *const calibration_part_names[CALIBRATION_PARTS];   /* "whole", "fork", "exit" */
struct calibration {
	char kernel[128], cpu_model[128], date[32];
	int cpu;
	size_t runs;                    /* per layout */
	size_t own_vmas;                /* the subject's own VMAs (its image) */
	struct calibration_fit parts[CALIBRATION_PARTS];
	struct calibration_check held_out[CALIBRATION_HELD_OUT];   /* of the whole */
	double fault_us[3];             /* anonymous, copy on write, file: fastest runs */
	double munmap_us;               /* munmap of 1 MiB holding 256 present pages: fastest */
};
/* Measure and fit (quick: fewer runs per layout).  0, or -1 with *error. */
int calibration_run(struct calibration *calibration, bool quick, int cpu, bool progress, struct error *error);
int calibration_write(FILE *out, const struct calibration *calibration);   /* the file: JSON */
/* The file written whole at PATH (NULL or "-": stdout): 0, or the status of
 * the failure said (base/output.h's output_write_whole). */
int calibration_write_path(const char *path, const struct calibration *calibration);
void calibration_print(FILE *out, const struct calibration *calibration);  /* for people */
/* Read a calibration file (at most 64 KiB); bad input names the file. */
int calibration_read(const char *path, struct calibration *calibration, struct error *error);

int time_predict(const struct model_result *result, const struct calibration *calibration, const char *id,
		 struct time_prediction *prediction);

/* --compare with --like SNAPSHOT --calibration FILE --model BEFORE,AFTER[,BASE]:
 * the model's change beside the posted one. */
struct compare_prediction {
	bool wanted, made;              /* made: false with why */
	char why[300];
	char snapshot[1024], calibration[1024];
	char ids[3][64];                /* BEFORE, AFTER, BASE ("" when two) */
	struct time_prediction sets[3];
};

/* "text" / "json" -> format; -1 when unknown. */
int bench_format_parse(const char *name, enum bench_format *format);
/* 0, or -1 with errno set by the failing write. */
int bench_write(FILE *out, const struct bench_run *run, enum bench_format format);
/* A run's measurements (comparison NULL) or a comparison (run NULL) written
 * whole at PATH, as -o does (NULL or "-": stdout): 0, or the status of the
 * failure said (base/output.h's output_write_whole). */
int bench_write_path(const char *path, const struct bench_run *run, const struct timing_comparison *comparison,
		     enum bench_format format);

#endif
