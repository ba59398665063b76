/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_names.h - names of bpf/npuflow.h's enums (npuflow_names.c).
 */
#ifndef _NPUFLOW_NAMES_H
#define _NPUFLOW_NAMES_H

#include "../bpf/npuflow.h"

/* A connection state's name (NPUFLOW_CS_*: "made", ...), "?" out of range. */
const char *fm_state_name(unsigned int s);
/* A refusal reason's name (NPUFLOW_FR_*: "no_ct", ...), "?" out of range. */
const char *fm_reason_name(unsigned int r);
/* A flow-maker counter's name (NPUFLOW_FM_*: "events", ...), NULL out of range. */
const char *fm_stat_name(unsigned int s);

#endif
