// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_tcflower - libFuzzer target for tcfl_parse() (loader/tcflower.c):
 * the input is a batch of netlink messages as a tc filter dump hands it
 * over; every whole message is parsed.  Seeds: the rules npuflowd writes
 * (IPv4 with NAT, IPv6), one with action stats past 2^32 and a tcf_t, and
 * the first fuzz run's find (TCA_FLOWER_KEY_IPV6_DST of 4 bytes).
 */
#include "../../loader/tcflower.c"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	struct tcfl_info in;
	size_t left;

	fuzz_for_each_msg(nlh, data, size, left)
		tcfl_parse(nlh, &in);
	return 0;
}

#ifdef FUZZ_SEEDS
static char buf[8192] __attribute__((aligned(8)));

static void rule(struct tcfl_rule *r, int v6)
{
	memset(r, 0, sizeof(*r));
	r->ifindex = 3;
	r->handle = 1;
	r->prio = v6 ? NPUFLOW_TC_PRIO_IPV6 : NPUFLOW_TC_PRIO_IP;
	r->flags = TCA_CLS_FLAGS_SKIP_SW;
	r->match.family = v6 ? 10 : 2;
	r->match.proto = v6 ? 17 : 6;
	r->match.saddr[0] = 10;
	r->match.daddr[0] = 10;
	r->match.daddr[3] = 2;
	r->match.sport = htons(40000);
	r->match.dport = htons(5201);
	r->out = r->match;
	r->out.saddr[0] = 198;	/* NAT */
	r->out.sport = htons(61000);
	r->set_mac = 1;
	r->dec_ttl = 1;
	r->out_ifindex = 8;
}

/* A dumped rule: action 1 mirred with stats (PKT64) and its tcf_t. */
static size_t dumped(void)
{
	struct tc_mirred mr = { .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR,
				.ifindex = 8 };
	struct tcf_t tm = { .lastuse = 42 };
	struct gnet_stats_basic sb = { .bytes = 1ull << 40, .packets = UINT32_MAX };
	struct nlmsghdr *nlh = hdr(buf, RTM_NEWTFILTER, 0, 1, 3, 1, TCFL_PARENT_INGRESS,
				   TC_H_MAKE((uint32_t)NPUFLOW_TC_PRIO_IP << 16, htons(ETH_P_IP)));
	struct nlattr *opts, *acts, *act, *st, *o;

	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FLOWER_FLAGS, TCA_CLS_FLAGS_SKIP_SW | TCA_CLS_FLAGS_IN_HW);
	mnl_attr_put_u32(nlh, TCA_FLOWER_IN_HW_COUNT, 1);
	acts = mnl_attr_nest_start(nlh, TCA_FLOWER_ACT);
	act = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, TCA_ACT_KIND, "mirred");
	st = mnl_attr_nest_start(nlh, TCA_ACT_STATS);
	mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof(sb), &sb);
	mnl_attr_put_u64(nlh, TCA_STATS_PKT64, (1ull << 32) + 5);
	mnl_attr_put(nlh, TCA_STATS_BASIC_HW, sizeof(sb), &sb);
	mnl_attr_nest_end(nlh, st);
	o = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	mnl_attr_put(nlh, TCA_MIRRED_TM, sizeof(tm), &tm);
	mnl_attr_put(nlh, TCA_MIRRED_PARMS, sizeof(mr), &mr);
	mnl_attr_nest_end(nlh, o);
	mnl_attr_nest_end(nlh, act);
	mnl_attr_nest_end(nlh, acts);
	mnl_attr_nest_end(nlh, opts);
	return nlh->nlmsg_len;
}

static size_t short_v6_dst(void)
{
	struct nlmsghdr *nlh = hdr(buf, RTM_NEWTFILTER, 0, 1, 3, 1, TCFL_PARENT_INGRESS,
				   TC_H_MAKE((uint32_t)NPUFLOW_TC_PRIO_IPV6 << 16,
					     htons(ETH_P_IPV6)));
	struct nlattr *opts;

	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_FLOWER_KEY_IPV6_DST, 4, "\xfd\0\0\0");
	mnl_attr_nest_end(nlh, opts);
	return nlh->nlmsg_len;
}

static void seeds(const char *dir)
{
	struct tcfl_rule r;
	size_t n, m;

	rule(&r, 0);
	seed_write(dir, "add-v4-nat", buf, tcfl_build_add(buf, sizeof(buf), &r, 1));
	rule(&r, 1);
	seed_write(dir, "add-v6", buf, tcfl_build_add(buf, sizeof(buf), &r, 2));
	/* 802.1Q: tagged match, vlan pop and push */
	rule(&r, 0);
	r.match.vlan_outer = 10;
	r.prio = NPUFLOW_TC_PRIO_VLAN;
	r.push_vid = 20;
	seed_write(dir, "add-vlan", buf, tcfl_build_add(buf, sizeof(buf), &r, 3));
	seed_write(dir, "dumped-stats64", buf, dumped());
	seed_write(dir, "short-ipv6-dst", buf, short_v6_dst());
	/* a batch of two */
	rule(&r, 0);
	n = tcfl_build_add(buf, sizeof(buf), &r, 1);
	rule(&r, 1);
	m = tcfl_build_add(buf + n, sizeof(buf) - n, &r, 2);
	seed_write(dir, "batch", buf, n + m);
}
#endif
