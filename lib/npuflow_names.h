/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflow_names.h - names of bpf/npuflow.h's enums (npuflow_names.c).
 */
#ifndef _NPUFLOW_NAMES_H
#define _NPUFLOW_NAMES_H

#include "../bpf/npuflow.h"

/**
 * fm_state_name - a connection state's name
 * @s: NPUFLOW_CS_*
 *
 * Return: "free", "pending", ..., "made", ...; "?" out of range.
 */
const char *fm_state_name(unsigned int s);

/**
 * fm_reason_name - a refusal reason's name
 * @r: NPUFLOW_FR_*
 *
 * Return: "none", "no_ct", ...; "?" out of range.
 */
const char *fm_reason_name(unsigned int r);

/**
 * fm_stat_name - a flow-maker counter's name
 * @s: NPUFLOW_FM_*
 *
 * Return: "events", ...; NULL out of range.
 */
const char *fm_stat_name(unsigned int s);

/**
 * loop_wake_name - what woke npuflowd's loop, by name
 * @w: NPUFLOW_LW_*
 *
 * Return: "timeout", "ring", ...; NULL out of range.
 */
const char *loop_wake_name(unsigned int w);

/**
 * loop_part_name - a part of npuflowd's loop, by name
 * @p: NPUFLOW_LP_*
 *
 * Return: "events", "conntrack", ...; NULL out of range.
 */
const char *loop_part_name(unsigned int p);

#endif
