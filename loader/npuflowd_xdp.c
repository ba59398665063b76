// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier's attachment to the ports, through libxdp (its
 * multi-program dispatcher, or a single program with --no-dispatcher), in
 * the mode asked and no other; and the removal of classifiers an earlier
 * run left attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "classify.skel.h"
#include "npuflowd_log.h"
#include "npuflowd_xdp.h"

#define PROG_NAME "npuflow_classify"

const char *xdp_mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "skb";
	case XDP_MODE_HW: return "hw";
	default: return "unspec";
	}
}

/* Detach the programs of @mp named PROG_NAME from @ifindex; the count. */
static int detach_ours(struct xdp_multiprog *mp, int ifindex)
{
	enum xdp_attach_mode mode = xdp_multiprog__attach_mode(mp);
	struct xdp_program *p;
	int n = 0;

	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), PROG_NAME) && !xdp_multiprog__detach(mp))
			n++;
		return n;
	}
	for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
		if (strcmp(xdp_program__name(p), PROG_NAME))
			continue;
		if (!xdp_program__detach(p, ifindex, mode, 0))
			n++;
	}
	return n;
}

/* Detach every npuflow classifier attached to @ifindex; returns the count. */
int detach_leftovers(int ifindex, const char *why)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	char ifname[IF_NAMESIZE] = "?";
	int n;

	if (!mp || libxdp_get_error(mp))
		return 0;
	if_indextoname(ifindex, ifname);
	n = detach_ours(mp, ifindex);
	if (n)
		warn("%s: detached %d npuflow classifier(s) left attached (%s)", ifname, n, why);
	xdp_multiprog__close(mp);
	return n;
}

/* The XDP program of the opened (not loaded) classifier @skel, or NULL (logged). */
struct xdp_program *classifier_program(struct classify *skel)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xo, .obj = skel->obj, .prog_name = PROG_NAME);
	struct xdp_program *prog = xdp_program__create(&xo);
	char ebuf[128];
	int e = libxdp_get_error(prog);

	if (e) {
		libxdp_strerror(e, ebuf, sizeof(ebuf));
		err("cannot create the XDP program: %s", ebuf);
		return NULL;
	}
	return prog;
}

/* Check how @name (@ifindex) holds the program just attached: in @mode, or
 * refused.  @no_dispatcher: it was attached as a single program. */
static int port_check_mode(int ifindex, const char *name, enum xdp_attach_mode mode,
			   int no_dispatcher)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	enum xdp_attach_mode got;
	int rc = 0;

	if (!mp || libxdp_get_error(mp))
		return 0;
	got = xdp_multiprog__attach_mode(mp);
	if (got != mode) {
		err("%s: attached in %s mode, not %s: refusing", name, xdp_mode_name(got),
		    xdp_mode_name(mode));
		rc = -1;
	} else if (xdp_multiprog__is_legacy(mp)) {
		warn("%s: attached as a single XDP program, not through the libxdp "
		     "dispatcher%s; other XDP programs cannot be added to this interface",
		     name, no_dispatcher ? " (--no-dispatcher)" :
		     " (the kernel or driver refused it)");
	} else {
		info("%s: attached in %s mode through the dispatcher (%d program(s))", name,
		     xdp_mode_name(got), xdp_multiprog__program_count(mp));
	}
	xdp_multiprog__close(mp);
	return rc;
}

/*
 * Whether another program holds @name (@ifindex) so that attaching ours
 * would replace it: one attached directly (not through the dispatcher), or
 * any at all with --no-dispatcher (@no_dispatcher).  Said and 1 if so.
 */
static int port_taken(int ifindex, const char *name, int no_dispatcher)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	int taken = 0;

	if (!mp || libxdp_get_error(mp))
		return 0;
	p = xdp_multiprog__main_prog(mp);
	if (p && xdp_multiprog__is_legacy(mp)) {
		err("%s: XDP program %s (id %u) is attached directly, not through the libxdp "
		    "dispatcher: refusing to replace it (detach it, or load it with xdp-loader, "
		    "to run both)", name, xdp_program__name(p), xdp_program__id(p));
		taken = 1;
	} else if (p && no_dispatcher) {
		err("%s: %d XDP program(s) attached through the libxdp dispatcher: refusing to "
		    "replace them with a single program (--no-dispatcher)", name,
		    xdp_multiprog__program_count(mp));
		taken = 1;
	}
	xdp_multiprog__close(mp);
	return taken;
}

/*
 * port_attach - attach @prog to @name (@ifindex) in @mode, after detaching
 * what an earlier run left there; never in place of another program; a
 * single program, not through the dispatcher, if @no_dispatcher.  1 when
 * attached in @mode; 0 when not attached, -1 when attached but refused
 * (detach it): both logged.
 */
int port_attach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode, int no_dispatcher)
{
	char ebuf[128];
	int e;

	detach_leftovers(ifindex, "from an earlier run");
	if (port_taken(ifindex, name, no_dispatcher))
		return 0;
	if (no_dispatcher)
		setenv("LIBXDP_SKIP_DISPATCHER", "1", 1);
	e = xdp_program__attach(prog, ifindex, mode, 0);
	if (e) {
		libxdp_strerror(e, ebuf, sizeof(ebuf));
		err("%s: cannot attach in %s mode: %s%s", name, xdp_mode_name(mode), ebuf,
		    mode == XDP_MODE_NATIVE && e == -EOPNOTSUPP ?
		    " (the driver has no native XDP; --mode skb is explicit)" : "");
		return 0;
	}
	return port_check_mode(ifindex, name, mode, no_dispatcher) ? -1 : 1;
}

/*
 * port_detach - detach @prog from @name (@ifindex), and anything of ours
 * still attached there.  0, or 1 when something stays or failed (logged).
 */
int port_detach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode)
{
	char ebuf[128];
	int e, rc = 0;

	e = xdp_program__detach(prog, ifindex, mode, 0);
	if (e) {
		libxdp_strerror(e, ebuf, sizeof(ebuf));
		err("%s: detach failed: %s", name, ebuf);
		rc = 1;
	}
	/* nothing of ours may stay behind */
	if (detach_leftovers(ifindex, "after detach"))
		rc = 1;
	else
		info("%s: detached", name);
	return rc;
}

void xdp_state_remove_empty(void)
{
	const char *fs = getenv("LIBXDP_BPFFS");
	char dir[300];
	int fd;

	snprintf(dir, sizeof(dir), "%s/xdp", fs && fs[0] ? fs : "/sys/fs/bpf");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	/* libxdp's own lock on the directory: no dispatcher is being made */
	if (!flock(fd, LOCK_EX) && !rmdir(dir))
		info("removed %s (libxdp's, empty)", dir);
	close(fd);
}
