/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The egress watch on the ports (npuflowd_fwd.c).
 */
#ifndef NPUFLOWD_FWD_H
#define NPUFLOWD_FWD_H

/* npuflow_forwarded (@prog_fd) on @ifindex's clsact egress, the qdisc added
 * if missing: 0, or -1 (logged). */
int fwd_attach(int prog_fd, int ifindex, const char *name);
/* npuflowd's egress watch off @ifindex: 0 (also when there was none), or
 * -errno. */
int fwd_detach(int ifindex);

#endif
