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
 * The server accepts up to -n connections (default 4,096) and discards what
 * they send.  The client opens -c connections (1..4,096, default 1,024),
 * then writes -s bytes (default 1,448) per write round-robin, each
 * connection at most -r bytes per second (default 0 = as fast as it can),
 * for -t seconds (default 10, at most 3,600), and exits.  Both print one
 * JSON line: connections established and failed, bytes, seconds.
 * Everything is bounded in count and time; only the address given is used.
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

#define MAX_CONNS	4096
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

static void raise_nofile(void)
{
	struct rlimit rl = { MAX_CONNS + 64, MAX_CONNS + 64 };

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
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4096))
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

static int client(const char *addr, const char *bind_addr, int port, int nconn,
		  int secs, double rate, int size)
{
	struct sockaddr_storage ss, bs;
	struct epoll_event ev, evs[512];
	int ep, i, n, up = 0, failed = 0;
	uint64_t bytes = 0;
	socklen_t len, blen = 0;
	struct conn *c;
	double t0, end, t;
	char *buf;

	if (parse_addr(addr, port, &ss, &len))
		return bad_addr('a', addr);
	if (bind_addr && parse_addr(bind_addr, 0, &bs, &blen))
		return bad_addr('b', bind_addr);
	c = calloc(nconn, sizeof(*c));
	buf = malloc(size);
	if (!c || !buf)
		return 1;
	memset(buf, 'x', size);
	ep = epoll_create1(0);
	for (i = 0; i < nconn; i++) {
		c[i].fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (c[i].fd < 0) {
			failed++;
			continue;
		}
		if (blen && bind(c[i].fd, (struct sockaddr *)&bs, blen)) {
			close(c[i].fd);
			c[i].fd = -1;
			failed++;
			continue;
		}
		if (connect(c[i].fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS) {
			close(c[i].fd);
			c[i].fd = -1;
			failed++;
			continue;
		}
		ev.events = EPOLLOUT;
		ev.data.u32 = i;
		epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
	}
	t0 = now_s();
	end = t0 + secs;
	while ((t = now_s()) < end) {
		n = epoll_wait(ep, evs, 512, 50);
		for (i = 0; i < n; i++) {
			struct conn *k = &c[evs[i].data.u32];
			ssize_t w;

			if (k->fd < 0)
				continue;
			if (!k->up) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err || (evs[i].events & (EPOLLERR | EPOLLHUP))) {
					close(k->fd);
					k->fd = -1;
					failed++;
					continue;
				}
				k->up = 1;
				up++;
			}
			if (rate > 0 && t < k->next_ok)
				continue;
			w = write(k->fd, buf, size);
			if (w > 0) {
				k->bytes += w;
				bytes += w;
				if (rate > 0)
					k->next_ok = t + w / rate;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				close(k->fd);
				k->fd = -1;
				k->up = 0;
				up--;
				failed++;
			}
		}
		if (rate > 0 && n == 0)
			usleep(1000);
	}
	for (i = 0; i < nconn; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	printf("{\"role\": \"client\", \"connections\": %d, \"established\": %d, \"failed\": %d, \"bytes\": %llu, \"seconds\": %.2f}\n",
	       nconn, up, failed, (unsigned long long)bytes, now_s() - t0);
	free(c);
	free(buf);
	return failed ? 1 : 0;
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
