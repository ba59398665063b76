// SPDX-License-Identifier: GPL-2.0
/*
 * fmtool - the flow maker's conntrack and rtnetlink clients from the shell,
 * for the tests (conntrack -L does not print the TCP flags be-liberal sets).
 *
 *   fmtool ct-show PROTO SRC SPORT DST DPORT   one line: id, state, status, flags, ...
 *   fmtool ct-liberal PROTO SRC SPORT DST DPORT
 *   fmtool route IIF SRC DST                   oif, gateway, next hop, neighbour MAC
 *   fmtool ct-events SECONDS                   print DESTROY events as the daemon sees them
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include "../../loader/ctclient.h"
#include "../../loader/nlsock.h"

static int tuple(char **a, struct npuflow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->proto = !strcmp(a[0], "tcp") ? 6 : !strcmp(a[0], "udp") ? 17 : atoi(a[0]);
	if (inet_pton(AF_INET, a[1], k->saddr) == 1 && inet_pton(AF_INET, a[3], k->daddr) == 1)
		k->family = 2;
	else if (inet_pton(AF_INET6, a[1], k->saddr) == 1 &&
		 inet_pton(AF_INET6, a[3], k->daddr) == 1)
		k->family = 10;
	else
		return -1;
	k->sport = htons(atoi(a[2]));
	k->dport = htons(atoi(a[4]));
	return 0;
}

static void print_destroy(void *ctx, const struct ct_info *ci)
{
	char s[64], d[64];
	int af = ci->orig.family == 10 ? AF_INET6 : AF_INET;

	(void)ctx;
	inet_ntop(af, ci->orig.saddr, s, sizeof(s));
	inet_ntop(af, ci->orig.daddr, d, sizeof(d));
	printf("destroy id %u proto %u %s:%u > %s:%u\n", ci->id, ci->orig.proto, s,
	       ntohs(ci->orig.sport), d, ntohs(ci->orig.dport));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct npuflow_key k;
	struct ct_info ci;
	struct ctc c;
	int dir, rc;

	if (argc == 7 && (!strcmp(argv[1], "ct-show") || !strcmp(argv[1], "ct-liberal"))) {
		if (tuple(argv + 2, &k) || ctc_open(&c, 0, NULL, NULL)) {
			fprintf(stderr, "fmtool: bad tuple or no conntrack\n");
			return 2;
		}
		if (!strcmp(argv[1], "ct-liberal")) {
			rc = ctc_be_liberal(&c, &k, 0, 1);
			printf("be-liberal: %s\n", rc ? strerror(-rc) : "ok");
			return rc ? 1 : 0;
		}
		rc = ctc_find(&c, &k, 0, &ci, &dir);
		if (rc) {
			printf("not found: %s\n", strerror(-rc));
			return 1;
		}
		printf("id %u dir %d tcp_state %u status 0x%x assured %d seen_reply %d "
		       "nat %d flags_orig 0x%x flags_repl 0x%x be_liberal %d timeout %u\n",
		       ci.id, dir, ci.tcp_state, ci.status, !!(ci.status & IPS_ASSURED),
		       !!(ci.status & IPS_SEEN_REPLY), !!(ci.status & IPS_NAT_MASK),
		       ci.tcp_flags[0], ci.tcp_flags[1],
		       (ci.tcp_flags[0] & ci.tcp_flags[1] & 0x08) ? 1 : 0, ci.timeout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "ct-events")) {
		struct pollfd p;
		time_t end = time(NULL) + atoi(argv[2]);

		if (ctc_open(&c, 1 << 20, print_destroy, NULL))
			return 2;
		p.fd = c.ev_fd;
		p.events = POLLIN;
		while (time(NULL) < end)
			if (poll(&p, 1, 100) > 0 && ctc_events(&c) == -ENOBUFS)
				printf("overrun\n");
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "route")) {
		struct nls_route r;
		struct nlsock s;
		uint8_t src[16], dst[16], mac[6];
		int af = strchr(argv[3], ':') ? AF_INET6 : AF_INET;
		char gw[64], nh[64], oif[IF_NAMESIZE] = "?";

		if (inet_pton(af, argv[3], src) != 1 || inet_pton(af, argv[4], dst) != 1 ||
		    nls_open(&s))
			return 2;
		rc = nls_route_get(&s, af, src, dst, if_nametoindex(argv[2]), NULL, &r);
		if (rc) {
			printf("no route: %s\n", strerror(-rc));
			return 1;
		}
		inet_ntop(af, r.gw, gw, sizeof(gw));
		inet_ntop(af, r.nexthop, nh, sizeof(nh));
		if_indextoname(r.oif, oif);
		rc = nls_neigh_get(&s, af, r.oif, r.nexthop, mac);
		printf("oif %s type %u gw %s nexthop %s neigh ", oif, r.type,
		       r.has_gw ? gw : "-", nh);
		if (rc)
			printf("%s\n", strerror(-rc));
		else
			printf("%02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1], mac[2], mac[3],
			       mac[4], mac[5]);
		nls_close(&s);
		return 0;
	}
	fprintf(stderr, "usage: fmtool ct-show|ct-liberal PROTO SRC SPORT DST DPORT\n"
		"       fmtool route IIF SRC DST\n");
	return 2;
}
