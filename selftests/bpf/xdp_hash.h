/* SPDX-License-Identifier: GPL-2.0 */
/* The result record of xdp_hash.bpf.c, read by xdp_hash_load.c. */
#ifndef _XDP_HASH_H
#define _XDP_HASH_H

#include <linux/types.h>

struct xdp_hash_res {
	__u64 frames;
	__u64 hash_ok;
	__u64 hash_nonzero;
	__u64 hash_nodata;
	__u64 hash_meta_match;	/* kfunc hash == struct npuflow_meta hash */
	__u64 vlan_ok;
	__u64 vlan_nodata;
	__u32 last_hash;
	__u32 last_type;
	__u16 last_tci;
	__u16 last_proto;	/* network order */
	__u32 pad;
};

#endif
