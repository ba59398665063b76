// SPDX-License-Identifier: GPL-2.0
/*
 * vlanstack.c - VLAN devices as stacks of tags: vlanstack.h.
 */
#include <linux/if_ether.h>
#include "vlanstack.h"

/* Entry @e as a key's tag: its VID, NPUFLOW_VLAN_AD for 802.1ad. */
static uint16_t tag_of(const struct nls_vlan *e)
{
	return (e->vid & NPUFLOW_VLAN_VID) | (e->proto == ETH_P_8021AD ? NPUFLOW_VLAN_AD : 0);
}

/* The VLAN device tagging @tag on @lower, as an index of @v, or -1. */
static int tagged_on(const struct nls_vlan *v, int n, uint32_t lower, uint16_t tag)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].lower == lower && tag_of(&v[i]) == tag)
			return i;
	return -1;
}

/* The VLAN device @ifindex, as an index of @v, or -1. */
static int vlan_index(const struct nls_vlan *v, int n, uint32_t ifindex)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].ifindex == ifindex)
			return i;
	return -1;
}

int vlanstack_in(const struct nls_vlan *v, int n, uint32_t port, uint16_t outer,
		 uint16_t inner)
{
	int i = tagged_on(v, n, port, outer);

	if (i < 0 || !inner)
		return i;
	if (inner & NPUFLOW_VLAN_AD)
		return -1;
	return tagged_on(v, n, v[i].ifindex, inner);
}

int vlanstack_out(const struct nls_vlan *v, int n, uint32_t dev, uint32_t *lower,
		  uint16_t *outer, uint16_t *inner)
{
	int i = vlan_index(v, n, dev), j;

	*lower = dev;
	*outer = *inner = 0;
	if (i < 0)
		return 0;
	j = vlan_index(v, n, v[i].lower);
	if (j < 0) {
		*lower = v[i].lower;
		*outer = tag_of(&v[i]);
		return 1;
	}
	/* a third device under them, or 802.1ad inside a tag: not written */
	if (vlan_index(v, n, v[j].lower) >= 0 || v[i].proto == ETH_P_8021AD)
		return -1;
	*lower = v[j].lower;
	*outer = tag_of(&v[j]);
	*inner = tag_of(&v[i]);
	return 2;
}
