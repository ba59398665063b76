/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h - npuctl's tables for people (the default output): stats, flows
 * and status.  The candidates' table is npuflow_print_cand()
 * (lib/npuflow_fmt.h).  Scripts read --json or --prometheus instead.
 */
#ifndef _NPUCTL_TEXT_H
#define _NPUCTL_TEXT_H

#include <stdio.h>
#include "records.h"

/*
 * npuctl_port_text - a counters slot: a heading (@first: no blank line
 * before it), then reasons and classifier counters that are not zero
 * (every one with @all).
 */
void npuctl_port_text(FILE *f, const struct npuctl_port *p, int all, int first);

/* The flow maker's counters, and its refusals that are not zero. */
void npuctl_fmstats_text(FILE *f, const struct npuflow_fmstats *st);

/* The heading of npuctl_flow_text()'s columns. */
void npuctl_flow_text_header(FILE *f);

/* A connection as two lines, one a direction. */
void npuctl_flow_text(FILE *f, const struct npuctl_flow *fl);

/*
 * npuctl_status_text - whether npuflowd runs; when @s is pinned, the
 * connections per state and npuctl_fmstats_text().  @pin_dir: for the
 * messages.
 */
void npuctl_status_text(FILE *f, const struct npuctl_status *s, const char *pin_dir);

#endif /* _NPUCTL_TEXT_H */
