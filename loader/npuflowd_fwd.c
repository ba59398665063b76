// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd_fwd.c - the classifier's npuflow_forwarded program on each
 * port's clsact egress (libbpf's tc API): it records the frames the host
 * forwarded out of the port, which the flow maker takes as the proof that
 * the ruleset passes a connection (bpf/classify.bpf.c).  Filed under a
 * priority and handle of npuflowd's own, so a later run or --flush finds it.
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "npuflowd_fwd.h"
#include "npuflowd_log.h"

/* Beside the flow maker's ingress rules (NPUFLOW_TC_PRIO_*). */
#define FWD_TC_PRIO	0xc4f8
#define FWD_TC_HANDLE	1

int fwd_attach(int prog_fd, int ifindex, const char *name)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, to, .handle = FWD_TC_HANDLE,
			    .priority = FWD_TC_PRIO, .prog_fd = prog_fd,
			    .flags = BPF_TC_F_REPLACE);
	int e;

	/* a port's clsact from an earlier start or another tool answers
	 * EEXIST, which libbpf would log as a warning ("Exclusivity flag on") */
	log_libbpf_expected(1);
	e = bpf_tc_hook_create(&hook);
	log_libbpf_expected(0);
	if (e && e != -EEXIST) {
		err("%s: cannot add the clsact qdisc for the egress watch: %s", name, strerror(-e));
		return -1;
	}
	e = bpf_tc_attach(&hook, &to);
	if (e) {
		err("%s: cannot attach the egress watch: %s", name, strerror(-e));
		return -1;
	}
	return 0;
}

int fwd_detach(int ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, to, .handle = FWD_TC_HANDLE,
			    .priority = FWD_TC_PRIO);
	int e;

	/* a port with no clsact (none attached, or removed since) answers
	 * EINVAL, which libbpf would log as a warning ("Parent Qdisc doesn't
	 * exists") */
	log_libbpf_expected(1);
	e = bpf_tc_detach(&hook, &to);
	log_libbpf_expected(0);
	return e == -ENOENT || e == -EINVAL ? 0 : e;
}
