/*
 * outputs/outputs.h - the output side's door: report writers (report.h),
 * call-graph renderers (graph.h) and the bench tables (bench.h).
 */
#ifndef PTSCOPE_OUTPUTS_H
#define PTSCOPE_OUTPUTS_H

#include "report.h"
#include "graph.h"
#include "bench.h"

#endif
