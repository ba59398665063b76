// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_release.c - connections released to the host (fmd.h): one or all on
 * request (npuctl release, through fmd_ctl()), or all taken back to be
 * made again when the nftables ruleset changes (fmd_watch.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmd_int.h"

/*
 * Releasing @n ids that fm_release() released: the firewall first
 * (be-liberal: conntrack stops checking the TCP window the host has not
 * seen move), then the rules out.  All of them at once (a ruleset change,
 * npuctl release all) go FMD_WQ_MAX a batch, the be-liberal requests in
 * one sendmsg and the rule deletes in another (fmd_hw_delete_many()): not
 * three round trips a connection, while the old ruleset's verdict stands
 * for the connections still in hardware.  Released for good (@remake 0),
 * the records are kept; to be made again (a ruleset change), each is
 * forgotten with its candidates re-armed (fmd_takeback_all()).
 */
static void release_batch(struct fmd *d, const uint32_t *ids, int n, int remake)
{
	struct fm_entry *es[FMD_WQ_MAX] = { 0 };
	int i;

	fmd_liberal_many(d, ids, n);
	for (i = 0; i < n; i++)
		es[i] = &d->fm.e[ids[i]];
	fmd_hw_delete_many(d, es, n);
	for (i = 0; i < n; i++) {
		d->log(n > 1 ? L_DBG : L_INFO, "connection %u %s to the host", ids[i],
		       remake ? "taken back" : "released");
		if (remake) {
			fmd_rearm(d, es[i]);
			fm_forget(&d->fm, ids[i]);
		}
		fmd_sync_id(d, ids[i]);
	}
}

/* Release one (@id) or all (UINT32_MAX), in batches: how many. */
static int release(struct fmd *d, uint32_t id, uint64_t now, int remake)
{
	uint32_t ids[FMD_WQ_MAX], i, first = id, end = id + 1;
	int n = 0, k = 0;

	if (id == UINT32_MAX) {
		first = 0;
		end = fm_id_end(&d->fm);
	}
	for (i = first; i < end; i++) {
		if (!fm_get(&d->fm, i) || fm_release(&d->fm, i, now) != FM_A_RELEASE)
			continue;
		ids[k++] = i;
		n++;
		if (k == FMD_WQ_MAX) {
			release_batch(d, ids, k, remake);
			k = 0;
		}
	}
	if (k)
		release_batch(d, ids, k, remake);
	return n;
}

int fmd_release(struct fmd *d, uint32_t id, uint64_t now)
{
	return release(d, id, now, 0);
}

int fmd_takeback_all(struct fmd *d, uint64_t now)
{
	return release(d, UINT32_MAX, now, 1);
}

void fmd_ctl(struct fmd *d, const char *req, char *out, size_t len, uint64_t now)
{
	unsigned long id;
	char *end;

	if (!strncmp(req, "release ", 8)) {
		const char *arg = req + 8;

		if (!strcmp(arg, "all")) {
			snprintf(out, len, "released %d\n", fmd_release(d, UINT32_MAX, now));
			return;
		}
		id = strtoul(arg, &end, 10);
		if (end == arg || *end || id >= d->fm.cfg.max_conns) {
			snprintf(out, len, "error: no connection '%s'\n", arg);
			return;
		}
		if (!fm_get(&d->fm, id)) {
			snprintf(out, len, "error: no connection %lu\n", id);
			return;
		}
		snprintf(out, len, "released %d\n", fmd_release(d, id, now));
		return;
	}
	if (!strcmp(req, "ping")) {
		snprintf(out, len, "pong\n");
		return;
	}
	snprintf(out, len, "error: unknown request\n");
}
