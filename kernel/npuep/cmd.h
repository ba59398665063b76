/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep command channel: the normal (0) and high-priority (1) command rings
 * of npu_hw.h, which the device executes in order, the high ring first.
 *
 * The channel owns the rings, the driver's backlog behind each and the
 * command vector.  Its API:
 *
 *   npuep_cmd_init(), npuep_cmd_fini()	the rings and the vector
 *   npuep_cmd_exec()			one command, waited for
 *   npuep_cmd_post()			one command, not waited for
 *   npuep_cmd_batch_*()		posted commands under one doorbell
 *   npuep_cmd_reset()			both rings reset (health recovery)
 *   npuep_cmd_state()			a ring's state and counters
 *   npuep_cmd_observe()		the one observer of its faults
 *   npuep_cmd_fault()			a fault seen by a caller (a table
 *					command that never reached a ring)
 *
 * It builds no command and calls no one: a fault it sees (a command that
 * changes the device timed out, the device wrote what the rings cannot be
 * trusted after: cmd_check.c's verdicts) goes to the observer registered
 * with npuep_cmd_observe().
 */
#ifndef _NPUEP_CMD_H
#define _NPUEP_CMD_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "npu_hw.h"
#include "cmd_check.h"

struct npuep_dev;

/* A waited command waits this long for its completion before -ETIMEDOUT. */
#define NPUEP_CMD_TIMEOUT_MS	2000
/*
 * Reads in a row that time out on a ring before it is reported as stopped:
 * the statistics read comes once a second, so a stopped engine is reported
 * within about 3 x (NPUEP_CMD_TIMEOUT_MS + 1 s).
 */
#define NPUEP_CMD_READ_MISSES	3

enum npuep_cmd_ring {
	NPUEP_CMD_RING_NORMAL = 0,
	NPUEP_CMD_RING_HIGH = 1,
};

/**
 * struct npuep_cmdq - one command ring
 * @lock: one waited command at a time
 * @slot_lock: the tail, sequence, posted_slots and slot writes (taken in
 *	NAPI by npuep_cmd_batch_add())
 * @held: slot whose response a waited command has yet to read, or
 *	NPU_CMD_RING_SIZE
 * @ring: the slots (coherent DMA)
 * @dma: their bus address
 * @tail: next slot the host fills
 * @seq: last sequence number used
 * @posted_slots: slots holding a posted command not yet checked
 * @posted: posted commands
 * @posted_failed: posted commands the device answered with an error
 * @timeouts: waited commands that timed out
 * @read_timeouts: of those, commands that change nothing (reported only as
 *	the NPUEP_CMD_READ_MISSES-th in a row)
 * @read_misses: reads in a row that timed out, nothing completed between
 * @ndev: the coprocessor (for @drain_work)
 * @idx: this ring's number
 * @backlog: posted commands that found the ring full, in order, each a
 *	struct npuep_cmd_pending; under @slot_lock.  While it is not empty
 *	every command on this ring goes behind it
 * @backlog_len: entries in @backlog
 * @backlogged: commands that went through @backlog
 * @backlog_waits: writers that waited for room in @backlog
 *	(npuep_cmd_backlog_wait())
 * @room_wq: woken when @backlog falls under NPUEP_CMD_BACKLOG_LOW
 * @stopped_head: the device's head when a writer's wait for room found it
 *	stopped; writers do not wait again until it moves.  U32_MAX: none
 * @drain_work: moves @backlog into the ring as the device frees slots
 */
struct npuep_cmdq {
	struct mutex lock;	/* see above */
	spinlock_t slot_lock;	/* see above */
	u32 held;
	struct npu_cmd *ring;
	dma_addr_t dma;
	u32 tail;
	u16 seq;
	u32 posted_slots;
	u64 posted;
	u64 posted_failed;
	u64 timeouts;
	u64 read_timeouts;
	u32 read_misses;
	struct npuep_dev *ndev;
	u32 idx;
	struct list_head backlog;
	u32 backlog_len;
	u64 backlogged;
	u64 backlog_waits;
	wait_queue_head_t room_wq;
	u32 stopped_head;
	struct work_struct drain_work;
};

/**
 * struct npuep_cmd_observer - who hears of the channel's faults
 * @fault: a command that changes the device timed out on @ring (@opcode),
 *	or the device wrote into @ring what the host cannot trust it after
 *	(@opcode NPU_CMD_NOP for a head); the rings want npuep_cmd_reset().
 *	Any context, even under the ring's slot_lock: must not sleep
 */
struct npuep_cmd_observer {
	void (*fault)(struct npuep_dev *ndev, u32 ring, u16 opcode);
};

/**
 * struct npuep_cmd - the command channel of one coprocessor
 * @q: the normal and the high-priority ring
 * @wq: woken by the command vector
 * @irq: the command vector's interrupt
 * @dead: the backend is gone: every command fails at once (-ENODEV)
 * @observer: npuep_cmd_observe()'s, or NULL
 */
struct npuep_cmd {
	struct npuep_cmdq q[NPU_CMD_RINGS];
	wait_queue_head_t wq;
	int irq;
	bool dead;
	const struct npuep_cmd_observer *observer;
};

/**
 * struct npuep_cmd_ring_state - a ring as npuep_cmd_state() reads it
 * @head: the device's head (as read: untrusted)
 * @tail: the host's tail
 * @seq: last sequence number used
 * @posted: posted commands
 * @posted_failed: posted commands the device answered with an error
 * @timeouts: waited commands that timed out
 * @read_timeouts: of those, commands that change nothing
 * @backlog: posted commands queued in the driver behind the ring now
 * @backlogged: commands that went through the backlog
 * @backlog_waits: writers that waited for room in the backlog
 */
struct npuep_cmd_ring_state {
	u32 head;
	u32 tail;
	u16 seq;
	u64 posted;
	u64 posted_failed;
	u64 timeouts;
	u64 read_timeouts;
	u32 backlog;
	u64 backlogged;
	u64 backlog_waits;
};

/**
 * struct npuep_cmd_slot_state - one slot as npuep_cmd_slot_state() reads it
 * @opcode: enum npu_cmd_opcode
 * @seq: its sequence number
 * @flags: NPU_CMD_F_*
 * @status: enum npu_cmd_status, once NPU_CMD_F_DONE
 */
struct npuep_cmd_slot_state {
	u16 opcode;
	u16 seq;
	u16 flags;
	u16 status;
};

/*
 * How npuep_cmd_post() treats a full ring.  A post that neither sleeps nor
 * queues (NAPI) goes in a batch: npuep_cmd_batch_add().
 */
enum npuep_cmd_post_mode {
	NPUEP_CMD_POST_WAIT,	/* sleep until the device frees a slot */
	NPUEP_CMD_POST_BACKLOG,	/* never sleep: queue it behind the ring */
};

/* npuep_cmd_post() with NPUEP_CMD_POST_BACKLOG: queued behind a full ring */
#define NPUEP_CMD_BACKLOGGED	1

/**
 * struct npuep_cmd_batch - posted commands that reach the device with one
 *	doorbell (npuep_cmd_batch_add(), npuep_cmd_batch_end())
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 * @n: commands put into the ring since the last doorbell
 * @locked: the batch holds the ring's slot_lock
 */
struct npuep_cmd_batch {
	struct npuep_dev *ndev;
	u32 ring;
	u32 n;
	bool locked;
};

int npuep_cmd_init(struct npuep_dev *ndev);
void npuep_cmd_fini(struct npuep_dev *ndev);
void npuep_cmd_observe(struct npuep_dev *ndev,
		       const struct npuep_cmd_observer *observer);
void npuep_cmd_fault(struct npuep_dev *ndev, u32 ring, u16 opcode);
void npuep_link_events_stop(struct npuep_dev *ndev);

int npuep_cmd_exec_ring(struct npuep_dev *ndev, u32 ring, u16 opcode,
			const void *req, u16 req_len, void *resp, u16 resp_len);
int npuep_cmd_backlog_wait(struct npuep_dev *ndev, u32 ring);
int npuep_cmd_post(struct npuep_dev *ndev, u32 ring, u16 opcode,
		   const void *req, u16 req_len, enum npuep_cmd_post_mode mode);
int npuep_cmd_batch_add(struct npuep_cmd_batch *b, u16 opcode,
			const void *req, u16 req_len);
void npuep_cmd_batch_end(struct npuep_cmd_batch *b);
int npuep_cmd_reset(struct npuep_dev *ndev, bool *lost);
void npuep_cmd_state(struct npuep_dev *ndev, u32 ring,
		     struct npuep_cmd_ring_state *st);
bool npuep_cmd_slot_state(struct npuep_dev *ndev, u32 ring, u32 slot,
			  struct npuep_cmd_slot_state *st);

/**
 * npuep_cmd_exec() - run one command and wait, on the ring its kind takes
 * @ndev: the coprocessor
 * @opcode: enum npu_cmd_opcode
 * @req: request payload
 * @req_len: request length
 * @resp: buffer for the response payload or NULL
 * @resp_len: size of @resp
 *
 * A command that changes the device's tables goes on the normal ring, in
 * order with the table writes posted there; any other (statistics, port
 * configuration, moderation, firmware information) on the high ring, which
 * the device serves first, so that it never waits behind posted writes.
 *
 * Return: see npuep_cmd_exec_ring().
 */
static inline int npuep_cmd_exec(struct npuep_dev *ndev, u16 opcode,
				 const void *req, u16 req_len, void *resp,
				 u16 resp_len)
{
	u32 ring = npu_cmd_changes_tables(opcode) ? NPUEP_CMD_RING_NORMAL :
						      NPUEP_CMD_RING_HIGH;

	return npuep_cmd_exec_ring(ndev, ring, opcode, req, req_len, resp,
				   resp_len);
}

/**
 * npuep_cmd_batch_init() - start an empty batch of posted commands
 * @b: the batch
 * @ndev: the coprocessor
 * @ring: enum npuep_cmd_ring
 *
 * Takes nothing yet: a batch that adds no command costs no lock.
 */
static inline void npuep_cmd_batch_init(struct npuep_cmd_batch *b,
					struct npuep_dev *ndev, u32 ring)
{
	b->ndev = ndev;
	b->ring = ring;
	b->n = 0;
	b->locked = false;
}

/* Inside the channel only: cmd.c and cmd_reset.c. */
void npuep_cmdq_program(struct npuep_dev *ndev, u32 ring);
bool npuep_cmdq_backlog_drop(struct npuep_cmdq *q);

#endif /* _NPUEP_CMD_H */
