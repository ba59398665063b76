// SPDX-License-Identifier: GPL-2.0
/*
 * 56-xdp-coexist.sh: a second program beside npuflowd's classifier on one
 * port, loaded with xdp-loader through libxdp's dispatcher.  It counts every
 * frame it sees and drops the IPv4 UDP frames to the destination port set
 * in cfg (0: none), so a test can tell which programs ran before and after
 * it; everything else is passed on.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

struct xdp_count_res {
	__u64 frames;	/* every frame the program saw */
	__u64 dropped;	/* of them, dropped: UDP to cfg's port */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_count_res);
	__uint(pinning, LIBBPF_PIN_BY_NAME);	/* xdp-loader --pin-path */
} cnt SEC(".maps");

/* The UDP destination port to drop, host order; 0 = none. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cfg SEC(".maps");

/* xdp-loader's --prio overrides it; without one the program runs last. */
struct {
	__uint(priority, 50);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xdp_count);

static __u16 udp_dport(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	if (ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return 0;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return 0;
	return bpf_ntohs(udp->dest);
}

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct xdp_count_res *r;
	__u32 key = 0, *drop;

	r = bpf_map_lookup_elem(&cnt, &key);
	drop = bpf_map_lookup_elem(&cfg, &key);
	if (!r || !drop)
		return XDP_PASS;
	__sync_fetch_and_add(&r->frames, 1);
	if (*drop && udp_dport(data, end) == *drop) {
		__sync_fetch_and_add(&r->dropped, 1);
		return XDP_DROP;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
