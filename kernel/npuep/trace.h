/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuep tracepoints: where the flow offload's time goes, for whoever
 * measures it (tools/bench/run reads them through tracefs; `perf trace -e
 * 'npuep:*'` does too).  The operator's figures are counters (ethtool -S,
 * devlink health); these are per event.
 *
 *  - npuep_flow_cls, npuep_flow_cls_done: the kernel's call of the flow
 *    offload callback (a flowtable's or a tc block's) and its return: the
 *    kernel's pace of delivery and the driver's time inside;
 *  - npuep_flow_destroy: what a FLOW_CLS_DESTROY did;
 *  - npuep_ft_lock_hold: one hold of the flow-table lock, with the wait
 *    for it, and the function that released it;
 *  - npuep_cmd_backlog, npuep_cmd_drained: a posted command queued behind
 *    a full command ring, and the drain work emptying the queue.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npuep

#ifndef _NPUEP_TRACE_ENUMS
#define _NPUEP_TRACE_ENUMS
/**
 * enum npuep_trace_destroy - what a FLOW_CLS_DESTROY did
 * @NPUEP_TRACE_DESTROY_MISS: the cookie is not this port's: nothing
 * @NPUEP_TRACE_DESTROY_QUEUED: queued for the destroy work (posted writes)
 * @NPUEP_TRACE_DESTROY_SYNC: removed in the call (waited writes, or the
 *	queue full)
 */
enum npuep_trace_destroy {
	NPUEP_TRACE_DESTROY_MISS,
	NPUEP_TRACE_DESTROY_QUEUED,
	NPUEP_TRACE_DESTROY_SYNC,
};
#endif /* _NPUEP_TRACE_ENUMS */

#if !defined(_NPUEP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPUEP_TRACE_H

#include <linux/device.h>
#include <linux/tracepoint.h>
#include <net/flow_offload.h>

#define npuep_show_cls_cmd(c)					\
	__print_symbolic(c,					\
			 { FLOW_CLS_REPLACE, "replace" },	\
			 { FLOW_CLS_DESTROY, "destroy" },	\
			 { FLOW_CLS_STATS, "stats" },		\
			 { FLOW_CLS_TMPLT_CREATE, "tmplt_create" }, \
			 { FLOW_CLS_TMPLT_DESTROY, "tmplt_destroy" })

TRACE_DEFINE_ENUM(FLOW_CLS_REPLACE);
TRACE_DEFINE_ENUM(FLOW_CLS_DESTROY);
TRACE_DEFINE_ENUM(FLOW_CLS_STATS);
TRACE_DEFINE_ENUM(FLOW_CLS_TMPLT_CREATE);
TRACE_DEFINE_ENUM(FLOW_CLS_TMPLT_DESTROY);
TRACE_DEFINE_ENUM(NPUEP_TRACE_DESTROY_MISS);
TRACE_DEFINE_ENUM(NPUEP_TRACE_DESTROY_QUEUED);
TRACE_DEFINE_ENUM(NPUEP_TRACE_DESTROY_SYNC);

DECLARE_EVENT_CLASS(npuep_flow_cls_class,
		    TP_PROTO(const struct device *dev, u32 port, int command,
			     unsigned long cookie, int err),
		    TP_ARGS(dev, port, command, cookie, err),
		    TP_STRUCT__entry(__string(dev, dev_name(dev))
				     __field(u32, port)
				     __field(int, command)
				     __field(unsigned long, cookie)
				     __field(int, err)),
		    TP_fast_assign(__assign_str(dev);
				   __entry->port = port;
				   __entry->command = command;
				   __entry->cookie = cookie;
				   __entry->err = err;),
		    TP_printk("dev=%s port=%u cmd=%s cookie=%lx err=%d",
			      __get_str(dev), __entry->port,
			      npuep_show_cls_cmd(__entry->command),
			      __entry->cookie, __entry->err)
);

/* The kernel calls a flow offload callback (@err is 0). */
DEFINE_EVENT(npuep_flow_cls_class, npuep_flow_cls,
	     TP_PROTO(const struct device *dev, u32 port, int command,
		      unsigned long cookie, int err),
	     TP_ARGS(dev, port, command, cookie, err)
);

/* The callback returns @err to the kernel. */
DEFINE_EVENT(npuep_flow_cls_class, npuep_flow_cls_done,
	     TP_PROTO(const struct device *dev, u32 port, int command,
		      unsigned long cookie, int err),
	     TP_ARGS(dev, port, command, cookie, err)
);

/* What a FLOW_CLS_DESTROY did: @how is enum npuep_trace_destroy. */
TRACE_EVENT(npuep_flow_destroy,
	    TP_PROTO(const struct device *dev, u32 port, unsigned long cookie,
		     int how),
	    TP_ARGS(dev, port, cookie, how),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, port)
			     __field(unsigned long, cookie)
			     __field(int, how)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->port = port;
			   __entry->cookie = cookie;
			   __entry->how = how;),
	    TP_printk("dev=%s port=%u cookie=%lx how=%s", __get_str(dev),
		      __entry->port, __entry->cookie,
		      __print_symbolic(__entry->how,
				       { NPUEP_TRACE_DESTROY_MISS, "miss" },
				       { NPUEP_TRACE_DESTROY_QUEUED, "queued" },
				       { NPUEP_TRACE_DESTROY_SYNC, "sync" }))
);

/*
 * One hold of the flow-table lock: @wait_ns for it, @held_ns in it, softirqs
 * off (@bh_off), released by @caller.
 */
TRACE_EVENT(npuep_ft_lock_hold,
	    TP_PROTO(const struct device *dev, u64 wait_ns, u64 held_ns,
		     bool bh_off, unsigned long caller),
	    TP_ARGS(dev, wait_ns, held_ns, bh_off, caller),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u64, wait_ns)
			     __field(u64, held_ns)
			     __field(bool, bh_off)
			     __field(unsigned long, caller)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->wait_ns = wait_ns;
			   __entry->held_ns = held_ns;
			   __entry->bh_off = bh_off;
			   __entry->caller = caller;),
	    TP_printk("dev=%s wait_ns=%llu held_ns=%llu bh_off=%d caller=%pS",
		      __get_str(dev), __entry->wait_ns, __entry->held_ns,
		      __entry->bh_off, (void *)__entry->caller)
);

/* A posted command queued behind full ring @ring: @len queued now. */
TRACE_EVENT(npuep_cmd_backlog,
	    TP_PROTO(const struct device *dev, u32 ring, u16 opcode, u32 len),
	    TP_ARGS(dev, ring, opcode, len),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, ring)
			     __field(u16, opcode)
			     __field(u32, len)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->ring = ring;
			   __entry->opcode = opcode;
			   __entry->len = len;),
	    TP_printk("dev=%s ring=%u opcode=%u len=%u", __get_str(dev),
		      __entry->ring, __entry->opcode, __entry->len)
);

/*
 * The drain work emptied @ring's queue: @moved commands into the ring, after
 * @sleeps waits for ring space of @sleep_ns in all.
 */
TRACE_EVENT(npuep_cmd_drained,
	    TP_PROTO(const struct device *dev, u32 ring, u32 moved, u32 sleeps,
		     u64 sleep_ns),
	    TP_ARGS(dev, ring, moved, sleeps, sleep_ns),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, ring)
			     __field(u32, moved)
			     __field(u32, sleeps)
			     __field(u64, sleep_ns)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->ring = ring;
			   __entry->moved = moved;
			   __entry->sleeps = sleeps;
			   __entry->sleep_ns = sleep_ns;),
	    TP_printk("dev=%s ring=%u moved=%u sleeps=%u sleep_ns=%llu",
		      __get_str(dev), __entry->ring, __entry->moved,
		      __entry->sleeps, __entry->sleep_ns)
);

#endif /* _NPUEP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
