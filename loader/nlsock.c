// SPDX-License-Identifier: GPL-2.0
/*
 * nlsock.c - netlink over libmnl: the sockets (a lookup's, a monitor's),
 * requests and their acks, dumps, batches.  What the messages of a lookup
 * or an announcement say is read in nlsock_lookup.c: here only acks,
 * errors and a dump's end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/xfrm.h>
#include "nlsock.h"
#include "nlsock_int.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

int nls_open(struct nlsock *s)
{
	return nls_open_bus(s, NETLINK_ROUTE);
}

int nls_open_bus(struct nlsock *s, int bus)
{
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->buflen = MNL_SOCKET_BUFFER_SIZE * 4;
	s->buf = aligned_alloc(8, s->buflen);
	s->nl = mnl_socket_open(bus);
	if (!s->buf || !s->nl)
		goto fail;
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	s->portid = mnl_socket_get_portid(s->nl);
	s->seq = time(NULL);
	return 0;
fail:
	nls_close(s);
	return -1;
}

void nls_close(struct nlsock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	free(s->buf);
	s->nl = NULL;
	s->buf = NULL;
}

/* A non-blocking socket of netlink @bus on the multicast @groups. */
static int monitor_open(struct nlsock *s, int bus, const unsigned int *groups, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->buflen = MNL_SOCKET_BUFFER_SIZE;
	s->buf = aligned_alloc(8, s->buflen);
	s->nl = mnl_socket_open2(bus, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!s->buf || !s->nl || mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		if (mnl_socket_setsockopt(s->nl, NETLINK_ADD_MEMBERSHIP, (void *)&groups[i],
					  sizeof(groups[i])) < 0)
			goto fail;
	s->portid = mnl_socket_get_portid(s->nl);
	return 0;
fail:
	nls_close(s);
	return -1;
}

int nls_monitor_open(struct nlsock *s)
{
	static const unsigned int groups[] = {
		RTNLGRP_LINK, RTNLGRP_NEIGH, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
		RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE,
		/* forwarding turned on or off, globally or on a device */
		RTNLGRP_IPV4_NETCONF, RTNLGRP_IPV6_NETCONF,
		/* nexthop objects: with nexthop_compat_mode 0 their changes
		 * announce no route */
		RTNLGRP_NEXTHOP,
	};

	return monitor_open(s, NETLINK_ROUTE, groups, sizeof(groups) / sizeof(groups[0]));
}

int nls_xfrm_monitor_open(struct nlsock *s)
{
	static const unsigned int groups[] = { XFRMNLGRP_POLICY };

	return monitor_open(s, NETLINK_XFRM, groups, 1);
}

int nls_nft_monitor_open(struct nlsock *s)
{
	static const unsigned int groups[] = { NFNLGRP_NFTABLES };

	return monitor_open(s, NETLINK_NETFILTER, groups, 1);
}

int nls_monitor_drain(struct nlsock *s, int (*count)(const void *buf, size_t n, void *arg),
		      void *arg)
{
	int sum = 0;
	ssize_t n;

	for (;;) {
		n = recv(mnl_socket_get_fd(s->nl), s->buf, s->buflen, MSG_DONTWAIT);
		if (n > 0) {
			sum += count ? count(s->buf, n, arg) : 1;
			continue;
		}
		if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
			return sum;
		if (errno == ENOBUFS)
			sum++;
		else if (errno != EINTR)
			return -errno;
	}
}

int nls_monitor_changed(struct nlsock *s)
{
	int n = nls_monitor_drain(s, NULL, NULL);

	return n > 0 ? 1 : n;
}

uint32_t nls_seq(struct nlsock *s)
{
	return ++s->seq;
}

struct nlmsghdr *nls_request(void *buf, struct nlsock *s, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = nls_seq(s);
	return nlh;
}

/* The extack message of an error or ack, if any, into s->ext_ack. */
static void read_ext_ack(const struct nlmsghdr *nlh, const struct nlmsgerr *e,
			 struct nlsock *s)
{
	size_t off = sizeof(*e), len;	/* NETLINK_CAP_ACK: no echoed request */
	const struct nlattr *a;
	const void *attrs;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(struct nlmsghdr) ||
		    e->msg.nlmsg_len > nlh->nlmsg_len)
			return;		/* the echo does not fit: no TLVs to trust */
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	attrs = msg_attrs(nlh, off, &len);
	for_each_attr(a, attrs, len)
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG && !valid(a, MNL_TYPE_NUL_STRING))
			snprintf(s->ext_ack, sizeof(s->ext_ack), "%s", mnl_attr_get_str(a));
}

/* NLMSG_ERROR: MNL_CB_STOP for an ack, MNL_CB_ERROR with errno for an error
 * (EPROTO for a code no errno is, EBADMSG for a message too short). */
static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = fixed_hdr(nlh, sizeof(struct nlmsgerr));
	struct nlsock *s = data;

	s->ext_ack[0] = '\0';
	if (!e)
		return MNL_CB_ERROR;
	read_ext_ack(nlh, e, s);
	if (!e->error)
		return MNL_CB_STOP;
	errno = e->error < 0 && e->error >= -4095 ? -e->error : EPROTO;
	return MNL_CB_ERROR;
}

int nls_dispatch(struct nlsock *s, const void *buf, size_t n, uint32_t seq, mnl_cb_t cb,
		 void *data)
{
	const struct nlmsghdr *nlh = buf;
	int rc = MNL_CB_OK;

	for (; nls_msg_ok(nlh, n); nlh = nls_msg_next(nlh, &n)) {
		if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != s->portid)
			continue;
		if (nlh->nlmsg_type == NLMSG_ERROR)
			rc = err_cb(nlh, s);
		else if (nlh->nlmsg_type == NLMSG_DONE)
			rc = MNL_CB_STOP;
		else if (nlh->nlmsg_type >= NLMSG_MIN_TYPE && cb)
			rc = cb(nlh, data);
		if (rc <= MNL_CB_STOP)
			break;
	}
	return rc;
}

int nls_send(struct nlsock *s, const void *msg, size_t len)
{
	const struct nlmsghdr *req = msg;

	s->ext_ack[0] = '\0';
	/* a plain get answers with data and no ack: ask for the ack to end on */
	if (!(req->nlmsg_flags & NLM_F_DUMP))
		((struct nlmsghdr *)msg)->nlmsg_flags |= NLM_F_ACK;
	return mnl_socket_sendto(s->nl, msg, len) < 0 ? -errno : 0;
}

int nls_read_step(struct nlsock *s, uint32_t seq, mnl_cb_t cb, void *data)
{
	ssize_t n;
	int rc;

	n = mnl_socket_recvfrom(s->nl, s->buf, s->buflen);
	if (n < 0)
		return -errno;
	errno = 0;
	rc = nls_dispatch(s, s->buf, n, seq, cb, data);
	if (rc == MNL_CB_ERROR)
		return errno ? -errno : -EIO;
	return rc == MNL_CB_STOP ? 0 : 1;
}

int nls_talk(struct nlsock *s, const void *msg, size_t len, mnl_cb_t cb, void *data)
{
	uint32_t seq = ((const struct nlmsghdr *)msg)->nlmsg_seq;
	int rc = nls_send(s, msg, len);

	if (rc)
		return rc;
	while ((rc = nls_read_step(s, seq, cb, data)) == 1)
		;
	return rc;
}

int nls_batch_answers(struct nlsock *s, const void *buf, size_t len, uint32_t seq0, int *rcs,
		      int n, int (*data)(int i, const struct nlmsghdr *nlh, void *arg), void *arg)
{
	const struct nlmsghdr *nlh = buf;
	char keep[sizeof(s->ext_ack)];
	int answered = 0;

	for (; nls_msg_ok(nlh, len); nlh = nls_msg_next(nlh, &len)) {
		uint32_t i = nlh->nlmsg_seq - seq0;	/* wraps as nls_seq() does */

		if (nlh->nlmsg_pid != s->portid || i >= (uint32_t)n || rcs[i] != NLS_UNANSWERED)
			continue;
		if (nlh->nlmsg_type != NLMSG_ERROR) {
			if (data && nlh->nlmsg_type >= NLMSG_MIN_TYPE)
				data(i, nlh, arg);
			continue;
		}
		memcpy(keep, s->ext_ack, sizeof(keep));	/* an ack clears it */
		errno = 0;
		rcs[i] = err_cb(nlh, s) == MNL_CB_STOP ? 0 : (errno ? -errno : -EIO);
		if (!rcs[i])
			memcpy(s->ext_ack, keep, sizeof(keep));
		answered++;
	}
	return answered;
}

int nls_batch_acks(struct nlsock *s, const void *buf, size_t len, uint32_t seq0, int *rcs,
		   int n)
{
	return nls_batch_answers(s, buf, len, seq0, rcs, n, NULL, NULL);
}

/*
 * After an overrun (ENOBUFS): the answers still queued read and taken.  The
 * kernel drops every answer to a socket it marked congested, without a
 * second ENOBUFS, until the socket's queue is read empty: answers left
 * queued would cost the next batch its own, and it would wait for them
 * forever.  The requests were handled within the sendmsg, so nothing more
 * comes for them.
 */
static void drain(struct nlsock *s, uint32_t seq0, int *rcs, int n,
		  int (*data)(int i, const struct nlmsghdr *nlh, void *arg), void *arg)
{
	ssize_t got;

	while ((got = recv(mnl_socket_get_fd(s->nl), s->buf, s->buflen, MSG_DONTWAIT)) > 0)
		nls_batch_answers(s, s->buf, got, seq0, rcs, n, data, arg);
}

int nls_batch_data(struct nlsock *s, void *msgs, size_t len, uint32_t seq0, int *rcs, int n,
		   int (*data)(int i, const struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct nlmsghdr *nlh = msgs;
	size_t left = len;
	int i, pending = 0, rc = 0;
	ssize_t got;

	for (i = 0; i < n; i++)
		rcs[i] = NLS_UNANSWERED;
	/* the answers awaited are the requests sent: a caller's @n larger
	 * than them leaves the rest unanswered rather than waiting forever */
	for (; nls_msg_ok(nlh, left); nlh = (struct nlmsghdr *)nls_msg_next(nlh, &left)) {
		nlh->nlmsg_flags |= NLM_F_ACK;
		if (nlh->nlmsg_seq - seq0 < (uint32_t)n)
			pending++;
	}
	s->ext_ack[0] = '\0';
	if (mnl_socket_sendto(s->nl, msgs, len) < 0)
		rc = -errno;
	while (!rc && pending > 0) {
		got = mnl_socket_recvfrom(s->nl, s->buf, s->buflen);
		if (got < 0) {
			rc = -errno;
			if (rc == -ENOBUFS)
				drain(s, seq0, rcs, n, data, arg);
		} else
			pending -= nls_batch_answers(s, s->buf, got, seq0, rcs, n, data, arg);
	}
	for (i = 0; rc && i < n; i++)
		if (rcs[i] == NLS_UNANSWERED)
			rcs[i] = rc;
	return rc;
}

int nls_batch_take(struct nlsock *s, size_t m, uint32_t *seq0, int *k, size_t *off)
{
	uint32_t seq;

	if (!m)
		return 0;
	seq = nls_seq(s);
	if (!*k)
		*seq0 = seq;
	(*k)++;
	*off += MNL_ALIGN(m);
	return 1;
}

int nls_batch(struct nlsock *s, void *msgs, size_t len, uint32_t seq0, int *rcs, int n)
{
	return nls_batch_data(s, msgs, len, seq0, rcs, n, NULL, NULL);
}

