/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlsock.h - a libmnl netlink socket with request/ack, dump and batch
 * helpers and the monitors (nlsock.c), and the route/neighbour/link/qdisc
 * lookups the flow maker needs, with what the monitors' announcements say
 * (nlsock_lookup.c).
 */
#ifndef _NLSOCK_H
#define _NLSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

struct nlsock {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
	char *buf;		/* MNL_SOCKET_BUFFER_SIZE * 2, aligned */
	size_t buflen;
	char ext_ack[256];	/* last extack message from the kernel */
};

/*
 * 1 if a whole message starts at @nlh within @left bytes: room for its
 * header and an nlmsg_len from the header's size up to @left.  (libmnl's
 * mnl_nlmsg_ok() compares nlmsg_len as an int: 2^31 or more passes.)
 */
static inline int nls_msg_ok(const struct nlmsghdr *nlh, size_t left)
{
	return left >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= left;
}

/* The message after @nlh (checked by nls_msg_ok), *left less @nlh's aligned
 * length (0 at the end of the batch). */
static inline const struct nlmsghdr *nls_msg_next(const struct nlmsghdr *nlh, size_t *left)
{
	size_t n = MNL_ALIGN((size_t)nlh->nlmsg_len);

	if (n > *left)
		n = *left;
	*left -= n;
	return (const struct nlmsghdr *)((const char *)nlh + n);
}

int nls_open(struct nlsock *s);
/* The same on another netlink bus (NETLINK_XFRM, ...). */
int nls_open_bus(struct nlsock *s, int bus);
void nls_close(struct nlsock *s);
/* Send @msg (built in s->buf or elsewhere), read until the ack or the end of
 * a dump, calling @cb for each data message.  0 or -errno (-EBADMSG: the
 * answer was malformed; see nls_dispatch). */
int nls_talk(struct nlsock *s, const void *msg, size_t len, mnl_cb_t cb, void *data);
/*
 * nls_talk() in steps, for a dump read a little at a time (the kernel
 * holds its place between reads): nls_send() sends @msg (0 or -errno),
 * then each nls_read_step() reads one datagram of the answer to @seq
 * (at most s->buflen bytes, some hundred messages of a dump), calling @cb
 * for each data message: 1 while more follow, 0 at the ack or the dump's
 * end, -errno.  The socket carries nothing else until the answer ends.
 */
int nls_send(struct nlsock *s, const void *msg, size_t len);
int nls_read_step(struct nlsock *s, uint32_t seq, mnl_cb_t cb, void *data);
uint32_t nls_seq(struct nlsock *s);
/* A request of @type with @flags at @buf (room for its header), numbered
 * nls_seq(@s). */
struct nlmsghdr *nls_request(void *buf, struct nlsock *s, uint16_t type, uint16_t flags);
/*
 * One received batch: the @n bytes at @buf, message by message as far as
 * whole messages fit (nls_msg_ok).  Those of request @seq to this socket's
 * portid go to the ack/error reader (NLMSG_ERROR), end a dump (NLMSG_DONE)
 * or go to @cb; others are skipped.  MNL_CB_OK: read on; MNL_CB_STOP: done; MNL_CB_ERROR
 * with errno (the kernel's error, EBADMSG for a malformed message, EPROTO
 * for an error code no errno is).  s->ext_ack gets an extack message.
 */
int nls_dispatch(struct nlsock *s, const void *buf, size_t n, uint32_t seq, mnl_cb_t cb,
		 void *data);

/*
 * Requests sent together, each acknowledged (rtnetlink and nfnetlink handle
 * a sendmsg's messages one after the other in the sender's context, so each
 * takes effect before the next is read, and each is answered by its own
 * NLMSG_ERROR).
 *
 * nls_batch() - the @n requests in the @len bytes at @msgs, numbered
 * @seq0, @seq0 + 1, ... (nls_seq() in order; NLM_F_ACK is set here), sent
 * in one sendmsg; rcs[i] gets request i's answer: 0 or -errno.  0 once
 * every request is answered; -errno if the send or a receive failed, the
 * unanswered ones' rcs then that error.  s->ext_ack: the last error's.
 */
#define NLS_UNANSWERED	1
/*
 * Building a batch in a buffer: each request is built numbered
 * nls_batch_seq(@s), then nls_batch_take() counts its @m bytes in (@m 0:
 * none was built, and the number stays for the next request, so that the
 * batch's numbers run unbroken): the number is taken (nls_seq()), *@seq0
 * set to it for the first request, *@k counted up, *@off past it.  1 if
 * taken, 0 if not.
 */
static inline uint32_t nls_batch_seq(const struct nlsock *s)
{
	return s->seq + 1;
}

int nls_batch_take(struct nlsock *s, size_t m, uint32_t *seq0, int *k, size_t *off);
int nls_batch(struct nlsock *s, void *msgs, size_t len, uint32_t seq0, int *rcs, int n);
/*
 * The acknowledgements in the @len received bytes at @buf for requests
 * @seq0 ... @seq0 + @n - 1 of this socket into @rcs (still NLS_UNANSWERED
 * before: an answer again is ignored; -EBADMSG for one too short to read,
 * -EPROTO for a code no errno is): how many were answered.
 */
int nls_batch_acks(struct nlsock *s, const void *buf, size_t len, uint32_t seq0, int *rcs,
		   int n);
/*
 * The same for requests answered with data before their acknowledgement
 * (a GET): each message of request i that is not NLMSG_ERROR is handed to
 * @data(i, message, @arg) as it comes (nlmsg_len bytes readable), before
 * rcs[i] is set.  nls_batch_answers() reads received bytes, nls_batch_data()
 * sends and receives as nls_batch() does, awaiting as many answers as
 * there are requests in @msgs (numbered within @n): a number of @n not
 * sent stays NLS_UNANSWERED.
 */
int nls_batch_answers(struct nlsock *s, const void *buf, size_t len, uint32_t seq0, int *rcs,
		      int n, int (*data)(int i, const struct nlmsghdr *nlh, void *arg), void *arg);
int nls_batch_data(struct nlsock *s, void *msgs, size_t len, uint32_t seq0, int *rcs, int n,
		   int (*data)(int i, const struct nlmsghdr *nlh, void *arg), void *arg);

/* Route for a forwarded frame of @family from @src to @dst arriving on @iif. */
struct nls_route {
	uint32_t oif;
	uint8_t type;		/* RTN_UNICAST, RTN_LOCAL, ... */
	int has_gw;
	uint8_t gw[16];
	uint8_t nexthop[16];	/* gateway or @dst (on-link) */
};
/* What else policy routing may select a route by (ip rule fwmark,
 * ipproto, sport, dport); zero fields are not asked.  Ports network order. */
struct nls_flow {
	uint32_t mark;
	uint8_t proto;
	uint16_t sport, dport;
};
/* @f may be NULL: the route of any frame between the two addresses. */
int nls_route_get(struct nlsock *s, int family, const uint8_t *src, const uint8_t *dst,
		  uint32_t iif, const struct nls_flow *f, struct nls_route *out);
/*
 * What the policy rules of both families select by beyond addresses and
 * devices: NLS_RULES_MARK (a fwmark), NLS_RULES_FLOW (ipproto, a port
 * range), or'ed; 0 if neither; -errno.  One RTM_GETRULE dump.
 */
#define NLS_RULES_MARK	0x1
#define NLS_RULES_FLOW	0x2
int nls_rules_select(struct nlsock *s);
/* Neighbour @addr on @ifindex: 0 with @mac if the entry is valid
 * (REACHABLE, STALE, DELAY, PROBE, PERMANENT, NOARP), -ENOENT / -EAGAIN. */
int nls_neigh_get(struct nlsock *s, int family, uint32_t ifindex, const uint8_t *addr,
		  uint8_t mac[6]);
/* A neighbour announcement (RTM_NEWNEIGH, RTM_DELNEIGH) of the monitor,
 * or an entry of a dump. */
struct nls_neigh_note {
	int family;		/* AF_INET, AF_INET6 */
	uint32_t ifindex;
	uint8_t addr[16];	/* 4 or 16 bytes */
	uint8_t mac[6];		/* when usable */
	int usable;		/* a new entry whose 6-byte MAC nls_neigh_get() would
				 * return (its valid states); 0: deleted, or no MAC */
};
/*
 * The neighbours of @family with a usable MAC (nls_neigh_get()'s states),
 * on every device, at most @max into @out: their number, or -errno.  One
 * RTM_GETNEIGH dump.
 */
int nls_neighs_get(struct nlsock *s, int family, struct nls_neigh_note *out, int max);
/* Link facts: MAC, MTU, switch id (devlink port's coprocessor), kind. */
struct nls_link {
	uint8_t mac[6];
	uint32_t mtu;
	uint8_t switch_id[32];
	int switch_id_len;
	char kind[16];		/* IFLA_INFO_KIND ("veth", "vlan", "" for a plain device) */
	uint32_t link;		/* IFLA_LINK: the lower device (VLAN, veth peer), 0 = none */
	uint16_t vlan_id;	/* a VLAN device's id and protocol (host order), else 0 */
	uint16_t vlan_proto;
	uint16_t type;		/* ifi_type: ARPHRD_ETHER, ARPHRD_PPP (a ppp unit), ... */
};
int nls_link_get(struct nlsock *s, uint32_t ifindex, struct nls_link *out);
/* A VLAN device of the namespace (no implicit padding: entries compare whole). */
struct nls_vlan {
	uint32_t ifindex;	/* the VLAN device */
	uint32_t lower;		/* the device it tags on (IFLA_LINK): a port, or a VLAN device */
	uint16_t vid;
	uint16_t proto;		/* its TPID, host order: ETH_P_8021Q or ETH_P_8021AD */
	uint8_t mac[6];
	uint16_t pad;		/* 0 */
};
/*
 * Every VLAN device (kind "vlan") into @out, at most @max: their number
 * (== @max if there may be more), or -errno.  802.1ad devices only with
 * @ad (else left out).  One RTM_GETLINK dump filtered by kind.
 */
int nls_vlans_get(struct nlsock *s, struct nls_vlan *out, int max, int ad);
/* 1 if the device's root qdisc shapes (tbf, htb, hfsc, cake, netem, cbs,
 * taprio, ets, drr, qfq, cbq), 0 if not, -errno. */
int nls_shaped(struct nlsock *s, uint32_t ifindex);

/*
 * A socket on the rtnetlink groups whose announcements change what the
 * lookups above answer: links, neighbours, IPv4/IPv6 routes and rules (not
 * tc: our own filter writes would flood it; a qdisc change is seen when
 * rtcache's entries age out).  Non-blocking; opened on @s like nls_open().
 */
int nls_monitor_open(struct nlsock *s);
/*
 * Read what the monitor has queued without waiting: 1 if anything changed
 * (or announcements were lost: ENOBUFS), 0 if nothing, -errno on error.
 */
int nls_monitor_changed(struct nlsock *s);
/*
 * What the monitor @s has queued, read without waiting: the sum of
 * @count(buffer, bytes, @arg) over the buffers read (1 a buffer if NULL),
 * one more if announcements were lost (ENOBUFS: as good as a change), or
 * -errno.
 */
int nls_monitor_drain(struct nlsock *s, int (*count)(const void *buf, size_t n, void *arg),
		      void *arg);

/*
 * @nlh (nlmsg_len bytes readable, as nls_msg_ok() checks) as a neighbour
 * note: 0 and *@n, or -1 if it is another message or malformed (no address
 * of the family's length, a header cut short): the caller takes that as a
 * change of anything.
 */
int nls_neigh_note(const struct nlmsghdr *nlh, struct nls_neigh_note *n);
/*
 * Read what the monitor @s has queued without waiting, each neighbour
 * announcement handed to @neigh(@arg): the number of other announcements
 * (links, routes, rules, and whatever nls_neigh_note() does not take),
 * one more if announcements were lost (ENOBUFS), or -errno.
 */
int nls_monitor_read(struct nlsock *s, void (*neigh)(const struct nls_neigh_note *n, void *arg),
		     void *arg);

/*
 * A socket on nftables' ruleset announcements (NFNLGRP_NFTABLES: every
 * committed transaction ends with NFT_MSG_NEWGEN).  Non-blocking; needs
 * CAP_NET_ADMIN.  0, or -1.
 */
int nls_nft_monitor_open(struct nlsock *s);
/* A socket on xfrm's policy announcements (XFRMNLGRP_POLICY), read with
 * nls_monitor_changed().  Non-blocking; needs CAP_NET_ADMIN.  0, or -1. */
int nls_xfrm_monitor_open(struct nlsock *s);
/*
 * The rulesets committed since the last call, without waiting: the
 * NFT_MSG_NEWGEN announcements read (one more if some were lost: ENOBUFS),
 * 0 if none, -errno on error.
 */
int nls_nft_monitor_gens(struct nlsock *s);
/*
 * The generation in an NFT_MSG_NEWGEN (NFTA_GEN_ID) at @nlh, nlmsg_len
 * bytes readable, into *@genid: 0, or -1 if it is another message or has
 * none (or a malformed one).
 */
int nls_parse_genid(const struct nlmsghdr *nlh, uint32_t *genid);
/*
 * nftables' ruleset generation now (NFT_MSG_GETGEN), asked on @s, an
 * nlsock on NETLINK_NETFILTER: 0 with *@genid, or -errno.  Each committed
 * transaction makes a new one (nf_tables_commit()).
 */
int nls_nft_genid(struct nlsock *s, uint32_t *genid);

#endif
