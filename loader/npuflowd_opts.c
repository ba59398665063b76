// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd_opts.c - npuflowd's command line, and its service-manager
 * interface.  Pure (no syscalls) but for npuflowd_notify().
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "npuflowd_opts.h"
#include "../bpf/npuflow.h"
#include "flowmaker.h"

const char npuflowd_usage[] =
"NAME\n"
"    npuflowd - the npuflow XDP classifier loader and flow maker daemon\n"
"\n"
"SYNOPSIS\n"
"    npuflowd [OPTIONS] IFNAME...\n"
"    npuflowd --flush\n"
"\n"
"DESCRIPTION\n"
"    Loads the classifier (bpf/classify.bpf.c) and attaches it to every IFNAME\n"
"    through libxdp's multi-program dispatcher, so it coexists with other XDP\n"
"    programs (it runs first and passes every frame on).  Its maps are pinned\n"
"    under the pin directory (mode 0600) and reused when npuflowd restarts:\n"
"        candidates  LRU hash, one entry per direction seen in punted frames\n"
"        counters    per-CPU frames/bytes per port and punt reason, parse outcomes\n"
"        events      ring buffer: threshold crossings and revive signals\n"
"    Threshold events feed the flow maker (below); revive events are counted.\n"
"    SIGTERM, SIGINT, SIGHUP, SIGQUIT (every signal that would end it but\n"
"    SIGABRT and the faults) detach the programs (none is left behind) and\n"
"    keep the pinned maps; --flush removes them.  Only one\n"
"    instance runs at a time (a lock on the lock file).  Inspect with\n"
"    `npuctl candidates`, `npuctl stats`, or\n"
"    `bpftool map dump pinned /sys/fs/bpf/npuflow/candidates`.\n"
"\n"
"    The flow maker: a candidate over the threshold is looked up in conntrack\n"
"    (established TCP, assured UDP; both tuples, so NAT both ways), routes and\n"
"    neighbours give each direction's egress port and next-hop MAC, and both\n"
"    directions are written as TC flower skip_sw rules on the ports' clsact\n"
"    ingress (prio 0xc4f0 IPv4, 0xc4f1 IPv6; handle = id * 2 + direction + 1),\n"
"    which the driver turns into one hardware connection.  At start, before\n"
"    its control socket, npuflowd adds the clsact qdiscs and loads cls_flower\n"
"    and the act_* modules (a software-only rule that matches nothing, added\n"
"    and deleted) and logs the time it took, so the first connection does not\n"
"    pay for them.  Each connection is\n"
"    recorded in the pinned map `connections` (bpftool prints it).  Keepalive\n"
"    reads the rules' counters (tc stats) and refreshes conntrack timeouts\n"
"    while traffic moves; a conntrack DESTROY takes the connection out at once\n"
"    (events on a socket with a large buffer; on overrun, a full resync by\n"
"    dump).  The driver revives a given-back connection in place; one given\n"
"    back under new identities (its direction crosses the threshold again as\n"
"    flow misses) is taken out and held for a wait that doubles at each give-\n"
"    back up to --hold-max-ms, back to --hold-min-ms after --hold-quiet-ms\n"
"    without one, then made again.  Never offloaded, counted by reason:\n"
"    conntrack helpers, sequence adjustment, IPsec, egress ports with a shaping\n"
"    qdisc, egress not a port of the same coprocessor (switch id), to/from the\n"
"    host, protocols other than TCP and UDP, VLAN-tagged traffic.  Route,\n"
"    neighbour and port facts are kept between connections until rtnetlink\n"
"    announces a change (at most 1 s; a qdisc change is obeyed within it).  A\n"
"    full hardware table is not an error: the connection stays on the host,\n"
"    counted, and is tried again later.  `npuctl release ID|--all` relaxes\n"
"    conntrack's TCP window tracking (be-liberal) and then removes the rules.\n"
"    On restart the view is rebuilt from the pinned map, conntrack and a tc\n"
"    dump: no duplicate, no orphan; rules stay in hardware while npuflowd is down\n"
"    (until it starts again, or --flush; conntrack deletions meanwhile are\n"
"    taken out at the start).  Under systemd (npuflowd.service, Type=notify)\n"
"    it sends READY=1 and, with WatchdogSec=, WATCHDOG=1 keepalives.\n"
"\n"
"OPTIONS\n"
"    -c, --candidates N\n"
"        Size of the candidate map (1024..16777216; default 65536).  A pinned\n"
"        map of another size is refused: --flush first.\n"
"    -t, --threshold FRAMES\n"
"        Raise a threshold event when a candidate reaches FRAMES frames, once\n"
"        per crossing (default 16; 0 disables).\n"
"    -m, --mode native|skb\n"
"        XDP attach mode (default native).  Never falls back silently: if the\n"
"        driver has no native XDP the attach fails.\n"
"    -f, --foreground\n"
"        Stay in the foreground and log to stderr.  Without it npuflowd\n"
"        daemonizes (and logs to syslog) only once it has attached and started:\n"
"        a start that fails exits 1 with the reason on stderr.\n"
"    -l, --log-level error|warn|info|debug\n"
"        Default info (events are logged at info).\n"
"    --revive-gap-ms MS\n"
"        At most one revive event per candidate per MS milliseconds (default 1).\n"
"    --clock coarse|precise\n"
"        Candidate timestamps from the coarse (tick) clock, the default and\n"
"        cheaper, or the precise one.  Both are CLOCK_MONOTONIC.\n"
"    --ringbuf BYTES\n"
"        Event ring size, a power of two, k/m suffix (default 256k).\n"
"    --no-dispatcher\n"
"        Attach as a single XDP program instead of through the dispatcher.\n"
"    --pin-dir DIR\n"
"        Where the maps are pinned (default " NPUFLOW_PIN_DIR ", on bpffs).\n"
"        With no BPF file system at DIR's parent, npuflowd mounts one there\n"
"        (mode 0700; not --flush).  DIR is refused if it is a symbolic link\n"
"        or not a directory of root's (or of the user npuflowd runs as).\n"
"    --lock-file PATH\n"
"        Single-instance lock (default " NPUFLOWD_LOCK_DEFAULT ").\n"
"    --flush\n"
"        Detach any npuflow classifier left attached, delete npuflowd's tc\n"
"        flower rules (so their connections leave the hardware), remove the\n"
"        pinned maps and the pin directory, and exit.  Refused while an\n"
"        instance runs.\n"
"    --no-flowmaker\n"
"        Classifier and events only: no conntrack, no rules.\n"
"    --threshold-bytes BYTES\n"
"        A candidate must also have shown BYTES bytes (k/m suffix; default 0 =\n"
"        not used).  Checked when the frame threshold is crossed, then watched.\n"
"    --threshold-any\n"
"        Either threshold suffices (default: every threshold set).\n"
"    --hold-min-ms MS\n"
"        First wait of a connection given back under a new identity (default\n"
"        1000: the seeds' tuned value, seed 002; a shorter first wait is the\n"
"        open measurement, `make bench` in the VM).\n"
"    --hold-max-ms MS\n"
"        Cap of the doubling wait (default 16000).\n"
"    --hold-quiet-ms MS\n"
"        No give-back for this long: the next wait is the first again\n"
"        (default 30000).\n"
"    --retry-ms MS\n"
"        A connection refused for a transient reason (not established yet, no\n"
"        neighbour, table full) is tried again after MS (default 1000).\n"
"    --keepalive-ms MS\n"
"        Interval of the hardware stats read and conntrack refresh (default 1000).\n"
"    --connections N\n"
"        Size of the connections map and policy table (1024..4194304; default\n"
"        65536).  A pinned map of another size is refused: --flush first.\n"
"    --ct-rcvbuf BYTES\n"
"        Receive buffer of the conntrack event socket (k/m; default 8m).\n"
"    --tc-skip-sw 0|1\n"
"        1 (default): rules are skip_sw, hardware only.  0: no skip flag, so\n"
"        the kernel runs them in software too (tests on veth).\n"
"    --ctl-socket PATH\n"
"        Control socket npuctl release talks to (default " NPUFLOWD_CTL_DEFAULT ").\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"EXIT STATUS\n"
"    0 after a clean stop, 1 on errors, 2 on usage errors.\n"
"\n"
"EXAMPLES\n"
"    npuflowd -f -t 32 PORT_A PORT_B     (two ports of one coprocessor:\n"
"                                       devlink port show names them)\n"
"    npuflowd --mode skb -c 262144 eth0\n"
"    npuflowd --flush\n";

void npuflowd_opts_init(struct npuflowd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->candidates = NPUFLOW_CANDIDATES_DEFAULT;
	o->threshold = NPUFLOW_THRESHOLD_DEFAULT;
	o->revive_gap_ns = NPUFLOW_REVIVE_GAP_DEFAULT;
	o->ringbuf = NPUFLOW_RINGBUF_DEFAULT;
	o->mode = NPUFLOWD_MODE_NATIVE;
	o->log_level = NPUFLOWD_LOG_INFO;
	snprintf(o->pin_dir, sizeof(o->pin_dir), "%s", NPUFLOW_PIN_DIR);
	snprintf(o->lock_file, sizeof(o->lock_file), "%s", NPUFLOWD_LOCK_DEFAULT);
	o->flowmaker = 1;
	o->hold_min_ns = FM_HOLD_MIN_NS_DEFAULT;
	o->hold_max_ns = FM_HOLD_MAX_NS_DEFAULT;
	o->hold_quiet_ns = FM_HOLD_QUIET_NS_DEFAULT;
	o->retry_ns = FM_RETRY_NS_DEFAULT;
	o->keepalive_ns = NPUFLOWD_KEEPALIVE_NS_DEFAULT;
	o->connections = NPUFLOW_CONNECTIONS_DEFAULT;
	o->ct_rcvbuf = NPUFLOWD_CT_RCVBUF_DEFAULT;
	o->tc_skip_sw = 1;
	snprintf(o->ctl_socket, sizeof(o->ctl_socket), "%s", NPUFLOWD_CTL_DEFAULT);
}

int npuflowd_parse_u64(const char *s, uint64_t min, uint64_t max, int suffix, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (suffix && *end) {
		unsigned int shift;

		switch (tolower((unsigned char)*end)) {
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		default: return -1;
		}
		if (v > (~0ull >> shift))
			return -1;
		v <<= shift;
		end++;
	}
	if (*end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

const char *npuflowd_mode_name(enum npuflowd_mode m)
{
	return m == NPUFLOWD_MODE_SKB ? "skb" : "native";
}

const char *npuflowd_log_name(enum npuflowd_log l)
{
	static const char *const n[] = { "error", "warn", "info", "debug" };

	return (unsigned int)l < 4 ? n[l] : "?";
}

enum {
	OPT_REVIVE_GAP = 256,
	OPT_CLOCK,
	OPT_RINGBUF,
	OPT_PIN_DIR,
	OPT_LOCK_FILE,
	OPT_FLUSH,
	OPT_NO_DISPATCHER,
	OPT_NO_FLOWMAKER,
	OPT_THR_BYTES,
	OPT_THR_ANY,
	OPT_HOLD_MIN,
	OPT_HOLD_MAX,
	OPT_HOLD_QUIET,
	OPT_RETRY,
	OPT_KEEPALIVE,
	OPT_CONNECTIONS,
	OPT_CT_RCVBUF,
	OPT_TC_SKIP_SW,
	OPT_CTL_SOCKET,
};

static const struct option long_opts[] = {
	{ "candidates", required_argument, NULL, 'c' },
	{ "threshold", required_argument, NULL, 't' },
	{ "mode", required_argument, NULL, 'm' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "log-level", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ "revive-gap-ms", required_argument, NULL, OPT_REVIVE_GAP },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "ringbuf", required_argument, NULL, OPT_RINGBUF },
	{ "pin-dir", required_argument, NULL, OPT_PIN_DIR },
	{ "lock-file", required_argument, NULL, OPT_LOCK_FILE },
	{ "flush", no_argument, NULL, OPT_FLUSH },
	{ "no-dispatcher", no_argument, NULL, OPT_NO_DISPATCHER },
	{ "no-flowmaker", no_argument, NULL, OPT_NO_FLOWMAKER },
	{ "threshold-bytes", required_argument, NULL, OPT_THR_BYTES },
	{ "threshold-any", no_argument, NULL, OPT_THR_ANY },
	{ "hold-min-ms", required_argument, NULL, OPT_HOLD_MIN },
	{ "hold-max-ms", required_argument, NULL, OPT_HOLD_MAX },
	{ "hold-quiet-ms", required_argument, NULL, OPT_HOLD_QUIET },
	{ "retry-ms", required_argument, NULL, OPT_RETRY },
	{ "keepalive-ms", required_argument, NULL, OPT_KEEPALIVE },
	{ "connections", required_argument, NULL, OPT_CONNECTIONS },
	{ "ct-rcvbuf", required_argument, NULL, OPT_CT_RCVBUF },
	{ "tc-skip-sw", required_argument, NULL, OPT_TC_SKIP_SW },
	{ "ctl-socket", required_argument, NULL, OPT_CTL_SOCKET },
	{ NULL, 0, NULL, 0 },
};

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int valid_ifname(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= NPUFLOWD_IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Whether @path has a "." or ".." component. */
static int has_dot_component(const char *path)
{
	const char *c = path;

	while ((c = strchr(c, '/'))) {
		c++;
		if (c[0] == '.' && (!c[1] || c[1] == '/' ||
				    (c[1] == '.' && (!c[2] || c[2] == '/'))))
			return 1;
	}
	return 0;
}

/* --pin-dir: absolute, no . or .., a parent other than /; stored without trailing slashes. */
static int pin_dir_set(struct npuflowd_opts *o, const char *arg)
{
	char parent[sizeof(o->pin_dir)], base[sizeof(o->pin_dir)];
	size_t n = strlen(arg);

	if (n >= sizeof(o->pin_dir) - 32 || has_dot_component(arg) ||
	    npuflowd_pin_split(arg, parent, sizeof(parent), base, sizeof(base)))
		return -1;
	while (arg[n - 1] == '/')
		n--;
	memcpy(o->pin_dir, arg, n);
	o->pin_dir[n] = '\0';
	return 0;
}

int npuflowd_parse_args(int argc, char **argv, struct npuflowd_opts *o,
			char *err, size_t errlen)
{
	uint64_t v;
	int c, i;

	npuflowd_opts_init(o);
	optind = 0;		/* full re-initialisation (glibc), also for tests */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:t:m:fl:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (npuflowd_parse_u64(optarg, NPUFLOWD_CAND_MIN, NPUFLOWD_CAND_MAX, 1, &v))
				BAD("--candidates: '%s' is not a number in %u..%u", optarg,
				    NPUFLOWD_CAND_MIN, NPUFLOWD_CAND_MAX);
			o->candidates = v;
			break;
		case 't':
			if (npuflowd_parse_u64(optarg, 0, UINT32_MAX, 0, &v))
				BAD("--threshold: '%s' is not a number of frames", optarg);
			o->threshold = v;
			break;
		case 'm':
			if (!strcmp(optarg, "native") || !strcmp(optarg, "drv"))
				o->mode = NPUFLOWD_MODE_NATIVE;
			else if (!strcmp(optarg, "skb") || !strcmp(optarg, "generic"))
				o->mode = NPUFLOWD_MODE_SKB;
			else
				BAD("--mode: '%s': use native or skb", optarg);
			break;
		case 'f':
			o->foreground = 1;
			break;
		case 'l':
			for (i = 0; i < 4; i++)
				if (!strcmp(optarg, npuflowd_log_name(i)))
					break;
			if (i == 4)
				BAD("--log-level: '%s': use error, warn, info or debug", optarg);
			o->log_level = i;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case OPT_REVIVE_GAP:
			if (npuflowd_parse_u64(optarg, 0, 3600 * 1000, 0, &v))
				BAD("--revive-gap-ms: '%s' is not a number of ms (0..3600000)", optarg);
			o->revive_gap_ns = v * 1000000ull;
			break;
		case OPT_CLOCK:
			if (!strcmp(optarg, "coarse"))
				o->precise_clock = 0;
			else if (!strcmp(optarg, "precise"))
				o->precise_clock = 1;
			else
				BAD("--clock: '%s': use coarse or precise", optarg);
			break;
		case OPT_RINGBUF:
			if (npuflowd_parse_u64(optarg, NPUFLOWD_RB_MIN, NPUFLOWD_RB_MAX, 1, &v) ||
			    (v & (v - 1)))
				BAD("--ringbuf: '%s' is not a power of two in 4k..256m", optarg);
			o->ringbuf = v;
			break;
		case OPT_PIN_DIR:
			if (pin_dir_set(o, optarg))
				BAD("--pin-dir: '%s' must be an absolute path under a directory "
				    "other than /, without . or .., shorter", optarg);
			break;
		case OPT_LOCK_FILE:
			if (optarg[0] != '/' || strlen(optarg) >= sizeof(o->lock_file))
				BAD("--lock-file: '%s' must be an absolute path", optarg);
			snprintf(o->lock_file, sizeof(o->lock_file), "%s", optarg);
			break;
		case OPT_FLUSH:
			o->flush = 1;
			break;
		case OPT_NO_DISPATCHER:
			o->no_dispatcher = 1;
			break;
		case OPT_NO_FLOWMAKER:
			o->flowmaker = 0;
			break;
		case OPT_THR_BYTES:
			if (npuflowd_parse_u64(optarg, 0, 1ull << 40, 1, &v))
				BAD("--threshold-bytes: '%s' is not a number of bytes", optarg);
			o->threshold_bytes = v;
			break;
		case OPT_THR_ANY:
			o->threshold_any = 1;
			break;
		case OPT_HOLD_MIN:
		case OPT_HOLD_MAX:
		case OPT_HOLD_QUIET:
		case OPT_RETRY:
		case OPT_KEEPALIVE:
			if (npuflowd_parse_u64(optarg, c == OPT_HOLD_QUIET ? 0 : 1, 3600 * 1000, 0, &v))
				BAD("--%s: '%s' is not a number of ms (%d..3600000)",
				    c == OPT_HOLD_MIN ? "hold-min-ms" : c == OPT_HOLD_MAX ? "hold-max-ms" :
				    c == OPT_HOLD_QUIET ? "hold-quiet-ms" : c == OPT_RETRY ? "retry-ms" :
				    "keepalive-ms", optarg, c == OPT_HOLD_QUIET ? 0 : 1);
			v *= 1000000ull;
			if (c == OPT_HOLD_MIN)
				o->hold_min_ns = v;
			else if (c == OPT_HOLD_MAX)
				o->hold_max_ns = v;
			else if (c == OPT_HOLD_QUIET)
				o->hold_quiet_ns = v;
			else if (c == OPT_RETRY)
				o->retry_ns = v;
			else
				o->keepalive_ns = v;
			break;
		case OPT_CONNECTIONS:
			if (npuflowd_parse_u64(optarg, 1024, 4u << 20, 1, &v))
				BAD("--connections: '%s' is not a number in 1024..4194304", optarg);
			o->connections = v;
			break;
		case OPT_CT_RCVBUF:
			if (npuflowd_parse_u64(optarg, 65536, 1u << 30, 1, &v))
				BAD("--ct-rcvbuf: '%s' is not a size in 64k..1g", optarg);
			o->ct_rcvbuf = v;
			break;
		case OPT_TC_SKIP_SW:
			if (strcmp(optarg, "0") && strcmp(optarg, "1"))
				BAD("--tc-skip-sw: '%s': use 0 or 1", optarg);
			o->tc_skip_sw = optarg[0] == '1';
			break;
		case OPT_CTL_SOCKET:
			if (optarg[0] != '/' || strlen(optarg) >= sizeof(o->ctl_socket))
				BAD("--ctl-socket: '%s' must be an absolute path (< 108)", optarg);
			snprintf(o->ctl_socket, sizeof(o->ctl_socket), "%s", optarg);
			break;
		case ':':
			BAD("option '%s' needs a value", argv[optind - 1]);
		default:
			BAD("unknown option '%s'", argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++) {
		int j;

		if (!valid_ifname(argv[i]))
			BAD("'%s' is not an interface name", argv[i]);
		for (j = 0; j < o->nports; j++)
			if (!strcmp(o->ports[j], argv[i]))
				BAD("interface '%s' given twice", argv[i]);
		if (o->nports == NPUFLOWD_MAX_PORTS)
			BAD("at most %d interfaces", NPUFLOWD_MAX_PORTS);
		snprintf(o->ports[o->nports++], NPUFLOWD_IFNAMSIZ, "%s", argv[i]);
	}
	if (o->flush && o->nports)
		BAD("--flush takes no interfaces");
	if (!o->flush && !o->nports)
		BAD("no interface given (npuflowd --help)");
	if (o->hold_max_ns < o->hold_min_ns)
		BAD("--hold-max-ms is below --hold-min-ms");
	return 0;
}

int npuflowd_pin_split(const char *pin, char *parent, size_t plen, char *base, size_t blen)
{
	size_t n = strlen(pin), b, p;

	if (pin[0] != '/')
		return -1;
	while (n > 1 && pin[n - 1] == '/')
		n--;
	for (b = n; b && pin[b - 1] != '/'; b--)
		;
	for (p = b; p > 1 && pin[p - 1] == '/'; p--)
		;
	/* b: the last component's start; p: the parent's length */
	if (b == n || p <= 1 || p >= plen || n - b >= blen)
		return -1;
	memcpy(parent, pin, p);
	parent[p] = '\0';
	memcpy(base, pin + b, n - b);
	base[n - b] = '\0';
	return 0;
}

uint64_t npuflowd_watchdog_usec(const char *usec, const char *wpid, long pid)
{
	uint64_t us;

	if (!usec || npuflowd_parse_u64(usec, 1, UINT64_MAX, 0, &us))
		return 0;
	if (wpid) {
		uint64_t w;

		if (npuflowd_parse_u64(wpid, 1, UINT64_MAX, 0, &w) || w != (uint64_t)pid)
			return 0;
	}
	return us > 1 ? us / 2 : us;
}

int npuflowd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;
	socklen_t len;
	int fd, rc;

	if (!path || !path[0])
		return 0;
	n = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || n < 2 || n >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* the abstract namespace: not NUL-terminated */
	len = offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/');
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	rc = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0 ?
	     -errno : 1;
	close(fd);
	return rc;
}
