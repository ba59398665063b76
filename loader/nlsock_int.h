/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlsock_int.h - what nlsock.c and nlsock_lookup.c share and nothing else
 * includes: a message's fixed header and attributes read within its
 * nlmsg_len.
 */
#ifndef _NLSOCK_INT_H
#define _NLSOCK_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/*
 * Every attribute is validated before it is read (mnl_attr_validate*), and
 * every fixed header checked to fit: a malformed message ends the request
 * with EBADMSG (the lookup fails; nothing past the message is read).
 */

/*
 * The fixed header of @hdrlen bytes after @nlh's header, or NULL (errno
 * EBADMSG) if nlmsg_len has no room for it.
 */
static inline const void *fixed_hdr(const struct nlmsghdr *nlh, size_t hdrlen)
{
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + hdrlen) {
		errno = EBADMSG;
		return NULL;
	}
	return mnl_nlmsg_get_payload(nlh);
}

/*
 * The attributes @off bytes into @nlh's payload (past its fixed header),
 * and their length within nlmsg_len exactly.
 */
static inline const void *msg_attrs(const struct nlmsghdr *nlh, size_t off, size_t *len)
{
	size_t start = MNL_NLMSG_HDRLEN + MNL_ALIGN(off);

	*len = nlh->nlmsg_len > start ? nlh->nlmsg_len - start : 0;
	return (const uint8_t *)nlh + start;
}

/* Each attribute @a of the @len bytes at @attrs. */
#define for_each_attr(a, attrs, len) \
	for ((a) = (attrs); mnl_attr_ok((a), (const char *)(attrs) + (len) - (const char *)(a)); \
	     (a) = mnl_attr_next(a))

/* A malformed message: EBADMSG, and the read ends. */
static inline int bad_msg(void)
{
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

/* 0 if @a is of libmnl @type (a scalar, a NUL string, a nest), else -1. */
static inline int valid(const struct nlattr *a, enum mnl_attr_data_type type)
{
	return mnl_attr_validate(a, type) < 0 ? -1 : 0;
}

#endif
