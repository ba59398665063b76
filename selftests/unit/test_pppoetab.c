// SPDX-License-Identifier: GPL-2.0
/*
 * The PPPoE session table's parser (loader/pppoetab.c): /proc/net/pppoe's
 * text as pppoe.c prints it, the session id's byte order, the device's
 * column, what is skipped, and the lookup by device and session.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <cmocka.h>
#include "../../loader/pppoetab.c"

/*
 * What pppoe_seq_show() prints: "%08X %pM %8s" of a __be16 session id, so
 * on this (little-endian) host session 1 is 00000100 and 0x1234 is
 * 00003412; names are right-aligned in 8 columns and longer ones overflow.
 */
static const char sample[] =
	"Id       Address              Device\n"
	"00000100 02:00:00:00:08:01  npuw0p8\n"
	"00003412 02:aa:bb:cc:dd:ee npuw0p8.7\n"
	"0000FEFF 0a:0b:0c:0d:0e:0f     eth1\n";

static void parse_sample(void **state)
{
	struct pppoe_sess s[4];

	(void)state;
	assert_int_equal(pppoetab_parse(sample, s, 4), 3);
	assert_int_equal(s[0].sid, 1);
	assert_memory_equal(s[0].remote, ((uint8_t[]){ 2, 0, 0, 0, 8, 1 }), 6);
	assert_string_equal(s[0].dev, "npuw0p8");
	assert_int_equal(s[1].sid, 0x1234);
	assert_memory_equal(s[1].remote, ((uint8_t[]){ 2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }), 6);
	assert_string_equal(s[1].dev, "npuw0p8.7");
	assert_int_equal(s[2].sid, 0xfffe);
	assert_string_equal(s[2].dev, "eth1");
}

/* The header alone (no session), an empty text, more sessions than room. */
static void parse_counts(void **state)
{
	struct pppoe_sess s[1];

	(void)state;
	assert_int_equal(pppoetab_parse("Id       Address              Device\n", s, 1), 0);
	assert_int_equal(pppoetab_parse("", s, 1), 0);
	memset(s, 0x5a, sizeof(s));
	assert_int_equal(pppoetab_parse(sample, s, 1), 3);
	assert_int_equal(s[0].sid, 1);
	assert_int_equal(pppoetab_parse(sample, NULL, 0), 3);
	/* no newline after the last line */
	assert_int_equal(pppoetab_parse("00000500 02:00:00:00:00:01 eth0", s, 1), 1);
	assert_int_equal(s[0].sid, 5);
}

/* What is not a session: skipped, the rest read. */
static void parse_skips(void **state)
{
	static const char bad[] =
		"00000000 02:00:00:00:00:01 eth0\n"		/* session 0 */
		"0000FFFF 02:00:00:00:00:01 eth0\n"		/* session 0xffff */
		"00010000 02:00:00:00:00:01 eth0\n"		/* more than 16 bits */
		"00000100 02:00:00:00:00 eth0\n"		/* a short MAC */
		"00000100 02:00:00:00:00:01\n"			/* no device */
		"00000100 02:00:00:00:00:01 eth0 junk\n"	/* more */
		"00000100 02:00:00:00:00:01 aaaaaaaaaaaaaaaa\n"	/* a name too long */
		"zz\n"
		"00000700 02:00:00:00:00:07 eth7\n";
	struct pppoe_sess s[4];

	(void)state;
	assert_int_equal(pppoetab_parse(bad, s, 4), 1);
	assert_int_equal(s[0].sid, 7);
	assert_string_equal(s[0].dev, "eth7");
}

static void find(void **state)
{
	static const char two[] =
		"00000100 02:00:00:00:08:01  npuw0p8\n"
		"00000200 02:00:00:00:08:02  npuw0p8\n"
		"00000300 02:00:00:00:08:03  npuw0p9\n";
	struct pppoe_sess s[3];
	int n;

	(void)state;
	n = pppoetab_parse(two, s, 3);
	assert_int_equal(n, 3);
	assert_int_equal(pppoetab_find(s, n, "npuw0p8", 2), 1);
	assert_int_equal(pppoetab_find(s, n, "npuw0p8", 3), -ENOENT);
	assert_int_equal(pppoetab_find(s, n, "npuw0p8", 0), -EEXIST);
	assert_int_equal(pppoetab_find(s, n, "npuw0p9", 0), 2);
	assert_int_equal(pppoetab_find(s, n, "npuw0p9", 3), 2);
	assert_int_equal(pppoetab_find(s, n, "npuw0p1", 0), -ENOENT);
}

/* The reader: a file's text, and no file (no pppoe module) is no session. */
static void read_file(void **state)
{
	char path[] = "/tmp/test_pppoetab.XXXXXX";
	struct pppoe_sess s[4];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sample, sizeof(sample) - 1), (ssize_t)sizeof(sample) - 1);
	close(fd);
	assert_int_equal(pppoetab_read(path, s, 4), 3);
	assert_string_equal(s[1].dev, "npuw0p8.7");
	unlink(path);
	assert_int_equal(pppoetab_read(path, s, 4), 0);
}

/* Write @text to @path whole. */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * A pass reads the file once, whatever it asks: a session that ends, or a
 * new one, within the pass is seen by the next pass, not in this one.
 */
static void pass_once(void **state)
{
	char path[] = "/tmp/test_pppoetab.XXXXXX";
	struct pppoetab_pass t = { 0 };
	const struct pppoe_sess *s;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	put(path, "Id       Address              Device\n"
		  "00000100 02:00:00:00:08:01  npuw0p8\n");
	assert_int_equal(pppoetab_pass_get(&t, path, 1, &s), 1);
	assert_int_equal(s[0].sid, 1);
	/* pppd redialled: session 1 gone, session 2 up */
	put(path, "Id       Address              Device\n"
		  "00000200 02:00:00:00:08:01  npuw0p8\n");
	assert_int_equal(pppoetab_pass_get(&t, path, 1, &s), 1);
	assert_int_equal(s[0].sid, 1);
	assert_int_equal(t.reads, 1);
	assert_int_equal(pppoetab_pass_get(&t, path, 2, &s), 1);
	assert_int_equal(s[0].sid, 2);
	assert_int_equal(pppoetab_pass_get(&t, path, 2, &s), 1);
	assert_int_equal(t.reads, 2);
	/* the session ended, no new one (the module stays: the header alone) */
	put(path, "Id       Address              Device\n");
	assert_int_equal(pppoetab_pass_get(&t, path, 3, &s), 0);
	unlink(path);
	assert_int_equal(pppoetab_pass_get(&t, path, 4, &s), 0);
	assert_int_equal(t.reads, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_sample),
		cmocka_unit_test(parse_counts),
		cmocka_unit_test(parse_skips),
		cmocka_unit_test(find),
		cmocka_unit_test(read_file),
		cmocka_unit_test(pass_once),
	};

	return cmocka_run_group_tests_name("pppoetab", tests, NULL, NULL);
}
