// SPDX-License-Identifier: GPL-2.0
/* 55-xdp.sh: drop every frame (XDP_DROP). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
