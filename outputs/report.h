/*
 * outputs/report.h - report writers (text, XML, JSON, CSV, HTML).
 */
#ifndef PTSCOPE_OUTPUTS_REPORT_H
#define PTSCOPE_OUTPUTS_REPORT_H

#include "model/model.h"

#endif
