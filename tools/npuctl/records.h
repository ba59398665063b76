/* SPDX-License-Identifier: GPL-2.0 */
/*
 * records.h - what npuctl reads from npuflowd's pins (read.c), ready to
 * print: the text (text.c), JSON (json.c) and Prometheus (metrics.c)
 * writers take these and make no system calls.  Times are CLOCK_MONOTONIC
 * nanoseconds.
 */
#ifndef _NPUCTL_RECORDS_H
#define _NPUCTL_RECORDS_H

#include <net/if.h>
#include "../../lib/npuflow_fmt.h"

/* One slot of the "counters" map, summed over CPUs, the candidate cache added. */
struct npuctl_port {
	unsigned int slot;		/* 0..NPUFLOW_PORT_SLOTS-1 */
	char ifname[IF_NAMESIZE];	/* of c.ifindex ("if<N>" unknown), "" if it is 0 */
	struct npuflow_counters c;
};

/*
 * npuctl_slot_port - the front port (panel number, 1..NPUFLOW_MAX_PORTS) a
 * counters slot counts, or -1 for a slot of frames without the
 * coprocessor's metadata (NPUFLOW_MAX_PORTS and up).
 */
int npuctl_slot_port(unsigned int slot);

/* One connection of the "connections" map, with its netdevs' names. */
struct npuctl_flow {
	__u32 id;
	const struct npuflow_conn *c;
	char in[2][IF_NAMESIZE];	/* ingress of each direction ("if<N>" unknown) */
	char out[2][IF_NAMESIZE];	/* egress of each direction, "" = none */
	unsigned long long age_ns;	/* since c->made_ns, 0 if never made */
	unsigned long long idle_ns;	/* since c->last_used_ns, 0 if never used */
};

/* npuflowd's state, from its lock file and the "fmstats" map. */
struct npuctl_status {
	int pid;				/* the running npuflowd, 0 = none */
	int bpffs;				/* the pin directory's parent is on bpffs */
	int pinned;				/* fmstats read: the rest is valid */
	unsigned long long uptime_ns;		/* since st.start_ns, 0 if unset */
	unsigned long long updated_ns_ago;	/* since st.updated_ns, 0 if unset */
	struct npuflow_fmstats st;
	int have_loop;				/* loopstats read (npuflowd writes it) */
	unsigned long long loop_updated_ns_ago;	/* since loop.updated_ns */
	struct npuflow_loopstats loop;		/* npuflowd's loop: wakeups, time */
};

#endif /* _NPUCTL_RECORDS_H */
