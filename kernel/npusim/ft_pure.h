/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ft_pure.h - the coprocessor model's fast path: the connection table, the
 * microflow hash table, the per-frame decision (forward or punt, and why),
 * the L3/L4 rewrite with incremental checksums and the L2 rewrite.
 *
 * Pure C (npu_compat.h): compiled into npusim.ko and, unchanged, into the
 * cmocka unit tests.  The caller owns the memory and the locking; nothing
 * here sleeps or allocates.
 */
#ifndef _NPUSIM_FT_PURE_H
#define _NPUSIM_FT_PURE_H

#include "npu_compat.h"
#include "npu_hw.h"
#include "parse_pure.h"

#define NPUSIM_FT_NONE		0xffffffffu
/*
 * The longest L2 header a rewrite makes: the MACs, two tags pushed and two
 * kept, the ethertype, a session header.
 */
#define NPUSIM_FT_L2_MAX	(12 + 4 * 4 + 2 + NPUSIM_PPPOE_HLEN)
/* Seed 004's give-back rule: a TCP direction that retransmits this often. */
#define NPUSIM_FT_RETRANS_DEFAULT	8
/* Seed 004: the microflows' own timer, "a few seconds after a give-back". */
#define NPUSIM_FT_EXPIRE_MS_DEFAULT	3000

struct npusim_ft_conn {
	u16 rev;
	u8 state;		/* enum npu_conn_state */
	u8 giveback;		/* give-backs since created (saturating) */
	u8 dirs;		/* NPU_CONN_F_DIR0/1 */
	u8 rsvd[3];
	u32 mf[2];		/* microflow slot per direction, or NONE */
	u32 seq_end[2];		/* TCP: highest sequence end seen per direction */
	u16 retrans[2];
	u8 seq_valid[2];
	u64 packets[2];
	u64 bytes[2];
	u64 last_used_ns;
	u64 given_back_ns;
	struct npu_rewrite rw[2];
};

struct npusim_ft_mflow {
	struct npu_mflow_key key;
	u32 conn;		/* NONE when the slot is free */
	u32 next;		/* bucket chain, or free list */
	u8 dir;
};

/**
 * struct npusim_ft - one coprocessor's fast-path tables
 * @nports: ports of the coprocessor (egress ports are checked against it)
 * @nconns: connection slots
 * @nmflows: microflow slots
 * @nbuckets: hash buckets, a power of two
 * @conns: @nconns connection slots (caller's memory)
 * @mflows: @nmflows microflow slots (caller's memory)
 * @buckets: @nbuckets chain heads (caller's memory)
 * @free: head of the free microflow list
 * @used_conns: connections not FREE
 * @used_mflows: microflows attached
 * @fastpath: 0 = punt everything with NPU_PUNT_FASTPATH_OFF
 * @retrans_max: give back a TCP connection after this many retransmits in
 *	one direction (0 = never)
 * @expire_ns: microflows of a given-back connection expire after this
 * @area: the host's connection statistics area (NPU_REG_FT_STATS), or
 *	NULL: the entries of indices below @area_n are kept there
 * @area_n: entries in @area
 * @st: counters
 */
struct npusim_ft {
	u32 nports;
	u32 nconns;
	u32 nmflows;
	u32 nbuckets;
	struct npusim_ft_conn *conns;
	struct npusim_ft_mflow *mflows;
	u32 *buckets;
	u32 free;
	u32 used_conns;
	u32 used_mflows;
	u8 fastpath;
	u32 retrans_max;
	u64 expire_ns;
	struct npu_conn_stats_entry *area;
	u32 area_n;
	struct {
		u64 forwarded;
		u64 created;
		u64 revived;
		u64 reclaimed;
		u64 givebacks;
		u64 expired;
		u64 mflow_full;
	} st;
};

/**
 * struct npusim_ft_result - the fast path's decision for one frame
 * @conn: connection index of the microflow that matched, or NPU_CONN_NONE
 * @dir: direction of that microflow
 * @rw: when forwarding, the direction's rewrite (points into the table;
 *	valid while the caller holds the table's lock)
 */
struct npusim_ft_result {
	u32 conn;
	u8 dir;
	const struct npu_rewrite *rw;
};

void npusim_ft_init(struct npusim_ft *ft, u32 nports,
		    struct npusim_ft_conn *conns, u32 nconns,
		    struct npusim_ft_mflow *mflows, u32 nmflows,
		    u32 *buckets, u32 nbuckets);
void npusim_ft_reset(struct npusim_ft *ft);
u16 npusim_ft_conn_create(struct npusim_ft *ft,
			  const struct npu_cmd_conn_create *c, u64 now_ns);
u16 npusim_ft_mflow_attach(struct npusim_ft *ft, const struct npu_cmd_mflow *m);
u16 npusim_ft_mflow_invalidate(struct npusim_ft *ft,
			       const struct npu_mflow_key *key);
u16 npusim_ft_conn_reclaim(struct npusim_ft *ft, u32 conn, u16 rev);
u16 npusim_ft_conn_stats(struct npusim_ft *ft, u32 first, u32 count,
			 u64 now_ns, struct npu_cmd_conn_stats *out);
void npusim_ft_area_set(struct npusim_ft *ft,
			struct npu_conn_stats_entry *area, u32 n);
u32 npusim_ft_clock_ms(u64 now_ns);
u16 npusim_ft_giveback(struct npusim_ft *ft, u32 conn, u64 now_ns);
void npusim_ft_key_from_pkt(const struct npusim_pkt *pkt, u8 port,
			    struct npu_mflow_key *key);
u8 npusim_ft_process(struct npusim_ft *ft, const struct npusim_pkt *pkt,
		     u8 port, const u8 *data, u32 len, u64 now_ns,
		     struct npusim_ft_result *res);
void npusim_ft_rewrite(u8 *data, u32 len, const struct npusim_pkt *pkt,
		       const struct npu_rewrite *rw);
u32 npusim_ft_l2_len(const struct npusim_pkt *pkt, const struct npu_rewrite *rw);
int npusim_ft_l2_rewrite(u8 *data, const struct npusim_pkt *pkt,
			 const struct npu_rewrite *rw);

#endif /* _NPUSIM_FT_PURE_H */
