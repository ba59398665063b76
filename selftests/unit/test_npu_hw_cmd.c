// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hardware interface (kernel/include/npu_hw.h): the
 * opcode properties (which commands change the device's tables, which only
 * read: the driver's command rings act on them, a table command goes on
 * the normal ring and its loss resyncs the tables, a read's timeout is only
 * counted), and the layouts of the fast path's structures, which are ABI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "npu_hw.h"

struct opcode_case {
	u16 opcode;
	const char *name;
	bool changes_tables;
	bool reads_only;
};

/* Every opcode of enum npu_cmd_opcode, and two it does not have. */
static const struct opcode_case cases[] = {
	{ NPU_CMD_NOP, "NOP", false, true },
	{ NPU_CMD_FW_INFO, "FW_INFO", false, true },
	{ NPU_CMD_PORT_CFG, "PORT_CFG", false, false },
	{ NPU_CMD_COALESCE, "COALESCE", false, false },
	{ NPU_CMD_CONN_CREATE, "CONN_CREATE", true, false },
	{ NPU_CMD_MFLOW_ATTACH, "MFLOW_ATTACH", true, false },
	{ NPU_CMD_CONN_RECLAIM, "CONN_RECLAIM", true, false },
	{ NPU_CMD_MFLOW_INVALIDATE, "MFLOW_INVALIDATE", true, false },
	{ NPU_CMD_CONN_STATS, "CONN_STATS", false, true },
	{ NPU_CMD_FT_CONFIG, "FT_CONFIG", true, false },
	{ NPU_CMD_NTUPLE_ADD, "NTUPLE_ADD", true, false },
	{ NPU_CMD_NTUPLE_DEL, "NTUPLE_DEL", true, false },
	{ 4, "unknown 4", false, false },
	{ 0xffff, "unknown 0xffff", false, false },
};

static void test_opcode_properties(void **state)
{
	unsigned int i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct opcode_case *c = &cases[i];
		bool tables = npu_cmd_changes_tables(c->opcode);
		bool reads = npu_cmd_reads_only(c->opcode);

		if (tables == c->changes_tables && reads == c->reads_only)
			continue;
		printf("%s: changes tables %d (want %d), reads only %d (want %d)\n",
		       c->name, tables, c->changes_tables, reads, c->reads_only);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* No command both changes the tables and only reads. */
static void test_properties_exclusive(void **state)
{
	unsigned int op;

	(void)state;
	for (op = 0; op <= 0xffff; op++)
		assert_false(npu_cmd_changes_tables(op) && npu_cmd_reads_only(op));
}

struct layout_case {
	const char *name;
	size_t got;
	size_t want;
};

#define SIZE(t, n)	{ "sizeof(" #t ")", sizeof(t), n }
#define OFF(t, f, n)	{ #t "." #f, offsetof(t, f), n }

/* Every field of the key and the rewrite, and the commands that carry them. */
static const struct layout_case layouts[] = {
	SIZE(struct npu_mflow_key, 48),
	OFF(struct npu_mflow_key, port, 0),
	OFF(struct npu_mflow_key, family, 1),
	OFF(struct npu_mflow_key, proto, 2),
	OFF(struct npu_mflow_key, l2, 3),
	OFF(struct npu_mflow_key, vlan, 4),
	OFF(struct npu_mflow_key, sport, 6),
	OFF(struct npu_mflow_key, dport, 8),
	OFF(struct npu_mflow_key, pppoe_sid, 10),
	OFF(struct npu_mflow_key, saddr, 12),
	OFF(struct npu_mflow_key, daddr, 28),
	OFF(struct npu_mflow_key, vlan_inner, 44),
	OFF(struct npu_mflow_key, rsvd, 46),
	SIZE(struct npu_rewrite, 60),
	OFF(struct npu_rewrite, egress_port, 0),
	OFF(struct npu_rewrite, flags, 1),
	OFF(struct npu_rewrite, vlan_tci, 2),
	OFF(struct npu_rewrite, dmac, 4),
	OFF(struct npu_rewrite, smac, 10),
	OFF(struct npu_rewrite, nat_sport, 16),
	OFF(struct npu_rewrite, nat_dport, 18),
	OFF(struct npu_rewrite, mtu, 20),
	OFF(struct npu_rewrite, l2, 22),
	OFF(struct npu_rewrite, rsvd, 23),
	OFF(struct npu_rewrite, nat_saddr, 24),
	OFF(struct npu_rewrite, nat_daddr, 40),
	OFF(struct npu_rewrite, vlan_tci2, 56),
	OFF(struct npu_rewrite, pppoe_sid, 58),
	SIZE(struct npu_cmd_conn_create, 224),
	OFF(struct npu_cmd_conn_create, dir, 8),
	OFF(struct npu_cmd_conn_create, mflow, 128),
	SIZE(struct npu_cmd_mflow, 56),
	OFF(struct npu_cmd_mflow, key, 8),
	SIZE(struct npu_cmd_conn_stats, 8 + NPU_CONN_STATS_MAX * 48),
	SIZE(struct npu_conn_stats_entry, 48),
	SIZE(struct npu_cmd, 16 + NPU_CMD_DATA_LEN),
};

static void test_layouts(void **state)
{
	unsigned int i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout_case *c = &layouts[i];

		if (c->got == c->want)
			continue;
		printf("%s: %zu (want %zu)\n", c->name, c->got, c->want);
		bad++;
	}
	assert_int_equal(bad, 0);
	/* a create, the largest command, fits a slot */
	assert_true(sizeof(struct npu_cmd_conn_create) <= NPU_CMD_DATA_LEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opcode_properties),
		cmocka_unit_test(test_properties_exclusive),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
