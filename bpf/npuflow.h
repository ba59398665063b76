/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * npuflow.h - the records shared by the XDP classifier (bpf/classify.bpf.c),
 * the npuep driver (it writes struct npuflow_meta in front of every punted
 * frame) and userspace (npuflowd, npuctl, the selftests).
 *
 * Every type here is fixed size, naturally aligned and has no implicit
 * padding (explicit pad fields, always written as zero), so a key hashes
 * the same however it was built, and the BPF object's BTF describes the
 * records exactly: `bpftool map dump pinned /sys/fs/bpf/npuflow/<map>` prints
 * them field by field.
 *
 * Byte order: addresses and ports in struct npuflow_key are in network
 * order, as in the frame; every other field is host order.
 */
#ifndef _NPUFLOW_H
#define _NPUFLOW_H

#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* XDP metadata, written by the driver into the data_meta area.       */

/*
 * The driver reserves exactly sizeof(struct npuflow_meta) bytes of metadata
 * in the headroom (xdp->data_meta = xdp->data - sizeof(struct npuflow_meta):
 * the struct starts at data_meta and ends where the frame starts) and fills
 * it from the receive descriptor.  The classifier reads it at data_meta.  A program tells it is present by the size
 * of the metadata area (data - data_meta >= sizeof) and by @magic and
 * @version; otherwise (veth, generic XDP, another driver) it uses reason
 * NPU_PUNT_NONE, no port and no connection.
 *
 * 16 bytes: a multiple of 8, within the kernel's 32-byte metadata limit.
 */
#define NPUFLOW_META_MAGIC	0x4e46		/* "NF" */
#define NPUFLOW_META_VERSION	1

struct npuflow_meta {
	__u16 magic;		/* NPUFLOW_META_MAGIC */
	__u8 version;		/* NPUFLOW_META_VERSION */
	__u8 reason;		/* enum npu_punt_reason (kernel/include/npu_hw.h) */
	__u8 port;		/* ingress front port, 0-based (< NPUFLOW_MAX_PORTS) */
	__u8 flags;		/* NPUFLOW_META_F_* */
	__u16 vlan_tci;		/* outer VLAN TCI if NPUFLOW_META_F_VLAN (tag stays in frame) */
	__u32 hash;		/* hardware RSS hash (Toeplitz), if NPUFLOW_META_F_HASH_* */
	__u32 conn;		/* hardware connection index, or NPUFLOW_CONN_NONE */
};

#define NPUFLOW_META_F_HASH_L4	0x01	/* hash covers addresses and ports */
#define NPUFLOW_META_F_HASH_L3	0x02	/* hash covers addresses only */
#define NPUFLOW_META_F_VLAN	0x04	/* vlan_tci valid */
#define NPUFLOW_META_F_CSUM_OK	0x08	/* L4 checksum verified by the device */

/* Mirrors of kernel/include/npu_hw.h (that header is kernel-only); the
 * selftests check the values are the same.
 */
#define NPUFLOW_MAX_PORTS	16		/* NPU_MAX_PORTS */
#define NPUFLOW_CONN_NONE	0xffffffffu	/* NPU_CONN_NONE */

/* enum npu_punt_reason, values are ABI. */
#define NPUFLOW_R_NONE		0	/* not a punt / no metadata (veth) */
#define NPUFLOW_R_FLOW_MISS	1
#define NPUFLOW_R_NOT_ACTIVE	2	/* a given-back connection: the revive signal */
#define NPUFLOW_R_TCP_FLAGS	3
#define NPUFLOW_R_EXCEPTION	4
#define NPUFLOW_R_MTU		5
#define NPUFLOW_R_NON_IP	6
#define NPUFLOW_R_MCAST		7
#define NPUFLOW_R_FASTPATH_OFF	8
#define NPUFLOW_R_NTUPLE	9
#define NPUFLOW_R_MALFORMED	10
#define NPUFLOW_R_MAX		11	/* NPU_PUNT_MAX */
#define NPUFLOW_R_SLOTS		12	/* counters: 0..10, and 11 = out of range */
#define NPUFLOW_R_UNKNOWN	11	/* slot for a reason >= NPUFLOW_R_MAX */

/* ------------------------------------------------------------------ */
/* Candidates: one per direction of a connection, as punted frames     */
/* show it.  BPF_MAP_TYPE_LRU_HASH "candidates".                       */

#define NPUFLOW_CANDIDATES_DEFAULT	65536	/* seed 004 lost directions with 1,024 */

/*
 * 48 bytes, no holes.  IPv4 addresses fill saddr/daddr[0..3], the rest is zero.
 * TCP/UDP: the ports.  ICMP/ICMPv6 (as conntrack keys them): sport is the
 * echo/query identifier (0 for error messages), dport is type << 8 | code,
 * both network order.  Other protocols: ports zero.  VLANs: the 12-bit VID
 * of the outer and inner tag (0 when absent).
 */
struct npuflow_key {
	__u32 ifindex;		/* ingress netdev */
	__u16 vlan_outer;	/* VID of the outer tag (802.1ad or 802.1Q), 0 = none */
	__u16 vlan_inner;	/* VID of the inner tag (Q-in-Q), 0 = none */
	__u8 family;		/* AF_INET (2) or AF_INET6 (10) */
	__u8 proto;		/* IPPROTO_* of the L4 header */
	__u16 pad;		/* zero */
	__be16 sport;
	__be16 dport;
	__u8 saddr[16];		/* bytes as on the wire (bpftool prints them readably) */
	__u8 daddr[16];
};

/* 48 bytes, no holes. */
struct npuflow_cand {
	__u64 frames;		/* atomically incremented */
	__u64 bytes;		/* L2 bytes (frame length), atomically added */
	__u64 first_ns;		/* CLOCK_MONOTONIC ns of the first frame (npuflow_coarse_clock) */
	__u64 last_ns;		/* ... of the latest frame */
	__u64 revive_ns;	/* time of the last revive event (rate limit), 0 = never */
	__u32 conn;		/* last hardware connection index, NPUFLOW_CONN_NONE */
	__u8 tcp_flags;		/* OR of the TCP flags seen (FIN 0x01 .. CWR 0x80) */
	__u8 reason;		/* punt reason of the latest frame */
	__u8 port;		/* ingress front port, 0-based; NPUFLOW_PORT_NONE */
	__u8 flags;		/* NPUFLOW_CF_* (OR of what was seen) */
};

#define NPUFLOW_PORT_NONE	0xff

#define NPUFLOW_CF_IP_OPTIONS	0x01	/* IPv4 options present */
#define NPUFLOW_CF_FRAGMENT	0x02	/* first fragment (IPv4 MF, IPv6 fragment header) */
#define NPUFLOW_CF_EXTHDR	0x04	/* IPv6 extension headers present */
#define NPUFLOW_CF_THRESHOLD	0x08	/* a threshold event was raised for it */
#define NPUFLOW_CF_META		0x10	/* frames carried driver metadata */

/* ------------------------------------------------------------------ */
/* Counters: BPF_MAP_TYPE_PERCPU_ARRAY "counters", one entry per port  */
/* slot.  Slots 0..NPUFLOW_MAX_PORTS-1 are the coprocessor's front     */
/* ports (from metadata); a frame without metadata is counted in slot  */
/* NPUFLOW_MAX_PORTS + ifindex % NPUFLOW_IF_SLOTS, the slot records     */
/* the last ifindex counted there.                                     */

#define NPUFLOW_IF_SLOTS	16
#define NPUFLOW_PORT_SLOTS	(NPUFLOW_MAX_PORTS + NPUFLOW_IF_SLOTS)

/* Parse outcomes and events, per port slot. */
enum npuflow_stat {
	NPUFLOW_S_CANDIDATE = 0,	/* recorded as a candidate (known or new) */
	NPUFLOW_S_NEW,			/* ... of which created a new candidate */
	NPUFLOW_S_NON_IP,		/* ethertype not IPv4/IPv6 (ARP, LLDP, ...) */
	NPUFLOW_S_TRUNC_L2,		/* ends inside Ethernet or VLAN header */
	NPUFLOW_S_TRUNC_L3,		/* ends inside the IP header, its options or extension
					 * headers, or before the datagram's announced length */
	NPUFLOW_S_TRUNC_L4,		/* the datagram ends inside the TCP/UDP/ICMP header */
	NPUFLOW_S_MALFORMED,		/* IP version, IHL < 5, tot_len < IHL, extension headers
					 * past payload_len, TCP doff < 5 or past the datagram,
					 * UDP length < 8 or past the datagram */
	NPUFLOW_S_FRAGMENT,		/* IP fragments (first ones are also candidates) */
	NPUFLOW_S_NONFIRST_FRAG,	/* ... of which non-first: no ports, not candidates */
	NPUFLOW_S_IP_OPTIONS,		/* IPv4 with options */
	NPUFLOW_S_EXTHDR,		/* IPv6 with extension headers */
	NPUFLOW_S_EXTHDR_LIMIT,		/* IPv6 chain longer than NPUFLOW_IPV6_EXT_MAX */
	NPUFLOW_S_VLAN_DEPTH,		/* more than two VLAN tags */
	NPUFLOW_S_OTHER_L4,		/* not TCP/UDP/ICMP: candidate without ports */
	NPUFLOW_S_BAD_META,		/* magic right, version/port/reason wrong */
	NPUFLOW_S_THRESHOLD,		/* threshold events raised */
	NPUFLOW_S_REVIVE,		/* revive events raised */
	NPUFLOW_S_EVENT_LOST,		/* ring buffer full: event not raised */
	NPUFLOW_S_CAND_FAIL,		/* candidate map update failed */
	NPUFLOW_S_MAX,
};
#define NPUFLOW_S_SLOTS		20	/* >= NPUFLOW_S_MAX */

/* 8 + 8 * (12 + 12 + 20) = 360 bytes per CPU per slot. */
struct npuflow_counters {
	__u32 ifindex;			/* last ifindex counted in this slot */
	__u32 pad;
	__u64 frames[NPUFLOW_R_SLOTS];	/* frames per punt reason */
	__u64 bytes[NPUFLOW_R_SLOTS];	/* L2 bytes per punt reason */
	__u64 stat[NPUFLOW_S_SLOTS];	/* enum npuflow_stat */
};

/* ------------------------------------------------------------------ */
/* Events: BPF_MAP_TYPE_RINGBUF "events".                              */

#define NPUFLOW_EV_THRESHOLD	1	/* a candidate reached the threshold (once) */
#define NPUFLOW_EV_REVIVE	2	/* "not active" frame of a connection in hardware */

/* 88 bytes. */
struct npuflow_event {
	__u32 type;		/* NPUFLOW_EV_* */
	__u32 conn;		/* hardware connection index or NPUFLOW_CONN_NONE */
	__u64 ts_ns;		/* CLOCK_MONOTONIC ns, as the candidate's last_ns */
	__u64 frames;		/* candidate's frames including this one */
	__u64 bytes;
	struct npuflow_key key;
	__u8 reason;
	__u8 port;
	__u8 tcp_flags;
	__u8 flags;		/* candidate's NPUFLOW_CF_* */
	__u32 hash;		/* hardware hash (metadata), 0 without */
};

/* IPv6 extension headers walked before giving up (counted EXTHDR_LIMIT). */
#define NPUFLOW_IPV6_EXT_MAX	6

/* Defaults of the loader-set read-only variables. */
#define NPUFLOW_THRESHOLD_DEFAULT	16	/* frames */
#define NPUFLOW_REVIVE_GAP_DEFAULT	1000000ull	/* ns between revive events per candidate */
#define NPUFLOW_RINGBUF_DEFAULT		(256 * 1024)

#define NPUFLOW_PIN_DIR		"/sys/fs/bpf/npuflow"

/* The layouts are ABI between the driver, the programs and userspace. */
_Static_assert(sizeof(struct npuflow_meta) == 16, "npuflow_meta: 16 bytes");
_Static_assert(sizeof(struct npuflow_key) == 48, "npuflow_key: 48 bytes, no holes");
_Static_assert(sizeof(struct npuflow_cand) == 48, "npuflow_cand: 48 bytes, no holes");
_Static_assert(sizeof(struct npuflow_counters) == 360, "npuflow_counters: no holes");
_Static_assert(sizeof(struct npuflow_event) == 88, "npuflow_event: no holes");
_Static_assert(NPUFLOW_S_MAX <= NPUFLOW_S_SLOTS, "stat slots");

#endif /* _NPUFLOW_H */
