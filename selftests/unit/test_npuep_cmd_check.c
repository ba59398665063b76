// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the command channel's checks (kernel/npuep/cmd_check.c,
 * included directly): what the device writes into the command rings is
 * checked before it is believed, and each check returns a verdict that the
 * channel (cmd.c) acts on.  Each test asserts the verdict, the counter the
 * refusal goes into (and no other) and the one log line.  The kernel's
 * names the checks use come from kshim.h (a counter for atomic64_t, a
 * one-line log for struct device).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "kshim.h"
#include "../../kernel/npuep/cmd_check.c"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The refusal counters of struct npuep_cmd_checks, as read at one time. */
struct counts {
	long long seq, opcode, head, stats_count, stats_conn;
};

static struct counts counts_of(const struct npuep_cmd_checks *chk)
{
	struct counts c = {
		atomic64_read(&chk->bad_seq),
		atomic64_read(&chk->bad_opcode),
		atomic64_read(&chk->bad_head),
		atomic64_read(&chk->bad_stats_count),
		atomic64_read(&chk->bad_stats_conn),
	};

	return c;
}

static void assert_counts(const struct npuep_cmd_checks *chk,
			  struct counts want)
{
	struct counts got = counts_of(chk);

	assert_int_equal(got.seq, want.seq);
	assert_int_equal(got.opcode, want.opcode);
	assert_int_equal(got.head, want.head);
	assert_int_equal(got.stats_count, want.stats_count);
	assert_int_equal(got.stats_conn, want.stats_conn);
}

/* ---- heads ---------------------------------------------------------- */

struct head_case {
	u32 seen, tail, head;
	bool ok;
};

/* NPU_CMD_RING_SIZE is 32: the window runs from the last head to the tail. */
static const struct head_case head_cases[] = {
	{ 0, 0, 0, true },		/* empty ring, head unmoved */
	{ 0, 5, 0, true },
	{ 0, 5, 3, true },
	{ 0, 5, 5, true },		/* all executed */
	{ 0, 5, 6, false },		/* past the tail */
	{ 3, 5, 2, false },		/* behind the last head */
	{ 30, 2, 31, true },		/* across the wrap */
	{ 30, 2, 0, true },
	{ 30, 2, 2, true },
	{ 30, 2, 3, false },
	{ 30, 2, 29, false },
	{ 0, 5, 32, false },		/* outside the ring */
	{ 0, 5, 0xffffffff, false },
};

static void test_head_ok(void **state)
{
	unsigned int i, bad = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(head_cases); i++) {
		const struct head_case *c = &head_cases[i];

		if (npuep_cmdq_head_ok(c->seen, c->tail, c->head) == c->ok)
			continue;
		printf("seen %u tail %u head %u: want %s\n",
		       c->seen, c->tail, c->head, c->ok ? "ok" : "refused");
		bad++;
	}
	assert_int_equal(bad, 0);
}

static void test_head_check_pass(void **state)
{
	struct npuep_cmd_checks chk = { .head_seen = { 30, 4 } };
	struct device dev = { };

	(void)state;
	assert_int_equal(npuep_cmdq_head_check(&chk, &dev, 0, 2, 1),
			 NPUEP_CMD_PASS);
	assert_int_equal(chk.head_seen[0], 1);	/* moves on */
	assert_int_equal(chk.head_seen[1], 4);	/* the other ring's stays */
	assert_counts(&chk, (struct counts){ 0 });
	assert_int_equal(dev.logged, 0);
}

static void test_head_check_ahead_of_tail(void **state)
{
	struct npuep_cmd_checks chk = { .head_seen = { 3 } };
	struct device dev = { };

	(void)state;
	assert_int_equal(npuep_cmdq_head_check(&chk, &dev, 0, 5, 9),
			 NPUEP_CMD_RING_LOST);
	assert_int_equal(chk.head_seen[0], 3);	/* not believed */
	assert_counts(&chk, (struct counts){ .head = 1 });
	assert_int_equal(dev.logged, 1);
	assert_string_equal(dev.msg,
			    "command ring 0: head 9 outside 3..5 (last head..tail)\n");
}

/* ---- completions ---------------------------------------------------- */

static struct npu_cmd slot_of(u16 opcode, u16 seq, u16 status)
{
	struct npu_cmd s = {
		.opcode = cpu_to_le16(opcode),
		.flags = cpu_to_le16(NPU_CMD_F_DONE),
		.seq = cpu_to_le16(seq),
		.status = cpu_to_le16(status),
	};

	return s;
}

struct completion_case {
	const char *name;
	u16 got_opcode, got_seq;
	enum npuep_cmd_verdict verdict;
	struct counts counts;
};

/* The command asked is NPU_CMD_FT_CONFIG with sequence number 7. */
static const struct completion_case completion_cases[] = {
	{ "its own", NPU_CMD_FT_CONFIG, 7, NPUEP_CMD_PASS, { 0 } },
	{ "another seq", NPU_CMD_FT_CONFIG, 6, NPUEP_CMD_RING_LOST,
	  { .seq = 1 } },
	{ "another opcode", NPU_CMD_CONN_STATS, 7, NPUEP_CMD_RING_LOST,
	  { .opcode = 1 } },
	{ "neither", NPU_CMD_NOP, 0, NPUEP_CMD_RING_LOST,
	  { .seq = 1, .opcode = 1 } },
};

static void test_completion_check(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(completion_cases); i++) {
		const struct completion_case *c = &completion_cases[i];
		struct npu_cmd slot = slot_of(c->got_opcode, c->got_seq, 0);
		struct npuep_cmd_checks chk = { };
		struct device dev = { };

		printf("%s\n", c->name);
		assert_int_equal(npuep_cmd_completion_check(&chk, &dev, 1, &slot,
							    NPU_CMD_FT_CONFIG, 7),
				 c->verdict);
		assert_counts(&chk, c->counts);
		assert_int_equal(dev.logged, c->verdict != NPUEP_CMD_PASS);
	}
}

static void test_status_errno(void **state)
{
	static const struct {
		u16 status;
		int err;
	} cases[] = {
		{ NPU_ST_OK, 0 },
		{ NPU_ST_BAD_OPCODE, -EOPNOTSUPP },
		{ NPU_ST_BAD_PARAM, -EINVAL },
		{ NPU_ST_NO_SPACE, -ENOSPC },
		{ NPU_ST_BUSY, -EBUSY },
		{ NPU_ST_NOT_FOUND, -ENOENT },
		{ NPU_ST_FW_FAULT, -EIO },
		{ 0xffff, -EIO },	/* none of npu_hw.h's */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(npuep_cmd_status_errno(cases[i].status),
				 cases[i].err);
}

/* ---- responses ------------------------------------------------------ */

static void test_resp_copy_pads(void **state)
{
	struct npu_cmd slot = slot_of(NPU_CMD_FW_INFO, 1, 0);
	struct npuep_cmd_checks chk = { };
	struct device dev = { };
	u8 resp[8];

	(void)state;
	memcpy(slot.data, "abcdefgh", 8);
	slot.len = cpu_to_le16(3);
	memset(resp, 0x55, sizeof(resp));
	assert_int_equal(npuep_cmd_resp_copy(&chk, &dev, &slot, NPU_CMD_FW_INFO,
					     NULL, 0, resp, sizeof(resp)),
			 NPUEP_CMD_PASS);
	assert_memory_equal(resp, "abc\0\0\0\0\0", 8);

	/* a length past the caller's buffer copies the buffer's worth */
	slot.len = cpu_to_le16(0xffff);
	assert_int_equal(npuep_cmd_resp_copy(&chk, &dev, &slot, NPU_CMD_FW_INFO,
					     NULL, 0, resp, 5),
			 NPUEP_CMD_PASS);
	assert_memory_equal(resp, "abcde\0\0\0", 8);
	assert_counts(&chk, (struct counts){ 0 });
	assert_int_equal(dev.logged, 0);
}

/* A statistics answer: @n entries for the connections @conn, in @len bytes. */
struct stats_case {
	const char *name;
	u16 asked;		/* from connection 100 */
	u16 n;
	u32 conn[NPU_CONN_STATS_MAX];
	u16 len;		/* 0: as many bytes as the entries take */
	enum npuep_cmd_verdict verdict;
	struct counts counts;
};

#define STATS_LEN(n)	(offsetof(struct npu_cmd_conn_stats, st) + \
			 (n) * sizeof(struct npu_conn_stat))

static const struct stats_case stats_cases[] = {
	{ "all asked", 4, 4, { 100, 101, 102, 103 }, 0, NPUEP_CMD_PASS, { 0 } },
	{ "some, with gaps", 4, 2, { 101, 103 }, 0, NPUEP_CMD_PASS, { 0 } },
	{ "none", 4, 0, { 0 }, 0, NPUEP_CMD_PASS, { 0 } },
	{ "more than asked", 2, 3, { 100, 101, 102 }, 0, NPUEP_CMD_REFUSED,
	  { .stats_count = 1 } },
	{ "entries past the length", 4, 2, { 100, 101 }, STATS_LEN(1),
	  NPUEP_CMD_REFUSED, { .stats_count = 1 } },
	{ "an index not asked for", 2, 2, { 100, 102 }, 0, NPUEP_CMD_REFUSED,
	  { .stats_conn = 1 } },
	{ "an index before the first", 2, 1, { 99 }, 0, NPUEP_CMD_REFUSED,
	  { .stats_conn = 1 } },
	{ "out of order", 4, 2, { 102, 101 }, 0, NPUEP_CMD_REFUSED,
	  { .stats_conn = 1 } },
	{ "twice the same", 4, 2, { 101, 101 }, 0, NPUEP_CMD_REFUSED,
	  { .stats_conn = 1 } },
};

static void test_resp_copy_stats(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(stats_cases); i++) {
		const struct stats_case *c = &stats_cases[i];
		struct npu_cmd_conn_ref ref = {
			.conn = cpu_to_le32(100),
			.count = cpu_to_le16(c->asked),
		};
		struct npu_cmd slot = slot_of(NPU_CMD_CONN_STATS, 1, 0);
		struct npu_cmd_conn_stats *st = (void *)slot.data;
		struct npuep_cmd_checks chk = { };
		struct npu_cmd_conn_stats resp;
		struct device dev = { };
		bool zero = true;
		u16 len;

		printf("%s\n", c->name);
		st->count = cpu_to_le16(c->n);
		for (j = 0; j < c->n; j++) {
			st->st[j].conn = cpu_to_le32(c->conn[j]);
			st->st[j].packets[0] = cpu_to_le64(1);
		}
		len = c->len ? c->len : STATS_LEN(c->n);
		slot.len = cpu_to_le16(len);
		assert_int_equal(npuep_cmd_resp_copy(&chk, &dev, &slot,
						     NPU_CMD_CONN_STATS, &ref,
						     sizeof(ref), &resp,
						     sizeof(resp)),
				 c->verdict);
		assert_counts(&chk, c->counts);
		assert_int_equal(dev.logged, c->verdict != NPUEP_CMD_PASS);
		if (c->verdict == NPUEP_CMD_PASS) {
			assert_memory_equal(&resp, slot.data, len);
			continue;
		}
		/* a refused answer leaves nothing to read */
		for (j = 0; j < sizeof(resp); j++)
			zero &= !((u8 *)&resp)[j];
		assert_true(zero);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_ok),
		cmocka_unit_test(test_head_check_pass),
		cmocka_unit_test(test_head_check_ahead_of_tail),
		cmocka_unit_test(test_completion_check),
		cmocka_unit_test(test_status_errno),
		cmocka_unit_test(test_resp_copy_pads),
		cmocka_unit_test(test_resp_copy_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
