// SPDX-License-Identifier: GPL-2.0
/*
 * 55-xdp.sh: redirect every IPv4/IPv6 frame through a devmap (XDP_REDIRECT;
 * key 0 = the egress ifindex, filled by the test with bpftool); ARP and the
 * rest go to the stack.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} redir_dev SEC(".maps");

static __always_inline int is_ip(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return 0;
	return eth->h_proto == bpf_htons(ETH_P_IP) ||
	       eth->h_proto == bpf_htons(ETH_P_IPV6);
}

SEC("xdp")
int xdp_redir_dev(struct xdp_md *ctx)
{
	if (!is_ip(ctx))
		return XDP_PASS;
	return bpf_redirect_map(&redir_dev, 0, XDP_ABORTED);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
