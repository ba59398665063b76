// SPDX-License-Identifier: GPL-2.0
/*
 * ctclient.c - conntrack over libnetfilter_conntrack (see ctclient.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_conntrack_tcp.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include "ctclient.h"
#include "flowmaker.h"

/* @len bytes of attribute @type of @ct into @dst: 0, or -1 if @ct lacks it
 * (nfct_get_attr() NULL). */
static int get_attr(const struct nf_conntrack *ct, enum nf_conntrack_attr type, void *dst,
		    size_t len)
{
	const void *p = nfct_get_attr(ct, type);

	if (!p)
		return -1;
	memcpy(dst, p, len);
	return 0;
}

/* [reply][v6][dst]: a tuple's address attributes */
static const enum nf_conntrack_attr addr_attrs[2][2][2] = {
	{ { ATTR_ORIG_IPV4_SRC, ATTR_ORIG_IPV4_DST }, { ATTR_ORIG_IPV6_SRC, ATTR_ORIG_IPV6_DST } },
	{ { ATTR_REPL_IPV4_SRC, ATTR_REPL_IPV4_DST }, { ATTR_REPL_IPV6_SRC, ATTR_REPL_IPV6_DST } },
};
static const enum nf_conntrack_attr port_attrs[2][2] = {
	{ ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST },
	{ ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST },
};

static int has_ports(uint8_t l4)
{
	return l4 == IPPROTO_TCP || l4 == IPPROTO_UDP || l4 == IPPROTO_SCTP ||
	       l4 == IPPROTO_UDPLITE || l4 == IPPROTO_DCCP;
}

/* The original (@reply 0) or reply tuple's addresses and ports into @k. */
static int get_tuple(const struct nf_conntrack *ct, int reply, int v6, int ports,
		     struct npuflow_key *k)
{
	size_t alen = v6 ? 16 : 4;

	if (get_attr(ct, addr_attrs[reply][v6][0], k->saddr, alen) ||
	    get_attr(ct, addr_attrs[reply][v6][1], k->daddr, alen))
		return -1;
	if (ports && (get_attr(ct, port_attrs[reply][0], &k->sport, 2) ||
		      get_attr(ct, port_attrs[reply][1], &k->dport, 2)))
		return -1;
	return 0;
}

/* Helper, TCP state and flags: optional, read only when set. */
static void get_extras(const struct nf_conntrack *ct, uint8_t l4, struct ct_info *ci)
{
	if (nfct_attr_is_set(ct, ATTR_ZONE) > 0)
		ci->zone = nfct_get_attr_u16(ct, ATTR_ZONE);
	if (nfct_attr_is_set(ct, ATTR_HELPER_NAME) > 0) {
		const char *h = nfct_get_attr(ct, ATTR_HELPER_NAME);

		ci->has_helper = h && h[0];
	}
	if (l4 == IPPROTO_TCP && nfct_attr_is_set(ct, ATTR_TCP_STATE) > 0) {
		ci->has_tcp = 1;
		ci->tcp_state = nfct_get_attr_u8(ct, ATTR_TCP_STATE);
		ci->tcp_flags[0] = nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_ORIG);
		ci->tcp_flags[1] = nfct_get_attr_u8(ct, ATTR_TCP_FLAGS_REPL);
	}
}

/*
 * An entry as a ct_info: 0, or -1 if it is not IPv4/IPv6 or lacks a part of
 * either tuple (family, protocol, addresses, ports of a port protocol).
 * Id, status, timeout and mark read 0 when unset (nfct_get_attr_u32).
 */
static int from_ct(const struct nf_conntrack *ct, struct ct_info *ci)
{
	uint8_t l3, l4;
	int v6;

	memset(ci, 0, sizeof(*ci));
	if (get_attr(ct, ATTR_L3PROTO, &l3, 1) || get_attr(ct, ATTR_L4PROTO, &l4, 1) ||
	    (l3 != AF_INET && l3 != AF_INET6))
		return -1;
	v6 = l3 == AF_INET6;
	ci->orig.family = ci->reply.family = v6 ? 10 : 2;
	ci->orig.proto = ci->reply.proto = l4;
	if (get_tuple(ct, 0, v6, has_ports(l4), &ci->orig) ||
	    get_tuple(ct, 1, v6, has_ports(l4), &ci->reply))
		return -1;
	ci->id = nfct_get_attr_u32(ct, ATTR_ID);
	ci->status = nfct_get_attr_u32(ct, ATTR_STATUS);
	ci->timeout = nfct_get_attr_u32(ct, ATTR_TIMEOUT);
	ci->mark = nfct_get_attr_u32(ct, ATTR_MARK);
	get_extras(ct, l4, ci);
	return 0;
}

/* @t as @ct's original (@as_reply 0) or reply tuple: addresses, protocol, ports. */
static void set_tuple(struct nf_conntrack *ct, const struct npuflow_key *t, int as_reply)
{
	int v6 = t->family == 10;

	if (v6) {
		nfct_set_attr(ct, as_reply ? ATTR_REPL_IPV6_SRC : ATTR_ORIG_IPV6_SRC, t->saddr);
		nfct_set_attr(ct, as_reply ? ATTR_REPL_IPV6_DST : ATTR_ORIG_IPV6_DST, t->daddr);
	} else {
		uint32_t a;

		memcpy(&a, t->saddr, 4);
		nfct_set_attr_u32(ct, as_reply ? ATTR_REPL_IPV4_SRC : ATTR_ORIG_IPV4_SRC, a);
		memcpy(&a, t->daddr, 4);
		nfct_set_attr_u32(ct, as_reply ? ATTR_REPL_IPV4_DST : ATTR_ORIG_IPV4_DST, a);
	}
	if (as_reply)
		nfct_set_attr_u8(ct, ATTR_REPL_L4PROTO, t->proto);
	else
		nfct_set_attr_u8(ct, ATTR_ORIG_L4PROTO, t->proto);
	nfct_set_attr_u16(ct, as_reply ? ATTR_REPL_PORT_SRC : ATTR_ORIG_PORT_SRC, t->sport);
	nfct_set_attr_u16(ct, as_reply ? ATTR_REPL_PORT_DST : ATTR_ORIG_PORT_DST, t->dport);
}

/* An nf_conntrack with @t as its original (or reply) tuple. */
static struct nf_conntrack *to_ct(const struct npuflow_key *t, int as_reply, uint32_t zone)
{
	struct nf_conntrack *ct = nfct_new();

	if (!ct)
		return NULL;
	nfct_set_attr_u8(ct, ATTR_L3PROTO, t->family == 10 ? AF_INET6 : AF_INET);
	nfct_set_attr_u8(ct, ATTR_L4PROTO, t->proto);
	set_tuple(ct, t, as_reply);
	if (zone)
		nfct_set_attr_u16(ct, ATTR_ZONE, zone);
	return ct;
}

struct get_ctx {
	struct ct_info *out;
	int got;
	ctc_cb cb;
	void *ctx;
};

/* A dump's or a get's entry: to g->cb, or into g->out; one lacking a tuple
 * is skipped (a get then answers -ENOENT). */
static int get_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *ct, void *data)
{
	struct get_ctx *g = data;
	struct ct_info ci;

	(void)type;
	if (g->cb) {
		if (!from_ct(ct, &ci))
			g->cb(g->ctx, &ci);
		return NFCT_CB_CONTINUE;
	}
	if (!from_ct(ct, g->out))
		g->got = 1;
	return NFCT_CB_CONTINUE;
}

/* A DESTROY event: to on_destroy, unless the entry lacks a tuple (counted). */
static int ev_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *ct, void *data)
{
	struct ctc *c = data;
	struct ct_info ci;

	if (type != NFCT_T_DESTROY)
		return NFCT_CB_CONTINUE;
	c->destroys++;
	if (from_ct(ct, &ci)) {
		c->incomplete++;
		return NFCT_CB_CONTINUE;
	}
	if (c->on_destroy)
		c->on_destroy(c->ctx, &ci);
	return NFCT_CB_CONTINUE;
}

/* SOL_NETLINK option @opt of @fd set to @on: 0 or -errno. */
static int nl_opt(int fd, int opt, int on)
{
	return setsockopt(fd, SOL_NETLINK, opt, &on, sizeof(on)) ? -errno : 0;
}

int ctc_reliable(struct ctc *c, int on)
{
	int rc;

	c->reliable = 0;
	if (!c->ev)
		return -ENOTCONN;
	rc = nl_opt(c->ev_fd, NETLINK_BROADCAST_ERROR, on);
	if (!rc)
		rc = nl_opt(c->ev_fd, NETLINK_NO_ENOBUFS, on);
	if (rc) {
		nl_opt(c->ev_fd, NETLINK_BROADCAST_ERROR, 0);
		return rc;
	}
	c->reliable = !!on;
	return 0;
}

int ctc_open(struct ctc *c, unsigned int rcvbuf, ctc_cb on_destroy, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->ev_fd = c->upd_fd = -1;
	c->q = nfct_open(CONNTRACK, 0);
	if (!c->q)
		return -errno;
	if (!rcvbuf)
		return 0;
	c->ev = nfct_open(CONNTRACK, NF_NETLINK_CONNTRACK_DESTROY);
	if (!c->ev) {
		int e = -errno;

		ctc_close(c);
		return e;
	}
	c->on_destroy = on_destroy;
	c->ctx = ctx;
	c->rcvbuf = nfnl_rcvbufsiz(nfct_nfnlh(c->ev), rcvbuf);
	c->ev_fd = nfct_fd(c->ev);
	fcntl(c->ev_fd, F_SETFL, fcntl(c->ev_fd, F_GETFL) | O_NONBLOCK);
	nfct_callback_register(c->ev, NFCT_T_DESTROY, ev_cb, c);
	c->reliable_err = ctc_reliable(c, 1);	/* not fatal: c->reliable stays 0 */
	return 0;
}

/* The TCP states after ESTABLISHED: a connection that is closing. */
static const uint8_t closing_states[] = {
	TCP_CONNTRACK_FIN_WAIT, TCP_CONNTRACK_CLOSE_WAIT, TCP_CONNTRACK_LAST_ACK,
	TCP_CONNTRACK_TIME_WAIT, TCP_CONNTRACK_CLOSE,
};

int ctc_tcp_closing(const struct ct_info *ci)
{
	size_t i;

	if (!ci->has_tcp)
		return 0;
	for (i = 0; i < sizeof(closing_states); i++)
		if (ci->tcp_state == closing_states[i])
			return 1;
	return 0;
}

/* An UPDATE event of a closing TCP entry: to on_closing. */
static int upd_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *ct, void *data)
{
	struct ctc *c = data;
	struct ct_info ci;

	if (type != NFCT_T_UPDATE || from_ct(ct, &ci) || !ctc_tcp_closing(&ci))
		return NFCT_CB_CONTINUE;
	c->closings++;
	if (c->on_closing)
		c->on_closing(c->ctx, &ci);
	return NFCT_CB_CONTINUE;
}

/* The kernel drops every UPDATE event but a TCP entry's in a closing state. */
static int attach_closing_filter(struct nfct_handle *h)
{
	struct nfct_filter *f = nfct_filter_create();
	size_t i;
	int rc;

	if (!f)
		return -ENOMEM;
	nfct_filter_add_attr_u32(f, NFCT_FILTER_L4PROTO, IPPROTO_TCP);
	for (i = 0; i < sizeof(closing_states); i++) {
		struct nfct_filter_proto st = {
			.proto = IPPROTO_TCP, .state = closing_states[i],
		};

		nfct_filter_add_attr(f, NFCT_FILTER_L4PROTO_STATE, &st);
	}
	rc = nfct_filter_attach(nfct_fd(h), f) ? -errno : 0;
	nfct_filter_destroy(f);
	return rc;
}

int ctc_watch_closing(struct ctc *c, unsigned int rcvbuf, ctc_cb on_closing)
{
	int rc;

	c->upd = nfct_open(CONNTRACK, NF_NETLINK_CONNTRACK_UPDATE);
	if (!c->upd)
		return -errno;
	rc = attach_closing_filter(c->upd);
	if (rc) {
		nfct_close(c->upd);
		c->upd = NULL;
		return rc;
	}
	nfnl_rcvbufsiz(nfct_nfnlh(c->upd), rcvbuf);
	c->upd_fd = nfct_fd(c->upd);
	fcntl(c->upd_fd, F_SETFL, fcntl(c->upd_fd, F_GETFL) | O_NONBLOCK);
	c->on_closing = on_closing;
	nfct_callback_register(c->upd, NFCT_T_UPDATE, upd_cb, c);
	return 0;
}

int ctc_closing_events(struct ctc *c)
{
	if (!c->upd)
		return 0;
	if (nfct_catch(c->upd) < 0 && errno == ENOBUFS) {
		c->overruns++;
		return -ENOBUFS;
	}
	return 0;
}

void ctc_close(struct ctc *c)
{
	if (c->upd)
		nfct_close(c->upd);
	c->upd = NULL;
	c->upd_fd = -1;
	if (c->ev)
		nfct_close(c->ev);
	if (c->q)
		nfct_close(c->q);
	c->ev = c->q = NULL;
	c->ev_fd = -1;
}

int ctc_get(struct ctc *c, const struct npuflow_key *t, int as_reply, uint32_t zone,
	    struct ct_info *out)
{
	struct nf_conntrack *ct = to_ct(t, as_reply, zone);
	struct get_ctx g = { .out = out };
	int rc;

	if (!ct)
		return -ENOMEM;
	nfct_callback_register(c->q, NFCT_T_ALL, get_cb, &g);
	rc = nfct_query(c->q, NFCT_Q_GET, ct);
	rc = rc < 0 ? -errno : 0;
	nfct_callback_unregister(c->q);
	nfct_destroy(ct);
	if (!rc && !g.got)
		rc = -ENOENT;
	return rc;
}

static int same_tuple(const struct npuflow_key *a, const struct npuflow_key *b)
{
	return a->family == b->family && a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, 16) &&
	       !memcmp(a->daddr, b->daddr, 16);
}

/*
 * One query whichever direction @t is: ctnetlink's get looks the tuple up
 * in conntrack's hash, which holds both directions' tuples (CTA_TUPLE_ORIG
 * only names the attribute), so the entry comes back for a reply tuple too.
 */
int ctc_dir(const struct ct_info *ci, const struct npuflow_key *t, int *dir)
{
	if (same_tuple(&ci->orig, t)) {
		*dir = 0;
		return 0;
	}
	if (same_tuple(&ci->reply, t)) {
		*dir = 1;
		return 0;
	}
	return -ENOENT;
}

int ctc_find(struct ctc *c, const struct npuflow_key *t, uint32_t zone, struct ct_info *out,
	     int *dir)
{
	int rc = ctc_get(c, t, 0, zone, out);

	return rc ? rc : ctc_dir(out, t, dir);
}

/* A ctnetlink message's headers (@type, @flags, @seq, nfgen_family
 * @family) at @buf, which has room for them. */
static struct nlmsghdr *put_hdrs(void *buf, uint8_t type, uint16_t flags, uint32_t seq,
				 uint8_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = family;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	return nlh;
}

/* An nfnetlink conntrack request of @type with @ct's attributes into @buf
 * (@len bytes) as message @seq: its length, or 0 if it does not fit. */
static size_t build_req(void *buf, size_t len, uint8_t type, int family, uint32_t seq,
			struct nf_conntrack *ct)
{
	struct nlmsghdr *nlh;

	/* the largest request nfct_nlmsg_build writes for a tuple, zone and
	 * flags is well under this; it does not take a length */
	if (len < 512)
		return 0;
	nlh = put_hdrs(buf, type, NLM_F_REQUEST | NLM_F_ACK, seq,
		       family == 10 ? AF_INET6 : AF_INET);
	if (nfct_nlmsg_build(nlh, ct) || nlh->nlmsg_len > len)
		return 0;
	return nlh->nlmsg_len;
}

/* A request of @type that names an entry by @t as its original tuple and
 * @zone, as build_req(). */
static size_t build_tuple_req(void *buf, size_t len, uint8_t type, const struct npuflow_key *t,
			      uint32_t zone, uint32_t seq)
{
	struct nf_conntrack *ct = to_ct(t, 0, zone);
	size_t n;

	if (!ct)
		return 0;
	n = build_req(buf, len, type, t->family, seq, ct);
	nfct_destroy(ct);
	return n;
}

size_t ctc_build_get(void *buf, size_t len, const struct npuflow_key *t, uint32_t zone,
		     uint32_t seq)
{
	/* as nfct_query(NFCT_Q_GET): the tuple as the original one finds
	 * the entry by either direction (ctc_find) */
	return build_tuple_req(buf, len, IPCTNL_MSG_CT_GET, t, zone, seq);
}

size_t ctc_build_dump(void *buf, size_t len, uint32_t seq)
{
	if (len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)))
		return 0;
	/* AF_UNSPEC: every family's entries */
	return put_hdrs(buf, IPCTNL_MSG_CT_GET, NLM_F_REQUEST | NLM_F_DUMP, seq,
			AF_UNSPEC)->nlmsg_len;
}

int ctc_parse(const struct nlmsghdr *nlh, struct ct_info *out)
{
	struct nf_conntrack *ct;
	int rc = -EBADMSG;

	if (nlh->nlmsg_type != ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW) ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct nfgenmsg))
		return -EBADMSG;
	ct = nfct_new();
	if (!ct)
		return -ENOMEM;
	if (!nfct_nlmsg_parse(nlh, ct) && !from_ct(ct, out))
		rc = 0;
	nfct_destroy(ct);
	return rc;
}

static int update(struct ctc *c, struct nf_conntrack *ct)
{
	int rc;

	nfct_callback_unregister(c->q);
	rc = nfct_query(c->q, NFCT_Q_UPDATE, ct);
	rc = rc < 0 ? -errno : 0;
	nfct_destroy(ct);
	return rc;
}

int ctc_set_timeout(struct ctc *c, const struct npuflow_key *orig, uint32_t zone,
		    uint32_t secs)
{
	struct nf_conntrack *ct = to_ct(orig, 0, zone);

	if (!ct)
		return -ENOMEM;
	nfct_set_attr_u32(ct, ATTR_TIMEOUT, secs);
	return update(c, ct);
}

size_t ctc_build_timeout(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			 uint32_t secs, uint32_t seq)
{
	struct nf_conntrack *ct = to_ct(orig, 0, zone);
	size_t n;

	if (!ct)
		return 0;
	nfct_set_attr_u32(ct, ATTR_TIMEOUT, secs);
	/* as nfct_query(NFCT_Q_UPDATE): IPCTNL_MSG_CT_NEW without NLM_F_CREATE */
	n = build_req(buf, len, IPCTNL_MSG_CT_NEW, orig->family, seq, ct);
	nfct_destroy(ct);
	return n;
}

/*
 * The update that sets (@on) or clears both directions' BE_LIBERAL flag of
 * @orig's entry: the flag under its mask (ctnetlink's nlattr_to_tcp()
 * changes only the masked bits).
 */
static struct nf_conntrack *be_liberal_ct(const struct npuflow_key *orig, uint32_t zone, int on)
{
	struct nf_conntrack *ct = to_ct(orig, 0, zone);
	uint8_t f = on ? IP_CT_TCP_FLAG_BE_LIBERAL : 0;

	if (!ct)
		return NULL;
	nfct_set_attr_u8(ct, ATTR_TCP_FLAGS_ORIG, f);
	nfct_set_attr_u8(ct, ATTR_TCP_MASK_ORIG, IP_CT_TCP_FLAG_BE_LIBERAL);
	nfct_set_attr_u8(ct, ATTR_TCP_FLAGS_REPL, f);
	nfct_set_attr_u8(ct, ATTR_TCP_MASK_REPL, IP_CT_TCP_FLAG_BE_LIBERAL);
	return ct;
}

int ctc_be_liberal(struct ctc *c, const struct npuflow_key *orig, uint32_t zone, int on)
{
	struct nf_conntrack *ct;

	if (orig->proto != IPPROTO_TCP)
		return 0;
	ct = be_liberal_ct(orig, zone, on);
	return ct ? update(c, ct) : -ENOMEM;
}

size_t ctc_build_be_liberal(void *buf, size_t len, const struct npuflow_key *orig,
			    uint32_t zone, uint32_t seq)
{
	struct nf_conntrack *ct;
	size_t n;

	if (orig->proto != IPPROTO_TCP)
		return 0;
	ct = be_liberal_ct(orig, zone, 1);
	if (!ct)
		return 0;
	/* as nfct_query(NFCT_Q_UPDATE): IPCTNL_MSG_CT_NEW without NLM_F_CREATE */
	n = build_req(buf, len, IPCTNL_MSG_CT_NEW, orig->family, seq, ct);
	nfct_destroy(ct);
	return n;
}

size_t ctc_build_create(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			uint32_t secs, uint32_t seq)
{
	struct nf_conntrack *ct;
	struct npuflow_key r;
	size_t n;

	if (orig->proto != IPPROTO_TCP)
		return 0;
	ct = to_ct(orig, 0, zone);
	if (!ct)
		return 0;
	r = *orig;
	memcpy(r.saddr, orig->daddr, sizeof(r.saddr));
	memcpy(r.daddr, orig->saddr, sizeof(r.daddr));
	r.sport = orig->dport;
	r.dport = orig->sport;
	nfct_set_attr_u8(ct, ATTR_REPL_L3PROTO, orig->family == 10 ? AF_INET6 : AF_INET);
	set_tuple(ct, &r, 1);
	nfct_set_attr_u32(ct, ATTR_TIMEOUT, secs);
	nfct_set_attr_u32(ct, ATTR_STATUS, IPS_SEEN_REPLY | IPS_ASSURED);
	nfct_set_attr_u8(ct, ATTR_TCP_STATE, TCP_CONNTRACK_ESTABLISHED);
	/* as nfct_query(NFCT_Q_CREATE): CT_NEW with NLM_F_CREATE | NLM_F_EXCL */
	n = build_req(buf, len, IPCTNL_MSG_CT_NEW, orig->family, seq, ct);
	if (n)
		((struct nlmsghdr *)buf)->nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
	nfct_destroy(ct);
	return n;
}

size_t ctc_build_delete(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			uint32_t seq)
{
	return build_tuple_req(buf, len, IPCTNL_MSG_CT_DELETE, orig, zone, seq);
}

int ctc_events(struct ctc *c)
{
	int rc;

	if (!c->ev)
		return 0;
	rc = nfct_catch(c->ev);
	if (rc < 0 && errno == ENOBUFS) {
		c->overruns++;
		return -ENOBUFS;
	}
	return 0;
}

int ctc_dump(struct ctc *c, ctc_cb cb, void *ctx)
{
	struct get_ctx g = { .cb = cb, .ctx = ctx };
	uint32_t fam;
	int rc = 0;

	for (fam = 0; fam < 2 && !rc; fam++) {
		uint32_t f = fam ? AF_INET6 : AF_INET;

		nfct_callback_register(c->q, NFCT_T_ALL, get_cb, &g);
		rc = nfct_query(c->q, NFCT_Q_DUMP, &f);
		rc = rc < 0 ? -errno : 0;
		nfct_callback_unregister(c->q);
	}
	return rc;
}

uint32_t ctc_fm_flags(const struct ct_info *ci)
{
	uint32_t f = FM_CT_FOUND;

	if (ci->status & IPS_ASSURED)
		f |= FM_CT_ASSURED;
	if (ci->orig.proto == IPPROTO_TCP ? ci->has_tcp &&
	    ci->tcp_state == TCP_CONNTRACK_ESTABLISHED : !!(ci->status & IPS_ASSURED))
		f |= FM_CT_ESTABLISHED;
	if (ci->has_helper || (ci->status & IPS_HELPER))
		f |= FM_CT_HELPER;
	if (ci->status & IPS_SEQ_ADJUST)
		f |= FM_CT_SEQADJ;
	if (ci->status & IPS_DYING)
		f |= FM_CT_DYING;
	if (ci->status & IPS_NAT_MASK)
		f |= FM_CT_NAT;
	if ((ci->tcp_flags[0] | ci->tcp_flags[1]) & IP_CT_TCP_FLAG_BE_LIBERAL)
		f |= FM_CT_LIBERAL;
	return f;
}
