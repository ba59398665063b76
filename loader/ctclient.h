/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctclient.h - npuflowd's conntrack client (libnetfilter_conntrack): look a
 * connection up by either direction's tuple, refresh its timeout, relax its
 * TCP window tracking (be-liberal) before a release, follow DESTROY events
 * on a socket with a large receive buffer (delivered reliably where the
 * kernel can: ctc_reliable()), dump for a resync.
 */
#ifndef _CTCLIENT_H
#define _CTCLIENT_H

#include <stdint.h>
#include "../bpf/npuflow.h"

struct nfct_handle;
struct nlmsghdr;

struct ct_info {
	struct npuflow_key orig;	/* original tuple (ifindex 0) */
	struct npuflow_key reply;	/* reply tuple: the reply direction as it arrives */
	uint32_t id;
	uint32_t status;		/* IPS_* */
	uint32_t zone;
	uint32_t timeout;		/* seconds left */
	uint32_t mark;
	uint8_t tcp_state;		/* TCP_CONNTRACK_* (TCP only) */
	uint8_t tcp_flags[2];		/* IP_CT_TCP_FLAG_* per direction */
	uint8_t has_helper;
	uint8_t has_tcp;
};

typedef void (*ctc_cb)(void *ctx, const struct ct_info *ci);

struct ctc {
	struct nfct_handle *q;		/* queries */
	struct nfct_handle *ev;		/* DESTROY events (NULL if not subscribed) */
	int ev_fd;
	ctc_cb on_destroy;
	void *ctx;
	unsigned int rcvbuf;		/* granted receive buffer, bytes */
	uint64_t destroys, overruns;
	uint64_t incomplete;		/* DESTROY events without a whole tuple: skipped */
	int reliable;			/* 1: no DESTROY is lost (ctc_reliable()) */
	int reliable_err;		/* ctc_open()'s ctc_reliable(): 0 or -errno */
	struct nfct_handle *upd;	/* UPDATE events of closing TCP entries */
	int upd_fd;
	ctc_cb on_closing;
	uint64_t closings;		/* such events read */
};

/*
 * ctc_open() - the query socket, and with @rcvbuf (bytes; 0: none) the
 * DESTROY event socket, made reliable (ctc_reliable()) where the kernel
 * can: c->reliable says whether it is, c->reliable_err why not.  Return: 0
 * or -errno.
 */
int ctc_open(struct ctc *c, unsigned int rcvbuf, ctc_cb on_destroy, void *ctx);
/*
 * ctc_reliable() - DESTROY delivery on the event socket made reliable (@on
 * 1) or not (0).  With NETLINK_BROADCAST_ERROR, a DESTROY that the socket
 * cannot take fails ctnetlink's report (do_one_broadcast() ->
 * ctnetlink_conntrack_event() -ENOBUFS): nf_ct_delete() then keeps the
 * entry on conntrack's dying list and its event cache worker sends the
 * DESTROY again until it goes through.  NETLINK_NO_ENOBUFS drops the
 * overrun report, which on this socket (DESTROY only) no longer means a
 * loss; it also keeps the socket from staying congested until emptied.
 * c->reliable is 1 only if both are set.  Return: 0; -ENOTCONN if there is
 * no event socket; the setsockopt's -errno (-ENOPROTOOPT: a kernel without
 * them), then neither is set.
 */
int ctc_reliable(struct ctc *c, int on);
void ctc_close(struct ctc *c);
/* Look up the entry whose original (@as_reply 0) or reply (1) tuple is @t. */
int ctc_get(struct ctc *c, const struct npuflow_key *t, int as_reply, uint32_t zone,
	    struct ct_info *out);
/* Either direction: tries original then reply; *dir = which matched. */
int ctc_find(struct ctc *c, const struct npuflow_key *t, uint32_t zone, struct ct_info *out,
	     int *dir);
int ctc_set_timeout(struct ctc *c, const struct npuflow_key *orig, uint32_t zone,
		    uint32_t secs);
/*
 * ctc_set_timeout()'s request built into @buf (@len bytes, at least 512) as
 * nfnetlink message @seq, to be sent with others (nls_batch on a
 * NETLINK_NETFILTER socket): its length, or 0 if it does not fit.
 */
size_t ctc_build_timeout(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			 uint32_t secs, uint32_t seq);
/* Both directions' IP_CT_TCP_FLAG_BE_LIBERAL set (@on) or cleared (TCP;
 * others: 0, nothing done).  0 or -errno. */
int ctc_be_liberal(struct ctc *c, const struct npuflow_key *orig, uint32_t zone, int on);
/*
 * The same request built into @buf (@len bytes) as nfnetlink message @seq,
 * to be sent with others (nls_batch on a NETLINK_NETFILTER socket): its
 * length, or 0 if it does not fit or is not TCP.
 */
size_t ctc_build_be_liberal(void *buf, size_t len, const struct npuflow_key *orig,
			    uint32_t zone, uint32_t seq);
/*
 * A lookup by either direction's tuple (as ctc_find) built into @buf (@len
 * bytes) as nfnetlink message @seq, to be sent with others (nls_batch_answers
 * on a NETLINK_NETFILTER socket): its length, or 0 if it does not fit.
 * ctnetlink answers an entry (CT_NEW) then an ack, or an error.
 */
size_t ctc_build_get(void *buf, size_t len, const struct npuflow_key *t, uint32_t zone,
		     uint32_t seq);
/*
 * An entry made by hand, for npuflowd's warm-up: TCP @orig (its reply the
 * same tuple reversed, no NAT) ESTABLISHED and seen both ways, @secs to
 * live, built into @buf (@len bytes) as nfnetlink message @seq (CT_NEW with
 * NLM_F_CREATE | NLM_F_EXCL: an entry there already is -EEXIST, not
 * changed): its length, or 0 if it does not fit or is not TCP.
 */
size_t ctc_build_create(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			uint32_t secs, uint32_t seq);
/* The deletion of @orig's entry (CT_DELETE) likewise: its length, or 0. */
size_t ctc_build_delete(void *buf, size_t len, const struct npuflow_key *orig, uint32_t zone,
			uint32_t seq);
/*
 * An answer's entry (CT_NEW, nlmsg_len bytes readable): 0, -EBADMSG if it is
 * not one or lacks a part of a tuple, -ENOMEM.  libnetfilter_conntrack's
 * parser (nfct_nlmsg_parse(), as nfct_query()'s and the events') ends the
 * process on an attribute of a size it does not expect (its ABI check):
 * the kernel's answers are trusted, so it is not fuzzed with arbitrary bytes.
 */
int ctc_parse(const struct nlmsghdr *nlh, struct ct_info *out);
/*
 * A dump of every entry of both families (CT_GET with NLM_F_DUMP,
 * nfgen_family AF_UNSPEC) into @buf (@len bytes) as message @seq: its
 * length, or 0 if it does not fit.  Its answers are CT_NEW messages for
 * ctc_parse(), for a dump read in steps (nls_read_step()).
 */
size_t ctc_build_dump(void *buf, size_t len, uint32_t seq);
/* Which of @ci's tuples @t is: 0 and *dir (0 original, 1 reply), or -ENOENT. */
int ctc_dir(const struct ct_info *ci, const struct npuflow_key *t, int *dir);
/* Read pending events: calls on_destroy for each; -ENOBUFS if events were
 * lost (the caller resyncs by dump), 0 otherwise. */
int ctc_events(struct ctc *c);
/*
 * ctc_watch_closing() - subscribe to the UPDATE events of TCP entries that
 * leave ESTABLISHED (FIN_WAIT, CLOSE_WAIT, LAST_ACK, TIME_WAIT, CLOSE),
 * filtered in the kernel (nfct_filter: a socket filter on the TCP state),
 * so the socket hears a connection's close, not every entry's changes.
 * @c: an open ctc; @rcvbuf: its receive buffer (bytes); @on_closing: called
 * with each such entry by ctc_closing_events().  Its descriptor is
 * c->upd_fd (non-blocking).  Return: 0 or -errno.
 */
int ctc_watch_closing(struct ctc *c, unsigned int rcvbuf, ctc_cb on_closing);
/* Read pending closing events (ctc_watch_closing()); -ENOBUFS if some were
 * lost (the caller resyncs by dump), 0 otherwise. */
int ctc_closing_events(struct ctc *c);
/* Whether a dumped or looked-up TCP entry has left ESTABLISHED: 1 or 0
 * (not TCP, or no state in the answer: 0). */
int ctc_tcp_closing(const struct ct_info *ci);
/* Every entry (both families). */
int ctc_dump(struct ctc *c, ctc_cb cb, void *ctx);
/* Fill FM_CT_* facts from an entry. */
uint32_t ctc_fm_flags(const struct ct_info *ci);

#endif
