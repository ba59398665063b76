/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcflower.h - npuflowd's hardware writer: TC flower rules (one per direction
 * of a connection) as netlink messages, built and parsed with libmnl's
 * attribute helpers only (no I/O here: nlsock.c sends them), so the exact
 * bytes are unit-tested.  A rule is what
 *
 *   tc filter add dev IN ingress protocol ip prio P handle H flower skip_sw \
 *      ip_proto tcp src_ip A dst_ip B src_port X dst_port Y tcp_flags 0/0x5 \
 *      action pedit ex munge eth dst set M1 munge eth src set M2 \
 *                      [munge ip src set A'] [munge ip dst set B'] \
 *                      [munge tcp sport set X'] [munge tcp dport set Y'] \
 *                      munge ip ttl add 255 pipe \
 *      action mirred egress redirect dev OUT
 *
 * sends (IPv6: munge ip6 src/dst, munge ip6 hoplimit add 255; a skip_sw
 * rule's actions each with no_percpu: TCA_ACT_FLAGS, no per-CPU counters).
 * A rule in software too (npuflowd --tc-skip-sw 0) has
 * `action csum ip tcp pipe` (IPv6: `csum tcp`/`udp`) after its pedit; a
 * hardware-only one leaves the checksums to the device, which updates
 * every checksum it rewrites.  The TTL add is there only for routed flows: the driver decrements
 * TTL when it sees it.  A direction that arrives 802.1Q-tagged is filed
 * under `protocol 802.1Q prio NPUFLOW_TC_PRIO_VLAN` and matches
 * `vlan_id V vlan_ethtype ip|ipv6`, its first action `vlan pop`; one that
 * leaves tagged pushes its tag just before the redirect (`vlan push id V'`):
 * the coprocessor pops, then pushes, one 802.1Q tag.
 *
 * Two tags: a direction arriving in an outer 802.1ad tag is filed under
 * `protocol 802.1ad prio NPUFLOW_TC_PRIO_QINQ` (802.1Q: PRIO_VLAN as one
 * tag), matches `vlan_id V vlan_ethtype 802.1q cvlan_id C cvlan_ethtype
 * ip|ipv6` and pops both; one leaving in two tags pushes the inner, then
 * the outer with its TPID (tc pushes innermost first).
 *
 * PPPoE (the driver's convention: a routed skip_sw rule that matches a
 * session ends it, popping the header after its tags): a direction
 * arriving in session S matches `... ethtype ppp_ses pppoe_sid S ppp_proto
 * ip|ipv6` (untagged: `protocol ppp_ses prio NPUFLOW_TC_PRIO_PPPOE`); one
 * leaving in a session is redirected to its ppp device, with no MAC
 * pedit and no push: the driver resolves the session, tags and MACs from
 * the device, as the kernel's flowtable does.
 */
#ifndef _TCFLOWER_H
#define _TCFLOWER_H

#include <stddef.h>
#include <stdint.h>
#include "../bpf/npuflow.h"

struct nlmsghdr;

struct tcfl_rule {
	uint32_t ifindex;		/* ingress device (the rule's dev) */
	uint32_t handle;		/* filter handle (npuflowd: id * 2 + dir + 1) */
	uint16_t prio;			/* NPUFLOW_TC_PRIO_* */
	uint32_t flags;			/* TCA_CLS_FLAGS_SKIP_SW, _SKIP_HW or 0 */
	struct npuflow_key match;	/* family, proto, addresses, ports as they arrive */
	struct npuflow_key out;		/* ... as they leave (NAT); == match if none */
	uint8_t dmac[6], smac[6];	/* rewritten MACs (next hop, egress port) */
	int set_mac;
	int dec_ttl;			/* routed: munge ip ttl / ip6 hoplimit add 255 */
	uint32_t out_ifindex;		/* mirred egress redirect target */
	uint16_t push_vid;		/* outer tag pushed before it (VID |
					 * NPUFLOW_VLAN_AD), 0 = none */
	uint16_t push_vid_inner;	/* 802.1Q tag pushed inside it, 0 = none */
};

/* A rule's parsed dump line. */
struct tcfl_info {
	uint32_t ifindex, handle, parent;
	uint16_t prio, protocol;	/* protocol host order (ETH_P_IP) */
	char kind[16];
	uint32_t flags;			/* TCA_FLOWER_FLAGS (SKIP_*, IN_HW, NOT_IN_HW) */
	uint32_t in_hw_count;
	struct npuflow_key match;
	uint64_t packets, bytes;	/* of the last action (mirred); packets 64-bit
					 * from TCA_STATS_PKT64 when the kernel adds it */
	uint64_t lastuse_ms;		/* age of the last use, ms (from the action's tcf_t) */
	int have_lastuse;		/* lastuse_ms read (not in a terse dump) */
	int have_stats;
	uint32_t out_ifindex;		/* mirred target */
	int nactions;
	char actions[6][16];		/* kinds in order */
	int npedit_keys;
	int vlan_pop;			/* vlan pop actions */
	uint16_t push_vid;		/* the last vlan push's tag (VID | NPUFLOW_VLAN_AD
					 * for 802.1ad), 0 = none */
	uint16_t push_vid_inner;	/* of two pushes, the first's, 0 = none */
};

/* The ethertype a rule for a direction arriving as @k is filed under
 * (its outer tag's TPID if tagged, ETH_P_PPP_SES in an untagged session),
 * and its priority (NPUFLOW_TC_PRIO_*). */
uint16_t tcfl_proto(const struct npuflow_key *k);
uint16_t tcfl_prio(const struct npuflow_key *k);
/* 1 if @prio is one of npuflowd's NPUFLOW_TC_PRIO_*. */
int tcfl_prio_ours(uint16_t prio);

/* Messages; each returns the message length, 0 if @len is too small.  The
 * buffer must be 4-byte aligned and at least MNL_SOCKET_BUFFER_SIZE. */
size_t tcfl_build_qdisc(void *buf, size_t len, uint32_t ifindex, uint32_t seq);
size_t tcfl_build_add(void *buf, size_t len, const struct tcfl_rule *r, uint32_t seq);
/*
 * The warm-up at start: a software-only (skip_hw) IPv4 flower rule that
 * matches nothing forwarded (0.0.0.0 to 0.0.0.0, TCP port 0 to 0), with
 * one action of each kind the rules use or will (pedit, csum, vlan,
 * mirred back to @ifindex): adding it loads cls_flower and the act_*
 * modules, so a connection's first rule does not.  Deleted at once.
 */
size_t tcfl_build_warmup(void *buf, size_t len, uint32_t ifindex, uint16_t prio,
			 uint32_t handle, uint32_t seq);
size_t tcfl_build_del(void *buf, size_t len, uint32_t ifindex, uint16_t prio,
		      uint16_t eth_proto, uint32_t handle, uint32_t seq);
/*
 * The rules on @ifindex's clsact ingress.  @terse: TCA_DUMP_FLAGS_TERSE,
 * each rule's handle, priority, protocol, flags and its actions' kinds and
 * counters only (no match, no action options, no last use): what keepalive
 * reads, at a fraction of a full dump's cost (cls_flower's fl_terse_dump).
 */
size_t tcfl_build_dump(void *buf, size_t len, uint32_t ifindex, uint32_t seq, int terse);
/*
 * RTM_NEWTFILTER from a dump or echo, nlmsg_len bytes readable at @nlh (as
 * nls_msg_ok() checks; nothing past it is read): 0, or -1 if it is not a
 * flower rule or an attribute it reads is malformed (a scalar or address of
 * the wrong size, a string without its NUL, a struct too short).
 */
int tcfl_parse(const struct nlmsghdr *nlh, struct tcfl_info *out);

/* The out key of direction @dir of a connection whose arriving keys are
 * key[0] (original) and key[1] (reply): the other direction reversed. */
void tcfl_out_key(const struct npuflow_key key[2], int dir, struct npuflow_key *out);
/* A connection's direction as a rule. */
void tcfl_rule_from_conn(const struct npuflow_conn *c, int dir, uint32_t flags,
			 struct tcfl_rule *r);
/* Handle <-> (id, dir). */
static inline uint32_t tcfl_handle(uint32_t id, int dir)
{
	return id * 2 + dir + 1;
}

static inline void tcfl_handle_split(uint32_t handle, uint32_t *id, int *dir)
{
	*id = (handle - 1) / 2;
	*dir = (handle - 1) % 2;
}

/* `tc` text of a rule, for logs and docs (one line). */
int tcfl_fmt(const struct tcfl_rule *r, const char *in, const char *out, char *buf,
	     size_t len);

#endif
