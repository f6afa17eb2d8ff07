/*
 * outputs/outputs.h - the output side's door: report writers (report.h) and
 * what they are given (report_run.h),
 * call-graph renderers (graph.h) and what they are given (callgraph_run.h),
 * the bench tables (bench.h) and what they are given (bench_run.h), and
 * what `profiles` prints (profiles_text.h).
 */
#ifndef PTSCOPE_OUTPUTS_H
#define PTSCOPE_OUTPUTS_H

#include "report.h"
#include "report_run.h"
#include "graph.h"
#include "callgraph_run.h"
#include "bench.h"
#include "bench_run.h"
#include "profiles_text.h"

#endif
