/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * npuflow_meta.h - what the npuep driver and the XDP programs share: the
 * metadata the driver writes in front of every punted frame, and the
 * device's values it carries (punt reasons, ports, the "no connection"
 * index) as the programs see them.
 *
 * Built into the kernel module (xdp.c), into the BPF programs (through
 * bpf/npuflow.h, or directly) and into userspace: fixed-size __u types
 * only, no implicit padding.  The driver's build checks the layout and
 * every value here against npu_hw.h (xdp.c), so they cannot drift apart.
 */
#ifndef _NPUFLOW_META_H
#define _NPUFLOW_META_H

#include <linux/types.h>

/*
 * The driver reserves exactly sizeof(struct npuflow_meta) bytes of metadata
 * in the headroom (xdp->data_meta = xdp->data - sizeof(struct npuflow_meta):
 * the struct starts at data_meta and ends where the frame starts) and fills
 * it from the receive descriptor.  A program tells it is present by the
 * size of the metadata area (data - data_meta >= sizeof) and by @magic and
 * @version; otherwise (veth, generic XDP, another driver) it uses reason
 * NPUFLOW_R_NONE, no port and no connection.
 *
 * 16 bytes: a multiple of 8, within the kernel's 32-byte metadata limit.
 */
#define NPUFLOW_META_MAGIC	0x4e46		/* "NF" */
#define NPUFLOW_META_VERSION	1

struct npuflow_meta {
	__u16 magic;		/* NPUFLOW_META_MAGIC */
	__u8 version;		/* NPUFLOW_META_VERSION */
	__u8 reason;		/* NPUFLOW_R_*: enum npu_punt_reason */
	__u8 port;		/* ingress front port, 0-based (< NPUFLOW_MAX_PORTS) */
	__u8 flags;		/* NPUFLOW_META_F_* */
	__u16 vlan_tci;		/* outer VLAN TCI if NPUFLOW_META_F_VLAN (tag stays in frame) */
	__u32 hash;		/* hardware RSS hash (Toeplitz), if NPUFLOW_META_F_HASH_* */
	__u32 conn;		/* hardware connection index, or NPUFLOW_CONN_NONE */
};

#define NPUFLOW_META_F_HASH_L4	0x01	/* hash covers addresses and ports */
#define NPUFLOW_META_F_HASH_L3	0x02	/* hash covers addresses only */
#define NPUFLOW_META_F_VLAN	0x04	/* vlan_tci valid */
#define NPUFLOW_META_F_CSUM_OK	0x08	/* L4 checksum verified by the device */

/* The device's values, as npu_hw.h has them. */
#define NPUFLOW_MAX_PORTS	16		/* NPU_MAX_PORTS */
#define NPUFLOW_CONN_NONE	0xffffffffu	/* NPU_CONN_NONE */

/* enum npu_punt_reason. */
#define NPUFLOW_R_NONE		0	/* not a punt / no metadata (veth) */
#define NPUFLOW_R_FLOW_MISS	1
#define NPUFLOW_R_NOT_ACTIVE	2	/* a given-back connection: the revive signal */
#define NPUFLOW_R_TCP_FLAGS	3
#define NPUFLOW_R_EXCEPTION	4
#define NPUFLOW_R_MTU		5
#define NPUFLOW_R_NON_IP	6
#define NPUFLOW_R_MCAST		7
#define NPUFLOW_R_FASTPATH_OFF	8
#define NPUFLOW_R_NTUPLE	9
#define NPUFLOW_R_MALFORMED	10
#define NPUFLOW_R_MAX		11	/* NPU_PUNT_MAX */

#endif /* _NPUFLOW_META_H */
