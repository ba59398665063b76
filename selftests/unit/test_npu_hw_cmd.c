// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the opcode properties of the hardware interface
 * (kernel/include/npu_hw.h): which commands change the device's tables,
 * which only read.  The driver's command rings act on them: a table
 * command goes on the normal ring and its loss resyncs the tables, a
 * read's timeout is only counted.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opcode_properties),
		cmocka_unit_test(test_properties_exclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
