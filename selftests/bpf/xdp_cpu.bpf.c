// SPDX-License-Identifier: GPL-2.0
/*
 * 55-xdp.sh: every frame through a cpumap (XDP_REDIRECT): key 0 = a CPU
 * whose kthread builds the skbs and hands them to the stack, so the port
 * keeps working.  The test fills the map with bpftool.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} redir_cpu SEC(".maps");

SEC("xdp")
int xdp_cpu(struct xdp_md *ctx)
{
	(void)ctx;
	return bpf_redirect_map(&redir_cpu, 0, XDP_ABORTED);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
