// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink input (loader/nlsock.c, nlsock_lookup.c): the lookups' readers and the ack
 * reader take what the kernel sends, read nothing past a message or an
 * attribute, and refuse a malformed one with EBADMSG.  Every message is
 * handed over as a heap copy of exactly its length, so ASan sees a read
 * past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include "../../loader/nlsock.c"
#include "../../loader/nlsock_lookup.c"
#include <net/if_arp.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static char buf[4096] __attribute__((aligned(8)));

/* A message of @type with a zeroed fixed header of @hdrlen bytes, in buf. */
static struct nlmsghdr *msg(uint16_t type, size_t hdrlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	mnl_nlmsg_put_extra_header(nlh, hdrlen);
	return nlh;
}

/* An attribute of @len bytes of @p, whatever its type says it should hold. */
static void put_raw(struct nlmsghdr *nlh, uint16_t type, uint16_t len, const void *p)
{
	mnl_attr_put(nlh, type, len, p);
}

/* @cb on a heap copy of @nlh cut to @len bytes (its nlmsg_len too). */
static int run_cut(mnl_cb_t cb, const struct nlmsghdr *nlh, uint32_t len, void *data)
{
	struct nlmsghdr *m = malloc(len);
	int rc;

	assert_non_null(m);
	memcpy(m, nlh, len);
	m->nlmsg_len = len;
	errno = 0;
	rc = cb(m, data);
	free(m);
	return rc;
}

static int run(mnl_cb_t cb, const struct nlmsghdr *nlh, void *data)
{
	return run_cut(cb, nlh, nlh->nlmsg_len, data);
}

/* The same with a lookup's reader of answers[@kind] (reader_cb(), as nls_talk() calls it). */
static int run_as_cut(enum answer kind, const struct nlmsghdr *nlh, uint32_t len, void *ctx)
{
	struct reader r = { kind, ctx };

	return run_cut(reader_cb, nlh, len, &r);
}

static int run_as(enum answer kind, const struct nlmsghdr *nlh, void *ctx)
{
	return run_as_cut(kind, nlh, nlh->nlmsg_len, ctx);
}

#define assert_badmsg(rc) do { \
	assert_int_equal((rc), MNL_CB_ERROR); \
	assert_int_equal(errno, EBADMSG); \
} while (0)

static void test_route(void **st)
{
	static const uint8_t gw[4] = { 10, 0, 2, 1 };
	struct nls_route r;
	struct route_ctx c = { .r = &r, .alen = 4 };
	struct nlmsghdr *nlh;

	(void)st;
	memset(&r, 0, sizeof(r));
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_OIF, 8);
	mnl_attr_put(nlh, RTA_GATEWAY, 4, gw);
	assert_int_equal(run_as(A_ROUTE, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.got, 1);
	assert_int_equal(r.oif, 8);
	assert_int_equal(r.type, RTN_UNICAST);
	assert_true(r.has_gw);
	assert_memory_equal(r.gw, gw, 4);

	/* RTA_OIF of 2 bytes, last: read as a u32 before */
	memset(&c, 0, sizeof(c));
	c.r = &r;
	c.alen = 4;
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));
	put_raw(nlh, RTA_OIF, 2, "\x08\x00");
	assert_badmsg(run_as(A_ROUTE, nlh, &c));
	assert_int_equal(c.got, 0);
	/* a gateway of an IPv6 length on an IPv4 route */
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));
	put_raw(nlh, RTA_GATEWAY, 16, "\x0a\0\x02\x01\0\0\0\0\0\0\0\0\0\0\0\0");
	assert_badmsg(run_as(A_ROUTE, nlh, &c));
	/* no room for the rtmsg */
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));
	assert_badmsg(run_as_cut(A_ROUTE, nlh, MNL_NLMSG_HDRLEN + 4, &c));
}

static void test_neigh(void **st)
{
	uint8_t mac[6] = { 0 };
	struct neigh_ctx c = { .mac = mac };
	struct nlmsghdr *nlh;

	(void)st;
	nlh = msg(RTM_NEWNEIGH, sizeof(struct ndmsg));
	((struct ndmsg *)mnl_nlmsg_get_payload(nlh))->ndm_state = NUD_REACHABLE;
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x07");
	assert_int_equal(run_as(A_NEIGH, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.got, 1);
	assert_int_equal(c.state, NUD_REACHABLE);
	assert_memory_equal(mac, "\x02\0\0\0\0\x07", 6);
	/* a link-layer address of another length (ip6gre's 16): not a MAC, not an error */
	memset(&c, 0, sizeof(c));
	c.mac = mac;
	nlh = msg(RTM_NEWNEIGH, sizeof(struct ndmsg));
	put_raw(nlh, NDA_LLADDR, 16, "0123456789abcdef");
	assert_int_equal(run_as(A_NEIGH, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.got, 0);
	/* cut inside the ndmsg: ndm_state lies past the end */
	nlh = msg(RTM_NEWNEIGH, sizeof(struct ndmsg));
	assert_badmsg(run_as_cut(A_NEIGH, nlh, MNL_NLMSG_HDRLEN + 4, &c));
}

/* One neighbour announcement among the monitor's messages. */
static int note(const struct nlmsghdr *nlh, uint32_t len, struct nls_neigh_note *n)
{
	struct nlmsghdr *m = malloc(len);
	int rc;

	assert_non_null(m);
	memcpy(m, nlh, len);
	m->nlmsg_len = len;
	rc = nls_neigh_note(m, n);
	free(m);
	return rc;
}

static struct nlmsghdr *neigh_msg(uint16_t type, uint8_t family, uint16_t state)
{
	struct nlmsghdr *nlh = msg(type, sizeof(struct ndmsg));
	struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);

	nd->ndm_family = family;
	nd->ndm_ifindex = 8;
	nd->ndm_state = state;
	return nlh;
}

/*
 * The monitor's neighbour announcements: family, device, address and,
 * when usable as nls_neigh_get() takes one, the MAC; a deletion or a
 * state without a valid MAC is not usable; a message that is not a
 * neighbour's, or malformed, is not a note (the caller takes it as a
 * change of anything).
 */
static void test_neigh_note(void **st)
{
	struct nls_neigh_note n;
	struct nlmsghdr *nlh;

	(void)st;
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_STALE);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x02");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x07");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), 0);
	assert_int_equal(n.family, AF_INET);
	assert_int_equal(n.ifindex, 8);
	assert_memory_equal(n.addr, "\x0a\0\x02\x02", 4);
	assert_int_equal(n.usable, 1);
	assert_memory_equal(n.mac, "\x02\0\0\0\0\x07", 6);
	/* FAILED, with its old MAC: not usable */
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET6, NUD_FAILED);
	mnl_attr_put(nlh, NDA_DST, 16, "\xfd\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x02");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x07");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), 0);
	assert_int_equal(n.family, AF_INET6);
	assert_int_equal(n.addr[15], 2);
	assert_int_equal(n.usable, 0);
	/* deleted */
	nlh = neigh_msg(RTM_DELNEIGH, AF_INET, NUD_REACHABLE);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x02");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x07");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), 0);
	assert_int_equal(n.usable, 0);
	/* no MAC of 6 bytes (INCOMPLETE; ip6gre's 16) */
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_REACHABLE);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x02");
	put_raw(nlh, NDA_LLADDR, 16, "0123456789abcdef");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), 0);
	assert_int_equal(n.usable, 0);
	/* not notes: no address, an address of the other family's length,
	 * another family (a bridge's fdb), another message, cut short */
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_REACHABLE);
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), -1);
	mnl_attr_put(nlh, NDA_DST, 16, "0123456789abcdef");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), -1);
	nlh = neigh_msg(RTM_NEWNEIGH, AF_BRIDGE, NUD_REACHABLE);
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x07");
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), -1);
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));
	assert_int_equal(note(nlh, nlh->nlmsg_len, &n), -1);
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_REACHABLE);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x02");
	assert_int_equal(note(nlh, MNL_NLMSG_HDRLEN + 4, &n), -1);
	assert_int_equal(note(nlh, nlh->nlmsg_len - 2, &n), -1);
}

/*
 * A neighbour dump's entries (nls_neighs_get's callback): the usable ones
 * kept, in order, at most the room given; the rest of the dump read on.
 */
static void test_neighs(void **st)
{
	struct nls_neigh_note out[2];
	struct neighs_ctx c = { .out = out, .max = 2 };
	struct nlmsghdr *nlh;

	(void)st;
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_FAILED);	/* not usable */
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x01");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x01");
	assert_int_equal(run(neighs_cb, nlh, &c), MNL_CB_OK);
	nlh = msg(RTM_NEWROUTE, sizeof(struct rtmsg));		/* not a neighbour */
	assert_int_equal(run(neighs_cb, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.n, 0);
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_REACHABLE);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x02");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x02");
	assert_int_equal(run(neighs_cb, nlh, &c), MNL_CB_OK);
	nlh = neigh_msg(RTM_NEWNEIGH, AF_INET, NUD_PERMANENT);
	mnl_attr_put(nlh, NDA_DST, 4, "\x0a\0\x02\x03");
	mnl_attr_put(nlh, NDA_LLADDR, 6, "\x02\0\0\0\0\x03");
	assert_int_equal(run(neighs_cb, nlh, &c), MNL_CB_OK);
	assert_int_equal(run(neighs_cb, nlh, &c), MNL_CB_OK);	/* no room: read on */
	assert_int_equal(c.n, 2);
	assert_int_equal(out[0].addr[3], 2);
	assert_memory_equal(out[1].mac, "\x02\0\0\0\0\x03", 6);
	assert_int_equal(out[1].ifindex, 8);
}

struct answers {
	int got[4];
	uint16_t type[4];
};

static int note_answer(int i, const struct nlmsghdr *nlh, void *arg)
{
	struct answers *a = arg;

	a->got[i]++;
	a->type[i] = nlh->nlmsg_type;
	return 0;
}

/*
 * A batch's answers with their data (nls_batch_answers): request i's data
 * messages go to the callback with i, its NLMSG_ERROR (an ack or an error)
 * to rcs[i]; another socket's, another range's, a second answer, are not
 * taken.
 */
static void test_batch_answers(void **st)
{
	static char b[1024] __attribute__((aligned(8)));
	struct { uint32_t seq, pid; uint16_t type; int err; } m[] = {
		{ 100, 7, (1 << 8) | 1, 0 },		/* request 0's entry */
		{ 100, 7, NLMSG_ERROR, 0 },		/* its ack */
		{ 101, 7, NLMSG_ERROR, -ENOENT },	/* request 1: none */
		{ 102, 8, (1 << 8) | 1, 0 },		/* another socket's */
		{ 103, 7, (1 << 8) | 1, 0 },		/* out of range */
		{ 102, 7, (1 << 8) | 1, 0 },		/* request 2's entry */
	};
	struct nlsock s = { .portid = 7 };
	int rcs[3] = { NLS_UNANSWERED, NLS_UNANSWERED, NLS_UNANSWERED };
	struct answers a;
	size_t off = 0;
	unsigned int i;

	(void)st;
	memset(&a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(b + off);

		nlh->nlmsg_len = MNL_NLMSG_HDRLEN + sizeof(struct nlmsgerr);
		nlh->nlmsg_type = m[i].type;
		nlh->nlmsg_seq = m[i].seq;
		nlh->nlmsg_pid = m[i].pid;
		if (m[i].type == NLMSG_ERROR)
			((struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->error = m[i].err;
		off += MNL_ALIGN(nlh->nlmsg_len);
	}
	assert_int_equal(nls_batch_answers(&s, b, off, 100, rcs, 3, note_answer, &a), 2);
	assert_int_equal(rcs[0], 0);
	assert_int_equal(rcs[1], -ENOENT);
	assert_int_equal(rcs[2], NLS_UNANSWERED);
	assert_int_equal(a.got[0], 1);
	assert_int_equal(a.got[1], 0);
	assert_int_equal(a.got[2], 1);
	assert_int_equal(a.type[2], (1 << 8) | 1);
}

static void test_link(void **st)
{
	struct nls_link l;
	struct nlmsghdr *nlh;
	struct nlattr *li;
	uint8_t id[40];

	(void)st;
	memset(&l, 0, sizeof(l));
	memset(id, 0x5a, sizeof(id));
	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, "\x02\0\0\0\x08\x01");
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	mnl_attr_put(nlh, IFLA_PHYS_SWITCH_ID, 8, id);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	mnl_attr_nest_end(nlh, li);
	assert_int_equal(run_as(A_LINK, nlh, &l), MNL_CB_OK);
	assert_memory_equal(l.mac, "\x02\0\0\0\x08\x01", 6);
	assert_int_equal(l.mtu, 1500);
	assert_int_equal(l.switch_id_len, 8);
	assert_string_equal(l.kind, "veth");

	/* IFLA_MTU of 2 bytes */
	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	put_raw(nlh, IFLA_MTU, 2, "\xdc\x05");
	assert_badmsg(run_as(A_LINK, nlh, &l));
	/* a switch id longer than MAX_PHYS_ITEM_ID_LEN: cut to 32 before */
	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	mnl_attr_put(nlh, IFLA_PHYS_SWITCH_ID, sizeof(id), id);
	assert_badmsg(run_as(A_LINK, nlh, &l));
	/* IFLA_INFO_KIND without its NUL, the last bytes of the message */
	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	put_raw(nlh, IFLA_INFO_KIND, 8, "vethveth");
	mnl_attr_nest_end(nlh, li);
	assert_badmsg(run_as(A_LINK, nlh, &l));
	/* no room for the ifinfomsg */
	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	assert_badmsg(run_as_cut(A_LINK, nlh, MNL_NLMSG_HDRLEN + 8, &l));
}

/* A VLAN device's RTM_NEWLINK in buf: @ifindex on @lower, @vid, @proto. */
static struct nlmsghdr *vlan_link(int ifindex, uint32_t lower, uint16_t vid, uint16_t proto,
				  const char *kind)
{
	struct nlmsghdr *nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *li, *data;

	ifi->ifi_index = ifindex;
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, "\x02\0\0\0\x03\x0a");
	mnl_attr_put_u32(nlh, IFLA_LINK, lower);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u16(nlh, IFLA_VLAN_ID, vid);
	mnl_attr_put_u16(nlh, IFLA_VLAN_PROTOCOL, htons(proto));
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, li);
	return nlh;
}

/* The VLAN dump: 802.1Q devices with their lower device, id and MAC; an
 * 802.1ad device, another kind, or one past the caller's room left out; a
 * VLAN id of the wrong size refused. */
static void test_vlans(void **st)
{
	struct nls_vlan v[2];
	struct vlans_ctx c = { .v = v, .max = 2 };
	struct nlmsghdr *nlh;
	struct nlattr *li, *data;
	struct nls_link l;

	(void)st;
	memset(v, 0, sizeof(v));
	assert_int_equal(run(vlans_cb, vlan_link(21, 3, 10, ETH_P_8021Q, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(run(vlans_cb, vlan_link(22, 3, 11, ETH_P_8021AD, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(run(vlans_cb, vlan_link(23, 3, 12, ETH_P_8021Q, "macvlan"), &c),
			 MNL_CB_OK);
	assert_int_equal(c.n, 1);
	assert_int_equal(v[0].ifindex, 21);
	assert_int_equal(v[0].lower, 3);
	assert_int_equal(v[0].vid, 10);
	assert_memory_equal(v[0].mac, "\x02\0\0\0\x03\x0a", 6);
	assert_int_equal(run(vlans_cb, vlan_link(24, 8, 20, ETH_P_8021Q, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(run(vlans_cb, vlan_link(25, 8, 30, ETH_P_8021Q, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(c.n, 2);
	assert_int_equal(v[1].vid, 20);

	/* nls_link_get's reading of the same message */
	memset(&l, 0, sizeof(l));
	assert_int_equal(run_as(A_LINK, vlan_link(21, 3, 10, ETH_P_8021Q, "vlan"), &l), MNL_CB_OK);
	assert_int_equal(l.link, 3);
	assert_int_equal(l.vlan_id, 10);
	assert_int_equal(l.vlan_proto, ETH_P_8021Q);

	nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vlan");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_VLAN_ID, 10);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, li);
	c.n = 0;
	assert_badmsg(run(vlans_cb, nlh, &c));
	assert_int_equal(c.n, 0);
}

/*
 * The VLAN dump with 802.1ad devices: a service tag on a port and a
 * customer tag on it (a stack), each with its TPID; the entries have no
 * byte left unset (they compare whole).
 */
static void test_vlans_ad(void **st)
{
	struct nls_vlan v[3];
	struct vlans_ctx c = { .v = v, .max = 3, .ad = 1 };

	(void)st;
	memset(v, 0x5a, sizeof(v));
	assert_int_equal(run(vlans_cb, vlan_link(22, 3, 100, ETH_P_8021AD, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(run(vlans_cb, vlan_link(23, 22, 200, ETH_P_8021Q, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(run(vlans_cb, vlan_link(24, 3, 7, 0x9100, "vlan"), &c), MNL_CB_OK);
	assert_int_equal(c.n, 2);
	assert_int_equal(v[0].ifindex, 22);
	assert_int_equal(v[0].lower, 3);
	assert_int_equal(v[0].vid, 100);
	assert_int_equal(v[0].proto, ETH_P_8021AD);
	assert_int_equal(v[0].pad, 0);
	assert_int_equal(v[1].ifindex, 23);
	assert_int_equal(v[1].lower, 22);
	assert_int_equal(v[1].vid, 200);
	assert_int_equal(v[1].proto, ETH_P_8021Q);
	assert_int_equal(v[1].pad, 0);
	assert_int_equal(sizeof(v[0]), 20);
}

/* A link's type from its header: a ppp unit is ARPHRD_PPP. */
static void test_link_type(void **st)
{
	struct nlmsghdr *nlh = msg(RTM_NEWLINK, sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nls_link l;

	(void)st;
	ifi->ifi_index = 30;
	ifi->ifi_type = ARPHRD_PPP;
	mnl_attr_put_u32(nlh, IFLA_MTU, 1492);
	memset(&l, 0, sizeof(l));
	assert_int_equal(run_as(A_LINK, nlh, &l), MNL_CB_OK);
	assert_int_equal(l.type, ARPHRD_PPP);
	assert_int_equal(l.mtu, 1492);
	memset(&l, 0, sizeof(l));
	assert_int_equal(run_as(A_LINK, vlan_link(21, 3, 10, ETH_P_8021Q, "vlan"), &l), MNL_CB_OK);
	assert_int_equal(l.type, 0);	/* msg() leaves it 0 */
}

/* nftables' announcements: the NFT_MSG_NEWGEN of each committed ruleset
 * counted, other messages and a cut last one not. */
static void test_nft_gens(void **st)
{
	static char b[1024] __attribute__((aligned(8)));
	uint16_t types[] = {
		(NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE,
		(NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN,
		(NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELRULE,
		(NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN,
	};
	size_t off = 0, last = 0;
	unsigned int i;

	(void)st;
	memset(b, 0, sizeof(b));
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(b + off);

		nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 12;
		nlh->nlmsg_type = types[i];
		last = off;
		off += MNL_ALIGN(nlh->nlmsg_len);
	}
	assert_int_equal(count_gens(b, off, NULL), 2);
	assert_int_equal(count_gens(b, last + 8, NULL), 1);	/* the last NEWGEN cut */
	assert_int_equal(count_gens(b, 0, NULL), 0);
}

/* NFT_MSG_NEWGEN's generation (NFTA_GEN_ID, big-endian); a message without
 * it, of another type, or with an attribute too short is refused. */
static void test_nft_genid(void **st)
{
	struct nlmsghdr *nlh;
	uint32_t id = 0;

	(void)st;
	nlh = msg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN, sizeof(struct nfgenmsg));
	mnl_attr_put_u32(nlh, NFTA_GEN_ID, htonl(4711));
	assert_int_equal(nls_parse_genid(nlh, &id), 0);
	assert_int_equal(id, 4711);
	nlh = msg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN, sizeof(struct nfgenmsg));
	assert_int_equal(nls_parse_genid(nlh, &id), -1);
	nlh = msg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE, sizeof(struct nfgenmsg));
	mnl_attr_put_u32(nlh, NFTA_GEN_ID, htonl(1));
	assert_int_equal(nls_parse_genid(nlh, &id), -1);
	nlh = msg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN, sizeof(struct nfgenmsg));
	put_raw(nlh, NFTA_GEN_ID, 2, "ab");
	assert_int_equal(nls_parse_genid(nlh, &id), -1);
}

/* A rule's selectors: a fwmark (not a zero one), a port range, ipproto. */
static void test_rules(void **st)
{
	struct fib_rule_port_range pr = { 443, 443 };
	struct nlmsghdr *nlh;
	int sel = 0;

	(void)st;
	nlh = msg(RTM_NEWRULE, sizeof(struct fib_rule_hdr));
	mnl_attr_put_u32(nlh, FRA_PRIORITY, 32766);
	mnl_attr_put_u32(nlh, FRA_FWMARK, 0);
	assert_int_equal(run_as(A_RULE, nlh, &sel), MNL_CB_OK);
	assert_int_equal(sel, 0);
	nlh = msg(RTM_NEWRULE, sizeof(struct fib_rule_hdr));
	mnl_attr_put_u32(nlh, FRA_FWMARK, 1);
	assert_int_equal(run_as(A_RULE, nlh, &sel), MNL_CB_OK);
	assert_int_equal(sel, NLS_RULES_MARK);
	nlh = msg(RTM_NEWRULE, sizeof(struct fib_rule_hdr));
	mnl_attr_put(nlh, FRA_DPORT_RANGE, sizeof(pr), &pr);
	assert_int_equal(run_as(A_RULE, nlh, &sel), MNL_CB_OK);
	assert_int_equal(sel, NLS_RULES_MARK | NLS_RULES_FLOW);
	sel = 0;
	nlh = msg(RTM_NEWRULE, sizeof(struct fib_rule_hdr));
	mnl_attr_put_u8(nlh, FRA_IP_PROTO, 6);
	assert_int_equal(run_as(A_RULE, nlh, &sel), MNL_CB_OK);
	assert_int_equal(sel, NLS_RULES_FLOW);
	/* a fwmark of 2 bytes */
	nlh = msg(RTM_NEWRULE, sizeof(struct fib_rule_hdr));
	put_raw(nlh, FRA_FWMARK, 2, "\x01\x00");
	assert_badmsg(run_as(A_RULE, nlh, &sel));
}

static struct nlmsghdr *qdisc(uint32_t ifindex)
{
	struct nlmsghdr *nlh = msg(RTM_NEWQDISC, sizeof(struct tcmsg));
	struct tcmsg *t = mnl_nlmsg_get_payload(nlh);

	t->tcm_ifindex = ifindex;
	t->tcm_parent = TC_H_ROOT;
	return nlh;
}

static void test_qdisc(void **st)
{
	struct qd_ctx c = { .ifindex = 8 };
	struct nlmsghdr *nlh;

	(void)st;
	nlh = qdisc(8);
	mnl_attr_put_strz(nlh, TCA_KIND, "tbf");
	assert_int_equal(run_as(A_QDISC, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.shaped, 1);
	/* "tbf" without its NUL: the padding is no terminator */
	c.shaped = 0;
	nlh = qdisc(8);
	put_raw(nlh, TCA_KIND, 3, "tbf");
	assert_badmsg(run_as(A_QDISC, nlh, &c));
	assert_int_equal(c.shaped, 0);
	/* 8 bytes, no NUL, at the end */
	nlh = qdisc(8);
	put_raw(nlh, TCA_KIND, 8, "fq_codel");
	assert_badmsg(run_as(A_QDISC, nlh, &c));
	/* another device's: not read */
	nlh = qdisc(9);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	assert_int_equal(run_as(A_QDISC, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.shaped, 0);
	/* the device's ingress and clsact qdiscs: not its egress, not read */
	nlh = qdisc(8);
	((struct tcmsg *)mnl_nlmsg_get_payload(nlh))->tcm_parent = TC_H_INGRESS;
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	assert_int_equal(run_as(A_QDISC, nlh, &c), MNL_CB_OK);
	nlh = qdisc(8);
	((struct tcmsg *)mnl_nlmsg_get_payload(nlh))->tcm_parent = TC_H_CLSACT;
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	assert_int_equal(run_as(A_QDISC, nlh, &c), MNL_CB_OK);
	assert_int_equal(c.shaped, 0);
	/* cut inside the tcmsg */
	nlh = qdisc(8);
	assert_badmsg(run_as_cut(A_QDISC, nlh, MNL_NLMSG_HDRLEN + 2, &c));
}

/*
 * Every kind of answer: a message of another type is skipped, however
 * short, its context untouched; one of its own type cut inside the fixed
 * header is refused.
 */
static void test_answer_kinds(void **st)
{
	union {
		struct route_ctx route;
		int rules;
		struct neigh_ctx neigh;
		struct nls_link link;
		struct qd_ctx qdisc;
	} ctx, zero;
	struct nlmsghdr *nlh;
	enum answer i;
	uint32_t cut;

	(void)st;
	memset(&zero, 0, sizeof(zero));
	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		memset(&ctx, 0, sizeof(ctx));
		nlh = msg(answers[i].type == RTM_NEWLINK ? RTM_NEWROUTE : RTM_NEWLINK, 0);
		assert_int_equal(run_as(i, nlh, &ctx), MNL_CB_OK);
		assert_memory_equal(&ctx, &zero, sizeof(ctx));
		nlh = msg(answers[i].type, answers[i].hdrlen);
		cut = MNL_NLMSG_HDRLEN + answers[i].hdrlen - 1;
		assert_badmsg(run_as_cut(i, nlh, cut, &ctx));
		assert_memory_equal(&ctx, &zero, sizeof(ctx));
	}
}

/* An NLMSG_ERROR with @error, the request echoed as @echo_len bytes, and an
 * extack message @ext (NULL: none). */
static struct nlmsghdr *err_msg(int error, uint32_t echo_len, const char *ext, uint16_t flags)
{
	struct nlmsghdr *nlh = msg(NLMSG_ERROR, sizeof(struct nlmsgerr));
	struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	nlh->nlmsg_flags = flags;
	e->error = error;
	e->msg.nlmsg_len = echo_len;
	if (ext)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, ext);
	return nlh;
}

static void test_err(void **st)
{
	struct nlsock s;
	struct nlmsghdr *nlh;

	(void)st;
	memset(&s, 0, sizeof(s));
	/* an ack */
	assert_int_equal(run(err_cb, err_msg(0, 16, NULL, NLM_F_CAPPED), &s), MNL_CB_STOP);
	/* an error with its extack (capped: no echoed request) */
	nlh = err_msg(-EBUSY, 16, "port busy", NLM_F_CAPPED | NLM_F_ACK_TLVS);
	assert_int_equal(run(err_cb, nlh, &s), MNL_CB_ERROR);
	assert_int_equal(errno, EBUSY);
	assert_string_equal(s.ext_ack, "port busy");
	/* not capped, the echoed request's length far past the message: not followed */
	nlh = err_msg(-ENOENT, 0x7fff0000, NULL, NLM_F_ACK_TLVS);
	assert_int_equal(run(err_cb, nlh, &s), MNL_CB_ERROR);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(s.ext_ack, "");
	nlh = err_msg(-ENOENT, 4, NULL, NLM_F_ACK_TLVS);	/* shorter than a header */
	assert_int_equal(run(err_cb, nlh, &s), MNL_CB_ERROR);
	/* an extack message without its NUL */
	nlh = err_msg(-EINVAL, 16, NULL, NLM_F_CAPPED | NLM_F_ACK_TLVS);
	put_raw(nlh, NLMSGERR_ATTR_MSG, 8, "no nul!!");
	assert_int_equal(run(err_cb, nlh, &s), MNL_CB_ERROR);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(s.ext_ack, "");
	/* an error code no errno is: INT_MIN (its negation overflows), positive */
	assert_int_equal(run(err_cb, err_msg(INT_MIN, 16, NULL, NLM_F_CAPPED), &s), MNL_CB_ERROR);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(run(err_cb, err_msg(5, 16, NULL, NLM_F_CAPPED), &s), MNL_CB_ERROR);
	assert_int_equal(errno, EPROTO);
	/* no room for the nlmsgerr */
	nlh = err_msg(-EBUSY, 16, NULL, 0);
	assert_badmsg(run_cut(err_cb, nlh, MNL_NLMSG_HDRLEN + 2, &s));
}

/* --- the reader: a received batch, message by message ------------------- */

struct count_ctx {
	int calls;
};

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	struct count_ctx *c = data;

	(void)nlh;
	c->calls++;
	return MNL_CB_OK;
}

/* Append a message of @type (@seq, @pid) with @plen zero bytes of payload at @off. */
static size_t append(char *b, size_t off, uint16_t type, uint32_t seq, uint32_t pid,
		     size_t plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b + off);

	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	mnl_nlmsg_put_extra_header(nlh, plen);
	return off + nlh->nlmsg_len;
}

static void test_dispatch(void **st)
{
	struct nlsock s = { .portid = 77 };
	struct count_ctx c = { 0 };
	size_t n = 0;
	char *m;

	(void)st;
	n = append(buf, n, RTM_NEWROUTE, 5, 77, 12);
	n = append(buf, n, RTM_NEWROUTE, 4, 77, 12);	/* an older request's: skipped */
	n = append(buf, n, RTM_NEWROUTE, 5, 99, 12);	/* another socket's: skipped */
	n = append(buf, n, RTM_NEWROUTE, 5, 77, 12);
	m = malloc(n);
	assert_non_null(m);
	memcpy(m, buf, n);
	assert_int_equal(nls_dispatch(&s, m, n, 5, count_cb, &c), MNL_CB_OK);
	assert_int_equal(c.calls, 2);
	/* the same batch cut short: the message that does not fit is not read */
	c.calls = 0;
	assert_int_equal(nls_dispatch(&s, m, n - 1, 5, count_cb, &c), MNL_CB_OK);
	assert_int_equal(c.calls, 1);
	free(m);
	/* an nlmsg_len of 2^31 or more (libmnl's mnl_nlmsg_ok() passes it as an int) */
	n = append(buf, 0, RTM_NEWROUTE, 5, 77, 12);
	((struct nlmsghdr *)buf)->nlmsg_len = 0x80000010;
	c.calls = 0;
	assert_int_equal(nls_dispatch(&s, buf, n, 5, count_cb, &c), MNL_CB_OK);
	assert_int_equal(c.calls, 0);
	((struct nlmsghdr *)buf)->nlmsg_len = 0xffffffff;
	assert_int_equal(nls_dispatch(&s, buf, n, 5, count_cb, &c), MNL_CB_OK);
	assert_int_equal(c.calls, 0);
	/* a dump's end */
	n = append(buf, 0, RTM_NEWROUTE, 5, 77, 12);
	n = append(buf, n, NLMSG_DONE, 5, 77, 4);
	c.calls = 0;
	assert_int_equal(nls_dispatch(&s, buf, n, 5, count_cb, &c), MNL_CB_STOP);
	assert_int_equal(c.calls, 1);
	/* an error in the batch */
	n = append(buf, 0, NLMSG_ERROR, 5, 77, sizeof(struct nlmsgerr));
	((struct nlmsgerr *)mnl_nlmsg_get_payload((struct nlmsghdr *)buf))->error = -EEXIST;
	assert_int_equal(nls_dispatch(&s, buf, n, 5, count_cb, &c), MNL_CB_ERROR);
	assert_int_equal(errno, EEXIST);
}

/* Put error code @err into the NLMSG_ERROR message at @start. */
static void set_err(char *b, size_t start, int err)
{
	((struct nlmsgerr *)mnl_nlmsg_get_payload((struct nlmsghdr *)(b + start)))->error = err;
}

static void test_acks(void **st)
{
	struct nlsock s = { .portid = 77 };
	int rcs[4] = { NLS_UNANSWERED, NLS_UNANSWERED, NLS_UNANSWERED, NLS_UNANSWERED };
	size_t n = 0, m;

	(void)st;
	/* requests 10..13: 11's ack, 13's error, another socket's and an old
	 * request's skipped, a data message skipped */
	n = append(buf, n, NLMSG_ERROR, 11, 77, sizeof(struct nlmsgerr));
	m = n;
	n = append(buf, n, NLMSG_ERROR, 13, 77, sizeof(struct nlmsgerr));
	set_err(buf, m, -EEXIST);
	n = append(buf, n, NLMSG_ERROR, 12, 99, sizeof(struct nlmsgerr));
	n = append(buf, n, NLMSG_ERROR, 9, 77, sizeof(struct nlmsgerr));
	n = append(buf, n, RTM_NEWTFILTER, 10, 77, 12);
	assert_int_equal(nls_batch_acks(&s, buf, n, 10, rcs, 4), 2);
	assert_int_equal(rcs[0], NLS_UNANSWERED);
	assert_int_equal(rcs[1], 0);
	assert_int_equal(rcs[2], NLS_UNANSWERED);
	assert_int_equal(rcs[3], -EEXIST);
	/* an answer again is not counted twice; a code no errno is: -EPROTO */
	n = append(buf, 0, NLMSG_ERROR, 11, 77, sizeof(struct nlmsgerr));
	n = append(buf, n, NLMSG_ERROR, 10, 77, sizeof(struct nlmsgerr));
	set_err(buf, n - NLMSG_ALIGN(MNL_NLMSG_HDRLEN + sizeof(struct nlmsgerr)), -5000);
	assert_int_equal(nls_batch_acks(&s, buf, n, 10, rcs, 4), 1);
	assert_int_equal(rcs[0], -EPROTO);
	/* an error message too short for its header: -EBADMSG, counted */
	n = append(buf, 0, NLMSG_ERROR, 12, 77, 2);
	assert_int_equal(nls_batch_acks(&s, buf, n, 10, rcs, 4), 1);
	assert_int_equal(rcs[2], -EBADMSG);
	/* sequence numbers wrap: 0xffffffff, 0 are requests 0 and 1 */
	rcs[0] = rcs[1] = NLS_UNANSWERED;
	n = append(buf, 0, NLMSG_ERROR, 0, 77, sizeof(struct nlmsgerr));
	assert_int_equal(nls_batch_acks(&s, buf, n, 0xffffffffu, rcs, 2), 1);
	assert_int_equal(rcs[1], 0);
	assert_int_equal(rcs[0], NLS_UNANSWERED);
}

/* nls_batch_take(): a built request takes the next number, the first one's
 * is seq0; one not built (0 bytes) takes none, so the numbers run unbroken. */
static void test_batch_take(void **st)
{
	struct nlsock s = { .seq = 41 };
	uint32_t seq0 = 0;
	size_t off = 0;
	int k = 0;

	(void)st;
	assert_int_equal(nls_batch_seq(&s), 42);
	assert_int_equal(nls_batch_take(&s, 0, &seq0, &k, &off), 0);
	assert_int_equal(s.seq, 41);
	assert_int_equal(k, 0);
	assert_int_equal(nls_batch_take(&s, 30, &seq0, &k, &off), 1);
	assert_int_equal(nls_batch_take(&s, 0, &seq0, &k, &off), 0);
	assert_int_equal(nls_batch_take(&s, 20, &seq0, &k, &off), 1);
	assert_int_equal(seq0, 42);
	assert_int_equal(s.seq, 43);
	assert_int_equal(k, 2);
	assert_int_equal(off, MNL_ALIGN(30) + MNL_ALIGN(20));
}

/* RTM_GETLINK of the loopback (ifindex 1) at @p, numbered @seq: its length. */
static size_t getlink(void *p, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(p);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 1;
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("nls_batch waits for an answer the kernel dropped");
}

/*
 * A batch whose answers overrun the socket's receive buffer (2,000 link
 * dumps of about a kilobyte each, far past the default 208 KiB) fails with
 * ENOBUFS, and the socket serves the next batch: the kernel drops every
 * answer to a socket it marked congested until its queue is read empty,
 * so a batch that left answers queued would wait forever for its own (a
 * real socket; npuflowd's keepalive hung so at 1,024 connections).
 */
static void test_batch_overrun(void **st)
{
	const int n = 2000;
	char *big = aligned_alloc(8, n * 64);
	int *rcs = calloc(n, sizeof(int)), one, i;
	struct nlsock s;
	uint32_t seq0 = 0;
	size_t len = 0;

	(void)st;
	assert_non_null(big);
	assert_non_null(rcs);
	assert_int_equal(nls_open(&s), 0);
	for (i = 0; i < n; i++) {
		uint32_t seq = nls_seq(&s);

		if (!i)
			seq0 = seq;
		len += getlink(big + len, seq);
	}
	signal(SIGALRM, on_alarm);
	alarm(10);
	assert_int_equal(nls_batch(&s, big, len, seq0, rcs, n), -ENOBUFS);
	for (i = 0; i < 3; i++) {
		uint32_t seq = nls_seq(&s);

		len = getlink(big, seq);
		assert_int_equal(nls_batch(&s, big, len, seq, &one, 1), 0);
		assert_int_equal(one, 0);
	}
	alarm(0);
	nls_close(&s);
	free(big);
	free(rcs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_neigh),
		cmocka_unit_test(test_neigh_note),
		cmocka_unit_test(test_neighs),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_vlans),
		cmocka_unit_test(test_vlans_ad),
		cmocka_unit_test(test_link_type),
		cmocka_unit_test(test_nft_gens),
		cmocka_unit_test(test_nft_genid),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_qdisc),
		cmocka_unit_test(test_answer_kinds),
		cmocka_unit_test(test_err),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_acks),
		cmocka_unit_test(test_batch_answers),
		cmocka_unit_test(test_batch_take),
		cmocka_unit_test(test_batch_overrun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
