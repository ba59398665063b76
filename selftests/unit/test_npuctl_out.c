// SPDX-License-Identifier: GPL-2.0
/*
 * npuctl's writers (tools/npuctl/json.c, promtext.c, metrics.c): the JSON
 * of every record, field by field and parsed back with json-c, and the
 * Prometheus text exposition of stats and status, line by line and through
 * `promtool check metrics`; status's text (text.c) where it says more than
 * the counters.  npuctl run against real maps is
 * test_npuctl_run.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <regex.h>
#include "../../lib/npuflow_fmt.c"
#include "../../lib/npuflow_names.c"
#include "../../tools/npuctl/records.c"
#include "../../tools/npuctl/json.c"
#include "../../tools/npuctl/promtext.c"
#include "../../tools/npuctl/metrics.c"
#include "../../tools/npuctl/text.c"
#include "npuctl_check.h"

#define PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* What @fn(@arg) writes to a FILE, as a malloc'd string. */
#define CAPTURE(buf, call) do {						\
	size_t len_;							\
	FILE *f = open_memstream(&(buf), &len_);			\
	assert_non_null(f);						\
	call;								\
	assert_int_equal(fclose(f), 0);					\
} while (0)

static struct npuflow_key k4(void)
{
	struct npuflow_key k = { .ifindex = 3, .family = AF_INET, .proto = IPPROTO_TCP };

	inet_pton(AF_INET, "10.0.0.1", k.saddr);
	inet_pton(AF_INET, "192.0.2.9", k.daddr);
	k.sport = htons(1);
	k.dport = htons(80);
	return k;
}

static void cand_shape(void **state)
{
	struct npuflow_row r = { .key = k4() };
	struct json_object *o;

	(void)state;
	r.val.frames = 100;
	r.val.bytes = 6400;
	r.val.tcp_flags = 0x12;
	r.val.reason = NPUFLOW_R_FLOW_MISS;
	r.val.port = 2;
	r.val.conn = NPUFLOW_CONN_NONE;
	r.val.first_ns = 5;
	r.val.last_ns = 7;
	o = npuctl_cand_json(&r, "npu0p3");
	assert_non_null(o);
	/* the object npuctl candidates --json printed before json-c, byte for byte */
	assert_string_equal(json_object_to_json_string_ext(o, PLAIN),
		"{\"ifindex\":3,\"ifname\":\"npu0p3\",\"vlan_outer\":0,\"vlan_inner\":0,"
		"\"family\":2,\"proto\":6,\"saddr\":\"10.0.0.1\",\"daddr\":\"192.0.2.9\","
		"\"sport\":1,\"dport\":80,\"frames\":100,\"bytes\":6400,\"first_ns\":5,"
		"\"last_ns\":7,\"tcp_flags\":18,\"reason\":\"flow_miss\",\"port\":3,"
		"\"conn\":-1,\"flags\":0}");
	json_object_put(o);

	r.val.port = NPUFLOW_PORT_NONE;
	r.val.conn = 4000000000u;
	r.val.frames = UINT64_MAX;
	r.key.family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8::1", r.key.saddr);
	inet_pton(AF_INET6, "ff02::fb", r.key.daddr);
	o = npuctl_cand_json(&r, "ra");
	assert_int_equal(i64(o, "port"), -1);
	assert_int_equal(i64(o, "conn"), 4000000000ll);
	assert_true(u64(o, "frames") == UINT64_MAX);
	assert_string_equal(str(o, "saddr"), "2001:db8::1");
	assert_string_equal(str(o, "daddr"), "ff02::fb");
	assert_int_equal(u64(o, "family"), 10);
	json_object_put(o);

	/* 802.1ad 100 + 802.1Q 200, PPPoE session 5: VIDs, the TPID, the session */
	r.key.vlan_outer = 100 | NPUFLOW_VLAN_AD;
	r.key.vlan_inner = 200;
	r.key.pppoe_sid = 5;
	o = npuctl_cand_json(&r, "ra");
	assert_int_equal(u64(o, "vlan_outer"), 100);
	assert_int_equal(u64(o, "vlan_inner"), 200);
	assert_true(json_object_get_boolean(json_object_object_get(o, "vlan_outer_ad")));
	assert_null(json_object_object_get(o, "vlan_inner_ad"));
	assert_int_equal(u64(o, "pppoe_sid"), 5);
	json_object_put(o);
}

/* A name with every character JSON must escape reads back as it was. */
static void cand_escapes(void **state)
{
	static const char name[] = "a\"b\\c/d\x01\x1f\t";
	struct npuflow_row r = { .key = k4() };
	struct json_object *o = npuctl_cand_json(&r, name), *back;
	const char *s;

	(void)state;
	s = json_object_to_json_string_ext(o, PLAIN);
	assert_non_null(strstr(s, "\"ifname\":\"a\\\"b\\\\c/d\\u0001\\u001f\\t\""));
	back = parse(s);
	assert_string_equal(str(back, "ifname"), name);
	json_object_put(back);
	json_object_put(o);
}

static void port_fields(void **state)
{
	struct npuctl_port p = { .slot = 2, .ifname = "npu0p3" };
	struct json_object *o, *m;
	unsigned int i;

	(void)state;
	p.c.ifindex = 7;
	p.c.frames[NPUFLOW_R_FLOW_MISS] = 10;
	p.c.bytes[NPUFLOW_R_FLOW_MISS] = 1500;
	p.c.frames[NPUFLOW_R_UNKNOWN] = 1;
	p.c.stat[NPUFLOW_S_CANDIDATE] = (1ull << 63) + 5;
	p.c.stat[NPUFLOW_S_CAND_FAIL] = 3;
	o = npuctl_port_json(&p);
	assert_int_equal(u64(o, "slot"), 2);
	assert_int_equal(i64(o, "port"), 3);
	assert_int_equal(u64(o, "ifindex"), 7);
	assert_string_equal(str(o, "ifname"), "npu0p3");
	assert_int_equal(u64(o, "reasons.flow_miss.frames"), 10);
	assert_int_equal(u64(o, "reasons.flow_miss.bytes"), 1500);
	assert_int_equal(u64(o, "reasons.unknown.frames"), 1);
	assert_int_equal(u64(o, "reasons.none.bytes"), 0);
	assert_true(u64(o, "stats.candidate") == (1ull << 63) + 5);
	assert_int_equal(u64(o, "stats.candidate_fail"), 3);
	m = get(o, "reasons");
	assert_int_equal(length(m), NPUFLOW_R_SLOTS);
	m = get(o, "stats");
	assert_int_equal(length(m), NPUFLOW_S_MAX);
	for (i = 0; i < NPUFLOW_S_MAX; i++)
		assert_true(json_object_object_get_ex(m, npuflow_stat_name(i), NULL));
	json_object_put(o);

	p.slot = NPUFLOW_MAX_PORTS + 1;
	o = npuctl_port_json(&p);
	assert_int_equal(i64(o, "port"), -1);
	assert_int_equal(u64(o, "slot"), NPUFLOW_MAX_PORTS + 1);
	json_object_put(o);
}

static struct npuflow_conn conn(void)
{
	struct npuflow_conn c;

	memset(&c, 0, sizeof(c));
	c.key[0] = k4();
	c.key[1] = k4();
	c.key[1].ifindex = 8;
	inet_pton(AF_INET, "192.0.2.9", c.key[1].saddr);
	inet_pton(AF_INET, "10.0.0.1", c.key[1].daddr);
	c.key[1].sport = htons(80);
	c.key[1].dport = htons(1);
	c.state = NPUFLOW_CS_MADE;
	c.reason = NPUFLOW_FR_NO_NEIGH;
	c.ct_id = 77;
	c.zone = 2;
	c.flags = NPUFLOW_CONN_F_NAT | NPUFLOW_CONN_F_HW1;
	c.hw_handle[0] = 11;
	c.hw_handle[1] = 12;
	c.packets[0] = 5;
	c.packets[1] = 6;
	c.bytes[0] = 500;
	c.bytes[1] = 600;
	c.givebacks = 1;
	c.remakes = 2;
	c.revives = 3;
	c.holds = 4;
	c.wait_ns = 1000;
	c.made_ns = 10;
	c.first_ns = 9;
	c.cross_ns = 11;
	c.hw_ns = 12;
	c.punted = 16;
	return c;
}

static void flow_fields(void **state)
{
	struct npuflow_conn c = conn();
	struct npuctl_flow f = { .id = 42, .c = &c, .in = { "npu0p3", "npu0p8" },
				 .out = { "npu0p8", "" }, .age_ns = 3000, .idle_ns = 2000 };
	struct json_object *o, *d;

	(void)state;
	c.key[0].vlan_outer = 10;
	c.out_vid[0] = 20;
	c.key[1].vlan_outer = 100 | NPUFLOW_VLAN_AD;
	c.key[1].vlan_inner = 200;
	c.key[1].pppoe_sid = 7;
	c.out_vid[1] = 30 | NPUFLOW_VLAN_AD;
	c.out_vid_inner[1] = 40;
	c.out_sid[0] = 9;
	o = npuctl_flow_json(&f);
	assert_non_null(o);
	assert_int_equal(u64(o, "id"), 42);
	assert_string_equal(str(o, "state"), "made");
	assert_string_equal(str(o, "reason"), "no_neigh");
	assert_int_equal(u64(o, "proto"), 6);
	assert_int_equal(u64(o, "family"), 4);
	assert_int_equal(u64(o, "ct_id"), 77);
	assert_int_equal(u64(o, "zone"), 2);
	assert_true(boolean(o, "nat"));
	assert_false(boolean(o, "routed"));
	assert_int_equal(u64(o, "age_ns"), 3000);
	assert_int_equal(u64(o, "idle_ns"), 2000);
	assert_int_equal(u64(o, "givebacks"), 1);
	assert_int_equal(u64(o, "remakes"), 2);
	assert_int_equal(u64(o, "revives"), 3);
	assert_int_equal(u64(o, "holds"), 4);
	assert_int_equal(u64(o, "wait_ns"), 1000);
	assert_int_equal(u64(o, "made_ns"), 10);
	assert_int_equal(u64(o, "first_ns"), 9);
	assert_int_equal(u64(o, "cross_ns"), 11);
	assert_int_equal(u64(o, "hw_ns"), 12);
	assert_int_equal(u64(o, "punted"), 16);
	d = get(o, "dirs");
	assert_true(json_object_is_type(d, json_type_array));
	assert_int_equal(length(d), 2);
	assert_string_equal(str(json_object_array_get_idx(d, 0), "in"), "npu0p3");
	assert_string_equal(str(json_object_array_get_idx(d, 0), "out"), "npu0p8");
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "vlan"), 10);
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "out_vlan"), 20);
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "vlan"), 100);
	/* the inner tags, an 802.1ad outer tag and the sessions: only where there are */
	assert_true(boolean(json_object_array_get_idx(d, 1), "vlan_ad"));
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "vlan_inner"), 200);
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "pppoe_sid"), 7);
	assert_true(boolean(json_object_array_get_idx(d, 1), "out_vlan_ad"));
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "out_vlan"), 30);
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "out_vlan_inner"), 40);
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "out_pppoe_sid"), 9);
	assert_false(json_object_object_get_ex(json_object_array_get_idx(d, 0), "pppoe_sid", NULL));
	assert_false(json_object_object_get_ex(json_object_array_get_idx(d, 0), "vlan_inner", NULL));
	assert_false(json_object_object_get_ex(json_object_array_get_idx(d, 0), "vlan_ad", NULL));
	assert_false(json_object_object_get_ex(json_object_array_get_idx(d, 1), "out_pppoe_sid", NULL));
	assert_string_equal(str(json_object_array_get_idx(d, 0), "src"), "10.0.0.1");
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "sport"), 1);
	assert_string_equal(str(json_object_array_get_idx(d, 0), "dst"), "192.0.2.9");
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "dport"), 80);
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "handle"), 11);
	assert_false(boolean(json_object_array_get_idx(d, 0), "in_hw"));
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "packets"), 5);
	assert_int_equal(u64(json_object_array_get_idx(d, 0), "bytes"), 500);
	assert_string_equal(str(json_object_array_get_idx(d, 1), "in"), "npu0p8");
	assert_string_equal(str(json_object_array_get_idx(d, 1), "out"), "");
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "sport"), 80);
	assert_true(boolean(json_object_array_get_idx(d, 1), "in_hw"));
	assert_int_equal(u64(json_object_array_get_idx(d, 1), "bytes"), 600);
	json_object_put(o);

	c.key[0].family = c.key[1].family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8::1", c.key[0].saddr);
	o = npuctl_flow_json(&f);
	assert_int_equal(u64(o, "family"), 6);
	assert_string_equal(str(json_object_array_get_idx(get(o, "dirs"), 0), "src"),
			    "2001:db8::1");
	json_object_put(o);
}

static struct npuctl_status status(void)
{
	struct npuctl_status s = { .pid = 4242, .pinned = 1, .uptime_ns = 5000000000ull,
				   .updated_ns_ago = 1500000000ull };

	s.st.state[NPUFLOW_CS_MADE] = 3;
	s.st.state[NPUFLOW_CS_HELD] = 1;
	s.st.stat[NPUFLOW_FM_MADE] = 9;
	s.st.stat[NPUFLOW_FM_LOOKUPS] = 12;
	s.st.stat[NPUFLOW_FM_LOOKUP_US] = 12000345;
	s.st.stat[NPUFLOW_FM_CT_US] = 2000001;
	s.st.stat[NPUFLOW_FM_WRITE_US] = 700;
	s.st.stat[NPUFLOW_FM_KEEPALIVE_US] = 1000001;
	s.st.stat[NPUFLOW_FM_SWEEP_US] = 2000002;
	s.st.stat[NPUFLOW_FM_RECHECK_US] = 3000003;
	s.st.stat[NPUFLOW_FM_RESCAN_US] = 4000004;
	s.st.stat[NPUFLOW_FM_TIMERS_US] = 5;
	s.st.stat[NPUFLOW_FM_RESCAN_LOST] = 17;
	s.st.refused[NPUFLOW_FR_NO_CT] = 4;
	s.st.refused[NPUFLOW_FR_VLAN] = 2;
	s.st.refused[NPUFLOW_FR_PPPOE] = 3;
	s.have_loop = 1;
	s.loop_updated_ns_ago = 250000000ull;
	s.loop.passes = 1234;
	s.loop.wakes[NPUFLOW_LW_TIMEOUT] = 1200;
	s.loop.wakes[NPUFLOW_LW_RING] = 30;
	s.loop.wakes[NPUFLOW_LW_MON_RT] = 4;
	s.loop.busy_us[NPUFLOW_LP_TIMERS] = 2500001;
	s.loop.busy_us[NPUFLOW_LP_EVENTS] = 7;
	s.loop.wait_us = 60000000;
	s.loop.cpu_user_us = 1500000;
	s.loop.cpu_sys_us = 2250000;
	return s;
}

/* The text's in and out columns: the port, then what a direction arrives
 * and leaves with beyond it (npuflow_fmt_tags()'s form after a dot). */
static void flow_text_tags(void **state)
{
	struct npuflow_conn c = conn();
	struct npuctl_flow fl = { .id = 7, .c = &c, .in = { "eth2", "eth7" },
				  .out = { "eth7", "eth2" } };
	char *out = NULL;

	(void)state;
	c.key[1].vlan_outer = 100 | NPUFLOW_VLAN_AD;
	c.key[1].vlan_inner = 200;
	c.key[1].pppoe_sid = 1;
	c.out_vid[0] = 100 | NPUFLOW_VLAN_AD;
	c.out_vid_inner[0] = 200;
	c.out_sid[0] = 1;
	CAPTURE(out, npuctl_flow_text(f, &fl));
	assert_non_null(strstr(out, " eth2 "));
	assert_non_null(strstr(out, " eth7.ad100.200:s1 "));
	assert_non_null(strstr(out, "\n       "));
	/* direction 1 arrives tagged and in the session, leaves untagged */
	assert_non_null(strstr(strchr(out, '\n'), " eth7.ad100.200:s1 "));
	assert_non_null(strstr(strchr(out, '\n'), " eth2 "));
	free(out);
}

/* npuflowd's loop in status: JSON, Prometheus and text; none from an
 * npuflowd that wrote no loop counters. */
static void status_loop(void **state)
{
	struct npuctl_status s = status();
	struct json_object *o;
	char *buf = NULL;
	unsigned int i;

	(void)state;
	o = npuctl_status_json(&s);
	assert_int_equal(u64(o, "loop.passes"), 1234);
	assert_int_equal(u64(o, "loop.updated_ns_ago"), 250000000ull);
	assert_int_equal(u64(o, "loop.wakeups.timeout"), 1200);
	assert_int_equal(u64(o, "loop.wakeups.ring"), 30);
	assert_int_equal(u64(o, "loop.wakeups.rtnetlink"), 4);
	assert_int_equal(u64(o, "loop.wakeups.signal"), 0);
	assert_int_equal(length(get(o, "loop.wakeups")), NPUFLOW_LW_MAX);
	for (i = 0; i < NPUFLOW_LW_MAX; i++)
		assert_true(json_object_object_get_ex(get(o, "loop.wakeups"), loop_wake_name(i),
						      NULL));
	assert_int_equal(u64(o, "loop.busy_us.timers"), 2500001);
	assert_int_equal(u64(o, "loop.busy_us.events"), 7);
	assert_int_equal(length(get(o, "loop.busy_us")), NPUFLOW_LP_MAX);
	assert_int_equal(u64(o, "loop.wait_us"), 60000000);
	assert_int_equal(u64(o, "loop.cpu_user_us"), 1500000);
	assert_int_equal(u64(o, "loop.cpu_sys_us"), 2250000);
	json_object_put(o);

	CAPTURE(buf, npuctl_prom_status(f, &s));
	has_line(buf, "# TYPE npuflow_loop_passes_total counter");
	has_line(buf, "npuflow_loop_passes_total 1234");
	has_line(buf, "# TYPE npuflow_loop_wakeups_total counter");
	has_line(buf, "npuflow_loop_wakeups_total{cause=\"timeout\"} 1200");
	has_line(buf, "npuflow_loop_wakeups_total{cause=\"ring\"} 30");
	has_line(buf, "npuflow_loop_wakeups_total{cause=\"rtnetlink\"} 4");
	has_line(buf, "npuflow_loop_busy_seconds_total{part=\"timers\"} 2.500001");
	has_line(buf, "npuflow_loop_wait_seconds_total 60.000000");
	has_line(buf, "npuflow_daemon_cpu_seconds_total{mode=\"user\"} 1.500000");
	has_line(buf, "npuflow_daemon_cpu_seconds_total{mode=\"system\"} 2.250000");
	well_formed(buf);
	free(buf);

	s.bpffs = 1;
	CAPTURE(buf, npuctl_status_text(f, &s, "/sys/fs/bpf/npuflow"));
	assert_non_null(strstr(buf, "loop: 1234 passes, woken by timeout 1200 ring 30 "));
	assert_non_null(strstr(buf, " rtnetlink 4 "));
	assert_non_null(strstr(buf, "loop busy (ms): events 0 conntrack 0 control 0 timers 2500 "));
	assert_non_null(strstr(buf, "; waiting 60000 ms; cpu user 1500 ms, system 2250 ms\n"));
	free(buf);

	s.have_loop = 0;
	o = npuctl_status_json(&s);
	assert_false(json_object_object_get_ex(o, "loop", NULL));
	json_object_put(o);
	CAPTURE(buf, npuctl_prom_status(f, &s));
	assert_null(strstr(buf, "npuflow_loop_"));
	free(buf);
	CAPTURE(buf, npuctl_status_text(f, &s, "/sys/fs/bpf/npuflow"));
	assert_null(strstr(buf, "loop:"));
	free(buf);
}

static void status_fields(void **state)
{
	struct npuctl_status s = { 0 };
	struct json_object *o;
	unsigned int i;

	(void)state;
	o = npuctl_status_json(&s);
	assert_string_equal(json_object_to_json_string_ext(o, PLAIN),
			    "{\"running\":false,\"pid\":0,\"pinned\":false}");
	json_object_put(o);

	s = status();
	o = npuctl_status_json(&s);
	assert_true(boolean(o, "running"));
	assert_int_equal(i64(o, "pid"), 4242);
	assert_int_equal(u64(o, "uptime_ns"), 5000000000ull);
	assert_int_equal(u64(o, "updated_ns_ago"), 1500000000ull);
	assert_int_equal(u64(o, "states.made"), 3);
	assert_int_equal(u64(o, "states.held"), 1);
	assert_int_equal(u64(o, "states.pending"), 0);
	assert_false(json_object_object_get_ex(get(o, "states"), "free", NULL));
	assert_int_equal(length(get(o, "states")), NPUFLOW_CS_MAX - 1);
	assert_int_equal(u64(o, "counters.made"), 9);
	assert_int_equal(u64(o, "counters.lookup_us"), 12000345);
	assert_int_equal(u64(o, "counters.rescan_lost"), 17);
	assert_int_equal(length(get(o, "counters")), NPUFLOW_FM_MAX);
	for (i = 0; i < NPUFLOW_FM_MAX; i++)
		assert_true(json_object_object_get_ex(get(o, "counters"), fm_stat_name(i), NULL));
	assert_int_equal(u64(o, "refused.no_ct"), 4);
	assert_int_equal(u64(o, "refused.vlan"), 2);
	assert_int_equal(u64(o, "refused.pppoe"), 3);
	assert_false(json_object_object_get_ex(get(o, "refused"), "none", NULL));
	assert_int_equal(length(get(o, "refused")), NPUFLOW_FR_SLOTS - 1);
	json_object_put(o);
}

/* 1 if @s begins with @prefix */
static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Stopped with its maps pinned: the text says rules stay in tc only when
 * npuflowd left made connections, and how many.
 */
static void status_text_stopped(void **state)
{
	struct npuctl_status s = status();
	char *out;

	(void)state;
	s.pid = 0;
	s.bpffs = 1;
	s.pinned = 1;
	CAPTURE(out, npuctl_status_text(f, &s, "/sys/fs/bpf/npuflow"));
	assert_true(starts(out, "npuflowd not running (the rules of its 3 made connections stay in tc"
			   " until it starts again; maps in /sys/fs/bpf/npuflow)\n"));
	free(out);
	s.st.state[NPUFLOW_CS_MADE] = 1;
	CAPTURE(out, npuctl_status_text(f, &s, "/sys/fs/bpf/npuflow"));
	assert_non_null(strstr(out, "(the rules of its 1 made connection stay in tc until"));
	free(out);
	s.st.state[NPUFLOW_CS_MADE] = 0;
	CAPTURE(out, npuctl_status_text(f, &s, "/sys/fs/bpf/npuflow"));
	assert_true(starts(out, "npuflowd not running (maps in /sys/fs/bpf/npuflow)\nconnections:"));
	assert_null(strstr(out, "stay in tc"));
	free(out);
}

static void jlist_lines(void **state)
{
	struct npuctl_jlist l;
	char *buf = NULL;
	int rc = 1;

	(void)state;
	CAPTURE(buf, (npuctl_jlist_begin(&l, f), rc = npuctl_jlist_end(&l)));
	assert_int_equal(rc, 0);
	assert_string_equal(buf, "[]\n");
	free(buf);

	CAPTURE(buf, ({
		struct json_object *a = json_object_new_object(), *b = json_object_new_object();

		json_object_object_add(a, "a", json_object_new_int(1));
		json_object_object_add(b, "a", json_object_new_string("x/y"));
		npuctl_jlist_begin(&l, f);
		npuctl_jlist_add(&l, a);
		npuctl_jlist_add(&l, b);
		rc = npuctl_jlist_end(&l);
	}));
	assert_int_equal(rc, 0);
	assert_string_equal(buf, "[\n  {\"a\":1},\n  {\"a\":\"x/y\"}\n]\n");
	json_object_put(parse(buf));
	free(buf);

	/* an element that could not be built fails the list, which stays JSON */
	CAPTURE(buf, (npuctl_jlist_begin(&l, f), npuctl_jlist_add(&l, NULL),
		      rc = npuctl_jlist_end(&l)));
	assert_int_equal(rc, -ENOMEM);
	json_object_put(parse(buf));
	free(buf);

	CAPTURE(buf, rc = npuctl_json_print(f, json_object_new_int(-3)));
	assert_int_equal(rc, 0);
	assert_string_equal(buf, "-3\n");
	free(buf);
	CAPTURE(buf, rc = npuctl_json_print(f, NULL));
	assert_int_equal(rc, -ENOMEM);
	free(buf);
}

static void prom_format(void **state)
{
	struct prom_label l[] = { { "port", "3" }, { "ifname", "a\"b\\c\nd" } };
	char *buf = NULL;

	(void)state;
	CAPTURE(buf, prom_family(f, "npuflow_x_total", "counter", "a \\ b\nc \"q\""));
	assert_string_equal(buf, "# HELP npuflow_x_total a \\\\ b\\nc \"q\"\n"
				 "# TYPE npuflow_x_total counter\n");
	free(buf);
	CAPTURE(buf, prom_sample(f, "npuflow_x_total", l, 2, 5, 1));
	assert_string_equal(buf, "npuflow_x_total{port=\"3\",ifname=\"a\\\"b\\\\c\\nd\"} 5\n");
	free(buf);
	CAPTURE(buf, prom_sample(f, "npuflow_up", NULL, 0, 1, 1));
	assert_string_equal(buf, "npuflow_up 1\n");
	free(buf);
	CAPTURE(buf, (prom_sample(f, "s", NULL, 0, 12000345, 1000000),
		      prom_sample(f, "s", NULL, 0, 7, 1000000),
		      prom_sample(f, "s", NULL, 0, 0, 1000000000),
		      prom_sample(f, "s", NULL, 0, UINT64_MAX, 1),
		      prom_sample(f, "s", NULL, 0, 5000000001ull, 1000000000)));
	assert_string_equal(buf, "s 12.000345\ns 0.000007\ns 0.000000000\n"
				 "s 18446744073709551615\ns 5.000000001\n");
	free(buf);
}

/* The strict reader finds what promtool 2.42 lets through. */
static void prom_checker(void **state)
{
	static const char *const bad[] = {
		"# HELP a_total x\n# TYPE a_total counter\na_total 1\n"
		"# HELP a_total x\n# TYPE a_total counter\na_total{b=\"1\"} 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total{b=\"1\"} 1\n"
		"# HELP c x\n# TYPE c gauge\nc 1\na_total{b=\"2\"} 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total{b=\"1\"} 1\na_total{b=\"1\"} 2\n",
		"# HELP a x\n# TYPE a gauge\na{b=\"\\q\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{b=\"1\",b=\"2\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{__b=\"1\"} 1\n",
		"# HELP a x\na 1\n",
		"# HELP a x\n# TYPE a gauge\na one\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total -1\n",
		"# HELP a x\n# TYPE a gauge\na 1",
	};
	char msg[256];
	size_t i;

	(void)state;
	assert_null(prom_check("# HELP a x\n# TYPE a gauge\na{b=\"\\\\ \\\" \\n\",c=\"\"} 1.5\n"
			       "# HELP d_total y\n# TYPE d_total counter\nd_total 0\n",
			       msg, sizeof(msg)));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!prom_check(bad[i], msg, sizeof(msg)))
			fail_msg("taken: %s", bad[i]);
}

static void prom_ports(void **state)
{
	struct npuctl_port p[2] = { { .slot = 2, .ifname = "npu0p3" },
				    { .slot = NPUFLOW_MAX_PORTS + 1, .ifname = "ra" } };
	char *buf = NULL;

	(void)state;
	p[0].c.frames[NPUFLOW_R_FLOW_MISS] = 10;
	p[0].c.bytes[NPUFLOW_R_FLOW_MISS] = 1500;
	p[0].c.stat[NPUFLOW_S_CANDIDATE] = 10;
	p[1].c.frames[NPUFLOW_R_NONE] = 4;
	p[1].c.stat[NPUFLOW_S_EVENT_LOST] = 2;
	CAPTURE(buf, npuctl_prom_ports(f, p, 2));
	has_line(buf, "# TYPE npuflow_punt_frames_total counter");
	has_line(buf, "npuflow_punt_frames_total{slot=\"2\",port=\"3\",ifname=\"npu0p3\","
		      "reason=\"flow_miss\"} 10");
	has_line(buf, "npuflow_punt_frames_total{slot=\"2\",port=\"3\",ifname=\"npu0p3\","
		      "reason=\"mtu\"} 0");
	has_line(buf, "npuflow_punt_bytes_total{slot=\"2\",port=\"3\",ifname=\"npu0p3\","
		      "reason=\"flow_miss\"} 1500");
	has_line(buf, "npuflow_punt_frames_total{slot=\"17\",port=\"none\",ifname=\"ra\","
		      "reason=\"none\"} 4");
	has_line(buf, "npuflow_punt_frames_total{slot=\"17\",port=\"none\",ifname=\"ra\","
		      "reason=\"unknown\"} 0");
	has_line(buf, "# TYPE npuflow_classifier_candidate_total counter");
	has_line(buf, "npuflow_classifier_candidate_total{slot=\"2\",port=\"3\","
		      "ifname=\"npu0p3\"} 10");
	has_line(buf, "npuflow_classifier_events_lost_total{slot=\"17\",port=\"none\","
		      "ifname=\"ra\"} 2");
	well_formed(buf);
	free(buf);
}

static void prom_status_lines(void **state)
{
	struct npuctl_status s = { 0 };
	char *buf = NULL;

	(void)state;
	CAPTURE(buf, npuctl_prom_status(f, &s));
	has_line(buf, "# TYPE npuflow_daemon_running gauge");
	has_line(buf, "npuflow_daemon_running 0");
	has_line(buf, "npuflow_maps_pinned 0");
	assert_null(strstr(buf, "npuflow_connections"));
	assert_null(strstr(buf, "npuflow_flowmaker"));
	well_formed(buf);
	free(buf);

	s = status();
	CAPTURE(buf, npuctl_prom_status(f, &s));
	has_line(buf, "npuflow_daemon_running 1");
	has_line(buf, "npuflow_maps_pinned 1");
	has_line(buf, "npuflow_daemon_uptime_seconds 5.000000000");
	has_line(buf, "npuflow_stats_age_seconds 1.500000000");
	has_line(buf, "# TYPE npuflow_connections gauge");
	has_line(buf, "npuflow_connections{state=\"made\"} 3");
	has_line(buf, "npuflow_connections{state=\"held\"} 1");
	has_line(buf, "npuflow_connections{state=\"pending\"} 0");
	assert_null(strstr(buf, "state=\"free\""));
	has_line(buf, "# TYPE npuflow_refusals_total counter");
	has_line(buf, "npuflow_refusals_total{reason=\"no_ct\"} 4");
	has_line(buf, "npuflow_refusals_total{reason=\"vlan\"} 2");
	has_line(buf, "npuflow_refusals_total{reason=\"pppoe\"} 3");
	assert_null(strstr(buf, "reason=\"none\""));
	has_line(buf, "npuflow_flowmaker_made_total 9");
	has_line(buf, "npuflow_flowmaker_lookups_total 12");
	has_line(buf, "# TYPE npuflow_flowmaker_lookup_seconds_total counter");
	has_line(buf, "npuflow_flowmaker_lookup_seconds_total 12.000345");
	has_line(buf, "npuflow_flowmaker_ct_lookup_seconds_total 2.000001");
	has_line(buf, "npuflow_flowmaker_write_seconds_total 0.000700");
	has_line(buf, "npuflow_flowmaker_make_seconds_total 12.001045");
	/* each pass of the loop's upkeep, its own counter */
	has_line(buf, "# TYPE npuflow_flowmaker_keepalive_seconds_total counter");
	has_line(buf, "npuflow_flowmaker_keepalive_seconds_total 1.000001");
	has_line(buf, "npuflow_flowmaker_sweep_seconds_total 2.000002");
	has_line(buf, "npuflow_flowmaker_recheck_seconds_total 3.000003");
	has_line(buf, "npuflow_flowmaker_rescan_seconds_total 4.000004");
	has_line(buf, "npuflow_flowmaker_timers_seconds_total 0.000005");
	has_line(buf, "# TYPE npuflow_flowmaker_rescan_lost gauge");
	has_line(buf, "npuflow_flowmaker_rescan_lost 17");
	/* the microsecond counters only as seconds */
	assert_null(strstr(buf, "_us"));
	well_formed(buf);
	free(buf);
}

/* Every counter has a metric of its own, with a help text and a valid name. */
static void prom_tables(void **state)
{
	regex_t re;
	unsigned int i;

	(void)state;
	assert_int_equal(regcomp(&re, "^[a-z_][a-z0-9_]*$", REG_EXTENDED | REG_NOSUB), 0);
	for (i = 0; i < NPUFLOW_S_MAX; i++) {
		assert_non_null(stat_help[i]);
		assert_int_equal(regexec(&re, npuflow_stat_name(i), 0, NULL, 0), 0);
	}
	for (i = 0; i < NPUFLOW_FM_MAX; i++) {
		char name[96];

		if (!fm_metrics[i].help)
			fail_msg("flow maker counter %s has no metric", fm_stat_name(i));
		fm_metric_name(i, name, sizeof(name));
		assert_int_equal(regexec(&re, name, 0, NULL, 0), 0);
		assert_true(!strcmp(fm_metrics[i].type, "counter") ==
			    (strlen(name) > 6 && !strcmp(name + strlen(name) - 6, "_total")));
	}
	regfree(&re);
}

static void promtool_passes(void **state)
{
	struct npuctl_port p = { .slot = 0, .ifname = "x\"y" };
	struct npuctl_status s = status();
	char *buf = NULL, out[4096];
	int rc;

	(void)state;
	p.c.frames[NPUFLOW_R_MTU] = 1;
	CAPTURE(buf, (npuctl_prom_ports(f, &p, 1), npuctl_prom_status(f, &s)));
	well_formed(buf);
	rc = prom_promtool(buf, out, sizeof(out));
	if (rc < 0) {
		print_message("SKIP: no promtool (Debian package prometheus, tools/deps.sh)\n");
		skip();
	}
	if (rc)
		fail_msg("promtool check metrics: exit %d: %s\non:\n%s", rc, out, buf);
	free(buf);
	/* no samples: the families alone are still well formed */
	CAPTURE(buf, npuctl_prom_ports(f, NULL, 0));
	well_formed(buf);
	rc = prom_promtool(buf, out, sizeof(out));
	if (rc)
		fail_msg("promtool check metrics: exit %d: %s\non:\n%s", rc, out, buf);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cand_shape),
		cmocka_unit_test(cand_escapes),
		cmocka_unit_test(port_fields),
		cmocka_unit_test(flow_fields),
		cmocka_unit_test(flow_text_tags),
		cmocka_unit_test(status_fields),
		cmocka_unit_test(status_loop),
		cmocka_unit_test(status_text_stopped),
		cmocka_unit_test(jlist_lines),
		cmocka_unit_test(prom_format),
		cmocka_unit_test(prom_checker),
		cmocka_unit_test(prom_ports),
		cmocka_unit_test(prom_status_lines),
		cmocka_unit_test(prom_tables),
		cmocka_unit_test(promtool_passes),
	};

	return cmocka_run_group_tests_name("npuctl_out", tests, NULL, NULL);
}
