/*
 * model/model.h - the cost model's one door (shared/design/cost-model.md).
 */
#ifndef PTSCOPE_MODEL_MODEL_H
#define PTSCOPE_MODEL_MODEL_H

#include "inputs/snapshot.h"

#endif
