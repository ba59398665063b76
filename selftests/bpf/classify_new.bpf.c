// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Benchmark variant of the classifier (classify_bench): every run is a new
 * candidate.  Before the classifier's body runs, the frame's TCP/UDP ports
 * change (by XOR with a counter, so every run's key is new); under
 * BPF_PROG_TEST_RUN's repeat the frame stays changed for the next run.
 * Frames as classify_bench builds them: Ethernet, up to two VLAN tags,
 * IPv4 or IPv6 without extension headers, TCP or UDP.
 */
#include "../../bpf/classify.bpf.c"

__u32 bench_seq;

SEC("xdp")
int npuflow_classify_new(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct eth_min *eth = data;
	__u32 off = sizeof(*eth);
	__u32 *ports;
	__be16 proto;
	int i;

	barrier_var(eth);	/* a packet pointer, not its 32-bit value */
	if ((void *)(eth + 1) > end)
		goto out;
	proto = eth->proto;
	for (i = 0; i < 2 && vlan_proto(proto); i++) {
		struct vlan_hdr *vh = data + off;

		if ((void *)(vh + 1) > end)
			goto out;
		proto = vh->encap_proto;
		off += sizeof(*vh);
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = data + off;

		if ((void *)(iph + 1) > end)
			goto out;
		off += iph->ihl * 4;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		off += sizeof(struct ipv6hdr);
	} else {
		goto out;
	}
	if (off > 128)
		goto out;
	ports = data + off;
	if ((void *)(ports + 1) > end)
		goto out;
	/* run n's ports are the frame's XOR n */
	*ports ^= bench_seq ^ (bench_seq + 1);
	bench_seq++;
out:
	return classify(ctx);
}
