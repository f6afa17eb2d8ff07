/*
 * outputs/outputs.h - the output side's door: report writers (report.h)
 * and call-graph renderers (graph.h).
 */
#ifndef PTSCOPE_OUTPUTS_H
#define PTSCOPE_OUTPUTS_H

#include "report.h"
#include "graph.h"

#endif
