/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * npuflow.h - the records shared by the XDP classifier (bpf/classify.bpf.c)
 * and userspace (npuflowd, npuctl, the selftests); what the npuep driver
 * shares with them is in kernel/include/npuflow_meta.h, included here.
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

/*
 * The metadata the driver writes in front of every punted frame, and the
 * device's values it carries (NPUFLOW_R_*, NPUFLOW_MAX_PORTS,
 * NPUFLOW_CONN_NONE): the one header the driver and the programs share.
 */
#include "../kernel/include/npuflow_meta.h"

/* Per-reason counter slots: 0..10, and 11 for a reason out of range. */
#define NPUFLOW_R_SLOTS		12
#define NPUFLOW_R_UNKNOWN	11	/* slot for a reason >= NPUFLOW_R_MAX */

/* ------------------------------------------------------------------ */
/* Candidates: one per direction of a connection, as punted frames     */
/* show it.  BPF_MAP_TYPE_LRU_HASH "candidates".                       */

/* room for both directions of every connection (docs/measurements.md, "Candidate table size") */
#define NPUFLOW_CANDIDATES_DEFAULT	65536

/*
 * 48 bytes, no holes.  IPv4 addresses fill saddr/daddr[0..3], the rest is zero.
 * TCP/UDP: the ports.  ICMP/ICMPv6 (as conntrack keys them): sport is the
 * echo/query identifier (0 for error messages), dport is type << 8 | code,
 * both network order.  Other protocols: ports zero.  VLANs: the 12-bit VID
 * of the outer and inner tag (0 when absent), NPUFLOW_VLAN_AD set when the
 * tag's TPID is 0x88a8 (802.1ad), clear for 0x8100.  PPPoE: the session id
 * of a session frame (0x8864) that carries IPv4 or IPv6, 0 for a frame
 * outside a session.
 */
struct npuflow_key {
	__u32 ifindex;		/* ingress netdev */
	__u16 vlan_outer;	/* VID of the outer tag | NPUFLOW_VLAN_AD, 0 = none */
	__u16 vlan_inner;	/* VID of the inner tag (Q-in-Q) | NPUFLOW_VLAN_AD, 0 = none */
	__u8 family;		/* AF_INET (2) or AF_INET6 (10) */
	__u8 proto;		/* IPPROTO_* of the L4 header */
	__u16 pppoe_sid;	/* PPPoE session id, 0 = none */
	__be16 sport;
	__be16 dport;
	__u8 saddr[16];		/* bytes as on the wire (bpftool prints them readably) */
	__u8 daddr[16];
};

/* struct npuflow_key.vlan_outer, vlan_inner: the tag's TPID is 0x88a8 */
#define NPUFLOW_VLAN_AD		0x8000
#define NPUFLOW_VLAN_VID	0x0fff

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
#define NPUFLOW_CF_EVENT_LOST	0x20	/* its threshold event found the ring full (counted
					 * NPUFLOW_S_EVENT_LOST): npuflowd's rescan takes it */

/* ------------------------------------------------------------------ */
/* Candidate cache: BPF_MAP_TYPE_PERCPU_ARRAY "candcache", direct      */
/* mapped by the hardware hash (metadata): slot = hash % CACHE_SLOTS.  */

/*
 * A known candidate that has raised its threshold event (or any, with
 * threshold 0) is cached in its slot on the CPU that saw it.  A frame that
 * matches the cached key in the same tick (jiffy; the coarse clock moves
 * with it) as the entry's last write to the candidate, and changes nothing
 * but frames and bytes (byte for byte the same metadata - so the same
 * reason, connection index, port and hash, not a revive -, the same parse
 * flags, no new TCP flags), only adds to the entry's frames and bytes: no
 * hash-map lookup, and no counters either: those frames are also the
 * port's (meta.port) frames and bytes of reason meta.reason and its
 * NPUFLOW_S_CANDIDATE frames (and NPUFLOW_S_IP_OPTIONS, _FRAGMENT,
 * _EXTHDR, _OTHER_L4 as @pflags says).  The first frame of a new tick, any
 * change, another flow on the slot, or a cache generation bump writes the
 * entry's frames and bytes into the candidate (if it is still the same
 * candidate: same first_ns) and always into the counters, with the frame's
 * own.  So the candidate's last_ns, flags, reason, conn and port are as
 * current as without the cache (tick resolution), and the frames and bytes
 * of candidates and counters lag by what the entries hold: readers add
 * them (npuflow_cache_fold() and npuflow_cache_count(),
 * lib/npuflow_cache.c; npuctl and npuflowd do; a raw `bpftool map dump`
 * does not).  A counters slot's ifindex is the last one written there.  Whoever deletes
 * candidates from userspace bumps npuflow_cache_gen (classifier .bss) so no
 * CPU keeps counting for a deleted candidate; a deletion it does not hear
 * of (LRU eviction, bpftool) is seen at the next tick.  Not used without a
 * hardware hash (veth, generic XDP) or with the precise clock.
 */
#define NPUFLOW_CACHE_SLOTS	1024	/* per CPU, power of two */

/* 104 bytes, no holes. */
struct npuflow_cache {
	struct npuflow_key key;	/* ifindex 0: empty */
	__u64 frames;		/* frames not yet added to the candidate and counters */
	__u64 bytes;		/* ... and their bytes */
	__u64 tick;		/* bpf_jiffies64() when this CPU last wrote the candidate */
	__u64 first_ns;		/* candidate's first_ns: which candidate it is */
	struct npuflow_meta meta; /* metadata of the frame that wrote it (valid, hashed) */
	__u32 gen;		/* npuflow_cache_gen when written */
	__u8 tcp_flags;		/* the candidate's TCP flags when written */
	__u8 pflags;		/* that frame's parse: NPUFLOW_CF_IP_OPTIONS, _FRAGMENT, */
	__u16 pad;		/* _EXTHDR, and NPUFLOW_CACHE_OTHER_L4 */
};

#define NPUFLOW_CACHE_OTHER_L4	0x80	/* pflags: the frames count as NPUFLOW_S_OTHER_L4 */

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
	NPUFLOW_S_CACHED,		/* candidate frames the per-CPU cache took (also
					 * NPUFLOW_S_CANDIDATE): written back, or still held */
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

/*
 * Add the frames candidate-cache entry @e holds to @c, its port's counters
 * (slot e->meta.port): the classifier when it writes the entry back, and
 * readers that sum the counters map and the cache (lib/npuflow_cache.c).
 */
static inline void npuflow_cache_to_counters(struct npuflow_counters *c,
					     const struct npuflow_cache *e)
{
	__u32 r = e->meta.reason;

	if (r >= NPUFLOW_R_MAX)
		r = NPUFLOW_R_UNKNOWN;
	c->frames[r] += e->frames;
	c->bytes[r] += e->bytes;
	c->stat[NPUFLOW_S_CANDIDATE] += e->frames;
	c->stat[NPUFLOW_S_CACHED] += e->frames;
	if (e->pflags & NPUFLOW_CF_IP_OPTIONS)
		c->stat[NPUFLOW_S_IP_OPTIONS] += e->frames;
	if (e->pflags & NPUFLOW_CF_FRAGMENT)
		c->stat[NPUFLOW_S_FRAGMENT] += e->frames;
	if (e->pflags & NPUFLOW_CF_EXTHDR)
		c->stat[NPUFLOW_S_EXTHDR] += e->frames;
	if (e->pflags & NPUFLOW_CACHE_OTHER_L4)
		c->stat[NPUFLOW_S_OTHER_L4] += e->frames;
}

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

/* ------------------------------------------------------------------ */
/* Connections: BPF_MAP_TYPE_HASH "connections", key __u32 id, written */
/* by npuflowd only (the programs never touch it; it lives in the BPF  */
/* object so its BTF describes it and bpftool prints it).  One entry   */
/* per connection the flow maker knows: made, held, refused, released. */

#define NPUFLOW_CONNECTIONS_DEFAULT	65536

/* enum npuflow_conn_state (values are ABI: pinned, read by npuctl). */
#define NPUFLOW_CS_FREE		0
#define NPUFLOW_CS_PENDING	1	/* candidate watched: under the byte threshold */
#define NPUFLOW_CS_LOOKUP	2	/* being looked up / written */
#define NPUFLOW_CS_MADE		3	/* both directions in hardware */
#define NPUFLOW_CS_HELD		4	/* given back under a new identity: held, wait running */
#define NPUFLOW_CS_WAITING	5	/* wait over, no traffic yet: remade at the next crossing */
#define NPUFLOW_CS_REFUSED	6	/* stays on the host (reason), looked up again after a while */
#define NPUFLOW_CS_RELEASED	7	/* released to the host on demand, until conntrack drops it */
#define NPUFLOW_CS_MAX		8

/* Why a connection is not (or no longer) in hardware: refuse reasons. */
#define NPUFLOW_FR_NONE			0
#define NPUFLOW_FR_NO_CT		1	/* conntrack has no entry */
#define NPUFLOW_FR_NOT_ESTABLISHED	2	/* not established/assured yet */
#define NPUFLOW_FR_HELPER		3	/* conntrack helper: never offloaded */
#define NPUFLOW_FR_SEQADJ		4	/* sequence adjustment: never */
#define NPUFLOW_FR_IPSEC		5	/* IPsec policy on the path: never */
#define NPUFLOW_FR_SHAPING		6	/* egress port shaped (root qdisc): never */
#define NPUFLOW_FR_FOREIGN		7	/* egress not a port of the same coprocessor */
#define NPUFLOW_FR_NO_ROUTE		8
#define NPUFLOW_FR_NO_NEIGH		9	/* next hop not resolved (yet) */
#define NPUFLOW_FR_LOCAL		10	/* to or from the host itself */
#define NPUFLOW_FR_PROTO		11	/* not TCP/UDP */
#define NPUFLOW_FR_TABLE_FULL		12	/* hardware table full: stays on host, counted */
#define NPUFLOW_FR_HW_ERROR		13	/* the hook refused the rule (other error) */
#define NPUFLOW_FR_CONFLICT		14	/* a direction already belongs to another connection */
#define NPUFLOW_FR_VLAN			15	/* tagged as npuflowd does not write: Q-in-Q, 802.1ad,
						 * no 802.1Q device of the host for the tag */
#define NPUFLOW_FR_PPPOE		16	/* a PPPoE session npuflowd cannot resolve */
#define NPUFLOW_FR_SLOTS		17

#define NPUFLOW_CONN_F_NAT	0x01	/* addresses or ports translated */
#define NPUFLOW_CONN_F_ROUTED	0x02	/* TTL/hop limit decremented (routed, not bridged) */
#define NPUFLOW_CONN_F_SEEN	0x04	/* traffic seen while held */
#define NPUFLOW_CONN_F_HW0	0x10	/* direction 0's rule is in hardware */
#define NPUFLOW_CONN_F_HW1	0x20	/* direction 1's rule is in hardware */
#define NPUFLOW_CONN_F_EVICTED	0x40	/* held: a busier connection took its slot */

/*
 * 312 bytes, no holes.  Direction 0 is conntrack's original direction as it
 * arrives on its ingress port, direction 1 the reply direction as it
 * arrives on its own (with NAT, key[1] carries the translated addresses).
 * Times are CLOCK_MONOTONIC ns.
 */
struct npuflow_conn {
	struct npuflow_key key[2];
	__u32 state;		/* NPUFLOW_CS_* */
	__u32 reason;		/* NPUFLOW_FR_* while refused; last refusal otherwise */
	__u32 ct_id;		/* conntrack's id of the entry */
	__u32 zone;		/* conntrack zone */
	__u32 out_ifindex[2];	/* egress netdev of each direction */
	__u8 dmac[2][6];	/* next hop MAC of each direction */
	__u8 smac[2][6];	/* egress port's MAC of each direction */
	__u32 hw_handle[2];	/* tc filter handle of each direction (0 = none) */
	__u16 tc_prio;		/* tc filter priority of direction 0's rule */
	__u16 flags;		/* NPUFLOW_CONN_F_* */
	__u16 out_vid[2];	/* outer tag each direction leaves with (VID |
				 * NPUFLOW_VLAN_AD), 0 = untagged */
	__u16 out_vid_inner[2];	/* its inner tag (802.1Q VID), 0 = one tag or none */
	__u16 out_sid[2];	/* PPPoE session it leaves in, 0 = none */
	__u64 made_ns;		/* last made (or remade) */
	__u64 state_ns;		/* entered the current state */
	__u64 until_ns;		/* hold / retry / watch expiry */
	__u64 last_used_ns;	/* hardware last used (either direction) */
	__u64 last_giveback_ns;	/* 0 = never */
	__u64 wait_ns;		/* current hold wait (doubles, capped) */
	__u64 packets[2];	/* hardware counters per direction */
	__u64 bytes[2];
	__u32 givebacks;	/* given back under a new identity */
	__u32 remakes;		/* made again after a hold */
	__u32 revives;		/* revive events seen (the driver revives in place) */
	__u32 holds;
	__u64 cand_frames;	/* candidate's frames/bytes when it crossed */
	__u64 cand_bytes;
	/* The last make, for make bench's time to hardware (classifier clock,
	 * the same CLOCK_MONOTONIC): */
	__u64 first_ns;		/* first frame either direction's candidate counted */
	__u64 cross_ns;		/* the frame whose crossing started it (0 = a timer's) */
	__u64 hw_ns;		/* the write returned: both rules in hardware */
	__u64 punted;		/* frames both directions' candidates had counted then */
};

/* Flow-maker counters: BPF_MAP_TYPE_ARRAY "fmstats", one entry, written by npuflowd. */
enum npuflow_fm_stat {
	NPUFLOW_FM_EVENTS = 0,		/* threshold events handled */
	NPUFLOW_FM_STALE,		/* ... older than the connection (ignored) */
	NPUFLOW_FM_LOOKUPS,		/* conntrack lookups */
	NPUFLOW_FM_MADE,		/* connections made (first time) */
	NPUFLOW_FM_REMADE,		/* made again after a hold */
	NPUFLOW_FM_GIVEBACKS,		/* identity changes of made connections */
	NPUFLOW_FM_HELD,		/* holds started */
	NPUFLOW_FM_HELD_EVENTS,		/* crossings while held */
	NPUFLOW_FM_REVIVES,		/* revive events (driver revives in place) */
	NPUFLOW_FM_TAKEN_OUT,		/* taken out on conntrack DESTROY */
	NPUFLOW_FM_RELEASED,		/* released to the host (npuctl release, a ruleset change) */
	NPUFLOW_FM_REFUSED,		/* refusals, by reason in refused[] */
	NPUFLOW_FM_PUNTED_MADE,		/* crossings of a made connection for another reason */
	NPUFLOW_FM_CORE_FULL,		/* flow maker's own table full */
	NPUFLOW_FM_EXPIRED,		/* watched/held/refused entries forgotten */
	NPUFLOW_FM_CT_REFRESH,		/* conntrack timeouts refreshed (keepalive) */
	NPUFLOW_FM_CT_RESYNC,		/* full resyncs after ENOBUFS */
	NPUFLOW_FM_HW_WRITES,		/* tc rules written */
	NPUFLOW_FM_HW_DELETES,		/* tc rules deleted */
	NPUFLOW_FM_HW_ORPHANS,		/* rules found without a connection (restart), deleted */
	NPUFLOW_FM_RESTORED,		/* connections restored at start */
	NPUFLOW_FM_LOOKUP_US,		/* time in lookups (conntrack, egress), us */
	NPUFLOW_FM_WRITE_US,		/* time in writes (be-liberal, tc rules), us */
	NPUFLOW_FM_EGRESS_CACHED,	/* egress facts answered from npuflowd's cache */
	NPUFLOW_FM_EGRESS_ASKED,	/* ... asked of rtnetlink (a miss) */
	NPUFLOW_FM_CT_US,		/* of lookup_us: the conntrack query, us */
	NPUFLOW_FM_CT_SWEPT,		/* taken out by the periodic conntrack check: no DESTROY came */
	NPUFLOW_FM_RESCANS,		/* walks of the candidates after threshold events were lost */
	NPUFLOW_FM_RESCANNED,		/* ... crossings they found (NPUFLOW_CF_EVENT_LOST), handled
					 * as threshold events */
	NPUFLOW_FM_RESCAN_LOST,		/* gauge: the classifier's NPUFLOW_S_EVENT_LOST total the
					 * last complete walk covered */
	NPUFLOW_FM_REROUTED,		/* made connections whose egress moved under them (next
					 * hop's MAC, route, port, tag, MTU) or went: back to the
					 * host, to be made again from their next frames */
	NPUFLOW_FM_RULESETS,		/* nftables rulesets committed: each released the made
					 * connections to the host */
	NPUFLOW_FM_FULL_TRIES,		/* lookups admitted while the hardware table was full */
	NPUFLOW_FM_FULL_WAITS,		/* ... not admitted: no slot freed (no lookup, no write) */
	NPUFLOW_FM_TABLE_FULL,		/* gauge: 1 while the last write found the table full */
	NPUFLOW_FM_FULL_WAITING,	/* gauge: connections waiting for a slot (refused
					 * table_full) */
	NPUFLOW_FM_EVICTED,		/* made connections displaced by busier waiting ones */
	NPUFLOW_FM_BUSY_WALKS,		/* walks of the candidates for waiting connections' rates */
	NPUFLOW_FM_LIBERAL_UNDONE,	/* be-liberal taken back after a write that failed */
	NPUFLOW_FM_CT_DESTROYS,		/* conntrack DESTROY events read (any entry's) */
	NPUFLOW_FM_CT_RELIABLE,		/* gauge: 1 while no DESTROY event can be lost
					 * (NETLINK_BROADCAST_ERROR): the sweep is rare */
	NPUFLOW_FM_KEEPALIVE_US,	/* time in keepalive (rule dumps, refreshes), us */
	NPUFLOW_FM_SWEEP_US,		/* time in the periodic conntrack sweeps, us */
	NPUFLOW_FM_RECHECK_US,		/* time in the made connections' egress rechecks, us */
	NPUFLOW_FM_RESCAN_US,		/* time in the rescans of the candidates, us */
	NPUFLOW_FM_TIMERS_US,		/* time in the policy's timers and the waiting
					 * connections' walks, us */
	NPUFLOW_FM_TABLE_WALKS,		/* the policy's walks of its table for timers (a
					 * watched entry, a timer due, a full table's slot) */
	NPUFLOW_FM_EVICT_WALKS,		/* ... for the eviction pass (a busy waiting one) */
	NPUFLOW_FM_MAX,
};
#define NPUFLOW_FM_SLOTS	48

struct npuflow_fmstats {
	__u64 stat[NPUFLOW_FM_SLOTS];		/* enum npuflow_fm_stat */
	__u64 refused[NPUFLOW_FR_SLOTS];	/* NPUFLOW_FR_* */
	__u64 state[NPUFLOW_CS_MAX];		/* connections per state (gauge) */
	__u64 start_ns;				/* npuflowd started */
	__u64 updated_ns;			/* last written */
};

/*
 * npuflowd's loop: BPF_MAP_TYPE_ARRAY "loopstats", one entry, written by
 * npuflowd about once a second (npuctl status).  A pass of the loop is one
 * wait for its fds and what follows it; a pass woken by several fds counts
 * in each one's wakes[] slot.
 */
enum npuflow_loop_wake {
	NPUFLOW_LW_TIMEOUT = 0,		/* the wait ran out: the timers' tick */
	NPUFLOW_LW_RING,		/* the classifier's event ring */
	NPUFLOW_LW_CT,			/* conntrack events */
	NPUFLOW_LW_CTL,			/* the control socket */
	NPUFLOW_LW_CT_CLOSING,		/* closing TCP entries' events */
	NPUFLOW_LW_MON_RT,		/* rtnetlink's announcements (routes, neighbours, links) */
	NPUFLOW_LW_MON_XFRM,		/* xfrm's announcements */
	NPUFLOW_LW_MON_NFT,		/* nftables' announcements */
	NPUFLOW_LW_SIGNAL,		/* the wait interrupted by a signal */
	NPUFLOW_LW_MAX,
};
#define NPUFLOW_LW_SLOTS	16

/* Where the loop's time goes, us (its monotonic clock, the wait excluded). */
enum npuflow_loop_part {
	NPUFLOW_LP_EVENTS = 0,		/* the event ring's events */
	NPUFLOW_LP_CONNTRACK,		/* conntrack's events (both sockets) */
	NPUFLOW_LP_CONTROL,		/* the control socket's requests */
	NPUFLOW_LP_TIMERS,		/* the flow maker's tick (its parts: fmstats' _US) */
	NPUFLOW_LP_LOG,			/* the log's lines written */
	NPUFLOW_LP_OTHER,		/* the rest of a pass: the wait's set-up, the counters */
	NPUFLOW_LP_MAX,
};
#define NPUFLOW_LP_SLOTS	8

struct npuflow_loopstats {
	__u64 passes;				/* waits of the loop */
	__u64 wakes[NPUFLOW_LW_SLOTS];		/* enum npuflow_loop_wake */
	__u64 busy_us[NPUFLOW_LP_SLOTS];	/* enum npuflow_loop_part */
	__u64 wait_us;				/* in the waits */
	__u64 cpu_user_us, cpu_sys_us;		/* the process's CPU (getrusage) */
	__u64 updated_ns;			/* last written (CLOCK_MONOTONIC) */
};

/* tc filter priorities of npuflowd's flower rules, one per protocol a rule
 * is filed under (a tc prio holds one): IPv4, IPv6, 802.1Q-tagged of
 * either family (the family is the rule's vlan_ethtype; one or two tags,
 * a PPPoE session inside), 802.1ad-tagged (protocol 802.1ad), and an
 * untagged PPPoE session (protocol ppp_ses). */
#define NPUFLOW_TC_PRIO_IP	0xc4f0
#define NPUFLOW_TC_PRIO_IPV6	0xc4f1
#define NPUFLOW_TC_PRIO_VLAN	0xc4f2
#define NPUFLOW_TC_PRIO_QINQ	0xc4f3
#define NPUFLOW_TC_PRIO_PPPOE	0xc4f4

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
_Static_assert(sizeof(struct npuflow_cache) == 104, "npuflow_cache: no holes");
_Static_assert((NPUFLOW_CACHE_SLOTS & (NPUFLOW_CACHE_SLOTS - 1)) == 0, "cache slots: power of 2");
_Static_assert(sizeof(struct npuflow_counters) == 360, "npuflow_counters: no holes");
_Static_assert(sizeof(struct npuflow_event) == 88, "npuflow_event: no holes");
_Static_assert(NPUFLOW_S_MAX <= NPUFLOW_S_SLOTS, "stat slots");
_Static_assert(sizeof(struct npuflow_conn) == 312, "npuflow_conn: no holes");
_Static_assert(NPUFLOW_FM_MAX <= NPUFLOW_FM_SLOTS, "fm stat slots");
_Static_assert(sizeof(struct npuflow_fmstats) == 8 * (48 + 17 + 8 + 2), "npuflow_fmstats");
_Static_assert(NPUFLOW_LW_MAX <= NPUFLOW_LW_SLOTS, "loop wake slots");
_Static_assert(NPUFLOW_LP_MAX <= NPUFLOW_LP_SLOTS, "loop part slots");
_Static_assert(sizeof(struct npuflow_loopstats) == 8 * (1 + 16 + 8 + 4), "npuflow_loopstats");

#endif /* _NPUFLOW_H */
