/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - npuctl's --prometheus output: npuflow's counters as metric
 * families named npuflow_*, in the text exposition format (promtext.h).
 * stats and status write disjoint families, so the two outputs can go
 * into one file.
 */
#ifndef _NPUCTL_METRICS_H
#define _NPUCTL_METRICS_H

#include <stdio.h>
#include "records.h"

/*
 * npuctl_prom_ports - `npuctl stats --prometheus`: per counters slot of
 * @p (@n of them), labelled slot, port (panel number, "none" without
 * metadata) and ifname: npuflow_punt_frames_total and
 * npuflow_punt_bytes_total by reason, and npuflow_classifier_<counter>_total
 * for each classifier counter.  Families without samples (@n 0) still get
 * their HELP and TYPE.
 */
void npuctl_prom_ports(FILE *f, const struct npuctl_port *p, size_t n);

/*
 * npuctl_prom_status - `npuctl status --prometheus`: npuflow_daemon_running
 * (0 or 1) and npuflow_maps_pinned (0 or 1); when pinned, also
 * npuflow_daemon_uptime_seconds, npuflow_stats_age_seconds,
 * npuflow_connections by state, npuflow_refusals_total by reason,
 * npuflow_flowmaker_<counter>_total for the flow maker's counters, its
 * time counters as npuflow_flowmaker_{make,lookup,ct_lookup,write}_seconds_total
 * (make: lookup plus write), and the gauge npuflow_flowmaker_rescan_lost.
 */
void npuctl_prom_status(FILE *f, const struct npuctl_status *s);

#endif /* _NPUCTL_METRICS_H */
