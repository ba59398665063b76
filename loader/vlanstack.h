/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlanstack.h - a port's VLAN devices as stacks of up to two tags: the
 * device a frame of two tags is received on (a customer tag's device on a
 * service tag's device on the port), and the tags a frame routed out of a
 * VLAN device leaves the port with.  Pure (unit-tested), on the table
 * nls_vlans_get() dumps.  Tags are written as the candidate key writes
 * them: the VID, NPUFLOW_VLAN_AD for TPID 0x88a8.
 */
#ifndef _VLANSTACK_H
#define _VLANSTACK_H

#include <stdint.h>
#include "../bpf/npuflow.h"
#include "nlsock.h"

/*
 * The device of @v (@n entries) that receives a frame arriving on @port
 * with the outer tag @outer and the inner tag @inner (0: one tag): its
 * index in @v, or -1 if the host has none (the host drops such frames
 * too), or if the inner tag is an 802.1ad one.
 */
int vlanstack_in(const struct nls_vlan *v, int n, uint32_t port, uint16_t outer,
		 uint16_t inner);

/*
 * The tags a frame routed out of device @dev leaves with, and the device
 * under them: 0 if @dev is no VLAN device of @v (*@lower @dev, no tag);
 * 1 or 2 with *@lower the device under the stack, *@outer and *@inner
 * (0 for one) its tags; -1 for a stack deeper than two, or with an 802.1ad
 * tag inside another.
 */
int vlanstack_out(const struct nls_vlan *v, int n, uint32_t dev, uint32_t *lower,
		  uint16_t *outer, uint16_t *inner);

#endif
