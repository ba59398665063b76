// SPDX-License-Identifier: GPL-2.0
/*
 * nlsock_lookup.c - what npuflowd asks rtnetlink and nftables (routes,
 * policy rules, neighbours, links, VLAN devices, qdiscs, the ruleset's
 * generation), and what the monitors' announcements say: the requests
 * built, the answers read into the callers' structures through nlsock.c.
 *
 * Every attribute is validated before it is read and every fixed header
 * checked to fit (nlsock_int.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/fib_rules.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "nlsock.h"
#include "nlsock_int.h"

/* --- answers -------------------------------------------------------- */

/* The kinds of answer the lookups read: answers[]. */
enum answer { A_ROUTE, A_RULE, A_NEIGH, A_LINK, A_QDISC };

/*
 * How a lookup reads one kind of answer: the message type it takes (a
 * message of another type is skipped), the fixed header that follows the
 * netlink header, and what reads them into the lookup's context.
 */
struct answer_kind {
	uint16_t type;		/* RTM_NEWROUTE, ... */
	uint16_t hdrlen;	/* the fixed header's size */
	/* the fixed header, before the attributes: 0 skips the message (NULL: read on) */
	int (*head)(const void *hdr, void *ctx);
	/* one attribute: 0, or -1 when it is malformed */
	int (*attr)(const struct nlattr *a, void *ctx);
	/* the fixed header again, once every attribute is read (or NULL) */
	void (*end)(const void *hdr, void *ctx);
};

static int route_attr(const struct nlattr *a, void *ctx);
static void route_end(const void *hdr, void *ctx);
static int rule_attr(const struct nlattr *a, void *ctx);
static int neigh_head(const void *hdr, void *ctx);
static int neigh_attr(const struct nlattr *a, void *ctx);
static int link_head(const void *hdr, void *ctx);
static int link_attr(const struct nlattr *a, void *ctx);
static int qdisc_head(const void *hdr, void *ctx);
static int qdisc_attr(const struct nlattr *a, void *ctx);

/* Each kind, and the context it fills. */
static const struct answer_kind answers[] = {
	/* struct route_ctx: the route's oif, gateway and type; got */
	[A_ROUTE] = { RTM_NEWROUTE, sizeof(struct rtmsg), NULL, route_attr, route_end },
	/* int: the rules' selectors, NLS_RULES_* or'ed */
	[A_RULE] = { RTM_NEWRULE, sizeof(struct fib_rule_hdr), NULL, rule_attr, NULL },
	/* struct neigh_ctx: the entry's state and MAC; got */
	[A_NEIGH] = { RTM_NEWNEIGH, sizeof(struct ndmsg), neigh_head, neigh_attr, NULL },
	/* struct nls_link */
	[A_LINK] = { RTM_NEWLINK, sizeof(struct ifinfomsg), link_head, link_attr, NULL },
	/* struct qd_ctx: whether a qdisc of its device shapes */
	[A_QDISC] = { RTM_NEWQDISC, sizeof(struct tcmsg), qdisc_head, qdisc_attr, NULL },
};

/*
 * @nlh read into @ctx as answers[@kind] says: MNL_CB_OK, also for a message
 * of another type (skipped); MNL_CB_ERROR with errno EBADMSG for one too
 * short for its fixed header or with a malformed attribute.
 */
static int read_answer(enum answer kind, const struct nlmsghdr *nlh, void *ctx)
{
	const struct answer_kind *k = &answers[kind];
	const void *hdr = fixed_hdr(nlh, k->hdrlen), *attrs;
	const struct nlattr *a;
	size_t len;

	if (nlh->nlmsg_type != k->type)
		return MNL_CB_OK;
	if (!hdr)
		return MNL_CB_ERROR;
	if (k->head && !k->head(hdr, ctx))
		return MNL_CB_OK;
	attrs = msg_attrs(nlh, k->hdrlen, &len);
	for_each_attr(a, attrs, len)
		if (k->attr(a, ctx))
			return bad_msg();
	if (k->end)
		k->end(hdr, ctx);
	return MNL_CB_OK;
}

/* What a lookup's answers are read with: their kind, its context. */
struct reader {
	enum answer kind;
	void *ctx;
};

/* read_answer() as nls_talk() calls it: @data is a struct reader. */
static int reader_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct reader *r = data;

	return read_answer(r->kind, nlh, r->ctx);
}

/* nls_talk() of the request @nlh, its answers read as answers[@kind] says into @ctx. */
static int talk(struct nlsock *s, struct nlmsghdr *nlh, enum answer kind, void *ctx)
{
	struct reader r = { kind, ctx };

	return nls_talk(s, nlh, nlh->nlmsg_len, reader_cb, &r);
}

/* --- route ---------------------------------------------------------- */

struct route_ctx {
	struct nls_route *r;
	int alen;
	int got;
};

static int route_attr(const struct nlattr *a, void *ctx)
{
	struct route_ctx *c = ctx;

	switch (mnl_attr_get_type(a)) {
	case RTA_OIF:
		if (valid(a, MNL_TYPE_U32))
			return -1;
		c->r->oif = mnl_attr_get_u32(a);
		break;
	case RTA_GATEWAY:
		if (mnl_attr_validate2(a, MNL_TYPE_BINARY, c->alen) < 0)
			return -1;
		memcpy(c->r->gw, mnl_attr_get_payload(a), c->alen);
		c->r->has_gw = 1;
		break;
	}
	return 0;
}

/* A route whose every attribute was read: its type, and that there is one. */
static void route_end(const void *hdr, void *ctx)
{
	const struct rtmsg *rm = hdr;
	struct route_ctx *c = ctx;

	c->r->type = rm->rtm_type;
	c->got = 1;
}

int nls_route_get(struct nlsock *s, int family, const uint8_t *src, const uint8_t *dst,
		  uint32_t iif, const struct nls_flow *f, struct nls_route *out)
{
	char buf[512] __attribute__((aligned(8)));
	int alen = family == AF_INET6 ? 16 : 4, rc;
	struct route_ctx c = { .r = out, .alen = alen };
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETROUTE, NLM_F_REQUEST);
	struct rtmsg *rm;

	memset(out, 0, sizeof(*out));
	rm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rm));
	rm->rtm_family = family;
	rm->rtm_dst_len = alen * 8;
	rm->rtm_src_len = src ? alen * 8 : 0;
	mnl_attr_put(nlh, RTA_DST, alen, dst);
	if (src)
		mnl_attr_put(nlh, RTA_SRC, alen, src);
	if (iif)
		mnl_attr_put_u32(nlh, RTA_IIF, iif);
	if (f && f->mark)
		mnl_attr_put_u32(nlh, RTA_MARK, f->mark);
	if (f && f->proto)
		mnl_attr_put_u8(nlh, RTA_IP_PROTO, f->proto);
	if (f && f->sport)
		mnl_attr_put_u16(nlh, RTA_SPORT, f->sport);
	if (f && f->dport)
		mnl_attr_put_u16(nlh, RTA_DPORT, f->dport);
	rc = talk(s, nlh, A_ROUTE, &c);
	if (rc)
		return rc;
	if (!c.got)
		return -ENOENT;
	memcpy(out->nexthop, out->has_gw ? out->gw : dst, alen);
	return 0;
}

/* --- policy rules --------------------------------------------------- */

/* A rule's attribute: a selector beyond addresses and devices into *@ctx (an int). */
static int rule_attr(const struct nlattr *a, void *ctx)
{
	int *sel = ctx;

	switch (mnl_attr_get_type(a)) {
	case FRA_FWMARK:
	case FRA_FWMASK:
		if (valid(a, MNL_TYPE_U32))
			return -1;
		if (mnl_attr_get_u32(a))
			*sel |= NLS_RULES_MARK;
		break;
	case FRA_IP_PROTO:
	case FRA_SPORT_RANGE:
	case FRA_DPORT_RANGE:
		*sel |= NLS_RULES_FLOW;
		break;
	}
	return 0;
}

int nls_rules_select(struct nlsock *s)
{
	char buf[64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP);
	struct fib_rule_hdr *fr;
	int sel = 0, rc;

	fr = mnl_nlmsg_put_extra_header(nlh, sizeof(*fr));
	fr->family = AF_UNSPEC;
	rc = talk(s, nlh, A_RULE, &sel);
	return rc ? rc : sel;
}

/* --- neighbour ------------------------------------------------------- */

/* The neighbour states whose MAC a direction may leave with. */
#define NLS_NUD_USABLE	(NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | \
			 NUD_NOARP)

int nls_neigh_note(const struct nlmsghdr *nlh, struct nls_neigh_note *n)
{
	const struct ndmsg *nd;
	const struct nlattr *a;
	const void *attrs;
	int alen, got = 0;
	size_t len;

	if (nlh->nlmsg_type != RTM_NEWNEIGH && nlh->nlmsg_type != RTM_DELNEIGH)
		return -1;
	nd = fixed_hdr(nlh, sizeof(*nd));
	if (!nd || (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6))
		return -1;
	memset(n, 0, sizeof(*n));
	n->family = nd->ndm_family;
	n->ifindex = nd->ndm_ifindex;
	alen = n->family == AF_INET6 ? 16 : 4;
	attrs = msg_attrs(nlh, sizeof(*nd), &len);
	for_each_attr(a, attrs, len) {
		if (mnl_attr_get_type(a) == NDA_DST && mnl_attr_get_payload_len(a) == alen) {
			memcpy(n->addr, mnl_attr_get_payload(a), alen);
			got = 1;
		} else if (mnl_attr_get_type(a) == NDA_LLADDR &&
			   mnl_attr_get_payload_len(a) == 6) {
			memcpy(n->mac, mnl_attr_get_payload(a), 6);
			n->usable = 1;
		}
	}
	if (!got)
		return -1;
	if (nlh->nlmsg_type == RTM_DELNEIGH || !(nd->ndm_state & NLS_NUD_USABLE))
		n->usable = 0;
	return 0;
}

struct sort_ctx {
	void (*neigh)(const struct nls_neigh_note *n, void *arg);
	void *arg;
};

/* The @n bytes of monitor messages at @buf sorted as nls_monitor_read()
 * says: the announcements that are not neighbour notes. */
static int sort_notes(const void *buf, size_t n, void *arg)
{
	const struct nlmsghdr *nlh = buf;
	struct sort_ctx *c = arg;
	struct nls_neigh_note note;
	size_t left = n;
	int others = 0;

	while (nls_msg_ok(nlh, left)) {
		if (!nls_neigh_note(nlh, &note))
			c->neigh(&note, c->arg);
		else
			others++;
		nlh = nls_msg_next(nlh, &left);
	}
	return others;
}

int nls_monitor_read(struct nlsock *s, void (*neigh)(const struct nls_neigh_note *n, void *arg),
		     void *arg)
{
	struct sort_ctx c = { neigh, arg };

	return nls_monitor_drain(s, sort_notes, &c);
}

struct neigh_ctx {
	uint8_t *mac;
	uint16_t state;
	int got;
};

/* The entry's state, whatever its attributes. */
static int neigh_head(const void *hdr, void *ctx)
{
	const struct ndmsg *nd = hdr;
	struct neigh_ctx *c = ctx;

	c->state = nd->ndm_state;
	return 1;
}

/* An address of another length (not Ethernet) is no MAC: not taken. */
static int neigh_attr(const struct nlattr *a, void *ctx)
{
	struct neigh_ctx *c = ctx;

	if (mnl_attr_get_type(a) == NDA_LLADDR && mnl_attr_get_payload_len(a) == 6) {
		memcpy(c->mac, mnl_attr_get_payload(a), 6);
		c->got = 1;
	}
	return 0;
}

int nls_neigh_get(struct nlsock *s, int family, uint32_t ifindex, const uint8_t *addr,
		  uint8_t mac[6])
{
	char buf[256] __attribute__((aligned(8)));
	struct neigh_ctx c = { .mac = mac };
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETNEIGH, NLM_F_REQUEST);
	struct ndmsg *nd;
	int rc;

	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = family;
	nd->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, family == AF_INET6 ? 16 : 4, addr);
	rc = talk(s, nlh, A_NEIGH, &c);
	if (rc)
		return rc;
	if (!c.got)
		return -ENOENT;
	if (!(c.state & NLS_NUD_USABLE))
		return -EAGAIN;
	return 0;
}

struct neighs_ctx {
	struct nls_neigh_note *out;
	int max, n;
};

static int neighs_cb(const struct nlmsghdr *nlh, void *data)
{
	struct neighs_ctx *c = data;
	struct nls_neigh_note n;

	if (nls_neigh_note(nlh, &n) || !n.usable || c->n >= c->max)
		return MNL_CB_OK;
	c->out[c->n++] = n;
	return MNL_CB_OK;
}

int nls_neighs_get(struct nlsock *s, int family, struct nls_neigh_note *out, int max)
{
	char buf[64] __attribute__((aligned(8)));
	struct neighs_ctx c = { .out = out, .max = max };
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP);
	struct ndmsg *nd;
	int rc;

	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = family;
	rc = nls_talk(s, nlh, nlh->nlmsg_len, neighs_cb, &c);
	return rc ? rc : c.n;
}

/* --- link ------------------------------------------------------------ */

/* A VLAN device's IFLA_INFO_DATA: its id and protocol.  0, or -1. */
static int vlan_data(const struct nlattr *a, struct nls_link *l)
{
	const struct nlattr *b;

	if (valid(a, MNL_TYPE_NESTED))
		return -1;
	mnl_attr_for_each_nested(b, a) {
		switch (mnl_attr_get_type(b)) {
		case IFLA_VLAN_ID:
			if (valid(b, MNL_TYPE_U16))
				return -1;
			l->vlan_id = mnl_attr_get_u16(b);
			break;
		case IFLA_VLAN_PROTOCOL:
			if (valid(b, MNL_TYPE_U16))
				return -1;
			l->vlan_proto = ntohs(mnl_attr_get_u16(b));
			break;
		}
	}
	return 0;
}

/* IFLA_LINKINFO: IFLA_INFO_KIND into l->kind, a VLAN's IFLA_INFO_DATA.
 * 0, or -1 if malformed. */
static int link_info(const struct nlattr *a, struct nls_link *l)
{
	const struct nlattr *b, *data = NULL;

	if (valid(a, MNL_TYPE_NESTED))
		return -1;
	mnl_attr_for_each_nested(b, a) {
		if (mnl_attr_get_type(b) == IFLA_INFO_DATA)
			data = b;
		if (mnl_attr_get_type(b) != IFLA_INFO_KIND)
			continue;
		if (valid(b, MNL_TYPE_NUL_STRING))
			return -1;
		snprintf(l->kind, sizeof(l->kind), "%s", mnl_attr_get_str(b));
	}
	if (data && !strcmp(l->kind, "vlan"))
		return vlan_data(data, l);
	return 0;
}

/* The link's type (ARPHRD_*), from its fixed header.  Always read on. */
static int link_head(const void *hdr, void *ctx)
{
	const struct ifinfomsg *ifi = hdr;
	struct nls_link *l = ctx;

	l->type = ifi->ifi_type;
	return 1;
}

static int link_attr(const struct nlattr *a, void *ctx)
{
	struct nls_link *l = ctx;

	switch (mnl_attr_get_type(a)) {
	case IFLA_ADDRESS:
		/* another length is another link layer's: no MAC */
		if (mnl_attr_get_payload_len(a) == 6)
			memcpy(l->mac, mnl_attr_get_payload(a), 6);
		break;
	case IFLA_MTU:
		if (valid(a, MNL_TYPE_U32))
			return -1;
		l->mtu = mnl_attr_get_u32(a);
		break;
	case IFLA_PHYS_SWITCH_ID:
		if (mnl_attr_get_payload_len(a) > sizeof(l->switch_id))
			return -1;	/* MAX_PHYS_ITEM_ID_LEN */
		l->switch_id_len = mnl_attr_get_payload_len(a);
		memcpy(l->switch_id, mnl_attr_get_payload(a), l->switch_id_len);
		break;
	case IFLA_LINK:
		if (valid(a, MNL_TYPE_U32))
			return -1;
		l->link = mnl_attr_get_u32(a);
		break;
	case IFLA_LINKINFO:
		return link_info(a, l);
	}
	return 0;
}

int nls_link_get(struct nlsock *s, uint32_t ifindex, struct nls_link *out)
{
	char buf[256] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETLINK, NLM_F_REQUEST);
	struct ifinfomsg *ifi;

	memset(out, 0, sizeof(*out));
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return talk(s, nlh, A_LINK, out);
}

/* The dump's VLAN devices, into the caller's array: 802.1ad ones with @ad. */
struct vlans_ctx {
	struct nls_vlan *v;
	int n, max;
	int ad;
};

static int vlans_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi;
	struct vlans_ctx *c = data;
	struct nls_link l;
	int rc;

	memset(&l, 0, sizeof(l));
	rc = read_answer(A_LINK, nlh, &l);	/* another message leaves @l empty: no "vlan" */
	if (rc != MNL_CB_OK)
		return rc;
	if (strcmp(l.kind, "vlan") || !l.link ||
	    (l.vlan_proto != ETH_P_8021Q && !(c->ad && l.vlan_proto == ETH_P_8021AD)))
		return MNL_CB_OK;
	if (c->n == c->max)
		return MNL_CB_OK;	/* counted past max: the caller sees n == max */
	ifi = fixed_hdr(nlh, sizeof(*ifi));
	c->v[c->n].ifindex = ifi->ifi_index;
	c->v[c->n].lower = l.link;
	c->v[c->n].vid = l.vlan_id;
	c->v[c->n].proto = l.vlan_proto;
	memcpy(c->v[c->n].mac, l.mac, 6);
	c->v[c->n].pad = 0;
	c->n++;
	return MNL_CB_OK;
}

int nls_vlans_get(struct nlsock *s, struct nls_vlan *out, int max, int ad)
{
	char buf[256] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP);
	struct vlans_ctx c = { .v = out, .max = max, .ad = ad };
	struct ifinfomsg *ifi;
	struct nlattr *li;
	int rc;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	/* the kernel dumps only links of this kind (rtnl_dump_ifinfo) */
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vlan");
	mnl_attr_nest_end(nlh, li);
	rc = nls_talk(s, nlh, nlh->nlmsg_len, vlans_cb, &c);
	return rc ? rc : c.n;
}

/* --- qdisc ----------------------------------------------------------- */

struct qd_ctx {
	uint32_t ifindex;
	int shaped;
};

static int is_shaper(const char *kind)
{
	static const char *const shapers[] = {
		"tbf", "htb", "hfsc", "cake", "netem", "cbs", "taprio", "ets", "drr", "qfq",
		"cbq", NULL,
	};
	int i;

	for (i = 0; shapers[i]; i++)
		if (!strcmp(kind, shapers[i]))
			return 1;
	return 0;
}

/* The qdiscs of the device asked about but ingress and clsact: those that may shape its egress. */
static int qdisc_head(const void *hdr, void *ctx)
{
	const struct tcmsg *t = hdr;
	struct qd_ctx *c = ctx;

	return (uint32_t)t->tcm_ifindex == c->ifindex && t->tcm_parent != TC_H_INGRESS &&
	       t->tcm_parent != TC_H_CLSACT;
}

static int qdisc_attr(const struct nlattr *a, void *ctx)
{
	struct qd_ctx *c = ctx;

	if (mnl_attr_get_type(a) != TCA_KIND)
		return 0;
	if (valid(a, MNL_TYPE_NUL_STRING))
		return -1;
	if (is_shaper(mnl_attr_get_str(a)))
		c->shaped = 1;
	return 0;
}

int nls_shaped(struct nlsock *s, uint32_t ifindex)
{
	char buf[256] __attribute__((aligned(8)));
	struct qd_ctx c = { .ifindex = ifindex };
	struct nlmsghdr *nlh = nls_request(buf, s, RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP);
	struct tcmsg *t;
	int rc;

	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;	/* strict dumps filter by it; qdisc_head() checks anyway */
	rc = talk(s, nlh, A_QDISC, &c);
	return rc ? rc : c.shaped;
}

/* --- nftables' ruleset generation ----------------------------------- */

int nls_parse_genid(const struct nlmsghdr *nlh, uint32_t *genid)
{
	const struct nlattr *a;
	const void *attrs;
	size_t len;

	if (nlh->nlmsg_type != ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN) ||
	    !fixed_hdr(nlh, sizeof(struct nfgenmsg)))
		return -1;
	attrs = msg_attrs(nlh, sizeof(struct nfgenmsg), &len);
	for_each_attr(a, attrs, len) {
		if (mnl_attr_get_type(a) != NFTA_GEN_ID)
			continue;
		if (valid(a, MNL_TYPE_U32))
			return -1;
		*genid = ntohl(mnl_attr_get_u32(a));
		return 0;
	}
	return -1;
}

/* NFT_MSG_NEWGEN announcements among the @n bytes of messages at @buf. */
static int count_gens(const void *buf, size_t n, void *unused)
{
	const struct nlmsghdr *nlh = buf;
	size_t left = n;
	int gens = 0;

	(void)unused;
	while (nls_msg_ok(nlh, left)) {
		if (nlh->nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN))
			gens++;
		nlh = nls_msg_next(nlh, &left);
	}
	return gens;
}

int nls_nft_monitor_gens(struct nlsock *s)
{
	return nls_monitor_drain(s, count_gens, NULL);
}

static int genid_cb(const struct nlmsghdr *nlh, void *data)
{
	return nls_parse_genid(nlh, data) ? bad_msg() : MNL_CB_OK;
}

int nls_nft_genid(struct nlsock *s, uint32_t *genid)
{
	char b[64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nls_request(b, s, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETGEN,
					   NLM_F_REQUEST);
	struct nfgenmsg *nfg;

	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	return nls_talk(s, nlh, nlh->nlmsg_len, genid_cb, genid);
}
