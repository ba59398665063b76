// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_nlsock - libFuzzer target for npuflowd's rtnetlink readers
 * (loader/nlsock.c, nlsock_lookup.c): the input is a received batch.  It goes through
 * nls_dispatch() as request 0 of portid 0 (acks, errors and dump ends
 * included), with every lookup's reader on each data message; and every
 * whole message goes to each reader and the ack reader directly, whatever
 * its sequence number, and to the xfrm policy reader; the batch to the
 * nftables announcement counter and the batch ack reader.  Seeds: a route
 * with a gateway, a neighbour, a link with its kind, a shaping qdisc, an
 * error with an extack message, a dump's end.
 */
#include "../../loader/nlsock.c"
#include "../../loader/nlsock_lookup.c"
#include "../../loader/xfrmdb.c"
#include "fuzz.h"

struct sink {
	struct nls_route r4, r6;
	struct route_ctx rc4, rc6;
	uint8_t mac[6];
	struct neigh_ctx nc;
	struct nls_link l;
	struct qd_ctx qc;
	struct nls_vlan v[2];
	struct vlans_ctx vc;
	int rules;
	struct xfrmdb_pol pol;
	struct nlsock s;
};

static void sink_init(struct sink *k)
{
	memset(k, 0, sizeof(*k));
	k->rc4.r = &k->r4;
	k->rc4.alen = 4;
	k->rc6.r = &k->r6;
	k->rc6.alen = 16;
	k->nc.mac = k->mac;
	k->qc.ifindex = 8;
	k->vc.v = k->v;
	k->vc.max = 2;
}

/* Every lookup's reader on @nlh; MNL_CB_OK so the batch goes on. */
static int all_cbs(const struct nlmsghdr *nlh, void *data)
{
	struct sink *k = data;

	read_answer(A_ROUTE, nlh, &k->rc4);
	read_answer(A_ROUTE, nlh, &k->rc6);
	read_answer(A_NEIGH, nlh, &k->nc);
	read_answer(A_LINK, nlh, &k->l);
	read_answer(A_QDISC, nlh, &k->qc);
	vlans_cb(nlh, &k->vc);
	read_answer(A_RULE, nlh, &k->rules);
	xfrmdb_parse(nlh, &k->pol);
	return MNL_CB_OK;
}

/* A neighbour note's every byte read, so ASan sees one past its end. */
static void note_sink(const struct nls_neigh_note *n, void *arg)
{
	volatile uint8_t x = n->addr[15] ^ n->mac[5] ^ (uint8_t)n->usable;

	(void)arg;
	(void)x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sort_ctx notes = { note_sink, NULL };
	const struct nlmsghdr *nlh;
	struct sink k;
	size_t left;

	int rcs[4] = { NLS_UNANSWERED, NLS_UNANSWERED, NLS_UNANSWERED, NLS_UNANSWERED };

	sink_init(&k);
	nls_dispatch(&k.s, data, size, 0, all_cbs, &k);
	count_gens(data, size, NULL);
	sort_notes(data, size, &notes);
	nls_batch_acks(&k.s, data, size, 0, rcs, 4);
	fuzz_for_each_msg(nlh, data, size, left) {
		all_cbs(nlh, &k);
		err_cb(nlh, &k.s);
	}
	return 0;
}

#ifdef FUZZ_SEEDS
#include <net/if.h>

static char buf[4096] __attribute__((aligned(8)));

static struct nlmsghdr *put(size_t at, uint16_t type, size_t hdrlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + at);

	nlh->nlmsg_type = type;
	mnl_nlmsg_put_extra_header(nlh, hdrlen);
	return nlh;
}

static size_t route(size_t at)
{
	struct nlmsghdr *nlh = put(at, RTM_NEWROUTE, sizeof(struct rtmsg));
	struct rtmsg *rm = mnl_nlmsg_get_payload(nlh);

	rm->rtm_family = AF_INET;
	rm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_OIF, 8);
	mnl_attr_put(nlh, RTA_GATEWAY, 4, "\x0a\x00\x02\x01");
	return nlh->nlmsg_len;
}

static size_t neigh(size_t at)
{
	struct nlmsghdr *nlh = put(at, RTM_NEWNEIGH, sizeof(struct ndmsg));

	((struct ndmsg *)mnl_nlmsg_get_payload(nlh))->ndm_state = NUD_REACHABLE;
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\x00\x02\x01");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\x08\x02");
	return nlh->nlmsg_len;
}

static size_t link_msg(size_t at)
{
	struct nlmsghdr *nlh = put(at, RTM_NEWLINK, sizeof(struct ifinfomsg));
	struct nlattr *li;

	mnl_attr_put(nlh, IFLA_ADDRESS, 6, "\x02\0\0\0\x08\x01");
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	mnl_attr_put(nlh, IFLA_PHYS_SWITCH_ID, 8, "npusim00");
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	mnl_attr_nest_end(nlh, li);
	return nlh->nlmsg_len;
}

static size_t qdisc(size_t at)
{
	struct nlmsghdr *nlh = put(at, RTM_NEWQDISC, sizeof(struct tcmsg));
	struct tcmsg *t = mnl_nlmsg_get_payload(nlh);

	t->tcm_ifindex = 8;
	t->tcm_parent = TC_H_ROOT;
	mnl_attr_put_strz(nlh, TCA_KIND, "tbf");
	return nlh->nlmsg_len;
}

static size_t err_msg(size_t at)
{
	struct nlmsghdr *nlh = put(at, NLMSG_ERROR, sizeof(struct nlmsgerr));
	struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	e->error = -EBUSY;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr);
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "port's offload is driven by a flowtable");
	return nlh->nlmsg_len;
}

static size_t done(size_t at)
{
	return put(at, NLMSG_DONE, 4)->nlmsg_len;
}

static void seeds(const char *dir)
{
	size_t n;

	seed_write(dir, "route", buf, route(0));
	seed_write(dir, "neigh", buf, neigh(0));
	seed_write(dir, "link", buf, link_msg(0));
	seed_write(dir, "qdisc", buf, qdisc(0));
	seed_write(dir, "error", buf, err_msg(0));
	n = qdisc(0);
	n += qdisc(n);
	n += done(n);
	seed_write(dir, "dump", buf, n);
	n = route(0);
	n += err_msg(n);
	seed_write(dir, "route-error", buf, n);
}
#endif
