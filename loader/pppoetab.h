/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pppoetab.h - the host's PPPoE sessions, as /proc/net/pppoe lists them.
 *
 * The kernel's flowtable finds a ppp device's session with
 * dev_fill_forward_path(); user space has no twin of it: no netlink or
 * sysfs attribute ties a ppp unit to its session.  /proc/net/pppoe lists
 * every connected kernel-mode session of the network namespace by id,
 * the concentrator's MAC and the lower device (the port or VLAN device
 * the session runs on), and that is what the flow maker reads.  The
 * parser is pure (unit-tested); the reader only reads the file.
 */
#ifndef _PPPOETAB_H
#define _PPPOETAB_H

#include <stdint.h>
#include <net/if.h>

#define PPPOETAB_PATH	"/proc/net/pppoe"

/* One session. */
struct pppoe_sess {
	uint16_t sid;			/* session id, host order (1..0xfffe) */
	uint8_t remote[6];		/* the concentrator's MAC */
	char dev[IF_NAMESIZE];		/* the lower device's name */
};

/*
 * The sessions of /proc/net/pppoe's text @text (NUL-terminated): its
 * header line, then one line a session, "%08X %pM %8s" as pppoe.c prints
 * them.  The id is a __be16 printed as a native integer (session 1 reads
 * 00000100 on a little-endian host), so it is read back as the kernel
 * holds it and turned to host order.  Lines that do not parse, and
 * sessions 0 and 0xffff, are skipped.
 *
 * Return: the number of sessions, up to @max written to @s (more are
 * counted, not written).
 */
int pppoetab_parse(const char *text, struct pppoe_sess *s, int max);

/*
 * pppoetab_parse() of the file at @path (PPPOETAB_PATH): its return, 0 if
 * the file does not exist (the pppoe module not loaded: no session), or
 * -errno.
 */
int pppoetab_read(const char *path, struct pppoe_sess *s, int max);

/*
 * The session of @n in @s on device @dev: with @sid 0, the only one on
 * it.  Return: its index, -ENOENT if none, -EEXIST if @sid is 0 and @dev
 * has several (which one a ppp unit is, user space cannot tell).
 */
int pppoetab_find(const struct pppoe_sess *s, int n, const char *dev, uint16_t sid);

/* The sessions a pass keeps (a router has a few; more are refused). */
#define PPPOETAB_PASS_MAX	64

/* The sessions as one read found them, kept for the pass it was in. */
struct pppoetab_pass {
	struct pppoe_sess s[PPPOETAB_PASS_MAX];
	int n;			/* pppoetab_read()'s return */
	uint64_t pass;		/* the pass they were read in, 0 = none yet */
	uint64_t reads;		/* the file's reads */
};

/*
 * pppoetab_pass_get() - the sessions of the file at @path for pass @pass
 * (non-zero; the caller's count of its passes): read at the pass's first
 * call, the same for its others, so a pass of lookups reads the file once
 * and sees a session that came or went since the pass before.  *@s gets
 * the sessions read (@t's, valid until the next call).
 *
 * Return: pppoetab_read()'s, of the pass's read (more than
 * PPPOETAB_PASS_MAX: only that many are in *@s).
 */
int pppoetab_pass_get(struct pppoetab_pass *t, const char *path, uint64_t pass,
		      const struct pppoe_sess **s);

#endif
