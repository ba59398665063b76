// SPDX-License-Identifier: GPL-2.0
/*
 * npuep tracepoints (trace.h), instantiated once for the module.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
