// SPDX-License-Identifier: GPL-2.0
/*
 * npuflowd_opts.c - npuflowd's command line, and its service-manager
 * interface.  Pure (no syscalls) but for npuflowd_notify() and
 * npuflowd_show(), which writes and closes stdout.
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
#include "../lib/npuflow_stdout.h"

/*
 * Each option is one entry of optdefs[]: its names, its argument, how it
 * is parsed into which field, and its help text.  getopt_long()'s tables,
 * --help and the parse come from it.
 */
struct optdef;

/* Parse @arg (NULL for an option without one) into @o's field: 0 or -1. */
typedef int (*opt_set_fn)(struct npuflowd_opts *o, const struct optdef *d, const char *arg);

struct opt_choice {
	const char *name;
	int value;
	int alias;		/* accepted, not shown */
};

#define OPTF_SUFFIX	0x1	/* numbers: k, m, g (x1024) accepted */
#define OPTF_BYTES	0x2	/* numbers: a size, shown with k, m, g */
#define OPTF_POW2	0x4	/* numbers: a power of two */
#define OPTF_STOP	0x8	/* the parse ends here (--help, --version) */

struct optdef {
	const char *name;	/* --name */
	char key;		/* -k, or 0 */
	const char *arg;	/* the argument's name in --help; NULL: none, or the choices */
	opt_set_fn set;
	size_t off, size;	/* the field of struct npuflowd_opts it sets */
	int value;		/* set_flag: what it sets the field to */
	uint64_t min, max;	/* set_num: the range */
	uint64_t scale;		/* set_num: the field holds the number times this */
	unsigned int flags;	/* OPTF_* */
	const char *what;	/* set_num, set_path: what the argument must be */
	const struct opt_choice *choices;	/* set_choice: ended by a NULL name */
	const char *help;	/* --help's text; the range and default are added */
};

static int set_flag(struct npuflowd_opts *o, const struct optdef *d, const char *arg);
static int set_num(struct npuflowd_opts *o, const struct optdef *d, const char *arg);
static int set_choice(struct npuflowd_opts *o, const struct optdef *d, const char *arg);
static int set_path(struct npuflowd_opts *o, const struct optdef *d, const char *arg);
static int set_pin_dir(struct npuflowd_opts *o, const struct optdef *d, const char *arg);

#define FIELD(f)	.off = offsetof(struct npuflowd_opts, f), \
			.size = sizeof(((struct npuflowd_opts *)0)->f)
#define FLAG(f, v)	.set = set_flag, FIELD(f), .value = (v)
#define NUM(f, lo, hi)	.set = set_num, FIELD(f), .min = (lo), .max = (hi), .scale = 1
#define MS(f, lo)	.set = set_num, FIELD(f), .min = (lo), .max = 3600 * 1000, \
			.scale = 1000000, .what = "a number of ms"
#define CHOICE(f, c)	.set = set_choice, FIELD(f), .choices = (c)
#define PATH(f)		.set = set_path, FIELD(f), .what = "an absolute path"

_Static_assert(sizeof(enum npuflowd_mode) == sizeof(int) &&
	       sizeof(enum npuflowd_log) == sizeof(int) &&
	       sizeof(enum npuflowd_show) == sizeof(int), "set_flag and set_choice set ints");

#define SHOWN(n, v)	{ (n), (v), 0 }
#define ALIAS(n, v)	{ (n), (v), 1 }
#define CHOICES_END	{ NULL, 0, 0 }

static const struct opt_choice mode_choices[] = {
	SHOWN("native", NPUFLOWD_MODE_NATIVE), SHOWN("skb", NPUFLOWD_MODE_SKB),
	ALIAS("drv", NPUFLOWD_MODE_NATIVE), ALIAS("generic", NPUFLOWD_MODE_SKB), CHOICES_END,
};
static const struct opt_choice log_choices[] = {
	SHOWN("error", NPUFLOWD_LOG_ERR), SHOWN("warn", NPUFLOWD_LOG_WARN),
	SHOWN("info", NPUFLOWD_LOG_INFO), SHOWN("debug", NPUFLOWD_LOG_DEBUG), CHOICES_END,
};
static const struct opt_choice clock_choices[] = {
	SHOWN("coarse", 0), SHOWN("precise", 1), CHOICES_END,
};
static const struct opt_choice bool_choices[] = {
	SHOWN("0", 0), SHOWN("1", 1), CHOICES_END,
};

static const struct optdef optdefs[] = {
	{ "candidates", 'c', "N", NUM(candidates, NPUFLOWD_CAND_MIN, NPUFLOWD_CAND_MAX),
	  .flags = OPTF_SUFFIX, .what = "a number",
	  .help = "Size of the candidate map.  A pinned map of another size is refused: "
		  "--flush first." },
	{ "threshold", 't', "FRAMES", NUM(fm.thr_frames, 0, UINT32_MAX),
	  .what = "a number of frames",
	  .help = "Raise a threshold event when a candidate reaches FRAMES frames, once per "
		  "crossing; 0: no events." },
	{ "mode", 'm', NULL, CHOICE(mode, mode_choices),
	  .help = "XDP attach mode (drv and generic are aliases).  Never falls back: without "
		  "native XDP in the driver the attach fails." },
	{ "foreground", 'f', NULL, FLAG(foreground, 1),
	  .help = "Stay in the foreground and log to stderr.  Without it npuflowd daemonizes "
		  "(and logs to syslog) once it has attached and started: a start that fails "
		  "exits 1 with the reason on stderr." },
	{ "log-level", 'l', NULL, CHOICE(log_level, log_choices),
	  .help = "The least severe messages logged (events are logged at info)." },
	{ "revive-gap-ms", 0, "MS", MS(revive_gap_ns, 0),
	  .help = "At most one revive event per candidate per MS milliseconds." },
	{ "clock", 0, NULL, CHOICE(precise_clock, clock_choices),
	  .help = "Candidate timestamps from the coarse (tick) clock, cheaper, or the precise "
		  "one; both are CLOCK_MONOTONIC." },
	{ "ringbuf", 0, "BYTES", NUM(ringbuf, NPUFLOWD_RB_MIN, NPUFLOWD_RB_MAX),
	  .flags = OPTF_SUFFIX | OPTF_BYTES | OPTF_POW2, .what = "a power of two",
	  .help = "Size of the event ring.  The ring is pinned: a new size needs --flush "
		  "first." },
	{ "no-dispatcher", 0, NULL, FLAG(no_dispatcher, 1),
	  .help = "Attach as a single XDP program instead of through libxdp's dispatcher." },
	{ "pin-dir", 0, "DIR", .set = set_pin_dir, FIELD(pin_dir),
	  .what = "an absolute path under a directory other than /, without . or ..",
	  .help = "Where the maps are pinned, on a BPF file system: DIR's parent must be one, "
		  "or /sys/fs/bpf, where npuflowd mounts one if there is none (mode 0700; not "
		  "--flush).  DIR is refused if it is a symbolic link or not a directory of "
		  "root's (or of the user npuflowd runs as), and while another npuflowd uses "
		  "it." },
	{ "lock-file", 0, "PATH", PATH(lock_file),
	  .help = "The single-instance lock; it holds npuflowd's pid.  The pin directory is "
		  "locked too, whatever this says." },
	{ "flush", 0, NULL, FLAG(flush, 1),
	  .help = "Detach any npuflow classifier left attached, delete npuflowd's tc flower "
		  "rules (their connections leave the hardware), remove the pinned maps and the "
		  "pin directory, and exit.  Refused while an instance runs." },
	{ "no-flowmaker", 0, NULL, FLAG(flowmaker, 0),
	  .help = "Classifier and events only: no conntrack, no rules." },
	{ "threshold-bytes", 0, "BYTES", NUM(fm.thr_bytes, 0, 1ull << 40),
	  .flags = OPTF_SUFFIX | OPTF_BYTES, .what = "a number of bytes",
	  .help = "A candidate must also have shown BYTES bytes; 0: not used.  Checked when the "
		  "frame threshold is crossed, then watched." },
	{ "threshold-any", 0, NULL, FLAG(fm.thr_any, 1),
	  .help = "Either threshold suffices (without it: every threshold that is set)." },
	{ "hold-min-ms", 0, "MS", MS(fm.hold_min_ns, 1),
	  .help = "First wait of a connection given back under a new identity.  The default is "
		  "the seeds' tuned value (seed 002); a shorter first wait is the open "
		  "measurement (make bench, in the VM)." },
	{ "hold-max-ms", 0, "MS", MS(fm.hold_max_ns, 1),
	  .help = "Cap of the wait, which doubles at each give-back." },
	{ "hold-quiet-ms", 0, "MS", MS(fm.hold_quiet_ns, 0),
	  .help = "No give-back for this long: the next wait is the first again." },
	{ "retry-ms", 0, "MS", MS(fm.retry_ns, 1),
	  .help = "A connection refused for a transient reason (not established yet, no "
		  "neighbour) is tried again after MS, twice as long after each refusal in a row "
		  "(up to 32 s)." },
	{ "evict-pps", 0, "N", NUM(fm.evict_pps, 0, UINT32_MAX),
	  .what = "a number of frames a second",
	  .help = "While the hardware table is full, a waiting connection of at least N frames a "
		  "second takes the slot of a made connection of at most half its rate, made at "
		  "least 10 s before (the busiest win); 0: first come, first served.  The default "
		  "is MediaTek's PPE bind rate." },
	{ "evict-hold-ms", 0, "MS", MS(fm.evict_hold_ns, 1),
	  .help = "A connection taken out for a busier one is held back this long before it "
		  "waits for a slot again." },
	{ "keepalive-ms", 0, "MS", MS(keepalive_ns, 1),
	  .help = "Interval of the hardware stats read and the conntrack refresh; longer while a "
		  "run takes over a fiftieth of it (at most 2 % of the loop), within a quarter of "
		  "the shortest conntrack timeout of a class made." },
	{ "connections", 0, "N", NUM(fm.max_conns, 1024, 4u << 20),
	  .flags = OPTF_SUFFIX, .what = "a number",
	  .help = "Size of the connections map and the policy table.  A pinned map of another "
		  "size is refused: --flush first." },
	{ "ct-rcvbuf", 0, "BYTES", NUM(ct_rcvbuf, 65536, 1u << 30),
	  .flags = OPTF_SUFFIX | OPTF_BYTES, .what = "a size",
	  .help = "Receive buffer of the conntrack event socket." },
	{ "tc-skip-sw", 0, NULL, CHOICE(tc_skip_sw, bool_choices),
	  .help = "1: the rules are skip_sw, hardware only.  0: no skip flag, so the kernel "
		  "runs them in software too (tests on veth)." },
	{ "ctl-socket", 0, "PATH", PATH(ctl_socket),
	  .help = "The control socket npuctl release talks to." },
	{ "help", 'h', NULL, FLAG(help, NPUFLOWD_SHOW_HELP), .flags = OPTF_STOP,
	  .help = "Print this help and exit." },
	{ "version", 0, NULL, FLAG(help, NPUFLOWD_SHOW_VERSION), .flags = OPTF_STOP,
	  .help = "Print the version and exit." },
};

#define NOPTS	(sizeof(optdefs) / sizeof(optdefs[0]))

static const char usage_head[] =
"Usage: npuflowd [OPTION]... IFNAME...\n"
"  or:  npuflowd --flush\n"
"Load the npuflow XDP classifier on every IFNAME (the host netdev of a front\n"
"port, as devlink port show names it), pin its maps, and run the flow maker:\n"
"a connection conntrack knows whose direction crosses the threshold is written\n"
"as two TC flower skip_sw rules, which the driver makes a hardware connection\n"
"of.  --flush removes what npuflowd leaves behind.\n"
"\n"
"Options:\n";

void npuflowd_opts_init(struct npuflowd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->candidates = NPUFLOW_CANDIDATES_DEFAULT;
	o->revive_gap_ns = NPUFLOW_REVIVE_GAP_DEFAULT;
	o->ringbuf = NPUFLOW_RINGBUF_DEFAULT;
	o->mode = NPUFLOWD_MODE_NATIVE;
	o->log_level = NPUFLOWD_LOG_INFO;
	snprintf(o->pin_dir, sizeof(o->pin_dir), "%s", NPUFLOW_PIN_DIR);
	snprintf(o->lock_file, sizeof(o->lock_file), "%s", NPUFLOWD_LOCK_DEFAULT);
	o->flowmaker = 1;
	fm_cfg_init(&o->fm);
	o->keepalive_ns = NPUFLOWD_KEEPALIVE_NS_DEFAULT;
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
	return (unsigned int)l <= NPUFLOWD_LOG_DEBUG ? log_choices[l].name : "?";
}

static void *field(struct npuflowd_opts *o, const struct optdef *d)
{
	return (char *)o + d->off;
}

static const void *cfield(const struct npuflowd_opts *o, const struct optdef *d)
{
	return (const char *)o + d->off;
}

static int set_flag(struct npuflowd_opts *o, const struct optdef *d, const char *arg)
{
	(void)arg;
	memcpy(field(o, d), &d->value, sizeof(int));
	return 0;
}

/* A number field's value (u32 or u64), and setting it. */
static uint64_t get_u64(const struct npuflowd_opts *o, const struct optdef *d)
{
	uint32_t v32;
	uint64_t v;

	if (d->size == sizeof(v32)) {
		memcpy(&v32, cfield(o, d), sizeof(v32));
		return v32;
	}
	memcpy(&v, cfield(o, d), sizeof(v));
	return v;
}

static void put_u64(struct npuflowd_opts *o, const struct optdef *d, uint64_t v)
{
	uint32_t v32 = v;

	if (d->size == sizeof(v32))
		memcpy(field(o, d), &v32, sizeof(v32));
	else
		memcpy(field(o, d), &v, sizeof(v));
}

static int set_num(struct npuflowd_opts *o, const struct optdef *d, const char *arg)
{
	uint64_t v;

	if (npuflowd_parse_u64(arg, d->min, d->max, d->flags & OPTF_SUFFIX, &v) ||
	    ((d->flags & OPTF_POW2) && (v & (v - 1))))
		return -1;
	put_u64(o, d, v * d->scale);
	return 0;
}

static int set_choice(struct npuflowd_opts *o, const struct optdef *d, const char *arg)
{
	const struct opt_choice *c;

	for (c = d->choices; c->name; c++)
		if (!strcmp(arg, c->name)) {
			memcpy(field(o, d), &c->value, sizeof(int));
			return 0;
		}
	return -1;
}

static int set_path(struct npuflowd_opts *o, const struct optdef *d, const char *arg)
{
	if (arg[0] != '/' || strlen(arg) >= d->size)
		return -1;
	memcpy(field(o, d), arg, strlen(arg) + 1);
	return 0;
}

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
static int set_pin_dir(struct npuflowd_opts *o, const struct optdef *d, const char *arg)
{
	char parent[sizeof(o->pin_dir)], base[sizeof(o->pin_dir)];
	size_t n = strlen(arg);

	(void)d;
	if (n >= sizeof(o->pin_dir) - 32 || has_dot_component(arg) ||
	    npuflowd_pin_split(arg, parent, sizeof(parent), base, sizeof(base)))
		return -1;
	while (arg[n - 1] == '/')
		n--;
	memcpy(o->pin_dir, arg, n);
	o->pin_dir[n] = '\0';
	return 0;
}

/* @v in @buf, as a size with a k, m or g suffix when @d says it is one. */
static const char *fmt_u64(const struct optdef *d, uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "gmk";
	int i;

	for (i = 0; (d->flags & OPTF_BYTES) && v && i < 3; i++)
		if (!(v & ((1ull << (30 - 10 * i)) - 1))) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(v >> (30 - 10 * i)),
				 sfx[i]);
			return buf;
		}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* The names of @d's choices, but the aliases, joined by @sep (and @last before the last). */
static void fmt_choices(const struct optdef *d, const char *sep, const char *last,
			char *buf, size_t len)
{
	const struct opt_choice *c;
	size_t n = 0, shown = 0, i = 0;

	for (c = d->choices; c->name; c++)
		shown += !c->alias;
	buf[0] = '\0';
	for (c = d->choices; c->name && n < len; c++) {
		if (c->alias)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", i ? (i + 1 == shown ? last : sep) : "",
			      c->name);
		i++;
	}
}

/* Say in @err why @arg is not a value of @d. */
static void opt_error(const struct optdef *d, const char *arg, char *err, size_t errlen)
{
	char lo[24], hi[24], names[64];

	if (d->set == set_num) {
		snprintf(err, errlen, "--%s: '%s' is not %s in %s..%s", d->name, arg, d->what,
			 fmt_u64(d, d->min, lo, sizeof(lo)), fmt_u64(d, d->max, hi, sizeof(hi)));
	} else if (d->set == set_choice) {
		fmt_choices(d, ", ", " or ", names, sizeof(names));
		snprintf(err, errlen, "--%s: '%s': use %s", d->name, arg, names);
	} else if (d->set == set_path) {
		snprintf(err, errlen, "--%s: '%s' must be %s shorter than %zu bytes", d->name, arg,
			 d->what, d->size);
	} else {
		snprintf(err, errlen, "--%s: '%s' must be %s, shorter", d->name, arg, d->what);
	}
}

/* getopt_long()'s value for @d: its short letter, or 256 + its index. */
static int opt_val(const struct optdef *d)
{
	return d->key ? d->key : 256 + (int)(d - optdefs);
}

static const struct optdef *opt_by_val(int c)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if (opt_val(&optdefs[i]) == c)
			return &optdefs[i];
	return NULL;
}

/* getopt_long()'s tables from optdefs[]: @lo has NOPTS + 1 entries, @so 3 * NOPTS + 2 bytes. */
static void getopt_tables(struct option *lo, char *so)
{
	size_t i;

	*so++ = ':';		/* a missing argument is ':', not '?' */
	for (i = 0; i < NOPTS; i++) {
		const struct optdef *d = &optdefs[i];
		int has_arg = d->set != set_flag;

		lo[i] = (struct option){ d->name, has_arg ? required_argument : no_argument,
					 NULL, opt_val(d) };
		if (d->key) {
			*so++ = d->key;
			if (has_arg)
				*so++ = ':';
		}
	}
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	*so = '\0';
}

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* The options of argv; argv[optind...] are left: the interfaces. */
static int parse_options(int argc, char **argv, struct npuflowd_opts *o, char *err, size_t errlen)
{
	struct option lo[NOPTS + 1];
	char so[3 * NOPTS + 2];
	const struct optdef *d;
	int c;

	getopt_tables(lo, so);
	optind = 0;		/* full re-initialisation (glibc), also for tests */
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == ':')
			BAD("option '%s' requires an argument", argv[optind - 1]);
		d = opt_by_val(c);
		if (!d)
			BAD("unknown option '%s'", argv[optind - 1]);
		if (d->set(o, d, optarg)) {
			opt_error(d, optarg, err, errlen);
			return -1;
		}
		if (d->flags & OPTF_STOP)
			break;
	}
	return 0;
}

/* The interfaces: argv[first...]. */
static int parse_ports(int argc, char **argv, int first, struct npuflowd_opts *o,
		       char *err, size_t errlen)
{
	int i, j;

	for (i = first; i < argc; i++) {
		if (!valid_ifname(argv[i]))
			BAD("'%s' is not an interface name", argv[i]);
		for (j = 0; j < o->nports; j++)
			if (!strcmp(o->ports[j], argv[i]))
				BAD("interface '%s' given twice", argv[i]);
		if (o->nports == NPUFLOWD_MAX_PORTS)
			BAD("at most %d interfaces", NPUFLOWD_MAX_PORTS);
		snprintf(o->ports[o->nports++], NPUFLOWD_IFNAMSIZ, "%s", argv[i]);
	}
	return 0;
}

int npuflowd_parse_args(int argc, char **argv, struct npuflowd_opts *o,
			char *err, size_t errlen)
{
	npuflowd_opts_init(o);
	if (parse_options(argc, argv, o, err, errlen))
		return -1;
	if (o->help)
		return 0;
	if (parse_ports(argc, argv, optind, o, err, errlen))
		return -1;
	if (o->flush && o->nports)
		BAD("--flush takes no interfaces");
	if (!o->flush && !o->nports)
		BAD("no interface given (npuflowd --help)");
	if (o->fm.hold_max_ns < o->fm.hold_min_ns)
		BAD("--hold-max-ms is below --hold-min-ms");
	return 0;
}

#define HELP_COL	30	/* where an option's text starts */
#define HELP_WIDTH	79

/* Print @s from column @col, wrapped at HELP_WIDTH, continued at HELP_COL. */
static void print_wrapped(FILE *f, const char *s, int col)
{
	for (;;) {
		size_t room = HELP_WIDTH - col, cut = strlen(s);

		if (cut > room) {
			for (cut = room; cut && s[cut] != ' '; cut--)
				;
			if (!cut)		/* a word longer than a line: whole */
				cut = strcspn(s, " ");
			while (cut && s[cut - 1] == ' ')
				cut--;
		}
		fprintf(f, "%.*s\n", (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		if (!*s)
			return;
		fprintf(f, "%*s", HELP_COL, "");
		col = HELP_COL;
	}
}

/* @d's text, then its range and default (from @def) as --help says them, in @buf. */
static void help_text(const struct optdef *d, const struct npuflowd_opts *def,
		      char *buf, size_t len)
{
	char lo[24], hi[24], dv[24];
	const struct opt_choice *c;
	int n = snprintf(buf, len, "%s", d->help);

	if (d->set == set_num) {
		snprintf(buf + n, len - n, "  %s..%s%s; default %s.", fmt_u64(d, d->min, lo, 24),
			 fmt_u64(d, d->max, hi, 24), d->flags & OPTF_SUFFIX ? ", k/m/g suffix" : "",
			 fmt_u64(d, get_u64(def, d) / d->scale, dv, 24));
	} else if (d->set == set_choice) {
		for (c = d->choices; c->name; c++)
			if (!c->alias && !memcmp(&c->value, cfield(def, d), sizeof(int)))
				break;
		snprintf(buf + n, len - n, "  Default %s.", c->name ? c->name : "none");
	} else if (d->set != set_flag) {
		snprintf(buf + n, len - n, "  Default %s.", (const char *)cfield(def, d));
	}
}

/* One option, as "  -k, --name=ARG   text": the form help2man takes options in. */
static void print_option(FILE *f, const struct optdef *d, const struct npuflowd_opts *def)
{
	char names[96], arg[64], text[1024];
	int col;

	if (d->set == set_choice)
		fmt_choices(d, "|", "|", arg, sizeof(arg));
	else
		snprintf(arg, sizeof(arg), "%s", d->arg ? d->arg : "");
	if (d->key)
		col = snprintf(names, sizeof(names), "  -%c, --%s", d->key, d->name);
	else
		col = snprintf(names, sizeof(names), "      --%s", d->name);
	if (arg[0])
		col += snprintf(names + col, sizeof(names) - col, "=%s", arg);
	fputs(names, f);
	if (col > HELP_COL - 2)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fprintf(f, "%*s", HELP_COL - col, "");
	help_text(d, def, text, sizeof(text));
	print_wrapped(f, text, HELP_COL);
}

void npuflowd_print_help(FILE *f, enum npuflowd_show what)
{
	struct npuflowd_opts def;
	size_t i;

	if (what == NPUFLOWD_SHOW_VERSION) {
		fprintf(f, "npuflowd (npuflow) %s\n", NPUFLOW_VERSION);
		return;
	}
	npuflowd_opts_init(&def);
	fputs(usage_head, f);
	for (i = 0; i < NOPTS; i++)
		print_option(f, &optdefs[i], &def);
}

int npuflowd_show(enum npuflowd_show what)
{
	npuflowd_print_help(stdout, what);
	return npuflow_close_stdout("npuflowd") ? 1 : 0;
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
