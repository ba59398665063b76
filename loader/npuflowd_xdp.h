/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's attachment to the ports (npuflowd_xdp.c).
 */
#ifndef NPUFLOWD_XDP_H
#define NPUFLOWD_XDP_H

#include <xdp/libxdp.h>

struct classify;

const char *xdp_mode_name(enum xdp_attach_mode m);
int detach_leftovers(int ifindex, const char *why);
/* libxdp's state directory ($LIBXDP_BPFFS/xdp) removed if empty, under
 * libxdp's lock on it (--flush: no dispatcher of any program is left). */
void xdp_state_remove_empty(void);
struct xdp_program *classifier_program(struct classify *skel);
/* @no_dispatcher: a single program (--no-dispatcher) */
int port_attach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode, int no_dispatcher);
int port_detach(struct xdp_program *prog, int ifindex, const char *name,
		enum xdp_attach_mode mode);

#endif
