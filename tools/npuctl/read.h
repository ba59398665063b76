/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read.h - npuctl's records (records.h) read from npuflowd's pins in a pin
 * directory.  Functions returning -1 have said why on stderr.
 */
#ifndef _NPUCTL_READ_H
#define _NPUCTL_READ_H

#include <stddef.h>
#include "records.h"

/* CLOCK_MONOTONIC now, ns: the clock of every time in the maps. */
unsigned long long npuctl_mono_ns(void);

/* The name of netdev @ifindex in @buf, "if<N>" when it has none here. */
const char *npuctl_ifname(unsigned int ifindex, char buf[IF_NAMESIZE]);

/*
 * npuctl_read_candidates - the candidates, what the classifier's per-CPU
 * cache holds added, busiest first: *rows (malloc'd, *n of them).  0 or -1.
 */
int npuctl_read_candidates(const char *pin_dir, struct npuflow_row **rows, size_t *n);

/*
 * npuctl_read_ports - the "counters" slots summed over CPUs, the cache
 * added: every slot with @all, else those that counted something, in slot
 * order.  *ports (malloc'd, *n of them, NPUFLOW_PORT_SLOTS at most).  0 or -1.
 */
int npuctl_read_ports(const char *pin_dir, int all, struct npuctl_port **ports, size_t *n);

/*
 * npuctl_read_conns - the "connections" map: *ids and *conns (malloc'd,
 * as many as returned, the caller frees both).  The count, or -1.
 */
long npuctl_read_conns(const char *pin_dir, __u32 **ids, struct npuflow_conn **conns);

/* Connection @id, @c, as npuctl shows it at @now: @f names its netdevs, keeps @c. */
void npuctl_flow_of(struct npuctl_flow *f, __u32 id, const struct npuflow_conn *c,
		    unsigned long long now);

/*
 * npuctl_read_status - npuflowd's pid from @lock_file and, when @pin_dir
 * has them, the flow maker's counters: @s filled, s->pinned set if they
 * were read.  0; 3 if npuflowd never ran here (no BPF file system, or
 * nothing pinned and none running: an answer, not an error); -1 (said)
 * when it runs but its counters cannot be read.
 */
int npuctl_read_status(const char *pin_dir, const char *lock_file, struct npuctl_status *s);

/*
 * npuctl_read_fmstats - the flow maker's counters into @st: 0; 1 when
 * they are not pinned (quietly); -1 (said) when they cannot be read.
 */
int npuctl_read_fmstats(const char *pin_dir, struct npuflow_fmstats *st);

#endif /* _NPUCTL_READ_H */
