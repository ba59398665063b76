// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hardware interface (kernel/include/npu_hw.h): the
 * opcode properties (each opcode's effect: which commands change the
 * device's tables, which only read, which set a port or the moderation;
 * the driver's command rings act on them, a table command goes on the
 * normal ring and its loss resyncs the tables, a read's timeout is only
 * counted), and the layouts of the fast path's structures, which are ABI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "npu_hw.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct opcode_case {
	u16 opcode;
	const char *name;
	enum npu_cmd_effect effect;
	bool changes_tables;
	bool reads_only;
};

#define READ	NPU_CMD_EFFECT_READ
#define SET	NPU_CMD_EFFECT_SET
#define TABLE	NPU_CMD_EFFECT_TABLE
#define UNKNOWN	NPU_CMD_EFFECT_UNKNOWN

/* Every opcode of enum npu_cmd_opcode, and two it does not have. */
static const struct opcode_case cases[] = {
	{ NPU_CMD_NOP, "NOP", READ, false, true },
	{ NPU_CMD_FW_INFO, "FW_INFO", READ, false, true },
	{ NPU_CMD_PORT_CFG, "PORT_CFG", SET, false, false },
	{ NPU_CMD_COALESCE, "COALESCE", SET, false, false },
	{ NPU_CMD_CONN_CREATE, "CONN_CREATE", TABLE, true, false },
	{ NPU_CMD_MFLOW_ATTACH, "MFLOW_ATTACH", TABLE, true, false },
	{ NPU_CMD_CONN_RECLAIM, "CONN_RECLAIM", TABLE, true, false },
	{ NPU_CMD_MFLOW_INVALIDATE, "MFLOW_INVALIDATE", TABLE, true, false },
	{ NPU_CMD_CONN_STATS, "CONN_STATS", READ, false, true },
	{ NPU_CMD_FT_CONFIG, "FT_CONFIG", TABLE, true, false },
	{ NPU_CMD_NTUPLE_ADD, "NTUPLE_ADD", TABLE, true, false },
	{ NPU_CMD_NTUPLE_DEL, "NTUPLE_DEL", TABLE, true, false },
	{ 4, "unknown 4", UNKNOWN, false, false },
	{ 0xffff, "unknown 0xffff", UNKNOWN, false, false },
};

static void test_opcode_properties(void **state)
{
	unsigned int i, bad = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct opcode_case *c = &cases[i];
		enum npu_cmd_effect effect = npu_cmd_effect(c->opcode);
		bool tables = npu_cmd_changes_tables(c->opcode);
		bool reads = npu_cmd_reads_only(c->opcode);

		if (effect == c->effect && tables == c->changes_tables &&
		    reads == c->reads_only)
			continue;
		printf("%s: effect %d (want %d), ", c->name, effect, c->effect);
		printf("changes tables %d (want %d), reads only %d (want %d)\n",
		       tables, c->changes_tables, reads, c->reads_only);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/*
 * Only the opcodes of enum npu_cmd_opcode have an effect: every other
 * value of the field is unknown, and no command both changes the tables
 * and only reads.
 */
static void test_effects_of_all_values(void **state)
{
	unsigned int op, i, known = 0;

	(void)state;
	for (op = 0; op <= 0xffff; op++) {
		if (npu_cmd_effect(op) != NPU_CMD_EFFECT_UNKNOWN)
			known++;
		assert_false(npu_cmd_changes_tables(op) && npu_cmd_reads_only(op));
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (cases[i].effect != NPU_CMD_EFFECT_UNKNOWN)
			known--;
	assert_int_equal(known, 0);
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
	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
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
		cmocka_unit_test(test_effects_of_all_values),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
