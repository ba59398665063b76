// SPDX-License-Identifier: GPL-2.0
/* Formatting and per-CPU sums of npuflow records (lib/npuflow_fmt.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "../../lib/npuflow_fmt.c"

static struct npuflow_key k4(void)
{
	struct npuflow_key k = { .ifindex = 3, .family = AF_INET, .proto = IPPROTO_TCP };

	inet_pton(AF_INET, "10.0.0.1", k.saddr);
	inet_pton(AF_INET, "192.0.2.9", k.daddr);
	k.sport = htons(40000);
	k.dport = htons(80);
	return k;
}

static void key_v4(void **state)
{
	struct npuflow_key k = k4();
	char b[256];

	(void)state;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 tcp 10.0.0.1:40000 > 192.0.2.9:80");
	k.vlan_outer = 100;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 vlan 100 tcp 10.0.0.1:40000 > 192.0.2.9:80");
	k.vlan_inner = 7;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 vlan 100.7 tcp 10.0.0.1:40000 > 192.0.2.9:80");
	/* 802.1ad tags and a PPPoE session */
	k.vlan_outer = 100 | NPUFLOW_VLAN_AD;
	k.vlan_inner = 200;
	k.pppoe_sid = 5;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 vlan ad100.200:s5 tcp 10.0.0.1:40000 > 192.0.2.9:80");
	k.vlan_outer = 4094 | NPUFLOW_VLAN_AD;
	k.vlan_inner = 4094 | NPUFLOW_VLAN_AD;
	k.pppoe_sid = 65534;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 vlan ad4094.ad4094:s65534 tcp 10.0.0.1:40000 > "
			    "192.0.2.9:80");
	k.vlan_outer = k.vlan_inner = 0;
	k.pppoe_sid = 5;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 3 vlan s5 tcp 10.0.0.1:40000 > 192.0.2.9:80");
	k.vlan_outer = 100;
	k.vlan_inner = 7;
	k.pppoe_sid = 0;
	/* truncation is safe */
	npuflow_fmt_key(&k, b, 10);
	assert_int_equal(strlen(b), 9);
}

static void key_v6_icmp_other(void **state)
{
	struct npuflow_key k = { .ifindex = 12, .family = AF_INET6, .proto = IPPROTO_UDP };
	char b[256];

	(void)state;
	inet_pton(AF_INET6, "2001:db8::1", k.saddr);
	inet_pton(AF_INET6, "ff02::fb", k.daddr);
	k.sport = htons(5353);
	k.dport = htons(5353);
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 12 udp [2001:db8::1]:5353 > [ff02::fb]:5353");
	k.proto = IPPROTO_ICMPV6;
	k.sport = htons(77);
	k.dport = htons(128 << 8);
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 12 icmpv6 2001:db8::1 id 77 > ff02::fb type 128 code 0");
	k.proto = 47;
	k.sport = k.dport = 0;
	npuflow_fmt_key(&k, b, sizeof(b));
	assert_string_equal(b, "if 12 47 2001:db8::1 > ff02::fb");
}

static void names(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(npuflow_reason_name(NPUFLOW_R_NOT_ACTIVE), "not_active");
	assert_string_equal(npuflow_reason_name(NPUFLOW_R_MALFORMED), "malformed");
	assert_string_equal(npuflow_reason_name(200), "unknown");
	assert_string_equal(npuflow_stat_name(NPUFLOW_S_TRUNC_L4), "trunc_l4");
	assert_null(npuflow_stat_name(NPUFLOW_S_MAX));
	for (unsigned int i = 0; i < NPUFLOW_S_MAX; i++)
		assert_non_null(npuflow_stat_name(i));
	for (unsigned int i = 0; i < NPUFLOW_R_MAX; i++)
		assert_non_null(npuflow_reason_name(i));
	assert_string_equal(npuflow_tcp_flags(0x12, b, sizeof(b)), ".S..A...");
	assert_string_equal(npuflow_tcp_flags(0xff, b, sizeof(b)), "FSRPAUEC");
	assert_string_equal(npuflow_proto_name(132, b, sizeof(b)), "132");
}

static void event_line(void **state)
{
	struct npuflow_event e = { .type = NPUFLOW_EV_REVIVE, .conn = 42, .frames = 9,
				   .bytes = 1234, .key = k4(), .reason = NPUFLOW_R_NOT_ACTIVE };
	char b[512];

	(void)state;
	npuflow_fmt_event(&e, b, sizeof(b));
	assert_string_equal(b, "revive if 3 tcp 10.0.0.1:40000 > 192.0.2.9:80 frames 9 "
			       "bytes 1234 reason not_active conn 42");
	e.type = NPUFLOW_EV_THRESHOLD;
	e.conn = NPUFLOW_CONN_NONE;
	e.reason = NPUFLOW_R_FLOW_MISS;
	npuflow_fmt_event(&e, b, sizeof(b));
	assert_non_null(strstr(b, "threshold "));
	assert_non_null(strstr(b, "reason flow_miss conn -"));
}

static void counters_sum(void **state)
{
	struct npuflow_counters pc[4], s;

	(void)state;
	memset(pc, 0, sizeof(pc));
	pc[0].frames[1] = 10;
	pc[1].frames[1] = 5;
	pc[3].frames[NPUFLOW_R_UNKNOWN] = 1;
	pc[2].bytes[2] = 1500;
	pc[1].stat[NPUFLOW_S_NEW] = 3;
	pc[3].stat[NPUFLOW_S_NEW] = 4;
	pc[2].ifindex = 7;
	npuflow_counters_sum(pc, 4, &s);
	assert_int_equal(s.frames[1], 15);
	assert_int_equal(s.frames[NPUFLOW_R_UNKNOWN], 1);
	assert_int_equal(s.bytes[2], 1500);
	assert_int_equal(s.stat[NPUFLOW_S_NEW], 7);
	assert_int_equal(s.ifindex, 7);
	assert_false(npuflow_counters_empty(&s));
	npuflow_counters_sum(pc, 0, &s);
	assert_true(npuflow_counters_empty(&s));
}

static void sort_and_print(void **state)
{
	struct npuflow_row r[3] = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	r[0].key = k4();
	r[0].val.frames = 1;
	r[1].key = k4();
	r[1].key.sport = htons(1);
	r[1].val.frames = 100;
	r[2].key = k4();
	r[2].key.sport = htons(2);
	r[2].val.frames = 100;
	npuflow_rows_sort(r, 3);
	assert_int_equal(r[0].val.frames, 100);
	assert_int_equal(ntohs(r[0].key.sport), 1);	/* ties: by key bytes */
	assert_int_equal(r[2].val.frames, 1);

	r[0].val.bytes = 6400;
	r[0].val.tcp_flags = 0x12;
	r[0].val.reason = NPUFLOW_R_FLOW_MISS;
	r[0].val.port = 2;
	r[0].val.conn = NPUFLOW_CONN_NONE;
	r[0].val.first_ns = 5;
	r[0].val.last_ns = 7;
	f = open_memstream(&buf, &len);
	npuflow_print_cand(f, &r[0], "npu0p3", 2000000007ull);
	fclose(f);
	assert_non_null(strstr(buf, "npu0p3"));
	assert_non_null(strstr(buf, "10.0.0.1:1"));
	assert_non_null(strstr(buf, ".S..A..."));
	assert_non_null(strstr(buf, " 2000\n"));	/* idle ms */
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_v4),
		cmocka_unit_test(key_v6_icmp_other),
		cmocka_unit_test(names),
		cmocka_unit_test(event_line),
		cmocka_unit_test(counters_sum),
		cmocka_unit_test(sort_and_print),
	};

	return cmocka_run_group_tests_name("npuflow_fmt", tests, NULL, NULL);
}
