/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuflowd's control socket (npuflowd_ctl.c): the flow maker @fmd answers.
 */
#ifndef NPUFLOWD_CTL_H
#define NPUFLOWD_CTL_H

struct fmd;

int ctl_open(const char *path);
void ctl_serve(int lfd, struct fmd *fmd);

#endif
