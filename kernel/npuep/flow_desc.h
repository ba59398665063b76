/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep flow offload: a flow_rule as plain data.
 *
 * The glue (flow_parse.c) reads a struct flow_rule into a struct
 * npuep_flow_desc: which keys the rule matches on, each key with its mask,
 * and its actions, the redirect target already resolved to a port index of
 * this device.  The pure part (flow_parse_pure.c) validates the description
 * and turns it into a microflow key and a rewrite (npu_hw.h).  Nothing here
 * is a kernel type, so the pure part builds natively for the unit tests.
 *
 * Byte order is the flow_rule's: __be fields in network order, the mangle
 * mask and value as the kernel's flow_action_entry holds them (the four
 * bytes at the offset, in frame order, read as one u32 in memory).
 */
#ifndef _NPUEP_FLOW_DESC_H
#define _NPUEP_FLOW_DESC_H

#include "npu_compat.h"
#include "npu_hw.h"

/* struct npuep_flow_desc.keys: the dissector keys the rule uses */
#define NPUEP_FD_META		BIT(0)
#define NPUEP_FD_CONTROL	BIT(1)
#define NPUEP_FD_BASIC		BIT(2)
#define NPUEP_FD_IPV4		BIT(3)
#define NPUEP_FD_IPV6		BIT(4)
#define NPUEP_FD_PORTS		BIT(5)
#define NPUEP_FD_TCP		BIT(6)
#define NPUEP_FD_VLAN		BIT(7)
#define NPUEP_FD_OTHER		BIT(8)	/* any key not here */
#define NPUEP_FD_CVLAN		BIT(9)	/* the inner tag */
#define NPUEP_FD_PPPOE		BIT(10)

/* struct npuep_fd_control.addr_type */
enum npuep_fd_addr {
	NPUEP_FD_ADDR_NONE,
	NPUEP_FD_ADDR_IPV4,
	NPUEP_FD_ADDR_IPV6,
};

/* Actions the rule lists beyond this many are not described. */
#define NPUEP_FD_ACT_MAX	24

/* struct npuep_fd_act.id */
enum npuep_fd_act_id {
	NPUEP_FA_OTHER,		/* an action the fast path has no use for */
	NPUEP_FA_MANGLE,	/* pedit set: (old & mask) ^ val */
	NPUEP_FA_ADD,		/* pedit add */
	NPUEP_FA_CSUM,
	NPUEP_FA_REDIRECT,
	NPUEP_FA_VLAN_PUSH,
	NPUEP_FA_VLAN_POP,
	NPUEP_FA_PPPOE_PUSH,
	NPUEP_FA_ACCEPT,	/* nf_flow_table's push of an 802.1ad tag */
};

/* struct npuep_fd_act.mangle.htype */
enum npuep_fd_htype {
	NPUEP_FH_OTHER,
	NPUEP_FH_ETH,
	NPUEP_FH_IP4,
	NPUEP_FH_IP6,
	NPUEP_FH_TCP,
	NPUEP_FH_UDP,
};

/* struct npuep_fd_act.redirect.port for a device that is not one of ours */
#define NPUEP_FD_PORT_FOREIGN	(-1)

/*
 * struct npuep_flow_desc.ft_tags: what the port's VLAN devices say of the
 * 802.1Q tags a flowtable's rule matches (nf_flow_table describes no
 * 802.1ad tag: under one, the rule matches the 802.1Q tags alone).
 */
enum npuep_fd_ft_tags {
	NPUEP_FD_FT_TAGS_PORT,		/* a VLAN device stack of the port, or none matched */
	NPUEP_FD_FT_TAGS_NODEV,		/* no VLAN device stack of the port has them */
	NPUEP_FD_FT_TAGS_UNDER_AD,	/* an 802.1ad device of the port has them too */
};

/* Hops of a device's path (dev_fill_forward_path(): NET_DEVICE_PATH_STACK_MAX). */
#define NPUEP_FD_PATH_MAX	5

/* struct npuep_fd_hop.type: the kernel's net_device_path types the fast path knows */
enum npuep_fd_hop_type {
	NPUEP_FD_HOP_OTHER,	/* a bridge, a DSA port, ...: no path of ours */
	NPUEP_FD_HOP_ETHERNET,
	NPUEP_FD_HOP_VLAN,
	NPUEP_FD_HOP_PPPOE,
};

/**
 * struct npuep_fd_hop - one device of the path under a ppp device
 * @type: enum npuep_fd_hop_type
 * @port: NPUEP_FD_HOP_ETHERNET: the index of the port of this device it
 *	is, or NPUEP_FD_PORT_FOREIGN
 * @id: NPUEP_FD_HOP_VLAN: the VLAN id; NPUEP_FD_HOP_PPPOE: the session id
 * @proto: NPUEP_FD_HOP_VLAN: the tag's TPID
 * @h_dest: NPUEP_FD_HOP_PPPOE: the concentrator's MAC
 * @addr: the device's MAC, zero when it has none (a ppp device)
 * @mtu: the device's MTU, bytes
 */
struct npuep_fd_hop {
	u8 type;
	s32 port;
	u16 id;
	__be16 proto;
	u8 h_dest[ETH_ALEN];
	u8 addr[ETH_ALEN];
	u32 mtu;
};

/**
 * struct npuep_fd_tag - a VLAN tag
 * @vid: its VLAN id
 * @tpid: its TPID
 */
struct npuep_fd_tag {
	u16 vid;
	__be16 tpid;
};

/**
 * struct npuep_fd_session - a PPPoE session, as the frames that leave in it
 * @port: the index of the port under it
 * @ntags: the VLAN tags around it, 0-2
 * @tag: those tags, outermost first
 * @sid: the session id
 * @dmac: the concentrator's MAC
 * @smac: the MAC the frames leave with: the first under the ppp device
 * @mtu: the session's L3 MTU, bytes: the ppp device's, at most the MTU
 *	of the device under it less the session header
 */
struct npuep_fd_session {
	s32 port;
	u8 ntags;
	struct npuep_fd_tag tag[2];
	u16 sid;
	u8 dmac[ETH_ALEN];
	u8 smac[ETH_ALEN];
	u32 mtu;
};

struct npuep_fd_meta {
	s32 ingress_ifindex;
	u16 ingress_iftype;
	u8 l2_miss;
};

struct npuep_fd_control {
	u16 addr_type;		/* enum npuep_fd_addr (key only) */
	u32 flags;		/* FLOW_DIS_* */
};

struct npuep_fd_basic {
	__be16 n_proto;
	u8 ip_proto;
};

struct npuep_fd_ipv4 {
	__be32 src;
	__be32 dst;
};

struct npuep_fd_ipv6 {
	u8 src[16];
	u8 dst[16];
};

struct npuep_fd_ports {
	__be16 src;
	__be16 dst;
};

struct npuep_fd_vlan {
	u16 id;			/* 12 bits */
	u8 dei;			/* 1 bit */
	u8 priority;		/* 3 bits */
	__be16 tpid;
	__be16 eth_type;	/* the ethertype after the tag */
};

struct npuep_fd_pppoe {
	__be16 sid;
	__be16 ppp_proto;
	__be16 type;		/* the session's ethertype: 0x8864 */
};

/**
 * struct npuep_fd_act - one action of the rule
 * @id: enum npuep_fd_act_id
 * @mangle: NPUEP_FA_MANGLE and NPUEP_FA_ADD
 * @mangle.htype: enum npuep_fd_htype
 * @mangle.offset: byte offset of the four bytes in the header
 * @mangle.mask: bits kept (pedit's mask)
 * @mangle.val: bits set (xor-ed into the kept bits) or added
 * @vlan: NPUEP_FA_VLAN_PUSH
 * @vlan.proto: the tag's TPID
 * @vlan.vid: VLAN id as given (may exceed 12 bits)
 * @vlan.prio: priority code point as given (may exceed 3 bits)
 * @pppoe: NPUEP_FA_PPPOE_PUSH
 * @pppoe.sid: the session id
 * @redirect: NPUEP_FA_REDIRECT
 * @redirect.port: 0-based port index of this device, or
 *	NPUEP_FD_PORT_FOREIGN
 * @redirect.mtu: the target port's MTU, bytes (valid for a port)
 * @redirect.via_ppp: the target is a ppp device (@redirect.port is
 *	NPUEP_FD_PORT_FOREIGN): the description's @path is what lies under it
 */
struct npuep_fd_act {
	u8 id;
	union {
		struct {
			u8 htype;
			u32 offset;
			u32 mask;
			u32 val;
		} mangle;
		struct {
			__be16 proto;
			u16 vid;
			u8 prio;
		} vlan;
		struct {
			u16 sid;
		} pppoe;
		struct {
			s32 port;
			u32 mtu;
			bool via_ppp;
		} redirect;
	};
};

/**
 * struct npuep_flow_desc - a flow_rule as plain data
 * @port: the ingress port's index (0-based): the callback's port
 * @ifindex: the ingress port's ifindex
 * @routed_ttl: the rule is routed without saying so (an nftables flowtable):
 *	decrement the TTL
 * @ft: the rule is an nftables flowtable's: its pushes come outermost
 *	first (tc's come innermost first, each becoming the outer one)
 * @l2_encap: the coprocessor keys and rewrites two tags and PPPoE sessions
 *	(NPU_CAP_L2_ENCAP)
 * @ft_tags: enum npuep_fd_ft_tags, of a flowtable's rule
 * @keys: NPUEP_FD_* keys the rule matches on; a key's @key and @mask are
 *	zero when it is not used
 * @meta: META key and mask
 * @control: CONTROL key and mask
 * @basic: BASIC key and mask
 * @ipv4: IPV4_ADDRS key and mask
 * @ipv6: IPV6_ADDRS key and mask
 * @ports: PORTS key and mask
 * @tcp_flags: TCP key and mask (the 12 flag bits, network order)
 * @vlan: VLAN key and mask (the outer tag)
 * @cvlan: CVLAN key and mask (the inner tag)
 * @pppoe: PPPOE key and mask
 * @nact: actions of the rule (may exceed NPUEP_FD_ACT_MAX)
 * @act: the first NPUEP_FD_ACT_MAX of them, in order
 * @npath: hops in @path; 0 when the kernel finds no path under the ppp
 *	device a redirect goes to (or there is none)
 * @path: the devices under that ppp device, top first, as
 *	dev_fill_forward_path() walks them
 */
struct npuep_flow_desc {
	u8 port;
	s32 ifindex;
	bool routed_ttl;
	bool ft;
	bool l2_encap;
	u8 ft_tags;
	u32 keys;
	struct { struct npuep_fd_meta key, mask; } meta;
	struct { struct npuep_fd_control key, mask; } control;
	struct { struct npuep_fd_basic key, mask; } basic;
	struct { struct npuep_fd_ipv4 key, mask; } ipv4;
	struct { struct npuep_fd_ipv6 key, mask; } ipv6;
	struct { struct npuep_fd_ports key, mask; } ports;
	struct { __be16 key, mask; } tcp_flags;
	struct { struct npuep_fd_vlan key, mask; } vlan;
	struct { struct npuep_fd_vlan key, mask; } cvlan;
	struct { struct npuep_fd_pppoe key, mask; } pppoe;
	u32 nact;
	struct npuep_fd_act act[NPUEP_FD_ACT_MAX];
	u32 npath;
	struct npuep_fd_hop path[NPUEP_FD_PATH_MAX];
};

int npuep_flow_desc_parse(const struct npuep_flow_desc *d,
			  struct npu_mflow_key *key, struct npu_rewrite *rw,
			  const char **msg);
int npuep_flow_path_session(const struct npuep_fd_hop *hop, u32 n,
			    struct npuep_fd_session *s, const char **msg);

#endif /* _NPUEP_FLOW_DESC_H */
