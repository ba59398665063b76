// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware writer's messages (loader/tcflower.c): a flower rule per
 * direction, built and parsed back, with the exact pedit keys the driver's
 * parser (kernel/npuep/flow.c) reads: (old & mask) | val per byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "../../loader/tcflower.c"

static char buf[8192] __attribute__((aligned(8)));

static struct npuflow_conn conn4(int nat)
{
	struct npuflow_conn c;
	uint32_t a = htonl(0x0a000102), b = htonl(0x0a000202), m = htonl(0xc6336401);

	memset(&c, 0, sizeof(c));
	c.key[0].ifindex = 3;
	c.key[0].family = 2;
	c.key[0].proto = 6;
	c.key[0].sport = htons(40000);
	c.key[0].dport = htons(5201);
	memcpy(c.key[0].saddr, &a, 4);
	memcpy(c.key[0].daddr, &b, 4);
	c.key[1] = c.key[0];
	c.key[1].ifindex = 8;
	c.key[1].sport = htons(5201);
	c.key[1].dport = htons(nat ? 61000 : 40000);
	memcpy(c.key[1].saddr, &b, 4);
	memcpy(c.key[1].daddr, nat ? &m : &a, 4);
	c.out_ifindex[0] = 8;
	c.out_ifindex[1] = 3;
	memcpy(c.dmac[0], "\x02\x00\x00\x00\x08\x02", 6);
	memcpy(c.smac[0], "\x02\x00\x00\x00\x08\x01", 6);
	memcpy(c.dmac[1], "\x02\x00\x00\x00\x03\x02", 6);
	memcpy(c.smac[1], "\x02\x00\x00\x00\x03\x01", 6);
	c.hw_handle[0] = 1;
	c.hw_handle[1] = 2;
	c.tc_prio = NPUFLOW_TC_PRIO_IP;
	c.flags = NPUFLOW_CONN_F_ROUTED;
	return c;
}

/* the pedit keys of a built message */
struct kx {
	int n;
	struct tc_pedit_key k[24];
	uint16_t htype[24], cmd[24];
	uint32_t csum_flags;
	uint32_t mirred_ifindex;
	int mirred_action, mirred_eaction;
	char kinds[6][16];
	int nkinds;
	int pops, pushes;
	uint16_t push_vid, push_proto;	/* the last push's */
	uint16_t pv[4], pp[4];		/* each push's, in order */
	int no_percpu;		/* actions whose TCA_ACT_FLAGS set NO_PERCPU_STATS */
};

static void decode(const struct nlmsghdr *nlh, struct kx *x)
{
	const struct nlattr *a, *b, *act, *y, *z, *w;
	int nex = 0;

	memset(x, 0, sizeof(*x));
	mnl_attr_for_each(a, nlh, sizeof(struct tcmsg)) {
		if (mnl_attr_get_type(a) != TCA_OPTIONS)
			continue;
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) != TCA_FLOWER_ACT)
				continue;
			mnl_attr_for_each_nested(act, b) {
				const char *kind = "";

				assert_int_equal(mnl_attr_get_type(act), x->nkinds + 1);
				mnl_attr_for_each_nested(y, act) {
					if (mnl_attr_get_type(y) == TCA_ACT_KIND)
						kind = mnl_attr_get_str(y);
					if (mnl_attr_get_type(y) == TCA_ACT_FLAGS) {
						const struct nla_bitfield32 *bf =
							mnl_attr_get_payload(y);

						assert_int_equal(mnl_attr_get_payload_len(y),
								 sizeof(*bf));
						assert_int_equal(bf->value, TCA_ACT_FLAGS_NO_PERCPU_STATS);
						assert_int_equal(bf->selector,
								 TCA_ACT_FLAGS_NO_PERCPU_STATS);
						x->no_percpu++;
					}
					if (mnl_attr_get_type(y) != TCA_ACT_OPTIONS)
						continue;
					mnl_attr_for_each_nested(z, y) {
						uint16_t t = mnl_attr_get_type(z);

						if (!strcmp(kind, "pedit") && t == TCA_PEDIT_PARMS_EX) {
							const struct tc_pedit_sel *s =
								mnl_attr_get_payload(z);

							assert_int_equal(s->action, TC_ACT_PIPE);
							x->n = s->nkeys;
							memcpy(x->k, s->keys, s->nkeys * sizeof(s->keys[0]));
						}
						if (!strcmp(kind, "pedit") && t == TCA_PEDIT_KEYS_EX) {
							mnl_attr_for_each_nested(w, z) {
								const struct nlattr *v;

								mnl_attr_for_each_nested(v, w) {
									if (mnl_attr_get_type(v) == TCA_PEDIT_KEY_EX_HTYPE)
										x->htype[nex] = mnl_attr_get_u16(v);
									else
										x->cmd[nex] = mnl_attr_get_u16(v);
								}
								nex++;
							}
						}
						if (!strcmp(kind, "csum") && t == TCA_CSUM_PARMS) {
							const struct tc_csum *cs = mnl_attr_get_payload(z);

							assert_int_equal(cs->action, TC_ACT_PIPE);
							x->csum_flags = cs->update_flags;
						}
						if (!strcmp(kind, "vlan") && t == TCA_VLAN_PARMS) {
							const struct tc_vlan *vl = mnl_attr_get_payload(z);

							assert_int_equal(vl->action, TC_ACT_PIPE);
							x->pops += vl->v_action == TCA_VLAN_ACT_POP;
							x->pushes += vl->v_action == TCA_VLAN_ACT_PUSH;
						}
						if (!strcmp(kind, "vlan") && t == TCA_VLAN_PUSH_VLAN_ID) {
							x->push_vid = mnl_attr_get_u16(z);
							x->pv[(x->pushes - 1) & 3] = x->push_vid;
						}
						if (!strcmp(kind, "vlan") &&
						    t == TCA_VLAN_PUSH_VLAN_PROTOCOL) {
							x->push_proto = mnl_attr_get_u16(z);
							x->pp[(x->pushes - 1) & 3] = x->push_proto;
						}
						if (!strcmp(kind, "mirred") && t == TCA_MIRRED_PARMS) {
							const struct tc_mirred *mr = mnl_attr_get_payload(z);

							x->mirred_ifindex = mr->ifindex;
							x->mirred_action = mr->action;
							x->mirred_eaction = mr->eaction;
						}
					}
				}
				snprintf(x->kinds[x->nkinds++], 16, "%s", kind);
			}
		}
	}
	assert_int_equal(nex, x->n);
}

static void assert_key(const struct kx *x, int i, uint16_t htype, uint16_t cmd, uint32_t off,
		       const char *val, const char *mask)
{
	assert_int_equal(x->htype[i], htype);
	assert_int_equal(x->cmd[i], cmd);
	assert_int_equal(x->k[i].off, off);
	assert_memory_equal(&x->k[i].val, val, 4);
	assert_memory_equal(&x->k[i].mask, mask, 4);
}

static void test_routed_v4(void **st)
{
	struct npuflow_conn c = conn4(0);
	struct tcfl_rule r;
	struct tcfl_info in;
	struct kx x;
	size_t n;
	const struct tcmsg *t;
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	(void)st;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_SW, &r);
	n = tcfl_build_add(buf, sizeof(buf), &r, 7);
	assert_true(n > 0);
	assert_int_equal(nlh->nlmsg_len, n);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWTFILTER);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	t = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(t->tcm_ifindex, 3);
	assert_int_equal(t->tcm_handle, 1);
	assert_int_equal(t->tcm_parent, 0xfffffff2);
	assert_int_equal(t->tcm_info, ((uint32_t)NPUFLOW_TC_PRIO_IP << 16) | htons(ETH_P_IP));

	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_string_equal(in.kind, "flower");
	assert_int_equal(in.flags, TCA_CLS_FLAGS_SKIP_SW);
	assert_int_equal(in.prio, NPUFLOW_TC_PRIO_IP);
	assert_int_equal(in.protocol, ETH_P_IP);
	assert_memory_equal(&in.match, &c.key[0], sizeof(in.match));
	assert_int_equal(in.out_ifindex, 8);
	{
		const struct nlattr *a, *b;
		int seen = 0;

		mnl_attr_for_each(a, nlh, sizeof(struct tcmsg))
			if (mnl_attr_get_type(a) == TCA_OPTIONS)
				mnl_attr_for_each_nested(b, a) {
					if (mnl_attr_get_type(b) == TCA_FLOWER_KEY_TCP_FLAGS) {
						assert_int_equal(mnl_attr_get_u16(b), 0);
						seen |= 1;
					}
					if (mnl_attr_get_type(b) == TCA_FLOWER_KEY_TCP_FLAGS_MASK) {
						assert_int_equal(mnl_attr_get_u16(b), htons(5));
						seen |= 2;
					}
				}
		assert_int_equal(seen, 3);	/* FIN and RST stay with the host */
	}
	/* hardware only: the device updates the checksums, no csum action */
	assert_int_equal(in.nactions, 2);
	assert_string_equal(in.actions[0], "pedit");
	assert_string_equal(in.actions[1], "mirred");

	decode(nlh, &x);
	/* eth dst 02:00:00:00:08:02, eth src 02:00:00:00:08:01, ttl add 255 */
	assert_int_equal(x.n, 4);
	assert_key(&x, 0, TCA_PEDIT_KEY_EX_HDR_TYPE_ETH, 0, 0, "\x02\x00\x00\x00",
		   "\x00\x00\x00\x00");
	assert_key(&x, 1, TCA_PEDIT_KEY_EX_HDR_TYPE_ETH, 0, 4, "\x08\x02\x02\x00",
		   "\x00\x00\x00\x00");
	assert_key(&x, 2, TCA_PEDIT_KEY_EX_HDR_TYPE_ETH, 0, 8, "\x00\x00\x08\x01",
		   "\x00\x00\x00\x00");
	assert_key(&x, 3, TCA_PEDIT_KEY_EX_HDR_TYPE_IP4, TCA_PEDIT_KEY_EX_CMD_ADD, 8,
		   "\xff\x00\x00\x00", "\x00\xff\xff\xff");
	assert_int_equal(x.csum_flags, 0);
	assert_int_equal(x.mirred_ifindex, 8);
	assert_int_equal(x.mirred_action, TC_ACT_STOLEN);
	assert_int_equal(x.mirred_eaction, TCA_EGRESS_REDIR);
}

/*
 * A hardware-only rule's actions ask for no per-CPU counters
 * (TCA_ACT_FLAGS_NO_PERCPU_STATS, iproute2's no_percpu): the software path
 * never runs them and the driver's statistics land in one counter, and
 * each per-CPU counter costs the rule's write an alloc_percpu().  A rule
 * in software too keeps them, for its frames on every CPU.
 */
static void test_hw_only_no_percpu(void **st)
{
	struct npuflow_conn c = conn4(0);
	struct tcfl_rule r;
	struct kx x;

	(void)st;
	c.out_vid[0] = 7;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_SW, &r);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 7) > 0);
	decode((struct nlmsghdr *)buf, &x);
	assert_int_equal(x.nkinds, 3);		/* pedit, vlan push, mirred */
	assert_int_equal(x.no_percpu, 3);
	tcfl_rule_from_conn(&c, 0, 0, &r);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 7) > 0);
	decode((struct nlmsghdr *)buf, &x);
	assert_int_equal(x.nkinds, 4);		/* pedit, csum, vlan push, mirred */
	assert_int_equal(x.no_percpu, 0);
}

static void test_nat_v4_both_directions(void **st)
{
	struct npuflow_conn c = conn4(1);
	struct tcfl_rule r;
	struct kx x;
	char line[1024];

	(void)st;
	c.flags = 0;	/* bridged-like: no ttl */
	/* original: 10.0.1.2:40000 > 10.0.2.2:5201 leaves as 198.51.100.1:61000 > same */
	tcfl_rule_from_conn(&c, 0, 0, &r);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 1) > 0);
	decode((struct nlmsghdr *)buf, &x);
	assert_int_equal(x.n, 5);
	assert_key(&x, 3, TCA_PEDIT_KEY_EX_HDR_TYPE_IP4, 0, 12, "\xc6\x33\x64\x01",
		   "\x00\x00\x00\x00");
	assert_key(&x, 4, TCA_PEDIT_KEY_EX_HDR_TYPE_TCP, 0, 0, "\xee\x48\x00\x00",
		   "\x00\x00\xff\xff");
	tcfl_fmt(&r, "p3", "p8", line, sizeof(line));
	assert_string_equal(line,
		"tc filter add dev p3 ingress protocol ip prio 50416 handle 1 flower ip_proto tcp "
		"src_ip 10.0.1.2 dst_ip 10.0.2.2 src_port 40000 dst_port 5201 tcp_flags 0x0/0x5 "
		"action pedit ex "
		"munge eth dst set 02:00:00:00:08:02 munge eth src set 02:00:00:00:08:01 "
		"munge ip src set 198.51.100.1 munge tcp sport set 61000 pipe action csum ip tcp "
		"pipe action mirred egress redirect dev p8");
	/* reply: 10.0.2.2:5201 > 198.51.100.1:61000 leaves as > 10.0.1.2:40000 */
	tcfl_rule_from_conn(&c, 1, 0, &r);
	assert_int_equal(r.ifindex, 8);
	assert_int_equal(r.handle, 2);
	assert_int_equal(r.out_ifindex, 3);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 2) > 0);
	decode((struct nlmsghdr *)buf, &x);
	assert_int_equal(x.n, 5);
	assert_key(&x, 3, TCA_PEDIT_KEY_EX_HDR_TYPE_IP4, 0, 16, "\x0a\x00\x01\x02",
		   "\x00\x00\x00\x00");
	assert_key(&x, 4, TCA_PEDIT_KEY_EX_HDR_TYPE_TCP, 0, 0, "\x00\x00\x9c\x40",
		   "\xff\xff\x00\x00");
}

static void test_v6_udp(void **st)
{
	struct npuflow_conn c;
	struct tcfl_rule r;
	struct tcfl_info in;
	struct kx x;
	const struct tcmsg *t = (const struct tcmsg *)(buf + sizeof(struct nlmsghdr));

	(void)st;
	memset(&c, 0, sizeof(c));
	c.key[0].ifindex = 3;
	c.key[0].family = 10;
	c.key[0].proto = 17;
	c.key[0].sport = htons(5000);
	c.key[0].dport = htons(53);
	inet_pton(AF_INET6, "fd00:211:1::2", c.key[0].saddr);
	inet_pton(AF_INET6, "fd00:211:2::2", c.key[0].daddr);
	c.key[1] = c.key[0];
	c.key[1].ifindex = 8;
	c.key[1].sport = htons(53);
	c.key[1].dport = htons(5000);
	memcpy(c.key[1].saddr, c.key[0].daddr, 16);
	memcpy(c.key[1].daddr, c.key[0].saddr, 16);
	c.out_ifindex[0] = 8;
	c.hw_handle[0] = 41;
	c.tc_prio = NPUFLOW_TC_PRIO_IPV6;
	c.flags = NPUFLOW_CONN_F_ROUTED;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_HW, &r);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 3) > 0);
	assert_int_equal(t->tcm_info, ((uint32_t)NPUFLOW_TC_PRIO_IPV6 << 16) | htons(ETH_P_IPV6));
	assert_int_equal(tcfl_parse((struct nlmsghdr *)buf, &in), 0);
	assert_int_equal(in.match.family, 10);
	assert_memory_equal(&in.match, &c.key[0], sizeof(in.match));
	decode((struct nlmsghdr *)buf, &x);
	assert_int_equal(x.n, 4);
	assert_key(&x, 3, TCA_PEDIT_KEY_EX_HDR_TYPE_IP6, TCA_PEDIT_KEY_EX_CMD_ADD, 4,
		   "\x00\x00\x00\xff", "\xff\xff\xff\x00");
	assert_int_equal(x.csum_flags, TCA_CSUM_UPDATE_FLAG_UDP);
}

static void test_del_dump_qdisc(void **st)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	uint32_t id;
	int dir;

	(void)st;
	assert_true(tcfl_build_del(buf, sizeof(buf), 3, NPUFLOW_TC_PRIO_IP, ETH_P_IP, 5, 9) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_DELTFILTER);
	assert_int_equal(t->tcm_handle, 5);
	assert_int_equal(t->tcm_info, ((uint32_t)NPUFLOW_TC_PRIO_IP << 16) | htons(ETH_P_IP));
	assert_true(tcfl_build_dump(buf, sizeof(buf), 3, 10, 0) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_GETTFILTER);
	assert_true(nlh->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(t->tcm_parent, 0xfffffff2);
	assert_int_equal(nlh->nlmsg_len, NLMSG_LENGTH(sizeof(struct tcmsg)));
	/* terse: TCA_DUMP_FLAGS, the terse bit set and selected */
	assert_true(tcfl_build_dump(buf, sizeof(buf), 3, 10, 1) > 0);
	{
		const struct nlattr *a;
		int seen = 0;

		mnl_attr_for_each(a, nlh, sizeof(struct tcmsg)) {
			const struct nla_bitfield32 *f = mnl_attr_get_payload(a);

			assert_int_equal(mnl_attr_get_type(a), TCA_DUMP_FLAGS);
			assert_int_equal(mnl_attr_get_payload_len(a), sizeof(*f));
			assert_int_equal(f->value, TCA_DUMP_FLAGS_TERSE);
			assert_int_equal(f->selector, TCA_DUMP_FLAGS_TERSE);
			seen++;
		}
		assert_int_equal(seen, 1);
	}
	assert_true(tcfl_build_qdisc(buf, sizeof(buf), 3, 11) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWQDISC);
	assert_int_equal(t->tcm_parent, TC_H_CLSACT);
	tcfl_handle_split(tcfl_handle(1234, 1), &id, &dir);
	assert_int_equal(id, 1234);
	assert_int_equal(dir, 1);
	/* ICMP is not a flower rule the fast path takes */
	{
		struct npuflow_conn c = conn4(0);
		struct tcfl_rule r;

		c.key[0].proto = 1;
		tcfl_rule_from_conn(&c, 0, 0, &r);
		assert_int_equal(tcfl_build_add(buf, sizeof(buf), &r, 1), 0);
	}
}

/* --- parsing what the kernel (or anything on the socket) sends ------------- */

/* A filter message under construction in buf: tcmsg of a flower rule of
 * @proto (ETH_P_*), handle 7, prio NPUFLOW_TC_PRIO_IP. */
static struct nlmsghdr *filter_msg(uint16_t proto)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *t;

	nlh->nlmsg_type = RTM_NEWTFILTER;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_ifindex = 3;
	t->tcm_handle = 7;
	t->tcm_parent = TCFL_PARENT_INGRESS;
	t->tcm_info = TC_H_MAKE((uint32_t)NPUFLOW_TC_PRIO_IP << 16, htons(proto));
	return nlh;
}

/* @nlh copied to the heap at exactly its length: ASan sees a read past it. */
static struct nlmsghdr *heap_copy(const struct nlmsghdr *nlh)
{
	struct nlmsghdr *m = malloc(nlh->nlmsg_len);

	assert_non_null(m);
	memcpy(m, nlh, nlh->nlmsg_len);
	return m;
}

static int parse_heap(const struct nlmsghdr *nlh, struct tcfl_info *in)
{
	struct nlmsghdr *m = heap_copy(nlh);
	int rc = tcfl_parse(m, in);

	free(m);
	return rc;
}

/* An attribute with @len bytes of @p, without libmnl's checks. */
static void put_raw(struct nlmsghdr *nlh, uint16_t type, uint16_t len, const void *p)
{
	mnl_attr_put(nlh, type, len, p);
}

/* TCA_OPTIONS holding one flower key attribute of @len bytes, last in the message */
static struct nlmsghdr *flower_with(uint16_t proto, uint16_t type, uint16_t len)
{
	static const uint8_t junk[32] = { 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5 };
	struct nlmsghdr *nlh = filter_msg(proto);
	struct nlattr *opts;

	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	put_raw(nlh, type, len, junk);
	mnl_attr_nest_end(nlh, opts);
	return nlh;
}

static void test_parse_short_keys(void **st)
{
	static const struct { uint16_t proto, type, len; } bad[] = {
		{ ETH_P_IPV6, TCA_FLOWER_KEY_IPV6_DST, 4 },	/* the fuzz run's find */
		{ ETH_P_IPV6, TCA_FLOWER_KEY_IPV6_SRC, 15 },
		{ ETH_P_IPV6, TCA_FLOWER_KEY_IPV6_SRC, 17 },
		{ ETH_P_IP, TCA_FLOWER_KEY_IPV4_SRC, 2 },
		{ ETH_P_IP, TCA_FLOWER_KEY_IPV4_DST, 3 },
		{ ETH_P_IP, TCA_FLOWER_KEY_IPV4_DST, 0 },
		{ ETH_P_IP, TCA_FLOWER_KEY_TCP_SRC, 1 },
		{ ETH_P_IP, TCA_FLOWER_KEY_UDP_DST, 0 },
		{ ETH_P_IP, TCA_FLOWER_KEY_IP_PROTO, 0 },
		{ ETH_P_IP, TCA_FLOWER_FLAGS, 2 },
		{ ETH_P_IP, TCA_FLOWER_IN_HW_COUNT, 1 },
		{ ETH_P_IP, TCA_FLOWER_ACT, 2 },		/* a nest too short for a header */
	};
	struct tcfl_info in;
	unsigned int i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nlmsghdr *nlh = flower_with(bad[i].proto, bad[i].type, bad[i].len);

		/* refused whole: a rule read from a malformed key is not ours to keep */
		if (parse_heap(nlh, &in) != -1)
			fail_msg("attribute %u of %u bytes accepted", bad[i].type, bad[i].len);
	}
	/* the right lengths are read */
	assert_int_equal(parse_heap(flower_with(ETH_P_IPV6, TCA_FLOWER_KEY_IPV6_DST, 16), &in),
			 0);
	assert_memory_equal(in.match.daddr, "\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5\0\0\0\0\0\0\0\0",
			    16);
}

static void test_parse_unterminated_kind(void **st)
{
	struct nlmsghdr *nlh;
	struct tcfl_info in;

	(void)st;
	/* "flower" without its NUL: the padding after it is no terminator */
	nlh = filter_msg(ETH_P_IP);
	put_raw(nlh, TCA_KIND, 6, "flower");
	assert_int_equal(parse_heap(nlh, &in), -1);
	/* 16 bytes, no NUL, at the message's end: never read past it */
	nlh = filter_msg(ETH_P_IP);
	put_raw(nlh, TCA_KIND, 16, "flowerflowerflow");
	assert_int_equal(parse_heap(nlh, &in), -1);
	/* an empty kind */
	nlh = filter_msg(ETH_P_IP);
	put_raw(nlh, TCA_KIND, 0, "");
	assert_int_equal(parse_heap(nlh, &in), -1);
}

/* A flower message with one action: kind @kind (NUL-terminated if @strz) and
 * its stats and options as the fill callback puts them. */
static struct nlmsghdr *with_action(const char *kind, int strz,
				    void (*fill)(struct nlmsghdr *nlh))
{
	struct nlmsghdr *nlh = filter_msg(ETH_P_IP);
	struct nlattr *opts, *acts, *act;

	mnl_attr_put_strz(nlh, TCA_KIND, "flower");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	acts = mnl_attr_nest_start(nlh, TCA_FLOWER_ACT);
	act = mnl_attr_nest_start(nlh, 1);
	if (strz)
		mnl_attr_put_strz(nlh, TCA_ACT_KIND, kind);
	else
		put_raw(nlh, TCA_ACT_KIND, strlen(kind), kind);
	if (fill)
		fill(nlh);
	mnl_attr_nest_end(nlh, act);
	mnl_attr_nest_end(nlh, acts);
	mnl_attr_nest_end(nlh, opts);
	return nlh;
}

static void test_parse_unterminated_action_kind(void **st)
{
	struct tcfl_info in;

	(void)st;
	assert_int_equal(parse_heap(with_action("mirred", 0, NULL), &in), -1);
	assert_int_equal(parse_heap(with_action("mirredmirredmirr", 0, NULL), &in), -1);
	assert_int_equal(parse_heap(with_action("mirred", 1, NULL), &in), 0);
	assert_int_equal(in.nactions, 1);
	assert_string_equal(in.actions[0], "mirred");
}

static void put_basic(struct nlmsghdr *nlh, uint16_t type, uint64_t bytes, uint32_t packets)
{
	struct gnet_stats_basic sb;

	memset(&sb, 0, sizeof(sb));
	sb.bytes = bytes;
	sb.packets = packets;
	mnl_attr_put(nlh, type, sizeof(sb), &sb);
}

/* as the kernel: BASIC (clamped), PKT64, BASIC_HW, PKT64 of the hardware's */
static void fill_stats64(struct nlmsghdr *nlh)
{
	struct nlattr *s = mnl_attr_nest_start(nlh, TCA_ACT_STATS);

	put_basic(nlh, TCA_STATS_BASIC, 9000000000000ull, UINT32_MAX);
	mnl_attr_put_u64(nlh, TCA_STATS_PKT64, (1ull << 32) + 5);
	put_basic(nlh, TCA_STATS_BASIC_HW, 8000000000000ull, UINT32_MAX);
	mnl_attr_put_u64(nlh, TCA_STATS_PKT64, (1ull << 32) + 3);
	mnl_attr_nest_end(nlh, s);
}

static void fill_stats32(struct nlmsghdr *nlh)
{
	struct nlattr *s = mnl_attr_nest_start(nlh, TCA_ACT_STATS);

	put_basic(nlh, TCA_STATS_BASIC, 1500, 1);
	put_basic(nlh, TCA_STATS_BASIC_HW, 1500, 1);
	mnl_attr_nest_end(nlh, s);
}

static void fill_stats_short(struct nlmsghdr *nlh)
{
	struct nlattr *s = mnl_attr_nest_start(nlh, TCA_ACT_STATS);

	put_basic(nlh, TCA_STATS_BASIC, 1500, 1);
	put_raw(nlh, TCA_STATS_PKT64, 4, "\1\0\0\0");
	mnl_attr_nest_end(nlh, s);
}

static void test_parse_stats_pkt64(void **st)
{
	struct tcfl_info in;

	(void)st;
	assert_int_equal(parse_heap(with_action("mirred", 1, fill_stats64), &in), 0);
	assert_true(in.have_stats);
	assert_int_equal(in.bytes, 9000000000000ull);
	assert_int_equal(in.packets, (1ull << 32) + 5);	/* not 2^32 - 1, not the hardware's */
	assert_int_equal(parse_heap(with_action("mirred", 1, fill_stats32), &in), 0);
	assert_int_equal(in.packets, 1);
	assert_int_equal(in.bytes, 1500);
	assert_int_equal(parse_heap(with_action("mirred", 1, fill_stats_short), &in), -1);
}

/* the action's tcf_t where a u64 is not 8-byte aligned, then its parms */
static void fill_mirred_tm(struct nlmsghdr *nlh)
{
	struct tc_mirred mr = { .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR,
				.ifindex = 8 };
	struct tcf_t tm = { .install = 1, .lastuse = 42, .expires = 0 };
	struct nlattr *o = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);

	if ((uintptr_t)mnl_nlmsg_get_payload_tail(nlh) % 8 == 4)
		put_raw(nlh, TCA_MIRRED_PAD, 0, "");	/* payload at 4 mod 8 */
	mnl_attr_put(nlh, TCA_MIRRED_TM, sizeof(tm), &tm);
	mnl_attr_put(nlh, TCA_MIRRED_PARMS, sizeof(mr), &mr);
	mnl_attr_nest_end(nlh, o);
}

static void fill_mirred_short(struct nlmsghdr *nlh)
{
	struct nlattr *o = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);

	put_raw(nlh, TCA_MIRRED_PARMS, 8, "\0\0\0\0\0\0\0\0");
	mnl_attr_nest_end(nlh, o);
}

static void test_parse_action_options(void **st)
{
	struct nlmsghdr *nlh;
	struct tcfl_info in;

	(void)st;
	nlh = with_action("mirred", 1, fill_mirred_tm);
	/* read in place (buf is 8-aligned): UBSan sees a misaligned u64 */
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.lastuse_ms, 420);
	assert_true(in.have_lastuse);
	assert_int_equal(in.out_ifindex, 8);
	/* a terse dump's action: kind and counters, no options, no last use */
	assert_int_equal(parse_heap(with_action("mirred", 1, fill_stats32), &in), 0);
	assert_true(in.have_stats);
	assert_false(in.have_lastuse);
	assert_int_equal(parse_heap(with_action("mirred", 1, fill_mirred_short), &in), -1);
}

static void test_parse_truncated_every_byte(void **st)
{
	struct npuflow_conn c = conn4(1);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf, *m;
	struct tcfl_rule r;
	struct tcfl_info in;
	uint32_t full, len;

	(void)st;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_SW, &r);
	full = tcfl_build_add(buf, sizeof(buf), &r, 1);
	nlh->nlmsg_type = RTM_NEWTFILTER;
	/* a message cut anywhere, its length saying so: parsed or refused, never over-read */
	for (len = 0; len < full; len++) {
		m = malloc(full);
		assert_non_null(m);
		memcpy(m, nlh, full);
		m->nlmsg_len = len;
		if (len >= sizeof(*m)) {
			struct nlmsghdr *cut = realloc(m, len);

			assert_non_null(cut);
			m = cut;
		}
		tcfl_parse(m, &in);
		free(m);
	}
	assert_int_equal(parse_heap(nlh, &in), 0);
}

/* The flower match attribute @type's u16, or -1 if absent. */
static int match_u16(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a, *b;

	mnl_attr_for_each(a, nlh, sizeof(struct tcmsg))
		if (mnl_attr_get_type(a) == TCA_OPTIONS)
			mnl_attr_for_each_nested(b, a)
				if (mnl_attr_get_type(b) == type)
					return mnl_attr_get_u16(b);
	return -1;
}

/*
 * A connection tagged 10 on port 3 and 20 on port 8: each direction is
 * filed under 802.1Q at the VLAN prio, matches its tag and the family by
 * vlan_ethtype, pops it first and pushes the other's just before the
 * redirect - the order the driver takes (pop, then push).
 */
static void test_vlan_both_tagged(void **st)
{
	struct npuflow_conn c = conn4(0);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	const struct tcmsg *t;
	struct tcfl_info in;
	struct tcfl_rule r;
	struct kx x;
	char txt[1024];

	(void)st;
	c.key[0].vlan_outer = 10;
	c.key[1].vlan_outer = 20;
	c.out_vid[0] = 20;
	c.out_vid[1] = 10;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_SW, &r);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_VLAN);
	assert_int_equal(r.push_vid, 20);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 7) > 0);
	t = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(t->tcm_info, ((uint32_t)NPUFLOW_TC_PRIO_VLAN << 16) | htons(ETH_P_8021Q));
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_ETH_TYPE), htons(ETH_P_8021Q));
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ID), 10);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ETH_TYPE), htons(ETH_P_IP));
	decode(nlh, &x);
	assert_int_equal(x.nkinds, 4);
	assert_string_equal(x.kinds[0], "vlan");
	assert_string_equal(x.kinds[1], "pedit");
	assert_string_equal(x.kinds[2], "vlan");
	assert_string_equal(x.kinds[3], "mirred");
	assert_int_equal(x.pops, 1);
	assert_int_equal(x.pushes, 1);
	assert_int_equal(x.push_vid, 20);
	assert_int_equal(x.push_proto, htons(ETH_P_8021Q));
	assert_int_equal(x.mirred_ifindex, 8);

	/* parsed back as a dump line: the arriving key, tag and family included */
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.prio, NPUFLOW_TC_PRIO_VLAN);
	assert_int_equal(in.protocol, ETH_P_8021Q);
	assert_memory_equal(&in.match, &c.key[0], sizeof(in.match));
	assert_int_equal(in.vlan_pop, 1);
	assert_int_equal(in.push_vid, 20);
	assert_int_equal(in.nactions, 4);
	assert_true(tcfl_prio_ours(in.prio));

	tcfl_fmt(&r, "p3", "p8", txt, sizeof(txt));
	assert_non_null(strstr(txt, "protocol 802.1Q prio 50418 "));
	assert_non_null(strstr(txt, " vlan_id 10 vlan_ethtype ip "));
	assert_non_null(strstr(txt, "action vlan pop pipe action pedit"));
	assert_non_null(strstr(txt, "action vlan push id 20 pipe action mirred"));
	assert_non_null(strstr(txt, " skip_sw "));
	assert_null(strstr(txt, "csum"));
}

/* Tagged on one side only, IPv6: the tagged direction pops and leaves
 * untagged; the other arrives untagged (IPv6 prio) and pushes. */
static void test_vlan_one_side_v6(void **st)
{
	struct npuflow_conn c = conn4(0);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct tcfl_info in;
	struct tcfl_rule r;
	struct kx x;
	int i;

	(void)st;
	for (i = 0; i < 2; i++) {
		c.key[i].family = 10;
		memset(c.key[i].saddr, 0x20 + i, 16);
		memset(c.key[i].daddr, 0x21 - i, 16);
	}
	c.key[0].vlan_outer = 10;
	c.out_vid[1] = 10;
	tcfl_rule_from_conn(&c, 0, TCA_CLS_FLAGS_SKIP_SW, &r);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 7) > 0);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ETH_TYPE), htons(ETH_P_IPV6));
	decode(nlh, &x);
	assert_int_equal(x.pops, 1);
	assert_int_equal(x.pushes, 0);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.match.family, 10);
	assert_int_equal(in.match.vlan_outer, 10);

	tcfl_rule_from_conn(&c, 1, TCA_CLS_FLAGS_SKIP_SW, &r);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_IPV6);
	assert_true(tcfl_build_add(buf, sizeof(buf), &r, 8) > 0);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ID), -1);
	decode(nlh, &x);
	assert_int_equal(x.pops, 0);
	assert_int_equal(x.pushes, 1);
	assert_int_equal(x.push_vid, 10);
	assert_string_equal(x.kinds[x.nkinds - 2], "vlan");
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.protocol, ETH_P_IPV6);
	assert_int_equal(in.match.vlan_outer, 0);
}

/* The value of be16 attribute @type of the match, host order, or -1. */
static int match_be16(const struct nlmsghdr *nlh, uint16_t type)
{
	int v = match_u16(nlh, type);

	return v < 0 ? v : ntohs((uint16_t)v);
}

/* Direction @dir of @c as a skip_sw rule into @r, built into buf and decoded into @x. */
static struct nlmsghdr *build_dir(const struct npuflow_conn *c, int dir, struct tcfl_rule *r,
				  struct kx *x)
{
	tcfl_rule_from_conn(c, dir, TCA_CLS_FLAGS_SKIP_SW, r);
	assert_true(tcfl_build_add(buf, sizeof(buf), r, 7 + dir) > 0);
	decode((struct nlmsghdr *)buf, x);
	return (struct nlmsghdr *)buf;
}

/*
 * 802.1ad 100 + 802.1Q 200 on port 3, untagged on port 8: the tagged
 * direction is filed under 802.1ad at the QinQ prio, matches both tags
 * (the inner one's as the CVLAN) and pops both; the other pushes the
 * inner tag, then the outer one with its TPID.
 */
static void test_qinq(void **st)
{
	struct npuflow_conn c = conn4(0);
	struct tcfl_info in;
	struct tcfl_rule r;
	struct nlmsghdr *nlh;
	struct kx x;
	char txt[1024];

	(void)st;
	c.key[0].vlan_outer = 100 | NPUFLOW_VLAN_AD;
	c.key[0].vlan_inner = 200;
	c.out_vid[1] = 100 | NPUFLOW_VLAN_AD;
	c.out_vid_inner[1] = 200;
	nlh = build_dir(&c, 0, &r, &x);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_QINQ);
	assert_int_equal(((const struct tcmsg *)mnl_nlmsg_get_payload(nlh))->tcm_info,
			 ((uint32_t)NPUFLOW_TC_PRIO_QINQ << 16) | htons(ETH_P_8021AD));
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_ETH_TYPE), ETH_P_8021AD);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ID), 100);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_VLAN_ETH_TYPE), ETH_P_8021Q);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_CVLAN_ID), 200);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_CVLAN_ETH_TYPE), ETH_P_IP);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_PPPOE_SID), -1);
	assert_int_equal(x.nkinds, 4);
	assert_string_equal(x.kinds[0], "vlan");
	assert_string_equal(x.kinds[1], "vlan");
	assert_string_equal(x.kinds[2], "pedit");
	assert_string_equal(x.kinds[3], "mirred");
	assert_int_equal(x.pops, 2);
	assert_int_equal(x.pushes, 0);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.protocol, ETH_P_8021AD);
	assert_memory_equal(&in.match, &c.key[0], sizeof(in.match));
	assert_int_equal(in.vlan_pop, 2);
	assert_true(tcfl_prio_ours(in.prio));
	tcfl_fmt(&r, "p3", "p8", txt, sizeof(txt));
	assert_non_null(strstr(txt, "protocol 802.1ad prio 50419 "));
	assert_non_null(strstr(txt, " vlan_id 100 vlan_ethtype 802.1Q cvlan_id 200 "
				    "cvlan_ethtype ip "));
	assert_non_null(strstr(txt, "action vlan pop pipe action vlan pop pipe action pedit"));

	nlh = build_dir(&c, 1, &r, &x);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_IP);
	assert_int_equal(x.nkinds, 4);
	assert_string_equal(x.kinds[1], "vlan");
	assert_string_equal(x.kinds[2], "vlan");
	assert_int_equal(x.pops, 0);
	assert_int_equal(x.pushes, 2);
	/* innermost first: 802.1Q 200, then 802.1ad 100 outside it */
	assert_int_equal(x.pv[0], 200);
	assert_int_equal(x.pp[0], htons(ETH_P_8021Q));
	assert_int_equal(x.pv[1], 100);
	assert_int_equal(x.pp[1], htons(ETH_P_8021AD));
	assert_int_equal(x.mirred_ifindex, 3);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.push_vid, 100 | NPUFLOW_VLAN_AD);
	assert_int_equal(in.push_vid_inner, 200);
	tcfl_fmt(&r, "p8", "p3", txt, sizeof(txt));
	assert_non_null(strstr(txt, "action vlan push id 200 pipe action vlan push id 100 "
				    "protocol 802.1ad pipe action mirred"));
}

/*
 * A session on the WAN port 8 in VLAN 7 (session 5), the LAN port 3
 * untagged, masqueraded: the WAN direction matches the tag, the session
 * and its PPP protocol and pops the tag (the driver's convention: a
 * routed rule that matches a session ends it); the LAN direction is
 * redirected to the ppp device (ifindex 30) with no MAC pedit and no push.
 * Untagged, the session's rule is filed under ppp_ses at the PPPoE prio.
 */
static void test_pppoe(void **st)
{
	struct npuflow_conn c = conn4(1);
	struct tcfl_info in;
	struct tcfl_rule r;
	struct nlmsghdr *nlh;
	struct kx x;
	char txt[1024];
	int i;

	(void)st;
	c.key[1].vlan_outer = 7;
	c.key[1].pppoe_sid = 5;
	c.out_ifindex[0] = 30;
	c.out_vid[0] = 7;
	c.out_sid[0] = 5;
	nlh = build_dir(&c, 1, &r, &x);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_VLAN);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_ETH_TYPE), ETH_P_8021Q);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ID), 7);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_VLAN_ETH_TYPE), 0x8864);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_PPPOE_SID), 5);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_PPP_PROTO), 0x0021);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_CVLAN_ID), -1);
	assert_int_equal(x.nkinds, 3);
	assert_string_equal(x.kinds[0], "vlan");
	assert_string_equal(x.kinds[1], "pedit");
	assert_string_equal(x.kinds[2], "mirred");
	assert_int_equal(x.pops, 1);
	/* routed: the TTL's add is the last pedit key */
	assert_int_equal(x.cmd[x.n - 1], TCA_PEDIT_KEY_EX_CMD_ADD);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_memory_equal(&in.match, &c.key[1], sizeof(in.match));
	tcfl_fmt(&r, "p8", "p3", txt, sizeof(txt));
	assert_non_null(strstr(txt, " vlan_id 7 vlan_ethtype ppp_ses pppoe_sid 5 ppp_proto ip "));

	/* out of the ppp device: no MACs, no push, redirected to it */
	build_dir(&c, 0, &r, &x);
	assert_int_equal(r.set_mac, 0);
	assert_int_equal(r.push_vid, 0);
	assert_int_equal(x.nkinds, 2);
	assert_int_equal(x.pushes, 0);
	for (i = 0; i < x.n; i++)
		assert_int_not_equal(x.htype[i], TCA_PEDIT_KEY_EX_HDR_TYPE_ETH);
	assert_int_equal(x.mirred_ifindex, 30);
	tcfl_fmt(&r, "p3", "ppp0", txt, sizeof(txt));
	assert_null(strstr(txt, "munge eth"));
	assert_non_null(strstr(txt, "action mirred egress redirect dev ppp0"));

	/* untagged, IPv6 */
	c.key[1].vlan_outer = 0;
	c.key[1].family = 10;
	build_dir(&c, 1, &r, &x);
	assert_int_equal(r.prio, NPUFLOW_TC_PRIO_PPPOE);
	assert_int_equal(((const struct tcmsg *)mnl_nlmsg_get_payload(nlh))->tcm_info,
			 ((uint32_t)NPUFLOW_TC_PRIO_PPPOE << 16) | htons(0x8864));
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_ETH_TYPE), 0x8864);
	assert_int_equal(match_u16(nlh, TCA_FLOWER_KEY_VLAN_ID), -1);
	assert_int_equal(match_be16(nlh, TCA_FLOWER_KEY_PPP_PROTO), 0x0057);
	assert_int_equal(x.pops, 0);
	assert_int_equal(tcfl_parse(nlh, &in), 0);
	assert_int_equal(in.protocol, 0x8864);
	assert_int_equal(in.match.family, 10);
	assert_int_equal(in.match.pppoe_sid, 5);
	assert_true(tcfl_prio_ours(in.prio));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routed_v4),
		cmocka_unit_test(test_hw_only_no_percpu),
		cmocka_unit_test(test_nat_v4_both_directions),
		cmocka_unit_test(test_v6_udp),
		cmocka_unit_test(test_vlan_both_tagged),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_pppoe),
		cmocka_unit_test(test_vlan_one_side_v6),
		cmocka_unit_test(test_del_dump_qdisc),
		cmocka_unit_test(test_parse_short_keys),
		cmocka_unit_test(test_parse_unterminated_kind),
		cmocka_unit_test(test_parse_unterminated_action_kind),
		cmocka_unit_test(test_parse_stats_pkt64),
		cmocka_unit_test(test_parse_action_options),
		cmocka_unit_test(test_parse_truncated_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
