// SPDX-License-Identifier: GPL-2.0
/*
 * fmd_util.c - what every file of the flow maker uses (fmd_int.h): the
 * clock, a port's and a key's names for the log, a netlink socket made
 * anew.  It calls no other fmd file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fmd_int.h"

uint64_t fmd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

const char *fmd_ifn(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

void fmd_fmt_key(const struct npuflow_key *k, char *buf, size_t len)
{
	char s[48], t[48];
	int af = k->family == 10 ? AF_INET6 : AF_INET;

	inet_ntop(af, k->saddr, s, sizeof(s));
	inet_ntop(af, k->daddr, t, sizeof(t));
	snprintf(buf, len, "if%u %s %s:%u > %s:%u", k->ifindex,
		 k->proto == 6 ? "tcp" : k->proto == 17 ? "udp" : "proto", s, ntohs(k->sport),
		 t, ntohs(k->dport));
}

int fmd_nls_reset(struct fmd *d, struct nlsock *s, int bus)
{
	nls_close(s);
	if (!nls_open_bus(s, bus))
		return 0;
	d->log(L_WARN, "cannot open a netlink socket again (%s): its dumps in one go",
	       strerror(errno));
	return -1;
}
