// SPDX-License-Identifier: GPL-2.0
/* 55-xdp.sh: XDP_ABORTED on every frame (traced as xdp:xdp_exception). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_abort(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
