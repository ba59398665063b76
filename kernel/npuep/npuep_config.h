/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep_config.h - the driver's policy defaults: what it asks of the
 * coprocessor until an operator says otherwise (ethtool, devlink).  The
 * device's limits are in npu_hw.h.
 */
#ifndef _NPUEP_CONFIG_H
#define _NPUEP_CONFIG_H

/*
 * Receive and transmit ring depth, in descriptors (NPU_RING_MIN..
 * NPU_RING_MAX, ethtool -G).  Seed 003: 256 overflowed (the queue-full
 * counter accumulated), 1,024 stopped it moving with the host 96 % idle.
 */
#define NPUEP_RING_DEFAULT	1024

/*
 * Fast-path table sizes sent with NPU_CMD_FT_CONFIG at probe, and after a
 * resize the device refused (devlink resources /fastpath/connections and
 * /fastpath/microflows): two microflows per connection.
 */
#define NPUEP_FT_CONNS_DEFAULT	16384
#define NPUEP_FT_MFLOWS_DEFAULT	32768

/*
 * The safety-net poll's period while an open queue has no doorbell vector
 * (devlink rx_doorbells false): it alone then schedules the queues' NAPIs
 * (devlink param poll_interval_us).
 */
#define NPUEP_POLL_INTERVAL_US	1000
/*
 * The poll's period while every open queue has its vector: a watchdog
 * (poll_interval_us if longer).  It catches
 * - a lost doorbell: the vector stays masked until a pass re-arms it, so
 *   nothing else restarts the queue.  100 ms is half TCP's minimum
 *   retransmission timeout (TCP_RTO_MIN, 200 ms): the stall delays a
 *   stream's acknowledgements, it does not time them out;
 * - a ring left empty for want of buffers: refill_work retries it after a
 *   backoff of 1 ms doubling to 1 s (rx.c); the poll bounds the wait at
 *   100 ms;
 * - DIM's idle reset (NPUEP_DIM_IDLE_MS): checked on each run, so a queue
 *   goes back to DIM's first profile 1.0-1.2 s after its last frame.
 * It is 10 runs a second on the datapath's CPU where the fast period is
 * 1,000 (docs/measurements.md, "An idle router vCPU's thread under load").
 */
#define NPUEP_POLL_WATCHDOG_MS	100
/*
 * adaptive-rx: a queue that DIM moved and that received nothing for this
 * long goes back to DIM's first profile (DIM decides only on completions,
 * so without it an idle queue keeps its last, e.g. 256 us / 256 frames).
 */
#define NPUEP_DIM_IDLE_MS	1000

#endif /* _NPUEP_CONFIG_H */
