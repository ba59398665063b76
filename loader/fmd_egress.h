/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmd_egress.h - where a direction of a connection leaves the coprocessor:
 * the route the stack takes, the egress port, the MACs the frame leaves
 * with, and the 802.1Q tag it arrives and leaves with.
 */
#ifndef _FMD_EGRESS_H
#define _FMD_EGRESS_H

#include <stdint.h>
#include "../bpf/npuflow.h"

struct fmd;

/* How one direction leaves. */
struct fmd_egress {
	uint32_t oif;		/* the redirect's target: the port it leaves by, or the
				 * ppp device whose PPPoE session it leaves in */
	uint32_t port;		/* the port it leaves by */
	uint16_t out_sid;	/* the PPPoE session it leaves in, 0 = none */
	uint16_t out_vid;	/* the outer tag it leaves with (VID | NPUFLOW_VLAN_AD), 0 = none */
	uint16_t out_vid_inner;	/* its inner tag (802.1Q VID), 0 = one tag or none */
	uint8_t dmac[6];	/* next hop */
	uint8_t smac[6];	/* the egress device's */
	uint8_t nexthop[16];	/* the gateway, or the destination on-link */
};

/* The index in d->ports of the port @ifindex, or -1. */
int fmd_port_of(const struct fmd *d, uint32_t ifindex);

/*
 * Port @po's MAC and shaping as an egress, from rtcache's generation
 * (refreshed when rtnetlink announced a change or they aged out): 0, or
 * -ENODEV if the link cannot be read.
 */
int fmd_port_facts(struct fmd *d, int po, uint64_t now);
/*
 * The egress facts every connection's first lookup would fetch and the
 * next ones share, fetched now (npuflowd's start): the host's 802.1Q
 * devices and what the policy rules select by, one dump each.
 */
void fmd_egress_warm(struct fmd *d, uint64_t now);
/*
 * The same, and every port's facts, asked again when they have aged out
 * or rtnetlink announced a change (rtcache's generation and max age), and
 * not counted as a connection's lookups: called from the loop's tick while
 * a make is in prospect, so that the next connection finds them as the
 * last one did, and by the made connections' idle recheck, which compares
 * them (fmd_watch.c).  At most one round a max age: each port's link and
 * qdiscs, the 802.1Q devices', the policy rules' dumps.
 */
void fmd_egress_keep(struct fmd *d, uint64_t now);

/*
 * The egress of a direction arriving as @k (ingress port, and its tags in
 * vlan_outer and vlan_inner) towards @out_daddr, as the stack would route it - a
 * frame of @k's protocol and ports with conntrack's mark @mark, which is
 * what a ruleset that restores marks from conntrack (connmark) gives the
 * frames, for `ip rule fwmark` and port rules:
 * 0 with @eg filled, or FM_EG_* (flowmaker.h) saying why it cannot be
 * made.  A tagged direction is routed from the host's VLAN device for
 * those tags on that port (two tags: the inner tag's device on the outer
 * one's), and a route out of a VLAN device (or a stack of two) on one of
 * the ports leaves by that port with the devices' tags and the top one's
 * MAC.
 *
 * PPPoE (/proc/net/pppoe, pppoetab.h): user space cannot tell which ppp
 * unit a session is, so a device (a port, or a VLAN device on one) that
 * carries a session must carry only that one.  A direction arriving in
 * session S on such a device is routed from the ppp device the host's
 * route back to its source leaves by; a route out of a ppp device leaves
 * in the session of @peer (the other direction as it arrives: its
 * session on its device) or, without one, in the only session on a device
 * of the ports, towards the concentrator's MAC, from the lower device's
 * MAC.  Anything else is FM_EG_PPPOE.  Route, next hop, port facts and
 * the VLAN devices come from rtcache's generation while rtnetlink
 * announced no change; otherwise one round trip each; the sessions are
 * read once a pass of lookups (fmd_egress_pass()).
 */
uint32_t fmd_egress(struct fmd *d, const struct npuflow_key *k, const struct npuflow_key *peer,
		    const uint8_t *out_daddr, uint32_t mark, struct fmd_egress *eg);

/*
 * A pass of lookups begins (a batch of makes, a recheck of the made
 * connections): the PPPoE sessions are read again at its first use, once
 * for all its lookups.
 */
void fmd_egress_pass(struct fmd *d);

/* fmd_egress_check(): an egress fact changed, or an IPsec policy now
 * covers the connection (not FM_EG_* refusals). */
#define FMD_EG_MOVED	0x80000000u
#define FMD_EG_IPSEC	0x40000000u

/*
 * 1 if xfrm would transform or block a frame of either direction of the
 * connection whose directions arrive as @key[2] and leave by
 * @out_ifindex[2]: each direction as it arrives and as it leaves (NAT
 * applied), against the fwd and the out policies (the forward path checks
 * both).  The policies are read again first if an announcement made them
 * stale.  0 if none would, or if they cannot be read (logged at start).
 */
int fmd_ipsec(struct fmd *d, const struct npuflow_key key[2], const uint32_t out_ifindex[2]);

/*
 * Before a round of fmd_egress_check(): every port's facts read again and
 * whether its MTU changed since the previous round noted (the driver takes
 * the egress MTU when the rule is written).
 */
void fmd_egress_recheck_ports(struct fmd *d, uint64_t now);

/*
 * Whether made connection @c (conntrack mark @mark) still leaves as its
 * rules say: 0 if both directions route out of the same port with the same
 * tag and MACs and no egress port's MTU changed; FMD_EG_MOVED if a fact
 * changed; the FM_EG_* refusal of a direction that cannot be made any more
 * (no route, an egress now foreign, shaped or local); FMD_EG_IPSEC if an
 * IPsec policy now covers it (fmd_ipsec); FM_EG_NO_NEIGH when all holds but
 * a next hop is not resolved at the moment (no entry, or one incomplete or
 * failed: a probe unanswered under load, the host seeing none of the
 * connection's frames).  The last is no move: the rules carry the MAC the
 * kernel resolved last, and a new one is announced.  @nexthop: each
 * direction's next-hop address when made (NULL if unknown: restored);
 * another one is FMD_EG_MOVED even while unresolved, as a route moved to a
 * new gateway on the same port is: nobody resolves it while the hardware
 * carries every frame.
 */
uint32_t fmd_egress_check(struct fmd *d, const struct npuflow_conn *c, uint32_t mark,
			  const uint8_t (*nexthop)[16]);

#endif
