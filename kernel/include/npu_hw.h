/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu_hw.h - the hardware interface of the npuflow network coprocessor: the
 * register ABI a backend (the npusim model, or a real-silicon PCI function)
 * implements and the host driver (npuep) programs.
 *
 *  - the register map (global, command channel, per port, per queue pair);
 *  - descriptor layouts for the receive (punt) and transmit rings;
 *  - the command and completion format of the command channel, and what
 *    each opcode does to the device (npu_cmd_effect(), one effect per
 *    opcode, and its predicates npu_cmd_changes_tables(),
 *    npu_cmd_reads_only());
 *  - punt reasons.
 *
 * The binding, how a backend hands the host its registers (an auxiliary
 * device and its operations), is in npu_aux.h; the driver's policy
 * defaults are the driver's own (kernel/npuep/npuep_config.h).  Nothing
 * here depends on the kernel beyond its integer types, so the pure files
 * build natively with npu_compat.h.
 *
 * Everything in host memory (rings, buffers) is little endian and is reached
 * by the coprocessor only through the DMA address written into a register or
 * a descriptor.  The host never trusts a value the device wrote: lengths,
 * ports, reasons and indices read from descriptors are range checked.
 *
 * Numbering: ports are 0-based here (register blocks, descriptor port field);
 * the panel number users see is port + 1.  Interrupt vectors:
 * vector 0 is the command channel (completions and port events), vector
 * NPU_VEC_QP(port, queue, nqueues) is queue pair @queue of @port.
 */
#ifndef _NPU_HW_H
#define _NPU_HW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include "npu_compat.h"
#endif

#define NPU_HW_MAGIC		0x4e505531	/* "NPU1" */

/* Layouts that are ABI, checked wherever this header is compiled. */
#define NPU_ABI_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " is " #size " bytes")
#define NPU_ABI_OFFSET(type, member, off) \
	static_assert(offsetof(type, member) == (off), #type "." #member " at " #off)

/* Limits of the device. */
#define NPU_MAX_PORTS		16
#define NPU_MAX_QUEUES		16	/* queue pairs per port */
#define NPU_MAX_VECTORS		(1 + NPU_MAX_PORTS * NPU_MAX_QUEUES)
/* Ring depth bounds, in descriptors; a ring's size is a power of two. */
#define NPU_RING_MIN		64
#define NPU_RING_MAX		4096
#define NPU_RSS_KEY_LEN		40	/* bytes, Toeplitz (Microsoft RSS) */
#define NPU_RSS_RETA_SIZE	128	/* indirection entries per port */
#define NPU_MAX_FRAME		9216	/* largest frame the ports carry */
#define NPU_MIN_FRAME		14	/* shorter is a runt: dropped, counted */
#define NPU_CMD_RING_SIZE	32	/* seed 004: 32 slots per command ring */
#define NPU_CMD_RINGS		2	/* 0 = normal, 1 = high priority */

#define NPU_VEC_CMD		0
#define NPU_VEC_QP(port, q, nq)	(1 + (port) * (nq) + (q))

/* ------------------------------------------------------------------ */
/* Global registers (32 bit unless noted).                             */

#define NPU_REG_MAGIC		0x0000	/* RO: NPU_HW_MAGIC */
#define NPU_REG_FW_VERSION	0x0004	/* RO: major << 16 | minor << 8 | patch */
#define NPU_REG_CAPS		0x0008	/* RO: NPU_CAP_* */
#define NPU_REG_NPORTS		0x000c	/* RO: front ports */
#define NPU_REG_NQUEUES		0x0010	/* RO: queue pairs per port */
#define NPU_REG_SERIAL		0x0018	/* RO, 64 bit */
#define NPU_REG_EVENTS		0x0020	/* RC: NPU_EVT_* (read clears) */
#define NPU_REG_LINK_CHANGED	0x0024	/* RC: bitmap of ports whose link changed */
#define NPU_REG_CMD_IRQ_UNMASK	0x0028	/* WO: re-arm the command vector */

#define NPU_CAP_CSUM_RX		BIT(0)	/* rx descriptors report L4 csum ok */
#define NPU_CAP_CSUM_TX		BIT(1)	/* tx csum_start/csum_offset honoured */
#define NPU_CAP_TSO		BIT(2)	/* tx TSO4/TSO6 */
#define NPU_CAP_RSS		BIT(3)
#define NPU_CAP_NTUPLE		BIT(4)	/* NPU_CMD_NTUPLE_* (ingress classifier) */
/* two VLAN tags and PPPoE sessions in microflow keys and rewrites */
#define NPU_CAP_L2_ENCAP	BIT(5)

#define NPU_EVT_CMD_DONE	BIT(0)	/* a command completed */
#define NPU_EVT_LINK		BIT(1)	/* see NPU_REG_LINK_CHANGED */

/*
 * Command rings, one register block per ring (0 = normal, 1 = high).
 * The host writes the ring's DMA address and size (power of two, at most
 * NPU_CMD_RING_SIZE) and then rings the doorbell (TAIL) after filling
 * slots.  The device writes each slot back in place (status, response,
 * NPU_CMD_F_DONE last) and advances HEAD.
 */
#define NPU_REG_CMDQ(n)		(0x0040 + (n) * 0x20)
#define NPU_CMDQ_BASE		0x00	/* 64 bit: DMA address, written as LO, HI */
#define NPU_CMDQ_BASE_HI	0x04
#define NPU_CMDQ_SIZE		0x08	/* slots; 0 disables */
#define NPU_CMDQ_TAIL		0x0c	/* doorbell: next slot the host fills */
#define NPU_CMDQ_HEAD		0x10	/* RO: next slot the device reads */

/* ------------------------------------------------------------------ */
/* Per-port registers.                                                 */

#define NPU_REG_PORT(p)		(0x1000 + (p) * 0x100)
#define NPU_PORT_MAC_LO		0x00	/* RO: MAC bytes 0..3, byte 0 in bits 7:0 */
#define NPU_PORT_MAC_HI		0x04	/* RO: MAC bytes 4..5 */
#define NPU_PORT_LINK		0x08	/* RO: bit 0 link up, bits 31:16 speed Mb/s */
#define NPU_PORT_MTU		0x0c	/* RO: MTU as configured by NPU_CMD_PORT_CFG */
#define NPU_PORT_RSS_KEY	0x10	/* RW: 10 registers, key bytes 4i..4i+3 */
#define NPU_PORT_RETA		0x40	/* RW: 32 registers, 4 entries each, byte 0 first */
#define NPU_PORT_RX_RUNTS	0xc0	/* RO 64: frames shorter than NPU_MIN_FRAME, dropped */
#define NPU_PORT_RX_MALFORMED	0xc8	/* RO 64: punted with NPU_PUNT_MALFORMED */
#define NPU_PORT_RX_OVERSIZE	0xd0	/* RO 64: longer than the rx buffer, dropped */
#define NPU_PORT_RX_NOQUEUE	0xd8	/* RO 64: port down / queue disabled, dropped */
#define NPU_PORT_TX_BAD		0xe0	/* RO 64: malformed tx descriptors, frame dropped */
#define NPU_PORT_RX_NTUPLE_DROPS 0xe8	/* RO 64: dropped by an ntuple drop rule */

/*
 * Per-port fast-path counters (64 bit, read with read64), a block per port:
 * frames punted to the host per reason, and frames the fast path forwarded
 * that arrived on the port.
 */
#define NPU_REG_PORT_FP(p)	(0x8000 + (p) * 0x100)
#define NPU_PORT_FP_PUNT(r)	((r) * 8)	/* r < NPU_PUNT_MAX */
#define NPU_PORT_FP_FWD_FRAMES	0x80
#define NPU_PORT_FP_FWD_BYTES	0x88	/* the frames' bytes as they left (L2) */
#define NPU_PORT_FP_PUNT_DROPS	0x90	/* punts dropped by a trap policer (below) */

/* Fast-path tables in use (32 bit, RO). */
#define NPU_REG_FT_CONNS	0x0030
#define NPU_REG_FT_MFLOWS	0x0034
/* RW: 1 = the fast path forwards; 0 = it punts NPU_PUNT_FASTPATH_OFF. */
#define NPU_REG_FASTPATH	0x0038
/*
 * RO: NPU_FW_STATUS_*.  FAULT: the firmware's fast path has failed (it
 * forwards nothing and answers fast-path commands NPU_ST_FW_FAULT) until
 * the host resets it with NPU_CMD_FT_CONFIG.
 */
#define NPU_REG_FW_STATUS	0x003c
#define NPU_FW_STATUS_FAULT	BIT(0)

/*
 * The connection statistics area: host memory the device keeps one struct
 * npu_conn_stats_entry per connection index in (below), as a PPE keeps
 * its counters and idle times where the host reads them in bulk.  The
 * host writes SIZE 0 (the device stops writing the area), BASE (LO, HI)
 * and then SIZE, in entries; a non-zero SIZE enables the area: the device
 * writes every entry below SIZE afresh (FREE, or the connection's state,
 * revision and counters), then keeps them.  An area not in memory, not
 * 8-byte aligned, or larger than NPU_FT_CONNS_MAX entries is refused
 * (SIZE reads 0).  Writing BASE disables the area too.  NPU_CMD_FT_CONFIG
 * keeps the area and rewrites it for the emptied tables; indices at or
 * past SIZE are not written.  Reset state: disabled.
 */
#define NPU_REG_FT_STATS	0x0080
#define NPU_FT_STATS_BASE	0x00	/* 64 bit: DMA address, written as LO, HI */
#define NPU_FT_STATS_BASE_HI	0x04
#define NPU_FT_STATS_SIZE	0x08	/* entries; 0 disables */
#define NPU_FT_STATS_CLOCK	0x0c	/* RO: the device's clock, ms, wrapping */

#define NPU_LINK_UP		BIT(0)
#define NPU_LINK_SPEED_SHIFT	16

/*
 * Trap policers: token buckets that limit the frames punted to the host.
 *
 * The device has NPU_POLICERS policers, numbered 1..NPU_POLICERS (0 = no
 * policer), each with a register block NPU_REG_POLICER(n).  Every punt
 * reason has a map register naming the policer its punts go through.  A
 * punted frame is counted in NPU_PORT_FP_PUNT(reason), then, if its reason
 * maps to a policer with a non-zero rate, takes one token from that bucket
 * before it takes a receive descriptor (after the ingress classifier, so a
 * steered frame is policed as NPU_PUNT_NTUPLE; an ntuple drop rule's
 * frames never reach a policer).  A frame that finds no token is dropped
 * and counted in the policer's NPU_POLICER_DROPS and in its ingress port's
 * NPU_PORT_FP_PUNT_DROPS.  One policer may serve several reasons and all
 * ports: the buckets are per device.
 *
 * A bucket holds at most BURST tokens and gains RATE tokens per second; it
 * starts full.  Write BURST first: a RATE write applies both and refills
 * the bucket (writing RATE 0 turns the policer off: nothing is dropped).
 * Out-of-range values are clamped to the bounds below.  Reset state, and
 * the state after a firmware fault (NPU_FW_STATUS_FAULT): every map 0,
 * every RATE 0 (nothing policed).  The drop counters survive both.
 */
#define NPU_POLICERS		8
#define NPU_POLICER_RATE_MAX	16000000	/* frames/s (64-byte line rate of 10G) */
#define NPU_POLICER_BURST_MAX	65536		/* frames */

#define NPU_REG_POLICER_MAP(r)	(0x0200 + (r) * 4)	/* RW: policer of reason r, 0 = none */
#define NPU_REG_POLICER(n)	(0x0400 + (n) * 0x20)	/* n = 1..NPU_POLICERS */
#define NPU_POLICER_RATE	0x00	/* RW: frames per second, 0 = off */
#define NPU_POLICER_BURST	0x04	/* RW: frames, 1..NPU_POLICER_BURST_MAX */
#define NPU_POLICER_DROPS	0x08	/* RO 64: frames dropped */

/* ------------------------------------------------------------------ */
/* Per-queue-pair registers.                                           */

#define NPU_REG_QP(p, q)	(0x10000 + ((p) * NPU_MAX_QUEUES + (q)) * 0x100)
#define NPU_QP_RX_BASE		0x00	/* 64 bit, written LO then HI */
#define NPU_QP_RX_BASE_HI	0x04
#define NPU_QP_RX_SIZE		0x08	/* descriptors, power of two */
#define NPU_QP_RX_TAIL		0x0c	/* doorbell: host filled up to (excl.) */
#define NPU_QP_RX_HEAD		0x10	/* RO: next descriptor the device fills */
#define NPU_QP_TX_BASE		0x20
#define NPU_QP_TX_BASE_HI	0x24
#define NPU_QP_TX_SIZE		0x28
#define NPU_QP_TX_TAIL		0x2c	/* doorbell: host posted up to (excl.) */
#define NPU_QP_TX_HEAD		0x30	/* RO: next descriptor the device reads */
#define NPU_QP_CTRL		0x40	/* RW: NPU_QP_CTRL_* */
#define NPU_QP_IRQ_UNMASK	0x44	/* WO: re-arm this pair's vector */
/* 64-bit counters kept by the device, read with read64. */
#define NPU_QP_RX_FRAMES	0x80	/* frames punted into this ring */
#define NPU_QP_RX_BYTES		0x88
#define NPU_QP_RX_QFULL		0x90	/* dropped: host ring had no free buffer */
#define NPU_QP_RX_IRQS		0x98	/* doorbell interrupts raised to the host */
#define NPU_QP_TX_FRAMES	0xa0	/* frames sent on the wire */
#define NPU_QP_TX_BYTES		0xa8
#define NPU_QP_RX_BADBUF	0xb0	/* rx descriptors with an unusable buffer */

#define NPU_QP_CTRL_RX_EN	BIT(0)
#define NPU_QP_CTRL_TX_EN	BIT(1)
#define NPU_QP_CTRL_IRQ_EN	BIT(2)	/* raise the vector (else host polls) */

/*
 * Ring life cycle: BASE and SIZE are written while the ring is disabled.
 * Setting RX_EN (TX_EN) resets the device's HEAD and the TAIL to 0; the host
 * then fills descriptors and writes TAIL.  Clearing RX_EN (TX_EN) returns
 * only when the device no longer touches that ring or its buffers, so the
 * host may free them right after the write.  A frame whose RSS queue is
 * disabled is dropped and counted in NPU_PORT_RX_NOQUEUE.  At device reset
 * the RETA spreads over all queue pairs (entry i -> i % nqueues).
 */

/*
 * Interrupt protocol (per queue pair and for the command vector): the
 * device raises the vector once and masks it; the host re-arms it by
 * writing the UNMASK register when it has finished its pass (for a queue
 * pair: after napi_complete_done()).  A re-arm with work already pending
 * raises the vector again at once, so no wake-up is lost.  Receive
 * moderation (NPU_CMD_COALESCE) delays the raise until @frames frames are
 * pending or @usecs have passed since the first one, whichever is first.
 */

/* ------------------------------------------------------------------ */
/* Descriptors.                                                        */

/*
 * Receive (punt) descriptor, 32 bytes.  The host writes @addr and @buf_len
 * and clears @flags; the device writes the frame at @addr and then the
 * remaining fields, setting NPU_RXD_DONE last (release order).
 */
struct npu_rx_desc {
	__le64 addr;		/* host: buffer DMA address */
	__le16 buf_len;		/* host: buffer bytes */
	__le16 len;		/* dev: frame bytes, <= buf_len */
	__le16 flags;		/* dev: NPU_RXD_* */
	u8 reason;		/* dev: enum npu_punt_reason */
	u8 port;		/* dev: ingress port, 0-based */
	__le32 hash;		/* dev: RSS hash (Toeplitz) */
	__le32 conn;		/* dev: connection index or NPU_CONN_NONE */
	__le16 vlan_tci;	/* dev: outer VLAN if NPU_RXD_VLAN */
	__le16 rsvd0;
	__le32 rsvd1;
};

#define NPU_RXD_DONE		BIT(0)
#define NPU_RXD_CSUM_OK		BIT(1)	/* L4 checksum verified by the device */
#define NPU_RXD_HASH_L4		BIT(2)	/* hash covers ports */
#define NPU_RXD_HASH_L3		BIT(3)	/* hash covers addresses only */
#define NPU_RXD_VLAN		BIT(4)	/* vlan_tci valid (tag left in frame) */
#define NPU_RXD_IPV4		BIT(5)
#define NPU_RXD_IPV6		BIT(6)

#define NPU_CONN_NONE		0xffffffffu

/*
 * Transmit descriptor, 32 bytes.  A frame is one or more descriptors, the
 * last with NPU_TXD_EOP; checksum and TSO fields are read from the first.
 * The device sets NPU_TXD_DONE in every descriptor it consumed (release
 * order) and then advances TX_HEAD.
 */
struct npu_tx_desc {
	__le64 addr;		/* host: fragment DMA address */
	__le16 len;		/* host: fragment bytes */
	__le16 flags;		/* host: NPU_TXD_*; dev: NPU_TXD_DONE */
	__le16 csum_start;	/* host: from frame start (NPU_TXD_CSUM) */
	__le16 csum_offset;	/* host: from csum_start */
	__le16 mss;		/* host: segment payload (NPU_TXD_TSO*) */
	__le16 rsvd0;
	__le32 rsvd1;
	__le64 rsvd2;
};

#define NPU_TXD_DONE		BIT(0)
#define NPU_TXD_EOP		BIT(1)
#define NPU_TXD_CSUM		BIT(2)	/* fill a 16-bit ones' complement sum */
#define NPU_TXD_TSO4		BIT(3)
#define NPU_TXD_TSO6		BIT(4)

/*
 * Descriptors one frame may span; a frame of more is malformed (counted in
 * NPU_PORT_TX_BAD).  A 64 KB GRO frame of 1,448-byte segments is 45
 * buffers: the head, MAX_SKB_FRAGS (17) pages and 27 more on its frag list.
 * Below NPU_RING_MIN, so that the largest frame fits any ring.
 */
#define NPU_TX_MAX_DESCS	48

/*
 * Punt reasons: why the coprocessor handed a frame to the host instead of
 * forwarding it.  Values are ABI (traps, counters, BPF metadata).
 */
enum npu_punt_reason {
	NPU_PUNT_NONE		= 0,	/* not a punt (host-originated XDP_TX etc.) */
	NPU_PUNT_FLOW_MISS	= 1,	/* no microflow: a new connection */
	NPU_PUNT_NOT_ACTIVE	= 2,	/* microflow of a given-back connection */
	NPU_PUNT_TCP_FLAGS	= 3,	/* SYN, FIN or RST: the firewall must see it */
	NPU_PUNT_EXCEPTION	= 4,	/* fragment, IP options, TTL <= 1, other proto or tags */
	NPU_PUNT_MTU		= 5,	/* larger than the egress MTU */
	NPU_PUNT_NON_IP		= 6,	/* ARP, LLDP and other ethertypes */
	NPU_PUNT_MCAST		= 7,	/* broadcast or multicast destination */
	NPU_PUNT_FASTPATH_OFF	= 8,	/* forwarding disabled */
	NPU_PUNT_NTUPLE		= 9,	/* steered by an ntuple rule */
	NPU_PUNT_MALFORMED	= 10,	/* truncated or inconsistent headers */
	NPU_PUNT_MAX		= 11,
};

/* ------------------------------------------------------------------ */
/* Command channel.                                                    */

/*
 * Command slot, 256 bytes (a connection create carries two IPv6
 * directions' rewrites and microflows).  The host fills @opcode, @seq, @len and @data,
 * clears @flags and rings the ring's doorbell.  The device writes @status,
 * the response into @data (@len updated) and NPU_CMD_F_DONE last, then
 * raises the command vector with NPU_EVT_CMD_DONE.
 */
#define NPU_CMD_DATA_LEN	240

struct npu_cmd {
	__le16 opcode;		/* enum npu_cmd_opcode */
	__le16 flags;		/* NPU_CMD_F_* */
	__le16 seq;		/* host's sequence number, echoed */
	__le16 status;		/* dev: enum npu_cmd_status */
	__le16 len;		/* bytes of @data valid (request, then response) */
	__le16 rsvd0;
	__le32 rsvd1;
	u8 data[NPU_CMD_DATA_LEN];
};

#define NPU_CMD_F_DONE		BIT(0)
#define NPU_CMD_F_POSTED	BIT(1)	/* host will not wait: no completion event */

enum npu_cmd_opcode {
	NPU_CMD_NOP		= 0,
	NPU_CMD_FW_INFO		= 1,	/* -> struct npu_cmd_fw_info */
	NPU_CMD_PORT_CFG	= 2,	/* struct npu_cmd_port_cfg */
	NPU_CMD_COALESCE	= 3,	/* struct npu_cmd_coalesce */
	/* the fast path */
	NPU_CMD_CONN_CREATE	= 16,	/* struct npu_cmd_conn_create */
	NPU_CMD_MFLOW_ATTACH	= 17,	/* struct npu_cmd_mflow */
	NPU_CMD_CONN_RECLAIM	= 18,	/* struct npu_cmd_conn_ref: take out */
	NPU_CMD_MFLOW_INVALIDATE = 19,	/* struct npu_cmd_mflow (key only) */
	NPU_CMD_CONN_STATS	= 20,	/* struct npu_cmd_conn_ref -> npu_cmd_conn_stats */
	NPU_CMD_FT_CONFIG	= 21,	/* struct npu_cmd_ft_config */
	/* the ingress classifier (ethtool -N) */
	NPU_CMD_NTUPLE_ADD	= 24,	/* struct npu_cmd_ntuple */
	NPU_CMD_NTUPLE_DEL	= 25,	/* struct npu_cmd_ntuple (port, loc) */
};

/**
 * enum npu_cmd_effect - what a command does to the device
 * @NPU_CMD_EFFECT_UNKNOWN: no opcode of this interface (the device answers
 *	NPU_ST_BAD_OPCODE)
 * @NPU_CMD_EFFECT_READ: reads only (firmware information, connection
 *	statistics) or does nothing: its loss costs nothing but the answer
 * @NPU_CMD_EFFECT_SET: sets a port's configuration or the moderation,
 *	which the host states whole in each command
 * @NPU_CMD_EFFECT_TABLE: changes the device's tables (fast path, ntuple):
 *	its loss leaves them out of step with the host's
 */
enum npu_cmd_effect {
	NPU_CMD_EFFECT_UNKNOWN,
	NPU_CMD_EFFECT_READ,
	NPU_CMD_EFFECT_SET,
	NPU_CMD_EFFECT_TABLE,
};

/**
 * npu_cmd_effect() - what a command does to the device
 * @opcode: enum npu_cmd_opcode, or any other value
 *
 * Every opcode has one effect here.  The switch has no default: the
 * compiler (-Wswitch, part of -Wall) names an opcode added to enum
 * npu_cmd_opcode without one, wherever this header is compiled.
 *
 * Return: the opcode's enum npu_cmd_effect, NPU_CMD_EFFECT_UNKNOWN for a
 * value that is no opcode.
 */
static inline enum npu_cmd_effect npu_cmd_effect(u16 opcode)
{
	switch ((enum npu_cmd_opcode)opcode) {
	case NPU_CMD_NOP:
	case NPU_CMD_FW_INFO:
	case NPU_CMD_CONN_STATS:
		return NPU_CMD_EFFECT_READ;
	case NPU_CMD_PORT_CFG:
	case NPU_CMD_COALESCE:
		return NPU_CMD_EFFECT_SET;
	case NPU_CMD_CONN_CREATE:
	case NPU_CMD_MFLOW_ATTACH:
	case NPU_CMD_CONN_RECLAIM:
	case NPU_CMD_MFLOW_INVALIDATE:
	case NPU_CMD_FT_CONFIG:
	case NPU_CMD_NTUPLE_ADD:
	case NPU_CMD_NTUPLE_DEL:
		return NPU_CMD_EFFECT_TABLE;
	}
	return NPU_CMD_EFFECT_UNKNOWN;
}

/**
 * npu_cmd_changes_tables() - whether a command changes the device's tables
 * @opcode: enum npu_cmd_opcode
 *
 * Return: true for the opcodes whose loss leaves the device's tables (fast
 * path, ntuple) out of step with the host's (NPU_CMD_EFFECT_TABLE).
 */
static inline bool npu_cmd_changes_tables(u16 opcode)
{
	return npu_cmd_effect(opcode) == NPU_CMD_EFFECT_TABLE;
}

/**
 * npu_cmd_reads_only() - whether a command changes nothing in the device
 * @opcode: enum npu_cmd_opcode
 *
 * Return: true for the opcodes that only read or do nothing
 * (NPU_CMD_EFFECT_READ): their loss costs nothing but the answer.
 */
static inline bool npu_cmd_reads_only(u16 opcode)
{
	return npu_cmd_effect(opcode) == NPU_CMD_EFFECT_READ;
}

enum npu_cmd_status {
	NPU_ST_OK		= 0,
	NPU_ST_BAD_OPCODE	= 1,
	NPU_ST_BAD_PARAM	= 2,
	NPU_ST_NO_SPACE		= 3,
	NPU_ST_BUSY		= 4,
	NPU_ST_NOT_FOUND	= 5,
	NPU_ST_FW_FAULT		= 6,	/* see NPU_REG_FW_STATUS */
};

struct npu_cmd_fw_info {
	char name[16];		/* NUL terminated */
	char version[32];	/* NUL terminated, "major.minor.patch" */
	__le64 serial;
	__le32 nports;
	__le32 nqueues;
	__le32 caps;		/* NPU_CAP_* */
	__le32 rsvd;
};

struct npu_cmd_port_cfg {
	__le16 port;		/* 0-based */
	__le16 mtu;		/* L3 MTU, 68..NPU_MAX_FRAME - 22 */
	u8 up;			/* 1 = host side up: wire carrier on */
	u8 rsvd[3];
};

#define NPU_COALESCE_ALL_QUEUES	0xffff

struct npu_cmd_coalesce {
	__le16 port;
	__le16 queue;		/* queue pair or NPU_COALESCE_ALL_QUEUES */
	__le32 usecs;		/* 0 = no time limit; at most 100000 */
	__le32 frames;		/* 0 or 1 = raise per frame; at most 4096 */
};

/* ------------------------------------------------------------------ */
/* The fast path: connections and microflows.                          */

/*
 * A connection block holds both directions' rewrite; a microflow is one
 * direction's identity (ingress port, VLAN, addresses, ports, protocol)
 * pointing at its connection and direction.  A frame that hits a microflow
 * of a VALID connection is rewritten and sent out of the direction's egress
 * port without the host; anything else is punted with a reason and, when a
 * microflow matched, the connection index.
 *
 * Give-back (seed 004): a TCP direction that retransmits past a threshold
 * makes the connection NOT ACTIVE (its frames punt NPU_PUNT_NOT_ACTIVE with
 * the index); NPU_CMD_CONN_CREATE for the same index and revision with no
 * microflow revives it in place.  After a give-back the microflows expire
 * after a time (then frames miss: NPU_PUNT_FLOW_MISS).
 */
#define NPU_FT_CONNS_MAX	65536
#define NPU_FT_MFLOWS_MAX	131072

#define NPU_AF_INET		4
#define NPU_AF_INET6		6

/*
 * A direction's identity.  Addresses and ports in network order.
 *
 * The L2 part is what the frame arrives in: at most two VLAN tags, then at
 * most one PPPoE session header.
 *
 *  - @vlan: the outer tag's VLAN id (1..4095), 0 for an untagged frame.
 *    Its TPID is 0x8100, or 0x88a8 with NPU_KEY_L2_AD in @l2.
 *  - @vlan_inner: the inner tag's VLAN id (1..4095, TPID 0x8100), 0 for a
 *    frame of one tag or none.
 *  - @pppoe_sid: the session id (1..0xfffe) of a PPPoE session frame that
 *    carries IPv4 or IPv6, 0 for none.
 *
 * No key stands for any other L2.  The coprocessor punts, without a
 * lookup, NPU_PUNT_EXCEPTION: a frame with a priority tag (VID 0), an
 * inner 802.1ad tag or more than two tags; PPPoE discovery (0x8863); a
 * session frame of session id 0 or 0xffff, or of another PPP protocol
 * (LCP, IPCP, ...).  NPU_PUNT_MALFORMED: a session frame whose length
 * field disagrees with its IP packet.  So no such frame matches a
 * connection of its tags' VIDs, nor an untagged one.
 *
 * Without NPU_CAP_L2_ENCAP the coprocessor keys one 802.1Q tag at most:
 * @l2, @vlan_inner and @pppoe_sid are zero (NPU_ST_BAD_PARAM otherwise),
 * frames of two tags or an 802.1ad tag are exceptions, PPPoE is not IP.
 * @rsvd is zero.
 */
struct npu_mflow_key {
	u8 port;		/* ingress port, 0-based */
	u8 family;		/* NPU_AF_INET or NPU_AF_INET6 */
	u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	u8 l2;			/* NPU_KEY_L2_* */
	__be16 vlan;		/* outer VLAN id, 0 = untagged (see above) */
	__be16 sport;
	__be16 dport;
	__be16 pppoe_sid;	/* PPPoE session id, 0 = none */
	__be32 saddr[4];	/* IPv4: [0] only, the rest zero */
	__be32 daddr[4];
	__be16 vlan_inner;	/* inner VLAN id (802.1Q), 0 = one tag or none */
	__be16 rsvd;
};

/* struct npu_mflow_key.l2 */
#define NPU_KEY_L2_AD		BIT(0)	/* the outer tag's TPID is 0x88a8 */

NPU_ABI_SIZE(struct npu_mflow_key, 48);
NPU_ABI_OFFSET(struct npu_mflow_key, l2, 3);
NPU_ABI_OFFSET(struct npu_mflow_key, vlan, 4);
NPU_ABI_OFFSET(struct npu_mflow_key, pppoe_sid, 10);
NPU_ABI_OFFSET(struct npu_mflow_key, saddr, 12);
NPU_ABI_OFFSET(struct npu_mflow_key, daddr, 28);
NPU_ABI_OFFSET(struct npu_mflow_key, vlan_inner, 44);

/* struct npu_rewrite.flags */
#define NPU_RW_SNAT		BIT(0)	/* saddr/sport := nat_saddr/nat_sport */
#define NPU_RW_DNAT		BIT(1)	/* daddr/dport := nat_daddr/nat_dport */
#define NPU_RW_TTL		BIT(2)	/* decrement TTL / hop limit (routed) */
#define NPU_RW_VLAN_PUSH	BIT(3)	/* push vlan_tci (802.1Q unless NPU_RW_L2_AD1) */
#define NPU_RW_VLAN_POP		BIT(4)	/* pop the outer tag (two: NPU_RW_L2_POP2) */
#define NPU_RW_MAC		BIT(5)	/* set dmac and smac */

/* struct npu_rewrite.l2: more of the L2 rewrite (NPU_CAP_L2_ENCAP) */
#define NPU_RW_L2_POP2		BIT(0)	/* with NPU_RW_VLAN_POP: pop two tags */
#define NPU_RW_L2_PPPOE_POP	BIT(1)	/* pop the PPPoE session header */
#define NPU_RW_L2_PUSH2		BIT(2)	/* with NPU_RW_VLAN_PUSH: vlan_tci2 outside vlan_tci */
#define NPU_RW_L2_AD1		BIT(3)	/* vlan_tci's TPID is 0x88a8 (outermost only) */
#define NPU_RW_L2_AD2		BIT(4)	/* vlan_tci2's TPID is 0x88a8 */
#define NPU_RW_L2_PPPOE_PUSH	BIT(5)	/* push a session header of pppoe_sid */

/*
 * What one direction does to a frame on its way out, in this order:
 *
 *  1. NAT of addresses and ports, the TTL's decrement (checksums updated);
 *  2. pops: the outer tag, or two (NPU_RW_VLAN_POP, NPU_RW_L2_POP2), then
 *     the session header (NPU_RW_L2_PPPOE_POP).  A pop of what the frame
 *     does not have pops nothing;
 *  3. pushes: a session header right before the IP packet
 *     (NPU_RW_L2_PPPOE_PUSH: version and type 0x11, code 0, @pppoe_sid,
 *     length the IP packet's + 2, PPP protocol 0x0021 or 0x0057), then
 *     @vlan_tci and @vlan_tci2 outermost (NPU_RW_VLAN_PUSH,
 *     NPU_RW_L2_PUSH2).  The tags not popped stay, inside the pushed ones;
 *  4. the MACs (NPU_RW_MAC).
 *
 * A frame that would leave in two sessions (one pushed onto the one it
 * keeps) is punted NPU_PUNT_EXCEPTION.  A create refuses (NPU_ST_BAD_PARAM)
 * a second pop or push without the first, an 802.1ad tag pushed inside
 * another, a push of session 0 or 0xffff.
 *
 * @mtu is the egress's L3 MTU, the bytes the pushes add taken off (1492
 * for a session on a port of 1500): a frame whose IP packet is longer
 * punts NPU_PUNT_MTU.  A coprocessor without NPU_CAP_L2_ENCAP takes @l2
 * zero only (NPU_ST_BAD_PARAM otherwise); @rsvd is zero.
 */
struct npu_rewrite {
	u8 egress_port;		/* 0-based, a port of this coprocessor */
	u8 flags;		/* NPU_RW_* */
	__be16 vlan_tci;	/* NPU_RW_VLAN_PUSH */
	u8 dmac[6];
	u8 smac[6];
	__be16 nat_sport;
	__be16 nat_dport;
	__le16 mtu;		/* egress L3 MTU: larger frames punt NPU_PUNT_MTU */
	u8 l2;			/* NPU_RW_L2_* */
	u8 rsvd;
	__be32 nat_saddr[4];
	__be32 nat_daddr[4];
	__be16 vlan_tci2;	/* NPU_RW_L2_PUSH2: the tag outside vlan_tci */
	__be16 pppoe_sid;	/* NPU_RW_L2_PPPOE_PUSH: 1..0xfffe */
};

NPU_ABI_SIZE(struct npu_rewrite, 60);
NPU_ABI_OFFSET(struct npu_rewrite, mtu, 20);
NPU_ABI_OFFSET(struct npu_rewrite, l2, 22);
NPU_ABI_OFFSET(struct npu_rewrite, nat_saddr, 24);
NPU_ABI_OFFSET(struct npu_rewrite, nat_daddr, 40);
NPU_ABI_OFFSET(struct npu_rewrite, vlan_tci2, 56);
NPU_ABI_OFFSET(struct npu_rewrite, pppoe_sid, 58);

/* struct npu_cmd_conn_create.flags */
#define NPU_CONN_F_DIR0		BIT(0)	/* dir[0] rewrite valid */
#define NPU_CONN_F_DIR1		BIT(1)	/* dir[1] rewrite valid */
#define NPU_CONN_F_MFLOW0	BIT(2)	/* attach mflow[0] to direction 0 */
#define NPU_CONN_F_MFLOW1	BIT(3)	/* attach mflow[1] to direction 1 */
/* revive only: NPU_ST_NOT_FOUND unless the index holds this revision */
#define NPU_CONN_F_REVIVE	BIT(4)

/*
 * Create (or, same index and revision with no microflow, revive) a
 * connection.  With NPU_CONN_F_REVIVE the command only revives: a revive
 * that crossed a reclaim (a free index, or another revision) is refused
 * with NPU_ST_NOT_FOUND and creates nothing.  224 bytes.
 */
struct npu_cmd_conn_create {
	__le32 conn;		/* index < the table's size */
	__le16 rev;		/* revision: a new one replaces the connection */
	__le16 flags;		/* NPU_CONN_F_* */
	struct npu_rewrite dir[2];
	struct npu_mflow_key mflow[2];
};

NPU_ABI_SIZE(struct npu_cmd_conn_create, 224);
static_assert(sizeof(struct npu_cmd_conn_create) <= NPU_CMD_DATA_LEN,
	      "a create fits a command slot");

/* Attach (or invalidate: key only) one microflow.  56 bytes. */
struct npu_cmd_mflow {
	__le32 conn;
	__le16 rev;
	u8 dir;			/* 0 or 1 */
	u8 rsvd;
	struct npu_mflow_key key;
};

NPU_ABI_SIZE(struct npu_cmd_mflow, 56);

/* Reclaim a connection, or ask for stats of @count from @conn on. */
struct npu_cmd_conn_ref {
	__le32 conn;
	__le16 rev;		/* reclaim: must match; stats: ignored */
	__le16 count;		/* stats: 1..NPU_CONN_STATS_MAX */
};

enum npu_conn_state {
	NPU_CONN_FREE		= 0,
	NPU_CONN_VALID		= 1,
	NPU_CONN_NOT_ACTIVE	= 2,	/* given back, revivable */
};

#define NPU_CONN_STATS_MAX	4	/* 8 + 4 x 48 bytes fit a slot */

struct npu_conn_stat {
	__le32 conn;
	__le16 rev;
	u8 state;		/* enum npu_conn_state */
	u8 giveback;		/* give-backs since created (saturating) */
	__le64 packets[2];	/* per direction, forwarded by the fast path */
	__le64 bytes[2];	/* their IP packets' bytes (npu_conn_stats_entry) */
	__le32 idle_ms;		/* since the last forwarded frame, saturating */
	__le32 rsvd;
};

struct npu_cmd_conn_stats {
	__le16 count;
	__le16 rsvd[3];
	struct npu_conn_stat st[NPU_CONN_STATS_MAX];
};

/*
 * One connection's entry in the statistics area (NPU_REG_FT_STATS), at
 * index @conn: 48 bytes, little endian, written by the device only.
 *
 *  - when a connection is made at the index (a new index or revision): the
 *    whole entry, counters zero, @rev the new revision, @last_ms now;
 *  - when the fast path forwards one of its frames: that direction's
 *    @packets and @bytes, and @last_ms;
 *  - when it is given back or revived: @state, @giveback;
 *  - when it is taken out (NPU_CMD_CONN_RECLAIM): @state NPU_CONN_FREE,
 *    the rest as it was (the last counters of that revision).
 *
 * @bytes counts the IP packets (their total length, L3), not the frames:
 * what the peers exchanged, whatever tags or session carried it, as the
 * kernel's software path counts a flow's bytes (after the encapsulation's
 * pop), so that conntrack's counters agree either way.  A port's
 * NPU_PORT_FP_FWD_BYTES counts frames.
 *
 * Within one entry the device writes the counters and @last_ms before
 * @state, and a fresh entry's @rev last; the host reads @rev before and
 * after the rest and ignores an entry whose @rev moved while it read.
 * The idle time of a connection is NPU_FT_STATS_CLOCK minus @last_ms,
 * modulo 2^32.  Nothing else is written: the device does no periodic work
 * per connection.
 */
struct npu_conn_stats_entry {
	__le32 conn;		/* the entry's own index */
	__le16 rev;		/* revision of the connection the entry counts */
	u8 state;		/* enum npu_conn_state */
	u8 giveback;		/* give-backs since created (saturating) */
	__le64 packets[2];	/* per direction, forwarded by the fast path */
	__le64 bytes[2];
	__le32 last_ms;		/* NPU_FT_STATS_CLOCK at the last forwarded frame */
	__le32 rsvd;
};

/* Sizes of the tables; the tables are emptied.  Sent at (re)initialisation. */
struct npu_cmd_ft_config {
	__le32 conns;		/* 1..NPU_FT_CONNS_MAX */
	__le32 mflows;		/* 1..NPU_FT_MFLOWS_MAX */
	u8 fastpath;		/* 1 = forward, 0 = punt all (NPU_PUNT_FASTPATH_OFF) */
	u8 rsvd[7];
};

/* ------------------------------------------------------------------ */
/* The ingress classifier: ntuple rules (ethtool -N).                  */

/*
 * Each port has a table of NPU_NTUPLE_RULES rules, checked for every frame
 * the port punts to the host (after the fast path, before RSS), lowest
 * location first; the first rule that matches decides:
 *
 *  - NPU_NTUPLE_ACT_QUEUE: the frame goes to receive queue @queue with
 *    reason NPU_PUNT_NTUPLE (counted in NPU_PORT_FP_PUNT(NPU_PUNT_NTUPLE)
 *    instead of its own reason) and its RSS hash;
 *  - NPU_NTUPLE_ACT_DROP: the frame is dropped and counted in
 *    NPU_PORT_RX_NTUPLE_DROPS; it is not a punt.
 *
 * Frames the fast path forwards and frames punted NPU_PUNT_MALFORMED are
 * never matched.  A field takes part where its mask has bits set; values
 * must have no bit outside their mask.  Ports match only TCP and UDP
 * frames (the rule must name the protocol); an IPv4 rule keeps words 1..3
 * of addresses and masks zero.  A firmware fault (NPU_FW_STATUS_FAULT)
 * empties every table, and only that and NPU_CMD_NTUPLE_DEL do: the host
 * keeps its own copy and writes it again when it recovers.
 *
 * Capacity: 128 rules per port, a small fixed table (2,048 entries for 16
 * ports, 10 KiB of 80-byte rules per port in the model).  It is ABI.
 */
#define NPU_NTUPLE_RULES	128
#define NPU_NTUPLE_LOC_ALL	0xffff	/* NPU_CMD_NTUPLE_DEL: the whole table */

enum npu_ntuple_action {
	NPU_NTUPLE_ACT_QUEUE	= 0,	/* steer to @queue, NPU_PUNT_NTUPLE */
	NPU_NTUPLE_ACT_DROP	= 1,	/* drop, NPU_PORT_RX_NTUPLE_DROPS */
};

/* One rule, 80 bytes.  Addresses and ports in network order. */
struct npu_ntuple_rule {
	u8 family;		/* NPU_AF_INET or NPU_AF_INET6 */
	u8 proto;		/* IP protocol / IPv6 next header */
	u8 proto_mask;		/* 0 (any) or 0xff */
	u8 action;		/* enum npu_ntuple_action */
	__le16 queue;		/* ACT_QUEUE: < NPU_REG_NQUEUES; ACT_DROP: 0 */
	__be16 sport;
	__be16 sport_mask;
	__be16 dport;
	__be16 dport_mask;
	__le16 rsvd;		/* 0 */
	__be32 saddr[4];
	__be32 saddr_mask[4];
	__be32 daddr[4];
	__be32 daddr_mask[4];
};

/*
 * NPU_CMD_NTUPLE_ADD writes @rule at @loc (< NPU_NTUPLE_RULES), replacing
 * the rule there.  NPU_CMD_NTUPLE_DEL removes the rule at @loc
 * (NPU_ST_NOT_FOUND if there is none) or, with NPU_NTUPLE_LOC_ALL, every
 * rule of the port; @rule must be zero.  88 bytes.
 */
struct npu_cmd_ntuple {
	__le16 port;		/* 0-based */
	__le16 loc;		/* lower locations match first */
	__le32 rsvd;		/* 0 */
	struct npu_ntuple_rule rule;
};

#endif /* _NPU_HW_H */
