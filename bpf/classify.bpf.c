// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * classify.bpf.c - the npuflow XDP classifier for punted frames.
 *
 * Observes, never drops: every frame returns XDP_PASS (with libxdp's
 * dispatcher, programs after this one run on XDP_PASS).  Per frame:
 *
 *  1. metadata: struct npuflow_meta in front of the frame (npuep) gives the
 *     punt reason, front port and hardware connection index; without it
 *     (veth, generic XDP) reason is NPUFLOW_R_NONE and the port slot is
 *     derived from the ingress ifindex;
 *  2. per-CPU counters of the port slot: frames and bytes per reason;
 *  3. parse: Ethernet, up to two VLAN tags (802.1ad/802.1Q, keyed with
 *     their TPID), a PPPoE session carrying IP (keyed with its session id),
 *     IPv4 (options,
 *     fragments), IPv6 (at most NPUFLOW_IPV6_EXT_MAX extension headers),
 *     TCP, UDP, ICMP, ICMPv6.  Every read is preceded by an explicit check
 *     against data_end; header lengths read from the frame are range
 *     checked as integers before they move the cursor.  A frame that ends
 *     early or whose lengths disagree is counted (TRUNC_L2/L3/L4,
 *     MALFORMED) and not recorded;
 *  4. candidate (one per direction) in an LRU hash: a known one is updated
 *     in place (atomic frame/byte adds, other fields written only when they
 *     change); a new one is inserted with BPF_NOEXIST.  One past its
 *     threshold is also cached in this CPU's slot of "candcache" (by
 *     hardware hash); within a clock tick its frames that change nothing
 *     else only add to the slot, which is written back with the next frame
 *     that goes to the map (npuflow.h);
 *  5. ring-buffer events: THRESHOLD exactly once when the candidate's frame
 *     count reaches npuflow_threshold (the atomic add's old value decides,
 *     so concurrent CPUs cannot both see the crossing), and REVIVE when a
 *     frame with a hardware connection index arrives punted "not active",
 *     at most once per npuflow_revive_gap_ns per candidate (cmpxchg).  An
 *     event the full ring cannot take is counted EVENT_LOST; a lost
 *     THRESHOLD also marks its candidate NPUFLOW_CF_EVENT_LOST, which
 *     npuflowd's rescan looks for.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>
#include "npuflow.h"

#ifndef AF_INET
#define AF_INET		2
#endif
#ifndef AF_INET6
#define AF_INET6	10
#endif
#ifndef ETH_P_8021AD
#define ETH_P_8021AD	0x88A8
#endif
#ifndef ETH_P_PPP_SES
#define ETH_P_PPP_SES	0x8864
#endif
#define PPP_IP		0x0021
#define PPP_IPV6	0x0057
#define PPPOE_VERTYPE	0x11
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define IP6_OFFSET	0xfff8
#define IP6_MF		0x0001
#define EEXIST		17

/* Set by the loader before load (skeleton rodata). */
const volatile __u64 npuflow_threshold = NPUFLOW_THRESHOLD_DEFAULT;	/* 0 = no events */
const volatile __u64 npuflow_revive_gap_ns = NPUFLOW_REVIVE_GAP_DEFAULT;
/*
 * 1 (default): timestamps from bpf_ktime_get_coarse_ns() - CLOCK_MONOTONIC
 * at tick resolution (1-4 ms), cheaper per frame than bpf_ktime_get_ns()
 * (docs/measurements.md, "The classifier per frame"); idle times are judged
 * in seconds.
 * 0: bpf_ktime_get_ns().  Both are CLOCK_MONOTONIC nanoseconds.
 */
const volatile __u8 npuflow_coarse_clock = 1;

/*
 * Bumped by userspace after it deletes candidates (npuflowd's re-arm, the
 * tests): a cache entry written under another generation is not used
 * until it has been written to its candidate again (npuflow.h).
 */
__u32 npuflow_cache_gen;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NPUFLOW_CANDIDATES_DEFAULT);
	__type(key, struct npuflow_key);
	__type(value, struct npuflow_cand);
} candidates SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NPUFLOW_PORT_SLOTS);
	__type(key, __u32);
	__type(value, struct npuflow_counters);
} counters SEC(".maps");

/* What a known candidate's frames change, per CPU, by hardware hash (npuflow.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NPUFLOW_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct npuflow_cache);
} candcache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, NPUFLOW_RINGBUF_DEFAULT);
} events SEC(".maps");

/* Written by npuflowd only; here so the object's BTF describes them. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NPUFLOW_CONNECTIONS_DEFAULT);
	__type(key, __u32);
	__type(value, struct npuflow_conn);
} connections SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct npuflow_fmstats);
} fmstats SEC(".maps");

/* Written by npuflowd only: its loop's wakeups and time (npuctl status). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct npuflow_loopstats);
} loopstats SEC(".maps");

/*
 * Written by npuflowd only: the nftables ruleset generation it last saw,
 * (1 << 32 | genid), 0 before the first.  A start that finds another one
 * takes it as a change made while npuflowd was down.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} fmgen SEC(".maps");

/* Written by npuflow_forwarded (below), read by npuflowd. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, NPUFLOW_CANDIDATES_DEFAULT);
	__type(key, struct npuflow_key);
	__type(value, __u64);
} forwarded SEC(".maps");

/* Run first in a libxdp dispatcher; programs after it run on XDP_PASS. */
struct {
	__uint(priority, 5);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(npuflow_classify);

/* ICMP and ICMPv6 share this 8-byte layout for the fields we read
 * (linux/icmp.h pulls in libc headers).
 */
struct icmp_min {
	__u8 type;
	__u8 code;
	__sum16 csum;
	__be16 id;		/* echo/query identifier */
	__be16 seq;
};

#define ICMP_ECHOREPLY		0
#define ICMP_ECHO		8
#define ICMP_TIMESTAMP		13
#define ICMP_TIMESTAMPREPLY	14
#define ICMP_INFO_REQUEST	15
#define ICMP_INFO_REPLY		16
#define ICMP_ADDRESS		17
#define ICMP_ADDRESSREPLY	18
#define ICMPV6_ECHO_REQUEST	128
#define ICMPV6_ECHO_REPLY	129

/*
 * The Ethernet header as read: linux/if_ether.h's struct ethhdr is packed,
 * so the compiler reads its ethertype byte by byte.
 */
struct eth_min {
	__u8 dst[6];
	__u8 src[6];
	__be16 proto;
};

struct vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

/* A PPPoE session header and the PPP protocol after it (RFC 2516). */
struct pppoe_min {
	__u8 vertype;
	__u8 code;
	__be16 sid;
	__be16 len;		/* the PPP payload's: protocol + IP packet */
	__be16 proto;
};

struct ipv6_opt_hdr_min {
	__u8 nexthdr;
	__u8 hdrlen;
};

struct frag6_hdr {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off;
	__be32 identification;
};

/*
 * The key as 64-bit words.  parse() writes each word once, whole, from
 * values in registers: the cache compares the key word by word, and a
 * 64-bit load that spans several narrower stores cannot be forwarded from
 * the store buffer (it waits for them to retire), which cost about 2 ns a
 * frame when parse wrote the struct field by field on a zeroed key.
 */
union npuflow_key_w {
	struct npuflow_key k;
	__u64 w[6];
};

/* @v (@size bytes) at byte @off of a 64-bit word, as it lies in memory. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KW(v, off, size)	((__u64)(v) << (8 * (off)))
#else
#define KW(v, off, size)	((__u64)(v) << (8 * (8 - (off) - (size))))
#endif

_Static_assert(__builtin_offsetof(struct npuflow_key, vlan_outer) == 4 &&
	       __builtin_offsetof(struct npuflow_key, vlan_inner) == 6 &&
	       __builtin_offsetof(struct npuflow_key, family) == 8 &&
	       __builtin_offsetof(struct npuflow_key, proto) == 9 &&
	       __builtin_offsetof(struct npuflow_key, pppoe_sid) == 10 &&
	       __builtin_offsetof(struct npuflow_key, sport) == 12 &&
	       __builtin_offsetof(struct npuflow_key, dport) == 14 &&
	       __builtin_offsetof(struct npuflow_key, saddr) == 16 &&
	       __builtin_offsetof(struct npuflow_key, daddr) == 32,
	       "the key's words, as parse() writes them");

/* Key word 1: family, protocol, ports (the session id zero: parse_pppoe()). */
static __always_inline void key_l4(union npuflow_key_w *k, __u8 family, __u8 proto,
				   __be16 sport, __be16 dport)
{
	k->w[1] = KW(family, 0, 1) | KW(proto, 1, 1) | KW(sport, 4, 2) | KW(dport, 6, 2);
}

/* What parse() found. */
struct parsed {
	__u8 stat;	/* NPUFLOW_S_CANDIDATE or the reason it is not one */
	__u8 cflags;	/* NPUFLOW_CF_* */
	__u8 tcp_flags;
	__u8 other_l4;	/* candidate without ports (NPUFLOW_S_OTHER_L4) */
};

/*
 * @p is not a candidate (@st).  The parse's exits share one join, and
 * clang set the status register ahead of every bound check (a mov on the
 * candidate path per check); the opaque copy puts it on the exit's own
 * edge, so only a frame that leaves there pays for it.
 */
static __always_inline void fail(struct parsed *p, __u32 st)
{
	asm volatile("" : "+r"(st));
	p->stat = st;
}

static __always_inline int vlan_proto(__be16 p)
{
	return p == bpf_htons(ETH_P_8021Q) || p == bpf_htons(ETH_P_8021AD);
}

/* A tag's key half: its VID, NPUFLOW_VLAN_AD for TPID 0x88a8. */
static __always_inline __u16 vlan_key(__be16 tpid, __be16 tci)
{
	return (bpf_ntohs(tci) & NPUFLOW_VLAN_VID) |
	       (tpid == bpf_htons(ETH_P_8021AD) ? NPUFLOW_VLAN_AD : 0);
}

static __always_inline int icmp_has_id(__u8 type)
{
	return type == ICMP_ECHO || type == ICMP_ECHOREPLY ||
	       type == ICMP_TIMESTAMP || type == ICMP_TIMESTAMPREPLY ||
	       type == ICMP_INFO_REQUEST || type == ICMP_INFO_REPLY ||
	       type == ICMP_ADDRESS || type == ICMP_ADDRESSREPLY;
}

/*
 * L4 at offset @off (from data), @l4len bytes of it claimed by the IP
 * header (@frag: a first fragment, which carries only part of it).
 */
static __always_inline void parse_l4(void *data, void *end, __u32 off,
				     __u32 l4len, int frag, __u8 family, __u8 proto,
				     union npuflow_key_w *k, struct parsed *p)
{
	__be16 sport = 0, dport = 0;
	void *l4;

	if (off > 4096)		/* bounds the cursor for the checks below */
		goto trunc;
	l4 = data + off;

	switch (proto) {
	case IPPROTO_TCP: {
		struct tcphdr *th = l4;
		__u32 hl;

		if (l4len < sizeof(*th) || (void *)(th + 1) > end)
			goto trunc;
		hl = th->doff * 4;
		if (hl < sizeof(*th) || (!frag && hl > l4len)) {
			fail(p, NPUFLOW_S_MALFORMED);
			return;
		}
		sport = th->source;
		dport = th->dest;
		p->tcp_flags = ((__u8 *)th)[13];
		break;
	}
	case IPPROTO_UDP: {
		struct udphdr *uh = l4;
		__u32 ul;

		if (l4len < sizeof(*uh) || (void *)(uh + 1) > end)
			goto trunc;
		ul = bpf_ntohs(uh->len);
		if (ul < sizeof(*uh) || (!frag && ul > l4len)) {
			fail(p, NPUFLOW_S_MALFORMED);
			return;
		}
		sport = uh->source;
		dport = uh->dest;
		break;
	}
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: {
		struct icmp_min *ih = l4;

		if (l4len < sizeof(*ih) || (void *)(ih + 1) > end)
			goto trunc;
		if (proto == IPPROTO_ICMP ? icmp_has_id(ih->type) :
		    ih->type == ICMPV6_ECHO_REQUEST || ih->type == ICMPV6_ECHO_REPLY)
			sport = ih->id;
		dport = bpf_htons(ih->type << 8 | ih->code);
		break;
	}
	default:
		p->other_l4 = 1;
		break;
	}
	key_l4(k, family, proto, sport, dport);
	p->stat = NPUFLOW_S_CANDIDATE;
	return;
trunc:
	fail(p, NPUFLOW_S_TRUNC_L4);
}

static __always_inline void parse_ipv4(void *data, void *end, __u32 off,
				       union npuflow_key_w *k, struct parsed *p)
{
	struct iphdr *iph = data + off;
	__u32 hl, tot, avail;
	__u16 frag;

	if ((void *)(iph + 1) > end) {
		fail(p, NPUFLOW_S_TRUNC_L3);
		return;
	}
	hl = iph->ihl * 4;
	if (iph->version != 4 || hl < sizeof(*iph)) {
		fail(p, NPUFLOW_S_MALFORMED);
		return;
	}
	avail = end - (void *)iph;
	if (hl > avail) {
		fail(p, NPUFLOW_S_TRUNC_L3);
		return;
	}
	tot = bpf_ntohs(iph->tot_len);
	if (tot < hl) {
		fail(p, NPUFLOW_S_MALFORMED);
		return;
	}
	/* The frame ends before the datagram does (trailing padding is fine). */
	if (tot > avail) {
		fail(p, NPUFLOW_S_TRUNC_L3);
		return;
	}
	/* the first 4 bytes of saddr and daddr, the rest zero */
	k->w[2] = KW(iph->saddr, 0, 4);
	k->w[3] = 0;
	k->w[4] = KW(iph->daddr, 0, 4);
	k->w[5] = 0;
	if (hl > sizeof(*iph))
		p->cflags |= NPUFLOW_CF_IP_OPTIONS;

	frag = bpf_ntohs(iph->frag_off);
	if (frag & (IP_MF | IP_OFFSET)) {
		if (frag & IP_OFFSET) {
			fail(p, NPUFLOW_S_NONFIRST_FRAG);
			return;
		}
		p->cflags |= NPUFLOW_CF_FRAGMENT;
	}
	parse_l4(data, end, off + hl, tot - hl, frag & IP_MF, AF_INET, iph->protocol, k, p);
}

static __always_inline int ipv6_ext(__u8 nh)
{
	return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING ||
	       nh == IPPROTO_FRAGMENT || nh == IPPROTO_DSTOPTS ||
	       nh == IPPROTO_AH;
}

static __always_inline void parse_ipv6(void *data, void *end, __u32 off,
				       union npuflow_key_w *k, struct parsed *p)
{
	struct ipv6hdr *ip6 = data + off;
	__u32 plen, avail, l4off, ext = 0;
	int frag = 0;
	__u8 nh;

	if ((void *)(ip6 + 1) > end) {
		fail(p, NPUFLOW_S_TRUNC_L3);
		return;
	}
	if (ip6->version != 6) {
		fail(p, NPUFLOW_S_MALFORMED);
		return;
	}
	avail = end - (void *)(ip6 + 1);
	plen = bpf_ntohs(ip6->payload_len);
	if (plen > avail) {	/* the frame ends before the datagram does */
		fail(p, NPUFLOW_S_TRUNC_L3);
		return;
	}
	__builtin_memcpy(&k->w[2], &ip6->saddr, 32);	/* saddr, daddr */
	nh = ip6->nexthdr;
	l4off = off + sizeof(*ip6);

#pragma unroll
	for (int i = 0; i < NPUFLOW_IPV6_EXT_MAX; i++) {
		struct ipv6_opt_hdr_min *oh;
		__u32 hl;

		if (!ipv6_ext(nh))
			break;
		if (l4off > 2048)	/* 18 + 40 + 6 * 256 * 8 fits; bounds the cursor */
			goto trunc;
		oh = data + l4off;
		if (nh == IPPROTO_FRAGMENT) {
			struct frag6_hdr *fh = (void *)oh;
			__u16 fo;

			if ((void *)(fh + 1) > end)
				goto trunc;
			fo = bpf_ntohs(fh->frag_off);
			if (fo & IP6_OFFSET) {
				fail(p, NPUFLOW_S_NONFIRST_FRAG);
				p->cflags |= NPUFLOW_CF_EXTHDR;
				return;
			}
			if (fo & IP6_MF) {
				frag = 1;
				p->cflags |= NPUFLOW_CF_FRAGMENT;
			}
			hl = sizeof(*fh);
		} else {
			if ((void *)(oh + 1) > end)
				goto trunc;
			if (nh == IPPROTO_AH)
				hl = (oh->hdrlen + 2) * 4;
			else
				hl = (oh->hdrlen + 1) * 8;
		}
		p->cflags |= NPUFLOW_CF_EXTHDR;
		nh = oh->nexthdr;
		ext += hl;
		l4off += hl;
	}
	if (ipv6_ext(nh)) {
		fail(p, NPUFLOW_S_EXTHDR_LIMIT);
		return;
	}
	if (ext > plen) {
		/* extension headers longer than the frame, or than the payload length claims */
		if (ext > avail)
			goto trunc;
		fail(p, NPUFLOW_S_MALFORMED);
		return;
	}
	parse_l4(data, end, l4off, plen - ext, frag, AF_INET6, nh, k, p);
	return;
trunc:
	fail(p, NPUFLOW_S_TRUNC_L3);
}

/*
 * A PPPoE session frame at @off: version and type 1, code 0, a session id
 * other than 0 and 0xffff, PPP carrying IPv4 or IPv6 is parsed on, its
 * session id in the key; discovery, LCP, IPCP and the rest are NON_IP.  A
 * length field other than the IP packet's + 2 is MALFORMED (where the IP
 * header is whole enough to say; a frame that ends early is TRUNC_L3).
 */
static __always_inline void parse_pppoe(void *data, void *end, __u32 off,
					union npuflow_key_w *k, struct parsed *p)
{
	struct pppoe_min *ph = data + off;
	__u16 sid, len;

	if ((void *)(ph + 1) > end) {
		fail(p, NPUFLOW_S_TRUNC_L2);
		return;
	}
	sid = bpf_ntohs(ph->sid);
	if (ph->vertype != PPPOE_VERTYPE || ph->code || !sid || sid == 0xffff) {
		fail(p, NPUFLOW_S_NON_IP);
		return;
	}
	len = bpf_ntohs(ph->len);
	off += sizeof(*ph);
	if (ph->proto == bpf_htons(PPP_IP)) {
		struct iphdr *iph = (void *)(ph + 1);

		if ((void *)(iph + 1) <= end && len != bpf_ntohs(iph->tot_len) + 2) {
			fail(p, NPUFLOW_S_MALFORMED);
			return;
		}
		parse_ipv4(data, end, off, k, p);
	} else if (ph->proto == bpf_htons(PPP_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(ph + 1);

		if ((void *)(ip6 + 1) <= end &&
		    len != bpf_ntohs(ip6->payload_len) + sizeof(*ip6) + 2) {
			fail(p, NPUFLOW_S_MALFORMED);
			return;
		}
		parse_ipv6(data, end, off, k, p);
	} else {
		fail(p, NPUFLOW_S_NON_IP);
		return;
	}
	if (p->stat == NPUFLOW_S_CANDIDATE)
		k->w[1] |= KW(sid, 2, 2);
}

/*
 * The L3 header at @off, of ethertype @proto: IPv4, IPv6 or a PPPoE
 * session's; any other is NON_IP.
 */
static __always_inline void parse_l3(void *data, void *end, __u32 off, __be16 proto,
				     union npuflow_key_w *k, struct parsed *p)
{
	if (proto == bpf_htons(ETH_P_IP))
		parse_ipv4(data, end, off, k, p);
	else if (proto == bpf_htons(ETH_P_IPV6))
		parse_ipv6(data, end, off, k, p);
	else if (proto == bpf_htons(ETH_P_PPP_SES))
		parse_pppoe(data, end, off, k, p);
	else
		fail(p, NPUFLOW_S_NON_IP);
}

/* The L3 header's furthest offset: Ethernet and two tags. */
#define NPUFLOW_L3_OFF_MAX	(sizeof(struct eth_min) + 2 * sizeof(struct vlan_hdr))

/*
 * parse_l3() as a global function, one for each program type's context:
 * the verifier checks a global function once, its arguments unknown, not
 * once for each path that reaches its call.  Inlined, the L3 parse would
 * be checked again for each L2 header's length (Ethernet, one tag, two
 * tags), and the program after it for each status it leaves: ten times the
 * work, and loading the classifier is most of npuflowd's start
 * (docs/measurements.md, "npuflowd's start and the verifier").  @off at most NPUFLOW_L3_OFF_MAX
 * (else nothing is parsed); @k and @p point to the caller's key and
 * result.  Returns 0.
 */
__noinline int parse_l3_xdp(struct xdp_md *ctx, __u32 off, __u32 proto,
			    union npuflow_key_w *k, struct parsed *p)
{
	if (!k || !p || off > NPUFLOW_L3_OFF_MAX)
		return 0;
	parse_l3((void *)(long)ctx->data, (void *)(long)ctx->data_end, off, proto, k, p);
	return 0;
}

/* parse_l3_xdp() for a tc program's frame. */
__noinline int parse_l3_skb(struct __sk_buff *skb, __u32 off, __u32 proto,
			    union npuflow_key_w *k, struct parsed *p)
{
	if (!k || !p || off > NPUFLOW_L3_OFF_MAX)
		return 0;
	parse_l3((void *)(long)skb->data, (void *)(long)skb->data_end, off, proto, k, p);
	return 0;
}

/*
 * The Ethernet header and up to two VLAN tags: key word 0 written, the L3
 * header's offset returned and its ethertype in *@l3proto; 0 when there is
 * none to parse (p->stat says why).
 */
static __always_inline __u32 parse_l2(void *data, void *end, __u32 ifindex,
				      union npuflow_key_w *k, struct parsed *p, __be16 *l3proto)
{
	struct eth_min *eth = data;
	struct vlan_hdr *vh;
	__u32 off = sizeof(*eth);
	__u16 outer = 0, inner = 0;
	__be16 proto;

	if ((void *)(eth + 1) > end)
		goto trunc;
	proto = eth->proto;
	if (vlan_proto(proto)) {
		vh = data + off;
		if ((void *)(vh + 1) > end)
			goto trunc;
		outer = vlan_key(proto, vh->tci);
		proto = vh->encap_proto;
		off += sizeof(*vh);
		if (vlan_proto(proto)) {
			vh = data + off;
			if ((void *)(vh + 1) > end)
				goto trunc;
			inner = vlan_key(proto, vh->tci);
			proto = vh->encap_proto;
			off += sizeof(*vh);
			if (vlan_proto(proto)) {
				fail(p, NPUFLOW_S_VLAN_DEPTH);
				return 0;
			}
		}
	}
	k->w[0] = KW(ifindex, 0, 4) | KW(outer, 4, 2) | KW(inner, 6, 2);
	*l3proto = proto;
	return off;
trunc:
	fail(p, NPUFLOW_S_TRUNC_L2);
	return 0;
}

/*
 * Raise event @type for candidate @v (key @k).  0, or -1 when the ring is
 * full: the caller counts the loss (lost()), after marking a lost
 * threshold event in the candidate.
 */
static __always_inline int emit(__u32 type, const struct npuflow_key *k,
				const struct npuflow_cand *v, __u64 frames,
				__u64 now, __u8 reason, __u32 conn, __u32 hash,
				struct npuflow_counters *c)
{
	struct npuflow_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return -1;
	e->type = type;
	e->conn = conn;
	e->ts_ns = now;
	e->frames = frames;
	e->bytes = v->bytes;
	__builtin_memcpy(&e->key, k, sizeof(*k));
	e->reason = reason;
	e->port = v->port;
	e->tcp_flags = v->tcp_flags;
	e->flags = v->flags;
	e->hash = hash;
	bpf_ringbuf_submit(e, 0);
	c->stat[type == NPUFLOW_EV_THRESHOLD ? NPUFLOW_S_THRESHOLD : NPUFLOW_S_REVIVE]++;
	return 0;
}

/*
 * An event the ring had no room for.  A threshold event is raised once per
 * candidate: the candidate @v (NULL: a revive) is marked
 * NPUFLOW_CF_EVENT_LOST first, then the loss counted, so that npuflowd,
 * which rescans the candidates when it sees NPUFLOW_S_EVENT_LOST move,
 * finds the mark (the compiler keeps the order; x86 does too).
 */
static __always_inline void lost(struct npuflow_cand *v, struct npuflow_counters *c)
{
	if (v) {
		v->flags |= NPUFLOW_CF_EVENT_LOST;
		asm volatile("" ::: "memory");
	}
	c->stat[NPUFLOW_S_EVENT_LOST]++;
}

/* @a (8-byte aligned) is the key @b. */
static __always_inline int key_eq(const struct npuflow_key *a, const union npuflow_key_w *b)
{
	const __u64 *x = (const void *)a, *y = b->w;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		 (x[3] ^ y[3]) | (x[4] ^ y[4]) | (x[5] ^ y[5]));
}

/* @a and @b (8-byte aligned, or packet metadata) hold the same 16 bytes. */
static __always_inline int meta_eq(const struct npuflow_meta *a, const struct npuflow_meta *b)
{
	const __u64 *x = (const void *)a, *y = (const void *)b;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]));
}

/*
 * The frames @e holds are not in its port's counters yet (a cache hit
 * counts only in the entry, npuflow.h): add them to this CPU's copy.
 */
static __always_inline void cache_count(const struct npuflow_cache *e)
{
	__u32 slot = e->meta.port;
	struct npuflow_counters *c;

	c = bpf_map_lookup_elem(&counters, &slot);	/* port < MAX_PORTS: checked at fill */
	if (c)
		npuflow_cache_to_counters(c, e);
}

/*
 * Another flow takes @e's slot: write the frames and bytes it holds to the
 * counters, and to its candidate if that is still the one they were
 * counted for.
 */
static __always_inline void cache_evict(struct npuflow_cache *e)
{
	struct npuflow_cand *o;

	if (!e->frames)
		return;
	cache_count(e);
	o = bpf_map_lookup_elem(&candidates, &e->key);
	if (o && o->first_ns == e->first_ns) {
		__sync_fetch_and_add(&o->frames, e->frames);
		__sync_fetch_and_add(&o->bytes, e->bytes);
	}
	e->frames = 0;
	e->bytes = 0;
}

/*
 * @e caches @v (key @k) as of @tick for frames with the metadata @m and
 * parse flags @pflags; @own: @e holds @k already (written back).
 */
static __always_inline void cache_fill(struct npuflow_cache *e, int own,
				       const struct npuflow_key *k,
				       const struct npuflow_cand *v, __u64 tick,
				       const struct npuflow_meta *m, __u8 pflags)
{
	if (!own) {
		cache_evict(e);
		__builtin_memcpy(&e->key, k, sizeof(*k));
	}
	e->tick = tick;
	e->first_ns = v->first_ns;
	__builtin_memcpy(&e->meta, m, sizeof(*m));
	e->gen = npuflow_cache_gen;
	e->tcp_flags = v->tcp_flags;
	e->pflags = pflags;
}

/* Revive: at most one event per npuflow_revive_gap_ns per candidate. */
static __always_inline int revive_due(struct npuflow_cand *v, __u64 now)
{
	__u64 last = v->revive_ns;

	if (last && now - last < npuflow_revive_gap_ns)
		return 0;
	return __sync_val_compare_and_swap(&v->revive_ns, last, now) == last;
}

/*
 * What classify() knows of one frame, handed from step to step (all
 * inlined: the fields live in registers or on the stack, as locals would).
 */
struct frame {
	struct npuflow_cache *e;	/* this CPU's cache entry for the frame, or NULL */
	__u64 now, tick;		/* the clock; jiffies for the cache */
	__u64 nb;			/* bytes to count: the frame's and its entry's */
	__u32 len, ifindex;
	__u32 n;			/* frames to count: 1 and its entry's */
	__u32 conn, hash;
	__u8 reason, port, pflags, hashed, bad_meta;
	int same;			/* e holds this frame's key */
	int own;			/* ... and is written back with this frame */
	int revive;			/* a not-active connection's frame: revive it */
};

/*
 * A known candidate cached on this CPU (npuflow.h), before the metadata is
 * even decoded: byte for byte the metadata of the frame that filled the
 * entry (valid then, hashed, not a revive) is the same reason, port and
 * connection.  Only the entry is written; the counters get its frames when
 * it is written back.  The tick is jiffies (the verifier inlines
 * bpf_jiffies64() into a load); the coarse clock moves with it.  The
 * precise clock moves every frame: not cached.  Return: 1 when the entry
 * took the frame.
 */
static __always_inline int cache_hit(struct frame *f, const union npuflow_key_w *kw,
				     const struct parsed *p, struct npuflow_meta *m,
				     void *data)
{
	struct npuflow_cache *e;
	__u32 idx;

	if (p->stat != NPUFLOW_S_CANDIDATE || (void *)(m + 1) > data || !npuflow_coarse_clock)
		return 0;
	idx = m->hash & (NPUFLOW_CACHE_SLOTS - 1);
	e = bpf_map_lookup_elem(&candcache, &idx);
	f->e = e;
	f->tick = bpf_jiffies64();
	f->same = e && key_eq(&e->key, kw);
	if (f->same && e->tick == f->tick && e->gen == npuflow_cache_gen &&
	    meta_eq(&e->meta, m) && e->pflags == f->pflags &&
	    (e->tcp_flags | p->tcp_flags) == e->tcp_flags) {
		e->frames++;
		e->bytes += f->len;
		return 1;
	}
	return 0;
}

/* The driver's metadata, if the frame carries a valid one (else bad_meta). */
static __always_inline void meta_read(struct frame *f, const struct npuflow_meta *m,
				      void *data, struct parsed *p)
{
	if ((void *)(m + 1) > data || m->magic != NPUFLOW_META_MAGIC)
		return;
	if (m->version != NPUFLOW_META_VERSION || m->port >= NPUFLOW_MAX_PORTS) {
		f->bad_meta = 1;
		return;
	}
	f->reason = m->reason;
	f->port = m->port;
	f->conn = m->conn;
	f->hash = m->hash;
	f->hashed = m->flags & (NPUFLOW_META_F_HASH_L4 | NPUFLOW_META_F_HASH_L3);
	p->cflags |= NPUFLOW_CF_META;
}

/*
 * The frame counted in its port's (or interface's) counters, by reason and
 * by what the parse found.  Return: the counters when the frame is a
 * candidate, NULL when it is done with.
 */
static __always_inline struct npuflow_counters *count_frame(const struct frame *f,
							    const struct parsed *p)
{
	__u32 slot = f->port != NPUFLOW_PORT_NONE ? f->port :
		NPUFLOW_MAX_PORTS + f->ifindex % NPUFLOW_IF_SLOTS;
	struct npuflow_counters *c = bpf_map_lookup_elem(&counters, &slot);
	__u32 rslot;

	if (!c)
		return NULL;
	/* bound the copy the index uses (clang may check one and index with another) */
	rslot = f->reason;
	asm volatile("" : "+r"(rslot));
	if (rslot >= NPUFLOW_R_MAX)
		rslot = NPUFLOW_R_UNKNOWN;
	c->frames[rslot]++;
	c->bytes[rslot] += f->len;
	if (c->ifindex != f->ifindex)
		c->ifindex = f->ifindex;
	if (f->bad_meta)
		c->stat[NPUFLOW_S_BAD_META]++;

	if (p->cflags & NPUFLOW_CF_IP_OPTIONS)
		c->stat[NPUFLOW_S_IP_OPTIONS]++;
	if (p->cflags & NPUFLOW_CF_EXTHDR)
		c->stat[NPUFLOW_S_EXTHDR]++;
	if (p->stat == NPUFLOW_S_NONFIRST_FRAG) {
		c->stat[NPUFLOW_S_FRAGMENT]++;
		c->stat[NPUFLOW_S_NONFIRST_FRAG]++;
		return NULL;
	}
	if (p->stat != NPUFLOW_S_CANDIDATE) {
		if (p->stat < NPUFLOW_S_SLOTS)
			c->stat[p->stat]++;
		return NULL;
	}
	if (p->cflags & NPUFLOW_CF_FRAGMENT)
		c->stat[NPUFLOW_S_FRAGMENT]++;
	if (p->other_l4)
		c->stat[NPUFLOW_S_OTHER_L4]++;
	c->stat[NPUFLOW_S_CANDIDATE]++;
	return c;
}

/*
 * A cache entry of this key is written back with this frame: what it holds
 * goes to the candidate @v (if it is the same candidate, not one made
 * again since) and the entry is emptied.
 */
static __always_inline void cache_take(struct frame *f, const struct npuflow_cand *v)
{
	struct npuflow_cache *e = f->e;

	if (!e)
		return;
	if (v && v->first_ns == e->first_ns) {
		f->n += e->frames;
		f->nb += e->bytes;
	}
	e->frames = 0;
	e->bytes = 0;
}

/*
 * A new candidate: inserted, with its events.  Return: NULL when done
 * with the frame, or the candidate another CPU inserted first (update it).
 */
static __always_inline struct npuflow_cand *cand_insert(struct frame *f,
							const struct npuflow_key *key,
							const struct parsed *p,
							struct npuflow_counters *c,
							const struct npuflow_meta *m)
{
	struct npuflow_cand nv = {
		.frames = 1,
		.bytes = f->len,
		.first_ns = f->now,
		.last_ns = f->now,
		.conn = f->conn,
		.tcp_flags = p->tcp_flags,
		.reason = f->reason,
		.port = f->port,
		.flags = p->cflags,
	};
	int thr = npuflow_threshold == 1;
	int rev = f->revive;
	struct npuflow_cand *v;
	long err;

	if (thr)
		nv.flags |= NPUFLOW_CF_THRESHOLD;
	if (rev)
		nv.revive_ns = f->now;
	err = bpf_map_update_elem(&candidates, key, &nv, BPF_NOEXIST);
	if (!err) {
		c->stat[NPUFLOW_S_NEW]++;
		if (thr && emit(NPUFLOW_EV_THRESHOLD, key, &nv, 1, f->now, f->reason,
				f->conn, f->hash, c))
			lost(bpf_map_lookup_elem(&candidates, key), c);
		if (rev && emit(NPUFLOW_EV_REVIVE, key, &nv, 1, f->now, f->reason,
				f->conn, f->hash, c))
			lost(NULL, c);
		if (f->e && !rev && (!npuflow_threshold || thr))
			cache_fill(f->e, f->own, key, &nv, f->tick, m, f->pflags);
		return NULL;
	}
	/* Another CPU inserted it first: update that one. */
	v = err == -EEXIST ? bpf_map_lookup_elem(&candidates, key) : NULL;
	if (!v)
		c->stat[NPUFLOW_S_CAND_FAIL]++;
	return v;
}

/*
 * A known candidate: updated in place, only what changed written; f->n
 * frames and f->nb bytes are this one and what its cache entry held.
 */
static __always_inline void cand_update(struct frame *f, struct npuflow_cand *v,
					const struct npuflow_key *key,
					const struct parsed *p,
					struct npuflow_counters *c,
					const struct npuflow_meta *m)
{
	__u64 old = __sync_fetch_and_add(&v->frames, f->n);

	__sync_fetch_and_add(&v->bytes, f->nb);
	if (v->last_ns != f->now)
		v->last_ns = f->now;
	if ((v->tcp_flags | p->tcp_flags) != v->tcp_flags)
		v->tcp_flags |= p->tcp_flags;
	if ((v->flags | p->cflags) != v->flags)
		v->flags |= p->cflags;
	if (v->reason != f->reason)
		v->reason = f->reason;
	if (v->conn != f->conn)
		v->conn = f->conn;
	if (v->port != f->port)
		v->port = f->port;
	if (old < npuflow_threshold && old + f->n >= npuflow_threshold) {
		v->flags |= NPUFLOW_CF_THRESHOLD;
		if (emit(NPUFLOW_EV_THRESHOLD, key, v, old + f->n, f->now, f->reason,
			 f->conn, f->hash, c))
			lost(v, c);
	}
	if (f->revive) {
		if (revive_due(v, f->now) &&
		    emit(NPUFLOW_EV_REVIVE, key, v, old + f->n, f->now, f->reason,
			 f->conn, f->hash, c))
			lost(NULL, c);
		return;
	}
	if (f->e && (!npuflow_threshold || (v->flags & NPUFLOW_CF_THRESHOLD)))
		cache_fill(f->e, f->own, key, v, f->tick, m, f->pflags);
}

/*
 * One punted frame: counted, parsed, its candidate updated, events raised.
 * The program's body (npuflow_classify()); the benchmark's variants
 * (selftests/bpf/classify_*.bpf.c) build on it.
 */
static __always_inline int classify(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct npuflow_meta *m = (void *)(long)ctx->data_meta;
	struct frame f = {
		.len = end - data, .ifindex = ctx->ingress_ifindex, .n = 1,
		.conn = NPUFLOW_CONN_NONE, .reason = NPUFLOW_R_NONE, .port = NPUFLOW_PORT_NONE,
	};
	union npuflow_key_w kw;		/* written by parse_l2(), parse_l3_xdp() */
	struct parsed p = {};
	struct npuflow_counters *c;
	struct npuflow_cand *v;
	__be16 l3;
	__u32 off;

	off = parse_l2(data, end, f.ifindex, &kw, &p, &l3);
	if (off)
		parse_l3_xdp(ctx, off, l3, &kw, &p);
	f.nb = f.len;
	f.pflags = p.cflags | (p.other_l4 ? NPUFLOW_CACHE_OTHER_L4 : 0);
	if (cache_hit(&f, &kw, &p, m, data))
		return XDP_PASS;
	meta_read(&f, m, data, &p);
	c = count_frame(&f, &p);
	if (!c)
		return XDP_PASS;

	f.revive = f.reason == NPUFLOW_R_NOT_ACTIVE && f.conn != NPUFLOW_CONN_NONE;
	if (!f.hashed)
		f.e = NULL;	/* no hardware hash: the cache is not used */
	if (f.e && f.same) {
		/* what it holds is written back with this frame, below */
		f.own = 1;
		f.e->tick = 0;		/* written again below, or unused */
		if (f.e->frames)
			cache_count(f.e);
	}

	f.now = npuflow_coarse_clock ? bpf_ktime_get_coarse_ns() : bpf_ktime_get_ns();
	v = bpf_map_lookup_elem(&candidates, &kw.k);
	if (f.own)
		cache_take(&f, v);
	if (!v) {
		v = cand_insert(&f, &kw.k, &p, c, m);
		if (!v)
			return XDP_PASS;
	}
	cand_update(&f, v, &kw.k, &p, c, m);
	return XDP_PASS;
}

SEC("xdp")
int npuflow_classify(struct xdp_md *ctx)
{
	return classify(ctx);
}

/*
 * On each port's clsact egress (npuflowd attaches it): a frame the host
 * forwarded out of the port, after its firewall and NAT, records when
 * (CLOCK_MONOTONIC ns) in "forwarded" under its key as it leaves: ifindex
 * the port, no tags, no PPPoE session, addresses and ports after NAT.  Conntrack marks an
 * entry established before the forward chain sees its frames, so only
 * this shows that the ruleset passes a direction: npuflowd makes a
 * connection only when both directions went out since the last ruleset
 * change.  Observes, never drops.  A frame whose headers are not in the
 * skb's linear part is not recorded (its connection waits for one that is).
 */
SEC("tc")
int npuflow_forwarded(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	union npuflow_key_w k;
	__be16 l3;
	__u32 off;
	struct parsed p = {};
	__u64 now, *t;

	off = parse_l2(data, end, skb->ifindex, &k, &p, &l3);
	if (off)
		parse_l3_skb(skb, off, l3, &k, &p);
	if (p.stat != NPUFLOW_S_CANDIDATE)
		return TC_ACT_OK;
	k.w[0] = KW(skb->ifindex, 0, 4);
	k.w[1] &= ~KW(0xffff, 2, 2);	/* the session's id */
	now = bpf_ktime_get_coarse_ns();
	t = bpf_map_lookup_elem(&forwarded, &k.k);
	if (t) {
		if (*t != now)
			*t = now;
	} else {
		bpf_map_update_elem(&forwarded, &k.k, &now, BPF_ANY);
	}
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
