/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the npuflow coprocessor model.
 */
#ifndef _NPUSIM_H
#define _NPUSIM_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/irqdomain.h>
#include <linux/list.h>
#include <linux/mmzone.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pfn.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "npu_aux.h"
#include "coal_pure.h"
#include "parse_pure.h"

#define DRV_NAME		"npusim"

/*
 * Firmware the model reports: version 2.0.0, the npu_hw.h of 48-byte
 * microflow keys and 60-byte rewrites.
 */
#define NPUSIM_FW_MAJOR		2
#define NPUSIM_FW_MINOR		0
#define NPUSIM_FW_PATCH		0
#define NPUSIM_FW_VERSION_STR	"2.0.0"
#define NPUSIM_CAPS		(NPU_CAP_CSUM_RX | NPU_CAP_CSUM_TX | \
				 NPU_CAP_TSO | NPU_CAP_RSS | NPU_CAP_NTUPLE | \
				 NPU_CAP_L2_ENCAP)
#define NPUSIM_LINK_SPEED	10000	/* Mb/s */

/* Fast-path table sizes at reset, until the host's NPU_CMD_FT_CONFIG. */
#define NPUSIM_FT_CONNS_RESET	16384
#define NPUSIM_FT_MFLOWS_RESET	32768

/* IDs fit "npuw<ID>p<N>" in IFNAMSIZ and two MAC bytes. */
#define NPUSIM_MAX_ID		65535

#define NPUSIM_MTU_MIN		68
#define NPUSIM_MTU_MAX		(NPU_MAX_FRAME - 22)	/* Ethernet + 2 tags */

/* Transmit bounds: a frame of more bytes (or NPU_TX_MAX_DESCS) is malformed. */
#define NPUSIM_TX_MAX_BYTES	65536
/* Frames taken from a tx ring per pass before the pass yields. */
#define NPUSIM_TX_BATCH		64
/* ... or this many bytes: bounds the time the ring lock is held. */
#define NPUSIM_TX_PASS_BYTES	(256 * 1024)
/* Bytes put in the linear part of a built skb; the rest goes in pages. */
#define NPUSIM_TX_LINEAR	256
#define NPUSIM_TSO_MSS_MIN	64
/*
 * The far end of a cable takes frames through a FIFO its NAPI drains: a
 * transmit pass starts only below NPUSIM_WIRE_HIGH frames (one pass adds at
 * most NPUSIM_TX_PASS_BYTES, ~180 full-size segments), the host's ring
 * backs up meanwhile and the wire's NAPI restarts the port's transmit below
 * NPUSIM_WIRE_LOW.  Frames the fast path forwards beyond NPUSIM_WIRE_MAX
 * are dropped and counted (an egress port's congestion).  Before, frames
 * went to the CPU's backlog with netif_rx(), which drops past
 * netdev_max_backlog (1,000): up to 56 of a stream's frames were lost
 * between the port and its wire.
 */
#define NPUSIM_WIRE_HIGH	512
#define NPUSIM_WIRE_LOW		128
#define NPUSIM_WIRE_MAX		4096

/*
 * What the model can be told to write wrong (debugfs "corrupt"), each for
 * the next N times it writes that field: the host must count it, touch no
 * memory it did not post, and recover.
 */
enum npusim_corrupt {
	NPUSIM_CORRUPT_RX_LEN,		/* rx descriptor len: buf_len + 1 */
	NPUSIM_CORRUPT_RX_PORT,		/* rx descriptor port: the next port */
	NPUSIM_CORRUPT_RX_REASON,	/* rx descriptor reason: NPU_PUNT_MAX */
	NPUSIM_CORRUPT_RX_CONN,		/* rx descriptor conn: NPU_FT_CONNS_MAX */
	NPUSIM_CORRUPT_CMD_SEQ,		/* a waited completion's seq: + 1 */
	NPUSIM_CORRUPT_CMD_OPCODE,	/* a waited completion's opcode: + 1 */
	NPUSIM_CORRUPT_CMD_HEAD,	/* CMDQ_HEAD reads: 2 past the tail */
	NPUSIM_CORRUPT_STATS_COUNT,	/* CONN_STATS count: NPU_CONN_STATS_MAX + 1 */
	NPUSIM_CORRUPT_STATS_CONN,	/* CONN_STATS st[0].conn: past the window */
	NPUSIM_CORRUPT_AREA_REV,	/* statistics entry: another revision */
	NPUSIM_CORRUPT_AREA_STATE,	/* statistics entry: state 0x7f */
	NPUSIM_CORRUPT_AREA_CONN,	/* statistics entry: conn the next index */
	NPUSIM_CORRUPT_MAX,
};

struct seq_file;
struct npusim_dev;
struct npusim_port;
struct npusim_fp;
struct npusim_nt_port;
struct npusim_pol;
struct npusim_vec;
struct npusim_cores;
struct npusim_core_work;
struct npusim_ingress;

/**
 * struct npusim_qp - one queue pair as the device keeps it
 * @nd: device
 * @port: port
 * @idx: queue pair index in the port
 * @vec: interrupt vector (NPU_VEC_QP)
 * @ctrl: NPU_QP_CTRL as last written (bits accepted)
 * @ctrl_lock: serialises CTRL writes
 * @rx_lock: receive ring state; held while the device touches the ring
 * @rx_base: ring DMA address as written
 * @rx_size: descriptors as written
 * @rx_tail: host's tail
 * @rx_head: device's head
 * @rx_en: ring enabled (validated at enable)
 * @rx_ring: ring, kernel address (valid while @rx_en)
 * @tx_lock: transmit ring state; held while the device touches the ring
 * @tx_base: ring DMA address as written
 * @tx_size: descriptors as written
 * @tx_tail: host's tail
 * @tx_head: device's head
 * @tx_en: ring enabled (validated at enable)
 * @tx_ring: ring, kernel address (valid while @tx_en)
 * @tx_work: deferred transmit processing
 * @irq_lock: protects @coal and the timer
 * @coal: interrupt moderation state
 * @timer: moderation timer
 * @rx_frames: NPU_QP_RX_FRAMES (under @rx_lock)
 * @rx_bytes: NPU_QP_RX_BYTES (under @rx_lock)
 * @rx_qfull: NPU_QP_RX_QFULL (under @rx_lock)
 * @rx_badbuf: NPU_QP_RX_BADBUF (under @rx_lock)
 * @rx_irqs: NPU_QP_RX_IRQS (under @irq_lock)
 * @tx_frames: NPU_QP_TX_FRAMES (under @tx_lock)
 * @tx_bytes: NPU_QP_TX_BYTES (under @tx_lock)
 * @tx_inline: transmit passes run in the doorbell writer's context
 * @tx_deferred: transmit passes run from the work item
 */
/* One buffer of a frame a transmit pass gathers. */
struct npusim_tx_frag {
	u64 addr;
	u32 len;
};

struct npusim_qp {
	struct npusim_dev *nd;
	struct npusim_port *port;
	u16 idx;
	u16 vec;
	u32 ctrl;
	spinlock_t ctrl_lock;	/* see above */

	spinlock_t rx_lock;	/* see above */
	u64 rx_base;
	u32 rx_size;
	u32 rx_tail;
	u32 rx_head;
	bool rx_en;
	struct npu_rx_desc *rx_ring;

	spinlock_t tx_lock;	/* see above */
	u64 tx_base;
	u32 tx_size;
	u32 tx_tail;
	u32 tx_head;
	bool tx_en;
	struct npu_tx_desc *tx_ring;
	struct npusim_tx_frag tx_frag[NPU_TX_MAX_DESCS];	/* under tx_lock */
	struct work_struct tx_work;

	spinlock_t irq_lock;	/* see above */
	struct npusim_coal coal;
	struct hrtimer timer;

	u64 rx_frames;
	u64 rx_bytes;
	u64 rx_qfull;
	u64 rx_badbuf;
	u64 rx_irqs;
	u64 tx_frames;
	u64 tx_bytes;
	u64 tx_inline;
	u64 tx_deferred;
};

/**
 * struct npusim_port - one front port
 * @nd: device
 * @idx: 0-based port index
 * @wire: the wire netdev (far end of the cable)
 * @mac: port MAC (NPU_PORT_MAC_*)
 * @mtu: MTU as configured by NPU_CMD_PORT_CFG
 * @host_up: host configured the port up: wire carrier on
 * @link_up: wire netdev is up (NPU_PORT_LINK bit 0)
 * @rss_lock: protects @rss_key and @reta against torn updates
 * @rss_key: Toeplitz key
 * @reta: indirection table
 * @rx_runts: NPU_PORT_RX_RUNTS
 * @rx_malformed: NPU_PORT_RX_MALFORMED
 * @rx_oversize: NPU_PORT_RX_OVERSIZE
 * @rx_noqueue: NPU_PORT_RX_NOQUEUE
 * @tx_bad: NPU_PORT_TX_BAD
 * @wire_blocked: transmit passes wait for the wire's FIFO to drain
 * @qps: queue pairs
 * @dbg: debugfs directory
 */
struct npusim_port {
	struct npusim_dev *nd;
	u16 idx;
	struct net_device *wire;
	u8 mac[ETH_ALEN];
	u32 mtu;
	bool host_up;
	bool link_up;
	spinlock_t rss_lock;	/* see above */
	u8 rss_key[NPU_RSS_KEY_LEN];
	u8 reta[NPU_RSS_RETA_SIZE];
	atomic64_t rx_runts;
	atomic64_t rx_malformed;
	atomic64_t rx_oversize;
	atomic64_t rx_noqueue;
	atomic64_t tx_bad;
	bool wire_blocked;
	struct npusim_qp *qps;
	struct dentry *dbg;
};

/**
 * struct npusim_cmdq - one command ring
 * @base: ring DMA address as written
 * @size: slots as written (0: disabled)
 * @tail: host's tail
 * @head: device's head
 * @gen: bumped at every BASE/SIZE write, so a slot in flight is not
 *	written back into a ring that changed under it
 */
struct npusim_cmdq {
	u64 base;
	u32 size;
	u32 tail;
	u32 head;
	u32 gen;
};

/**
 * struct npusim_dev - one coprocessor
 * @hw: what the host driver binds to (auxiliary device + ops)
 * @bus_dev: device on the npusim bus (DMA device)
 * @list: npusim_dev_list
 * @id: device ID
 * @nports: front ports
 * @nqueues: queue pairs per port
 * @nvec: interrupt vectors
 * @ports: ports
 * @wq: work queue for deferred transmit (the command loop runs on
 *	system_highpri_wq) while every CPU is the model's (cores.c)
 * @cmd_lock: command ring registers
 * @cmdq: command rings
 * @cmd_work: command channel processing
 * @events: NPU_REG_EVENTS (read clears)
 * @link_changed: NPU_REG_LINK_CHANGED (read clears)
 * @cmd_irq_lock: protects the command vector's moderation state
 * @cmd_coal: command vector state (no moderation)
 * @cmd_irqs: command vector raises
 * @domain: interrupt domain
 * @fwnode: the domain's name
 * @virq: Linux IRQ numbers per vector
 * @vecs: per vector, its delivery to the CPUs of its affinity (irq.c)
 * @dead: teardown started: no new raises, timers or work
 * @aux_added: auxiliary device registered
 * @fp: the fast path (fastpath.c)
 * @nt: the ingress classifier, one per port (ntuple.c)
 * @pol: the trap policers (policer.c)
 * @cores: the CPUs the device's work runs on (cores.c)
 * @core_work: per CPU, the model's work done there (cores.c)
 * @ing: the ports' ingress FIFOs, used on cores of its own (ingress.c)
 * @dbg: debugfs directory
 * @force_rx_full: knob: every receive ring reads as full (QFULL drops)
 * @tx_defer: knob: transmit passes run from the work item (default), not
 *	inline in the doorbell writer
 * @cmd_stall: knob: the command channel does not process (firmware hang)
 * @bad_cmds: commands answered with an error status
 * @corrupt: knob: per enum npusim_corrupt, the writes still to corrupt
 * @corrupted: per enum npusim_corrupt, the writes corrupted
 */
struct npusim_dev {
	struct npu_hw hw;
	struct device *bus_dev;
	struct list_head list;
	u32 id;
	u32 nports;
	u32 nqueues;
	u32 nvec;
	struct npusim_port *ports;
	struct workqueue_struct *wq;

	spinlock_t cmd_lock;	/* see above */
	struct npusim_cmdq cmdq[NPU_CMD_RINGS];
	struct work_struct cmd_work;
	atomic_t events;
	atomic_t link_changed;
	spinlock_t cmd_irq_lock;	/* see above */
	struct npusim_coal cmd_coal;
	u64 cmd_irqs;

	struct irq_domain *domain;
	struct fwnode_handle *fwnode;
	unsigned int *virq;
	struct npusim_vec *vecs;
	bool dead;
	bool aux_added;

	struct npusim_fp *fp;
	struct npusim_nt_port *nt;
	struct npusim_pol *pol;
	struct npusim_cores *cores;
	struct npusim_core_work __percpu *core_work;
	struct npusim_ingress *ing;

	u64 __percpu *datapath_ns;	/* see npusim_dp_clock() */
	u64 __percpu *dp_work_ns;	/* datapath_ns's part in work items */

	/* command loop timing (debugfs cmd_timing; written by cmd_work only) */
	struct {
		u64 doorbells;
		u64 runs;
		u64 cmds;
		u64 busy_ns;
		u64 first_ns;	/* first reclaim or invalidate executed */
		u64 last_ns;	/* last one */
		u64 zero_ns;	/* a reclaim left no connection */
	} cmd_tm;

	struct dentry *dbg;
	bool force_rx_full;
	bool tx_defer;
	bool cmd_stall;
	u32 cmd_delay_us;	/* debugfs cmd_delay_us (cmd.c) */
	u64 bad_cmds;
	atomic_t corrupt[NPUSIM_CORRUPT_MAX];
	atomic64_t corrupted[NPUSIM_CORRUPT_MAX];
};

static inline struct npusim_dev *npusim_from_hw(struct npu_hw *hw)
{
	return container_of(hw, struct npusim_dev, hw);
}

/**
 * npusim_corrupt_take - whether to corrupt this write of a field
 * @nd: device
 * @what: the field (enum npusim_corrupt)
 *
 * Any context.  Return: true (and counted) while the debugfs "corrupt"
 * knob has writes of @what left to corrupt.
 */
static inline bool npusim_corrupt_take(struct npusim_dev *nd,
				       enum npusim_corrupt what)
{
	if (likely(!atomic_read(&nd->corrupt[what])) ||
	    atomic_dec_if_positive(&nd->corrupt[what]) < 0)
		return false;
	atomic64_inc(&nd->corrupted[what]);
	return true;
}

/**
 * npusim_dma_ok - can the device reach [@addr, @addr + @len) of host memory
 * @addr: DMA (= physical) address
 * @len: bytes, > 0
 *
 * The model has no IOMMU: a DMA address is a physical address, reached
 * through the kernel's direct map.  Anything not backed by memory pages is
 * refused instead of dereferenced.
 *
 * Return: true if the whole range is RAM with a struct page.
 */
static inline bool npusim_dma_ok(u64 addr, u64 len)
{
	u64 last;

	if (!len || check_add_overflow(addr, len - 1, &last))
		return false;
	return pfn_valid(PHYS_PFN(addr)) && pfn_valid(PHYS_PFN(last));
}

/**
 * npusim_dma_va - kernel address of a DMA address checked by npusim_dma_ok()
 * @addr: DMA address
 *
 * Return: the direct-map address.
 */
static inline void *npusim_dma_va(u64 addr)
{
	return phys_to_virt((phys_addr_t)addr);
}

/* dev.c */
struct npusim_dev *npusim_dev_create(struct device *bus_dev, u32 id,
				     u32 nports, u32 nqueues);
void npusim_dev_destroy(struct npusim_dev *nd);
void npusim_obj_get(void);
void npusim_obj_put(void);
void npusim_objs_wait(void);

/**
 * npusim_dp_clock - start clocking the model's own datapath work
 *
 * The model's share of the CPU (debugfs datapath_ns, make bench): every
 * ingress, transmit pass and wire NAPI poll adds the time it spent, less
 * the time the stack behind a wire took (npusim_wire_poll()), to a per-CPU
 * sum: two local_clock() reads per section, two more per frame the wire
 * hands to its stack.
 *
 * Return: the start time, for npusim_dp_clock_end().
 */
static inline u64 npusim_dp_clock(void)
{
	return local_clock();
}

/**
 * npusim_dp_clock_end - add a section's time to the model's CPU time
 * @nd: device
 * @t0: npusim_dp_clock() at the start
 * @other_ns: time within the section that was not the model's (ns)
 *
 * Return: the time added (ns).
 */
static inline u64 npusim_dp_clock_end(struct npusim_dev *nd, u64 t0,
				      u64 other_ns)
{
	u64 ns = local_clock() - t0 - other_ns;

	this_cpu_add(*nd->datapath_ns, ns);
	return ns;
}

/* irq.c */
int npusim_irq_init(struct npusim_dev *nd);
void npusim_irq_fini(struct npusim_dev *nd);
void npusim_qp_irq_event(struct npusim_qp *qp, u32 n);
void npusim_qp_irq_kick(struct npusim_qp *qp, u32 n);
void npusim_qp_irq_unmask(struct npusim_qp *qp);
void npusim_qp_irq_enable(struct npusim_qp *qp, bool enable);
void npusim_qp_coal_set(struct npusim_qp *qp, u32 frames, u32 usecs);
void npusim_qp_irq_stop(struct npusim_qp *qp);
void npusim_cmd_irq_event(struct npusim_dev *nd, u32 events);
void npusim_cmd_irq_unmask(struct npusim_dev *nd);

/* rx.c */
netdev_tx_t npusim_port_ingress(struct npusim_port *port, struct sk_buff *skb);
bool npusim_qp_rx_enable(struct npusim_qp *qp, bool enable);
void npusim_qp_rx_tail(struct npusim_qp *qp, u32 tail);

/* tx.c */
bool npusim_qp_tx_enable(struct npusim_qp *qp, bool enable);
void npusim_qp_tx_doorbell(struct npusim_qp *qp, u32 tail);
void npusim_tx_work(struct work_struct *work);

/* cmd.c */
void npusim_cmd_debugfs(struct npusim_dev *nd);
void npusim_cmd_work(struct work_struct *work);
void npusim_cmdq_write(struct npusim_dev *nd, u32 ring, u32 reg, u32 val);
u32 npusim_cmdq_read(struct npusim_dev *nd, u32 ring, u32 reg);

/* wire.c */
int npusim_wires_create(struct npusim_dev *nd);
void npusim_wires_destroy(struct npusim_dev *nd);
netdev_tx_t npusim_wire_ingress(struct npusim_port *port, struct sk_buff *skb);
void npusim_wire_rx(struct net_device *wire, struct sk_buff *skb);
bool npusim_wire_tx_ok(struct npusim_port *port);
void npusim_port_set_host_up(struct npusim_port *port, bool up);
u32 npusim_port_link(struct npusim_port *port);

/* fastpath.c */
int npusim_fp_init(struct npusim_dev *nd);
void npusim_fp_fini(struct npusim_dev *nd);
void npusim_fp_debugfs(struct npusim_dev *nd);
u64 npusim_fp_read64(struct npusim_dev *nd, u32 reg);
void npusim_fp_write32(struct npusim_dev *nd, u32 reg, u32 val);
void npusim_fp_count_punt(struct npusim_port *port, u8 reason);
bool npusim_fp_ingress(struct npusim_port *port, struct sk_buff *skb,
		       struct npusim_pkt *pkt, u32 *conn);
int npusim_fp_cmd(struct npusim_dev *nd, struct npu_cmd *c, u16 len);

/* ntuple.c */
enum npusim_nt_verdict {
	NPUSIM_NT_PASS,		/* no rule: RSS picks the queue */
	NPUSIM_NT_STEER,	/* to a rule's queue, reason NPU_PUNT_NTUPLE */
	NPUSIM_NT_DROP,		/* dropped by a rule, counted */
};

int npusim_ntuple_init(struct npusim_dev *nd);
void npusim_ntuple_fini(struct npusim_dev *nd);
void npusim_ntuple_debugfs(struct npusim_dev *nd);
void npusim_ntuple_flush(struct npusim_dev *nd);
u64 npusim_ntuple_drops(struct npusim_port *port);
enum npusim_nt_verdict npusim_ntuple_ingress(struct npusim_port *port,
					     struct npusim_pkt *pkt, u8 *queue);
int npusim_ntuple_cmd(struct npusim_dev *nd, struct npu_cmd *c, u16 len);

/* policer.c */
int npusim_policer_init(struct npusim_dev *nd);
void npusim_policer_fini(struct npusim_dev *nd);
void npusim_policer_fault(struct npusim_dev *nd);
bool npusim_policer_is_reg(u32 reg);
u64 npusim_policer_read(struct npusim_dev *nd, u32 reg);
void npusim_policer_write(struct npusim_dev *nd, u32 reg, u32 val);
u64 npusim_policer_port_drops(struct npusim_port *port);
bool npusim_policer_admit(struct npusim_port *port, u8 reason);

/* cores.c: what core_work counts per CPU */
enum npusim_cw {
	NPUSIM_CW_INGRESS,	/* frames taken by ingress */
	NPUSIM_CW_TX,		/* transmit passes */
	NPUSIM_CW_CMD,		/* command passes */
	NPUSIM_CW_TIMER,	/* moderation timer expiries */
	NPUSIM_CW_MAX,
};

/* What ran on one CPU (debugfs core_work). */
struct npusim_core_work {
	u64 n[NPUSIM_CW_MAX];
};

/**
 * npusim_cores_count - count one piece of the model's work on this CPU
 * @nd: device
 * @what: a frame taken by ingress, a transmit pass, a command pass or a
 *	timer expiry
 *
 * Any context.
 */
static inline void npusim_cores_count(struct npusim_dev *nd,
				      enum npusim_cw what)
{
	this_cpu_inc(nd->core_work->n[what]);
}

int npusim_cores_init(struct npusim_dev *nd);
void npusim_cores_fini(struct npusim_dev *nd);
void npusim_cores_debugfs(struct npusim_dev *nd);
bool npusim_cores_narrow(struct npusim_dev *nd);
void npusim_cores_queue_tx(struct npusim_qp *qp);
void npusim_cores_queue_cmd(struct npusim_dev *nd);
void npusim_cores_queue_ingress(struct npusim_port *port,
				struct work_struct *work);

/* ingress.c */
int npusim_ingress_init(struct npusim_dev *nd);
void npusim_ingress_fini(struct npusim_dev *nd);
netdev_tx_t npusim_ingress_defer(struct npusim_port *port, struct sk_buff *skb);
void npusim_ingress_move(struct npusim_port *port);
void npusim_ingress_stop(struct npusim_port *port);
void npusim_ingress_show(struct seq_file *m, struct npusim_port *port);

/* debugfs.c */
void npusim_debugfs_init(void);
void npusim_debugfs_exit(void);
void npusim_debugfs_create(struct npusim_dev *nd);
void npusim_debugfs_destroy(struct npusim_dev *nd);

#endif /* _NPUSIM_H */
