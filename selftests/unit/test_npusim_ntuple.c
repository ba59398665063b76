// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's ingress classifier (kernel/npusim/ntuple_pure.c,
 * included directly, with the parser it reads frames through): the checks
 * of every field of NPU_CMD_NTUPLE_ADD/DEL, first match by location, masks,
 * IPv4/IPv6, ports only for TCP/UDP, fragments and malformed frames.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../../kernel/npusim/parse_pure.c"
#include "../../kernel/npusim/ntuple_pure.c"

#define NQ	2

struct frame {
	u8 b[128];
	u32 len;
	struct npusim_pkt pkt;
};

static void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = (u8)v;
}

static u16 csum(const u8 *p, u32 n)
{
	u32 s = 0, i;

	for (i = 0; i + 1 < n; i += 2)
		s += (u32)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (u16)~s;
}

/* Ethernet + IPv4/IPv6 + TCP/UDP (or ICMP), 16 bytes of payload. */
static void mk(struct frame *f, int v6, u8 proto, const char *src,
	       const char *dst, u16 sp, u16 dp)
{
	u32 hl = proto == IPPROTO_TCP ? 20 : 8, l4;
	u8 *ip = f->b + 14, *th;

	memset(f, 0, sizeof(*f));
	f->b[0] = 0x02;
	f->b[6] = 0x02;
	put16(f->b + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		ip[0] = 0x60;
		put16(ip + 4, (u16)(hl + 16));
		ip[6] = proto;
		ip[7] = 64;
		inet_pton(AF_INET6, src, ip + 8);
		inet_pton(AF_INET6, dst, ip + 24);
		l4 = 14 + 40;
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (u16)(20 + hl + 16));
		ip[8] = 64;
		ip[9] = proto;
		inet_pton(AF_INET, src, ip + 12);
		inet_pton(AF_INET, dst, ip + 16);
		put16(ip + 10, csum(ip, 20));
		l4 = 14 + 20;
	}
	th = f->b + l4;
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		put16(th, sp);
		put16(th + 2, dp);
	}
	if (proto == IPPROTO_TCP)
		th[12] = 5 << 4, th[13] = 0x10;
	else if (proto == IPPROTO_UDP)
		put16(th + 4, (u16)(8 + 16));
	else
		th[0] = v6 ? 128 : 8;	/* echo request */
	f->len = l4 + hl + 16;
	if (f->len < 60)
		f->len = 60;
	npusim_parse(f->b, f->len, f->len, &f->pkt);
}

/* A rule: IPv4 or IPv6, protocol, destination port (0 = any), action. */
static void rule(struct npu_cmd_ntuple *c, u16 loc, u8 family, u8 proto,
		 u16 dport, u8 action, u16 queue)
{
	memset(c, 0, sizeof(*c));
	c->port = htole16(2);
	c->loc = htole16(loc);
	c->rule.family = family;
	if (proto) {
		c->rule.proto = proto;
		c->rule.proto_mask = 0xff;
	}
	if (dport) {
		c->rule.dport = htons(dport);
		c->rule.dport_mask = 0xffff;
	}
	c->rule.action = action;
	c->rule.queue = htole16(queue);
}

static void addr4(__be32 *v, __be32 *m, const char *a, int plen)
{
	inet_pton(AF_INET, a, v);
	m[0] = plen ? htonl(~0u << (32 - plen)) : 0;
	v[0] &= m[0];
}

static struct npusim_nt_tbl *tbl_new(void)
{
	struct npusim_nt_tbl *t = malloc(sizeof(*t));

	npusim_nt_tbl_init(t);
	return t;
}

static void test_steer_first_match_by_location(void **state)
{
	struct npusim_nt_tbl *t = tbl_new();
	struct npu_cmd_ntuple c;
	struct frame f;

	(void)state;
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 40000, 7001);
	assert_int_equal(f.pkt.reason, NPU_PUNT_FLOW_MISS);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);

	/* A broad rule at 20 (any UDP), a narrow one at 10 (dport 7001). */
	rule(&c, 20, NPU_AF_INET, IPPROTO_UDP, 0, NPU_NTUPLE_ACT_DROP, 0);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 20);
	rule(&c, 10, NPU_AF_INET, IPPROTO_UDP, 7001, NPU_NTUPLE_ACT_QUEUE, 1);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	assert_int_equal(t->count, 2);
	assert_int_equal(t->top, 21);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 10);
	assert_int_equal(t->rule[10].action, NPU_NTUPLE_ACT_QUEUE);
	assert_int_equal(le16toh(t->rule[10].queue), 1);

	/* Another port: only the broad rule. */
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 40000, 7002);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 20);
	/* TCP to 7001: neither. */
	mk(&f, 0, IPPROTO_TCP, "198.51.100.2", "203.0.113.2", 40000, 7001);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	/* IPv6 UDP to 7001: an IPv4 rule never matches it. */
	mk(&f, 1, IPPROTO_UDP, "2001:db8:3::2", "2001:db8:8::2", 40000, 7001);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);

	/* Replacing the rule at 10 keeps the count. */
	rule(&c, 10, NPU_AF_INET, IPPROTO_UDP, 7001, NPU_NTUPLE_ACT_DROP, 0);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	assert_int_equal(t->count, 2);
	assert_int_equal(t->rule[10].action, NPU_NTUPLE_ACT_DROP);

	/* Delete 20: the top comes down to 11; delete 10: empty. */
	rule(&c, 20, 0, 0, 0, 0, 0);
	memset(&c.rule, 0, sizeof(c.rule));
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_OK);
	assert_int_equal(t->top, 11);
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_NOT_FOUND);
	c.loc = htole16(10);
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_OK);
	assert_int_equal(t->count, 0);
	assert_int_equal(t->top, 0);
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 40000, 7001);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	free(t);
}

static void test_addresses_masks_ipv6(void **state)
{
	struct npusim_nt_tbl *t = tbl_new();
	struct npu_cmd_ntuple c;
	struct frame f;

	(void)state;
	/* IPv4 source 198.51.100.0/24, any protocol. */
	rule(&c, 0, NPU_AF_INET, 0, 0, NPU_NTUPLE_ACT_QUEUE, 0);
	addr4(c.rule.saddr, c.rule.saddr_mask, "198.51.100.77", 24);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	mk(&f, 0, IPPROTO_ICMP, "198.51.100.2", "203.0.113.2", 0, 0);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 0);
	mk(&f, 0, IPPROTO_TCP, "198.51.100.200", "203.0.113.2", 1, 2);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 0);
	mk(&f, 0, IPPROTO_TCP, "198.51.101.2", "203.0.113.2", 1, 2);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);

	/* IPv6 TCP to 2001:db8:8::2 port 443 with a port mask 0xff00. */
	rule(&c, 1, NPU_AF_INET6, IPPROTO_TCP, 0, NPU_NTUPLE_ACT_QUEUE, 1);
	inet_pton(AF_INET6, "2001:db8:8::2", c.rule.daddr);
	memset(c.rule.daddr_mask, 0xff, 16);
	c.rule.dport = htons(0x0100);
	c.rule.dport_mask = htons(0xff00);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	mk(&f, 1, IPPROTO_TCP, "2001:db8:3::2", "2001:db8:8::2", 40000, 0x01bb);
	assert_int_equal(f.pkt.reason, NPU_PUNT_FLOW_MISS);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 1);
	mk(&f, 1, IPPROTO_TCP, "2001:db8:3::2", "2001:db8:8::3", 40000, 0x01bb);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	mk(&f, 1, IPPROTO_TCP, "2001:db8:3::2", "2001:db8:8::2", 40000, 0x02bb);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	mk(&f, 1, IPPROTO_UDP, "2001:db8:3::2", "2001:db8:8::2", 40000, 0x01bb);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	free(t);
}

static void test_fragments_malformed_non_ip(void **state)
{
	struct npusim_nt_tbl *t = tbl_new();
	struct npu_cmd_ntuple c;
	struct frame f;

	(void)state;
	rule(&c, 5, NPU_AF_INET, IPPROTO_UDP, 7001, NPU_NTUPLE_ACT_DROP, 0);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	rule(&c, 6, NPU_AF_INET, IPPROTO_UDP, 0, NPU_NTUPLE_ACT_QUEUE, 1);
	assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);

	/* A later fragment: no ports, so only the port-less rule matches. */
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 40000, 7001);
	put16(f.b + 14 + 6, 0x0010);		/* fragment offset 128 */
	put16(f.b + 14 + 10, 0);
	put16(f.b + 14 + 10, csum(f.b + 14, 20));
	npusim_parse(f.b, f.len, f.len, &f.pkt);
	assert_true(f.pkt.flags & NPUSIM_PKT_FRAG);
	assert_false(f.pkt.flags & NPUSIM_PKT_L4);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 6);

	/* Malformed (bad IPv4 header checksum): never matched. */
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 40000, 7001);
	f.b[14 + 10] ^= 0xff;
	npusim_parse(f.b, f.len, f.len, &f.pkt);
	assert_int_equal(f.pkt.reason, NPU_PUNT_MALFORMED);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);

	/* ARP: not IP. */
	memset(&f, 0, sizeof(f));
	put16(f.b + 12, 0x0806);
	f.len = 60;
	npusim_parse(f.b, f.len, f.len, &f.pkt);
	assert_int_equal(f.pkt.reason, NPU_PUNT_NON_IP);
	assert_int_equal(npusim_nt_match(t, &f.pkt), NPUSIM_NT_NONE);
	free(t);
}

/* Every field the host writes is checked; a refusal leaves the table alone. */
static void test_bad_commands_refused(void **state)
{
	struct npusim_nt_tbl *t = tbl_new();
	struct npu_cmd_ntuple c, ok;

	(void)state;
	rule(&ok, 3, NPU_AF_INET, IPPROTO_UDP, 7001, NPU_NTUPLE_ACT_QUEUE, 1);
	assert_int_equal(npusim_nt_rule_check(&ok.rule, NQ), NPU_ST_OK);

#define BAD(stmt) do {							\
		c = ok;							\
		stmt;							\
		assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_BAD_PARAM); \
		assert_int_equal(t->count, 0);				\
	} while (0)
	BAD(c.loc = htole16(NPU_NTUPLE_RULES));
	BAD(c.loc = htole16(NPU_NTUPLE_LOC_ALL));
	BAD(c.rsvd = htole32(1));
	BAD(c.rule.rsvd = htole16(1));
	BAD(c.rule.family = 0);
	BAD(c.rule.family = 5);
	BAD(c.rule.queue = htole16(NQ));		/* beyond the queues */
	BAD(c.rule.action = 2);
	BAD((c.rule.action = NPU_NTUPLE_ACT_DROP, c.rule.queue = htole16(1)));
	BAD(c.rule.proto_mask = 0x0f);
	BAD(c.rule.proto_mask = 0);			/* ports without proto */
	BAD(c.rule.proto = IPPROTO_ICMP);		/* ports of ICMP */
	BAD(c.rule.dport_mask = htons(0xff00));		/* value outside mask */
	BAD((c.rule.sport = htons(1), c.rule.sport_mask = 0));
	BAD(c.rule.saddr[0] = htonl(1));		/* value, no mask */
	BAD((c.rule.daddr_mask[1] = htonl(1)));		/* IPv4, word 1 */
	BAD((c.rule.saddr[2] = htonl(1), c.rule.saddr_mask[2] = htonl(1)));
#undef BAD

	assert_int_equal(npusim_nt_add(t, &ok, NQ), NPU_ST_OK);
	/* DEL: the rule must be zero, the location in range. */
	c = ok;
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_BAD_PARAM);
	memset(&c.rule, 0, sizeof(c.rule));
	c.rsvd = htole32(1);
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_BAD_PARAM);
	c.rsvd = 0;
	c.loc = htole16(NPU_NTUPLE_RULES);
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_BAD_PARAM);
	assert_int_equal(t->count, 1);
	/* DEL of everything. */
	c.loc = htole16(NPU_NTUPLE_LOC_ALL);
	assert_int_equal(npusim_nt_del(t, &c), NPU_ST_OK);
	assert_int_equal(t->count, 0);
	assert_int_equal(t->top, 0);
	free(t);
}

static void test_table_full_range(void **state)
{
	struct npusim_nt_tbl *t = tbl_new();
	struct npu_cmd_ntuple c;
	struct frame f;
	u32 i;

	(void)state;
	for (i = 0; i < NPU_NTUPLE_RULES; i++) {
		rule(&c, (u16)i, NPU_AF_INET, IPPROTO_UDP, (u16)(8000 + i),
		     NPU_NTUPLE_ACT_QUEUE, (u16)(i % NQ));
		assert_int_equal(npusim_nt_add(t, &c, NQ), NPU_ST_OK);
	}
	assert_int_equal(t->count, NPU_NTUPLE_RULES);
	assert_int_equal(t->top, NPU_NTUPLE_RULES);
	mk(&f, 0, IPPROTO_UDP, "198.51.100.2", "203.0.113.2", 1, 8000 + 127);
	assert_int_equal(npusim_nt_match(t, &f.pkt), 127);
	assert_int_equal(sizeof(struct npu_ntuple_rule), 80);
	assert_int_equal(sizeof(struct npu_cmd_ntuple), 88);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steer_first_match_by_location),
		cmocka_unit_test(test_addresses_masks_ipv6),
		cmocka_unit_test(test_fragments_malformed_non_ip),
		cmocka_unit_test(test_bad_commands_refused),
		cmocka_unit_test(test_table_full_range),
	};

	return cmocka_run_group_tests_name("npusim_ntuple", tests, NULL, NULL);
}
