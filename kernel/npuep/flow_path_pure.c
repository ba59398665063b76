// SPDX-License-Identifier: GPL-2.0
/*
 * npuep flow offload: the PPPoE session a ppp device sends in, from the
 * devices under it as dev_fill_forward_path() walks them (read by the
 * glue, flow_path.c, into the rule's description).
 *
 * Pure C (npu_compat.h): compiled into npuep.ko and, unchanged, into
 * the cmocka unit tests.
 */
#include "flow_parse_int.h"

/* The first MAC under the ppp device (nf_flow_table's h_source). */
static void npuep_fp_path_smac(const struct npuep_fd_hop *hop, u32 n, u8 *smac)
{
	static const u8 zero[ETH_ALEN];
	u32 i;

	for (i = 1; i < n; i++) {
		if (memcmp(hop[i].addr, zero, ETH_ALEN)) {
			memcpy(smac, hop[i].addr, ETH_ALEN);
			return;
		}
	}
}

/**
 * npuep_flow_path_session() - the PPPoE session a ppp device sends in
 * @hop: the devices under it, top first (dev_fill_forward_path()'s walk)
 * @n: how many
 * @s: filled (zeroed first): its port, tags (outermost first), session
 *	id, concentrator's MAC, the MAC its frames leave with (the first
 *	device's under the ppp one that has one) and its MTU: the ppp
 *	device's, at most the MTU of the device under it less the 8-byte
 *	session header
 * @msg: set on a refusal: why (static storage, at most 72 characters)
 *
 * A session the fast path can send in: the ppp device's PPPoE session (1-65534),
 * then up to two VLAN devices, then a port of this device, nothing else.
 * The tags' TPIDs are left to the push's checks.
 *
 * Return: 0, or -EOPNOTSUPP with @msg set.
 */
int npuep_flow_path_session(const struct npuep_fd_hop *hop, u32 n,
			    struct npuep_fd_session *s, const char **msg)
{
	u32 i, lower;

	memset(s, 0, sizeof(*s));
	*msg = NULL;
	if (!n || n > NPUEP_FD_PATH_MAX || hop[0].type != NPUEP_FD_HOP_PPPOE)
		*msg = "redirect's ppp device carries no PPPoE session that is up";
	else if (!hop[0].id || hop[0].id == 0xffff)
		*msg = NPUEP_FP_SES_PUSHED;
	if (*msg)
		return -EOPNOTSUPP;
	for (i = 1; i < n && hop[i].type == NPUEP_FD_HOP_VLAN; i++)
		;
	if (i > 3) {
		*msg = "fast path pushes a PPPoE session in two VLAN tags at most";
		return -EOPNOTSUPP;
	}
	if (i != n - 1 || hop[i].type != NPUEP_FD_HOP_ETHERNET) {
		*msg = "PPPoE session is over neither a port nor a VLAN of one";
		return -EOPNOTSUPP;
	}
	if (hop[i].port < 0 || hop[i].port >= NPU_MAX_PORTS) {
		*msg = "PPPoE session is not over a port of this device";
		return -EOPNOTSUPP;
	}
	s->port = hop[i].port;
	s->ntags = i - 1;
	/* the kernel walks down from the inner tag's device */
	for (i = 0; i < s->ntags; i++) {
		s->tag[i].vid = hop[s->ntags - i].id;
		s->tag[i].tpid = hop[s->ntags - i].proto;
	}
	s->sid = hop[0].id;
	memcpy(s->dmac, hop[0].h_dest, ETH_ALEN);
	npuep_fp_path_smac(hop, n, s->smac);
	s->mtu = hop[0].mtu;
	lower = hop[1].mtu;
	if (lower < NPUEP_FP_PPPOE_HLEN)
		s->mtu = 0;
	else if (s->mtu > lower - NPUEP_FP_PPPOE_HLEN)
		s->mtu = lower - NPUEP_FP_PPPOE_HLEN;
	return 0;
}
