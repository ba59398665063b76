/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - npuctl's --json output, built with json-c.  Field names and
 * shapes are the interface the operator's guide documents and scripts read
 * with jq (docs/operator-guide.md, npuctl).
 */
#ifndef _NPUCTL_JSON_H
#define _NPUCTL_JSON_H

#include <stdio.h>
#include <json-c/json.h>
#include "records.h"

/*
 * npuctl_cand_json - one candidate as an object: ifindex, ifname (@ifname),
 * vlan_outer, vlan_inner (VIDs; vlan_outer_ad, vlan_inner_ad true only for
 * an 802.1ad tag), pppoe_sid (only in a session), family (2 or 10), proto,
 * saddr, daddr, sport,
 * dport (host order), frames, bytes, first_ns, last_ns, tcp_flags,
 * reason (a punt reason's name), port (panel number, -1 none), conn (the
 * hardware connection index, -1 none), flags (NPUFLOW_CF_*).  The caller
 * owns it; NULL when out of memory.
 */
struct json_object *npuctl_cand_json(const struct npuflow_row *r, const char *ifname);

/*
 * npuctl_port_json - one counters slot: slot, port (npuctl_slot_port()),
 * ifindex, ifname, reasons (every punt reason's name: {frames, bytes}),
 * stats (every classifier counter's name: count).  Caller owns; NULL: ENOMEM.
 */
struct json_object *npuctl_port_json(const struct npuctl_port *p);

/*
 * npuctl_flow_json - one connection: id, state, reason, proto, family (4
 * or 6), ct_id, zone, nat, routed, age_ns, idle_ns, givebacks, remakes,
 * revives, holds, wait_ns, made_ns, first_ns, cross_ns, hw_ns, punted, and
 * dirs: two objects (in, out, vlan: the outer tag's VID it arrives with,
 * out_vlan: the one it leaves with, 0 untagged; only where there are:
 * vlan_ad, out_vlan_ad (the outer tag is 802.1ad), vlan_inner,
 * vlan_inner_ad, out_vlan_inner (the inner tag's VID), pppoe_sid,
 * out_pppoe_sid (the PPPoE session it arrives in, leaves in); src, sport,
 * dst, dport, handle, in_hw, packets, bytes).  Caller owns; NULL: ENOMEM.
 */
struct json_object *npuctl_flow_json(const struct npuctl_flow *f);

/*
 * npuctl_status_json - {running, pid, pinned: false} when @s is not
 * pinned; else running, pid, uptime_ns, updated_ns_ago, states (per
 * connection state but free), counters (every flow-maker counter), refused
 * (per refusal reason but none).  Caller owns; NULL: ENOMEM.
 */
struct json_object *npuctl_status_json(const struct npuctl_status *s);

/*
 * npuctl_json_print - @o and a newline on @f, then put @o.  0, -ENOMEM
 * (@o NULL or not serialised) or -EIO (@f failed).
 */
int npuctl_json_print(FILE *f, struct json_object *o);

/*
 * An array written as it is built, an element a line ("[\n  {...},\n
 * {...}\n]\n", "[]\n" when empty), so a listing of a million connections
 * needs one element's objects at a time, not the whole tree.
 */
struct npuctl_jlist {
	FILE *f;
	size_t n;	/* elements written */
	int err;	/* the first error, -ENOMEM or -EIO */
};

void npuctl_jlist_begin(struct npuctl_jlist *l, FILE *f);
/* Write @o as the next element and put it; NULL (out of memory) is an error. */
void npuctl_jlist_add(struct npuctl_jlist *l, struct json_object *o);
/* Close the array: 0, or the first error of the list. */
int npuctl_jlist_end(struct npuctl_jlist *l);

#endif /* _NPUCTL_JSON_H */
