// SPDX-License-Identifier: GPL-2.0
/*
 * 55-xdp.sh: answer IPv4 ICMP echo requests in XDP (XDP_TX): swap the MAC
 * and IP addresses, make it an echo reply and fix the ICMP checksum.  Every
 * other frame (ARP, ...) goes to the stack.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* linux/icmp.h pulls in libc headers; the part used here. */
#define ICMP_ECHOREPLY	0
#define ICMP_ECHO	8
struct icmphdr {
	__u8 type;
	__u8 code;
	__sum16 checksum;
	__be16 id;
	__be16 sequence;
};

SEC("xdp")
int xdp_echo(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct icmphdr *icmp;
	unsigned char mac[ETH_ALEN];
	struct iphdr *ip;
	__u32 csum;
	__be32 a;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_ICMP)
		return XDP_PASS;
	icmp = (void *)(ip + 1);
	if ((void *)(icmp + 1) > data_end || icmp->type != ICMP_ECHO ||
	    icmp->code != 0)
		return XDP_PASS;

	__builtin_memcpy(mac, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, mac, ETH_ALEN);
	a = ip->saddr;
	ip->saddr = ip->daddr;
	ip->daddr = a;
	/* type 8 -> 0: the sum grows by 0x0800 (RFC 1624). */
	icmp->type = ICMP_ECHOREPLY;
	csum = (__u32)icmp->checksum + bpf_htons(0x0800);
	icmp->checksum = (__u16)(csum + (csum >> 16));
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
