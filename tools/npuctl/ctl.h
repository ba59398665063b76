/* SPDX-License-Identifier: GPL-2.0 */
/* ctl.h - npuctl's requests to npuflowd over its control socket. */
#ifndef _NPUCTL_CTL_H
#define _NPUCTL_CTL_H

#include <stdio.h>

/*
 * npuctl_ctl_request - send @req ("release 12", "release all") to the
 * npuflowd listening on @ctl_socket (AF_UNIX, SOCK_SEQPACKET) and write its
 * answer to @out.  0 when it answered other than "error ...", 1 when it
 * answered an error or could not be reached (said on stderr).
 */
int npuctl_ctl_request(const char *ctl_socket, const char *req, FILE *out);

#endif /* _NPUCTL_CTL_H */
