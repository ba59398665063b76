/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xfrmdb.h - the host's IPsec policies (xfrm), kept so that the flow maker
 * never forwards in hardware what the host would encrypt or block.  No
 * query says whether xfrm would transform a flow, so the out and fwd
 * policies are dumped (XFRM_MSG_GETPOLICY) and each direction of a
 * connection is matched against their selectors, as the kernel's
 * xfrm_selector_match() and xfrm_policy_match() do.  The matching is pure
 * (unit-tested); the dump goes through an nlsock on NETLINK_XFRM.
 */
#ifndef _XFRMDB_H
#define _XFRMDB_H

#include <stdint.h>
#include <linux/xfrm.h>
#include "../bpf/npuflow.h"

struct nlmsghdr;
struct nlsock;

/* One out or fwd policy. */
struct xfrmdb_pol {
	struct xfrm_selector sel;
	uint32_t priority;		/* lower wins */
	uint8_t dir;			/* XFRM_POLICY_OUT or XFRM_POLICY_FWD */
	uint8_t action;			/* XFRM_POLICY_ALLOW or XFRM_POLICY_BLOCK */
	uint8_t transforms;		/* has templates (XFRMA_TMPL) */
	struct xfrm_mark mark;		/* XFRMA_MARK, 0/0 if none */
	uint32_t if_id;			/* XFRMA_IF_ID, 0 if none */
};

struct xfrmdb {
	struct xfrmdb_pol *p;
	int n, cap;
	int loaded;			/* the last load succeeded */
	uint8_t block[XFRM_POLICY_MAX];	/* by direction: the default policy blocks */
};

/*
 * One XFRM_MSG_NEWPOLICY (of a dump or an event), nlmsg_len bytes readable
 * at @nlh: 0 with @out filled, 1 if it is no out or fwd policy (or another
 * message), -1 if malformed.
 */
int xfrmdb_parse(const struct nlmsghdr *nlh, struct xfrmdb_pol *out);
/*
 * An XFRM_MSG_GETDEFAULT (the answer, or its announcement on
 * XFRMNLGRP_POLICY after `ip xfrm policy setdefault`) into @db->block:
 * 0, or -1 if it is another message or malformed.
 */
int xfrmdb_parse_default(const struct nlmsghdr *nlh, struct xfrmdb *db);
/* Appends @p: 0, or -ENOMEM. */
int xfrmdb_add(struct xfrmdb *db, const struct xfrmdb_pol *p);
void xfrmdb_clear(struct xfrmdb *db);
void xfrmdb_free(struct xfrmdb *db);

/*
 * 1 if a frame of @k (family 2 or 10, protocol, addresses and ports as the
 * frame carries them; @ifindex its output device) would be transformed or
 * blocked by xfrm in direction @dir (XFRM_POLICY_OUT or XFRM_POLICY_FWD):
 * the matching policy of the lowest priority (of equals, the older: the
 * later in a dump) has templates or blocks, or none matches and the
 * direction's default policy blocks.  1 as well with no database loaded.  A policy bound to an xfrm interface (if_id) does
 * not match: its traffic routes out of that interface, not a port.  The
 * frame's mark is taken as 0 (npuflowd does not know it), so a policy
 * with a mark matches only if its value under its mask is 0.
 */
int xfrmdb_protects(const struct xfrmdb *db, const struct npuflow_key *k, uint32_t ifindex,
		    int dir);

/*
 * 1 if IPsec would transform or block a forwarded connection's direction:
 * @in as it arrives, @out as it leaves (NAT applied), @oif its egress
 * device.  Both are matched as fwd and as out, each against the egress
 * device: the kernel's selector match reads flowi_oif, the route's device,
 * in the fwd check (__xfrm_decode_session()) as in the out lookup.  With
 * no database loaded (@db->loaded 0), every direction is protected.
 */
int xfrmdb_conn_protected(const struct xfrmdb *db, const struct npuflow_key *in,
			  const struct npuflow_key *out, uint32_t oif);

/* The policies and the default policies now: a dump into @db (cleared
 * first) and an XFRM_MSG_GETDEFAULT on @s, an nlsock opened on
 * NETLINK_XFRM.  0 with @db->loaded set, or -errno with @db->loaded 0 (a
 * kernel without GETDEFAULT, before 5.16, has accept defaults). */
int xfrmdb_load(struct xfrmdb *db, struct nlsock *s);

#endif
