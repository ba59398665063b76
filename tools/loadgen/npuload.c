// SPDX-License-Identifier: GPL-2.0
/*
 * npuload - a small, bounded epoll load generator: many concurrent TCP
 * connections from one process (iperf3 is single threaded and hangs at a
 * thousand streams under TCG).
 *
 *   npuload server [-p PORT] [-t SECONDS] [-n MAXCONN]
 *   npuload client -a ADDR [-p PORT] [-c CONNS] [-t SECONDS] [-r BYTES/S]
 *                  [-s SIZE] [-b BIND_ADDR]
 *
 * The server accepts up to -n connections (1..65,536, default 65,536) and
 * discards what they send.  The client opens -c connections (1..65,536,
 * default 1,024), at most 256 of them connecting at once (a burst of
 * thousands of SYNs overflows the path's queues, and each lost one waits
 * for TCP's 1-s retransmit), then writes -s bytes (default 1,448) per write
 * round-robin, each connection at most -r bytes per second (default 0 = as
 * fast as it can), for -t seconds (default 10, at most 3,600), and exits.
 * A paced connection waits in a queue in the order of its next write, not
 * in epoll: a pass costs the writes that are due, not one per connection.
 * Both print one JSON line: connections established and failed, bytes,
 * seconds.  Everything is bounded in count and time; only the address
 * given is used.  Past about 28,000 connections to one address and port
 * the client's netns needs a wider net.ipv4.ip_local_port_range, and the
 * server's a net.core.somaxconn as large as the burst it accepts.
 * A usage error (a value out of its range, say) is said with the option
 * it is of, then where the help is; exit status 2.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "../../lib/npuflow_stdout.h"

#define MAX_CONNS	65536
#define CONNECTING	256	/* connects in progress at once */
#define MAX_SECS	3600

struct conn {
	int fd;
	int up;
	uint64_t bytes;
	double next_ok;		/* rate limit: earliest next write, s */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Room for every connection's fd: MAX_CONNS and a few, or the hard limit. */
static void raise_nofile(void)
{
	struct rlimit rl = { MAX_CONNS + 64, MAX_CONNS + 64 };

	if (!setrlimit(RLIMIT_NOFILE, &rl) || getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/* After a usage error's own line: where the help is.  Exit status 2. */
static int try_help(void)
{
	fputs("Try 'npuload --help' for more information.\n", stderr);
	return 2;
}

/* @arg of option -@opt as a number in @min..@max, into *@v: 0, or -1 (said). */
static int parse_int(int opt, const char *arg, long min, long max, int *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno || n < min || n > max) {
		fprintf(stderr, "npuload: -%c: '%s' is not a number in %ld..%ld\n", opt, arg,
			min, max);
		return -1;
	}
	*v = n;
	return 0;
}

/* @arg of -r as bytes per second, 0 or more (0: no limit), into *@v: 0, or -1 (said). */
static int parse_rate(const char *arg, double *v)
{
	char *end;
	double r;

	errno = 0;
	r = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(r) || r < 0) {
		fprintf(stderr, "npuload: -r: '%s' is not a number of bytes/s, 0 or more\n", arg);
		return -1;
	}
	*v = r;
	return 0;
}

static int parse_addr(const char *a, int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

/* @a, the value of option -@opt, is not an address: said.  Exit status 2. */
static int bad_addr(int opt, const char *a)
{
	fprintf(stderr, "npuload: -%c: '%s' is not an IPv4 or IPv6 address\n", opt, a);
	return try_help();
}

static int server(int port, int secs, int maxconn)
{
	struct epoll_event ev, evs[256];
	static char buf[65536];
	int one = 1, lfd, ep, n, i, conns = 0, peak = 0, total = 0;
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	uint64_t bytes = 0;
	double end;

	lfd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (lfd < 0)
		return perror("socket"), 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin6_port = htons(port);
	sa.sin6_addr = in6addr_any;
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, maxconn))
		return perror("bind/listen"), 1;
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	fprintf(stderr, "npuload: server on port %d for %d s\n", port, secs);
	end = now_s() + secs;
	while (now_s() < end) {
		n = epoll_wait(ep, evs, 256, 200);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lfd) {
				int c;

				while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					if (conns >= maxconn) {
						close(c);
						continue;
					}
					ev.events = EPOLLIN;
					ev.data.fd = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
					conns++;
					total++;
					if (conns > peak)
						peak = conns;
				}
				continue;
			}
			for (;;) {
				ssize_t r = read(fd, buf, sizeof(buf));

				if (r > 0) {
					bytes += r;
					continue;
				}
				if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
					close(fd);
					conns--;
				}
				break;
			}
		}
	}
	printf("{\"role\": \"server\", \"accepted\": %d, \"peak\": %d, \"bytes\": %llu, \"seconds\": %d}\n",
	       total, peak, (unsigned long long)bytes, secs);
	return 0;
}

/* The client's state: its connections and the queue of the paced ones. */
struct load {
	struct conn *c;
	int nconn;
	int *due;		/* paced: indices of c, in the order of next_ok */
	int head, count;	/* the queue: a ring of nconn */
	int ep;
	int up, failed, connecting;
	uint64_t bytes;
};

static void due_push(struct load *l, int i)
{
	l->due[(l->head + l->count++) % l->nconn] = i;
}

static int due_pop(struct load *l)
{
	int i = l->due[l->head];

	l->head = (l->head + 1) % l->nconn;
	l->count--;
	return i;
}

/* Connection @i is lost: closed, counted as failed. */
static void conn_lost(struct load *l, int i)
{
	close(l->c[i].fd);
	l->c[i].fd = -1;
	if (l->c[i].up)
		l->up--;
	l->c[i].up = 0;
	l->failed++;
}

/* Connection @i starts connecting, its completion seen by epoll (EPOLLOUT). */
static void conn_open(struct load *l, int i, const struct sockaddr_storage *ss, socklen_t len,
		      const struct sockaddr_storage *bs, socklen_t blen)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = i };
	struct conn *k = &l->c[i];

	k->fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (k->fd < 0) {
		l->failed++;
		return;
	}
	if ((blen && bind(k->fd, (const struct sockaddr *)bs, blen)) ||
	    (connect(k->fd, (const struct sockaddr *)ss, len) && errno != EINPROGRESS) ||
	    epoll_ctl(l->ep, EPOLL_CTL_ADD, k->fd, &ev)) {
		conn_lost(l, i);
		return;
	}
	l->connecting++;
}

/* One write on connection @i at time @t; paced (@rate > 0): its next turn queued. */
static void conn_write(struct load *l, int i, double t, double rate, const char *buf, int size)
{
	struct conn *k = &l->c[i];
	ssize_t w = write(k->fd, buf, size);

	if (w < 0 && errno != EAGAIN && errno != EINTR) {
		conn_lost(l, i);
		return;
	}
	if (w > 0) {
		k->bytes += w;
		l->bytes += w;
	}
	if (rate > 0) {
		/* from the turn it was due, not from now (epoll's ms would slow
		 * it); behind by more than 50 ms, from now: no long burst
		 */
		if (k->next_ok < t - 0.05)
			k->next_ok = t;
		k->next_ok += (w > 0 ? w : size) / rate;
		due_push(l, i);
	}
}

/*
 * An epoll event of connection @i: its connect's end (then up, and paced:
 * queued, out of epoll) or, unpaced, room to write.
 */
static void conn_event(struct load *l, int i, uint32_t events, double t, double rate,
		       const char *buf, int size)
{
	struct epoll_event ev = { .events = 0, .data.u32 = i };
	struct conn *k = &l->c[i];
	socklen_t el = sizeof(int);
	int err = 0;

	if (k->fd < 0)
		return;
	if (!k->up) {
		l->connecting--;
		getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err || (events & (EPOLLERR | EPOLLHUP))) {
			conn_lost(l, i);
			return;
		}
		k->up = 1;
		l->up++;
		if (rate > 0) {
			epoll_ctl(l->ep, EPOLL_CTL_MOD, k->fd, &ev);
			k->next_ok = t;
			due_push(l, i);
			return;
		}
	}
	conn_write(l, i, t, rate, buf, size);
}

static int client(const char *addr, const char *bind_addr, int port, int nconn,
		  int secs, double rate, int size)
{
	struct sockaddr_storage ss, bs;
	struct epoll_event evs[512];
	struct load l = { .nconn = nconn };
	int i, n, next = 0, wait_ms;
	socklen_t len, blen = 0;
	double t0, end, t;
	char *buf;

	if (parse_addr(addr, port, &ss, &len))
		return bad_addr('a', addr);
	if (bind_addr && parse_addr(bind_addr, 0, &bs, &blen))
		return bad_addr('b', bind_addr);
	l.c = calloc(nconn, sizeof(*l.c));
	l.due = calloc(nconn, sizeof(*l.due));
	buf = malloc(size);
	l.ep = epoll_create1(0);
	if (!l.c || !l.due || !buf || l.ep < 0)
		return 1;
	memset(buf, 'x', size);
	for (i = 0; i < nconn; i++)
		l.c[i].fd = -1;
	t0 = now_s();
	end = t0 + secs;
	while ((t = now_s()) < end) {
		while (next < nconn && l.connecting < CONNECTING)
			conn_open(&l, next++, &ss, len, &bs, blen);
		while (l.count && l.c[l.due[l.head]].next_ok <= t) {
			i = due_pop(&l);
			if (l.c[i].fd >= 0)
				conn_write(&l, i, t, rate, buf, size);
		}
		wait_ms = 50;
		if (l.count) {
			double d = (l.c[l.due[l.head]].next_ok - now_s()) * 1000;

			wait_ms = d < 0 ? 0 : d < 50 ? (int)d + 1 : 50;
		}
		n = epoll_wait(l.ep, evs, 512, wait_ms);
		t = now_s();
		for (i = 0; i < n; i++)
			conn_event(&l, evs[i].data.u32, evs[i].events, t, rate, buf, size);
	}
	for (i = 0; i < nconn; i++)
		if (l.c[i].fd >= 0)
			close(l.c[i].fd);
	printf("{\"role\": \"client\", \"connections\": %d, \"established\": %d, \"failed\": %d, \"bytes\": %llu, \"seconds\": %.2f}\n",
	       nconn, l.up, l.failed, (unsigned long long)l.bytes, now_s() - t0);
	free(l.c);
	free(l.due);
	free(buf);
	return l.failed ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuload server [-p PORT] [-t SECONDS] [-n MAXCONN]\n"
		"       npuload client -a ADDR [-p PORT] [-c CONNS] [-t SECONDS] [-r BYTES/S] [-s SIZE] [-b BIND]\n"
		"       npuload --version | --help\n");
}

/* The command line, then the server or the client: the exit status. */
static int run(int argc, char **argv)
{
	int port = 5300, secs = 10, nconn = 1024, size = 1448, opt, bad = 0;
	const char *addr = NULL, *bind_addr = NULL;
	double rate = 0;
	int maxconn = MAX_CONNS;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("npuload (npuflow) %s\n", NPUFLOW_VERSION);
		return 0;
	}
	if (argc < 2) {
		fputs("npuload: no command (server or client)\n", stderr);
		return try_help();
	}
	if (strcmp(argv[1], "server") && strcmp(argv[1], "client")) {
		fprintf(stderr, "npuload: unknown command '%s' (server or client)\n", argv[1]);
		return try_help();
	}
	optind = 2;
	opterr = 0;	/* said here, after "npuload: ", not after argv[0] */
	while (!bad && (opt = getopt(argc, argv, ":a:b:p:c:t:r:s:n:h")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'b': bind_addr = optarg; break;
		case 'p': bad = parse_int(opt, optarg, 1, 65535, &port); break;
		case 'c': bad = parse_int(opt, optarg, 1, MAX_CONNS, &nconn); break;
		case 't': bad = parse_int(opt, optarg, 1, MAX_SECS, &secs); break;
		case 'r': bad = parse_rate(optarg, &rate); break;
		case 's': bad = parse_int(opt, optarg, 1, 65536, &size); break;
		case 'n': bad = parse_int(opt, optarg, 1, MAX_CONNS, &maxconn); break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "npuload: option '-%c' requires an argument\n", optopt);
			bad = -1;
			break;
		default:	/* of "--name", getopt sees the '-' */
			if (optopt == '-' && optind < argc && !strncmp(argv[optind], "--", 2))
				fprintf(stderr, "npuload: unknown option '%s'\n", argv[optind]);
			else
				fprintf(stderr, "npuload: unknown option '-%c'\n", optopt);
			bad = -1;
		}
	}
	if (!bad && optind < argc) {
		fprintf(stderr, "npuload: extra operand '%s'\n", argv[optind]);
		bad = -1;
	}
	if (bad)
		return try_help();
	if (!strcmp(argv[1], "client") && !addr) {
		fputs("npuload: client: no address (-a ADDR)\n", stderr);
		return try_help();
	}
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	if (!strcmp(argv[1], "server"))
		return server(port, secs, maxconn);
	return client(addr, bind_addr, port, nconn, secs, rate, size);
}

int main(int argc, char **argv)
{
	int rc = run(argc, argv);

	return npuflow_close_stdout("npuload") ? 1 : rc;
}
