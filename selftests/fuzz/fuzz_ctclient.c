// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ctclient - libFuzzer target for the conntrack client's reading of an
 * entry (loader/ctclient.c: from_ct and the dump, get and DESTROY readers
 * around it).  That reading takes no bytes: libnetfilter_conntrack parses
 * ctnetlink into a struct nf_conntrack (and exit()s on a malformed message),
 * so the input here is what such an entry can hold - any subset of the
 * attributes the client reads, with any values:
 *
 *   input := { op:u8 len:u8 value:len bytes }*
 *   op & 0x7f picks the attribute (attrs[] below); op & 0x80 unsets it
 *
 * Seeds: an IPv4 TCP entry with NAT and a helper, an IPv6 UDP entry.
 */
#include "../../loader/ctclient.c"
#include "fuzz.h"

static const enum nf_conntrack_attr attrs[] = {
	ATTR_L3PROTO, ATTR_L4PROTO, ATTR_REPL_L3PROTO, ATTR_REPL_L4PROTO,
	ATTR_ORIG_IPV4_SRC, ATTR_ORIG_IPV4_DST, ATTR_REPL_IPV4_SRC, ATTR_REPL_IPV4_DST,
	ATTR_ORIG_IPV6_SRC, ATTR_ORIG_IPV6_DST, ATTR_REPL_IPV6_SRC, ATTR_REPL_IPV6_DST,
	ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST, ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST,
	ATTR_ID, ATTR_STATUS, ATTR_TIMEOUT, ATTR_MARK, ATTR_ZONE, ATTR_HELPER_NAME,
	ATTR_TCP_STATE, ATTR_TCP_FLAGS_ORIG, ATTR_TCP_FLAGS_REPL,
};
#define NATTRS	(sizeof(attrs) / sizeof(attrs[0]))

static void on_entry(void *ctx, const struct ct_info *ci)
{
	(void)ctx;
	(void)ctc_fm_flags(ci);
}

/* The client's three readers of one entry. */
static void read_entry(struct nf_conntrack *ct)
{
	struct ct_info ci;
	struct get_ctx dump = { .cb = on_entry }, get = { .out = &ci };
	struct ctc c = { .on_destroy = on_entry };

	get_cb(NFCT_T_UPDATE, ct, &dump);
	get_cb(NFCT_T_UPDATE, ct, &get);
	if (get.got)
		(void)ctc_fm_flags(&ci);
	ev_cb(NFCT_T_DESTROY, ct, &c);
}

/* One record at @p of @n bytes into @ct: bytes used, 0 at the end. */
static size_t apply(struct nf_conntrack *ct, const uint8_t *p, size_t n)
{
	/* zeroed past the value: the setters read the attribute's own size,
	 * the helper name up to its NUL */
	uint8_t v[64] = { 0 };
	enum nf_conntrack_attr a;
	size_t len;

	if (n < 2)
		return 0;
	a = attrs[(p[0] & 0x7f) % NATTRS];
	len = p[1] < n - 2 ? p[1] : n - 2;
	memcpy(v, p + 2, len < sizeof(v) - 1 ? len : sizeof(v) - 1);
	if (p[0] & 0x80)
		nfct_attr_unset(ct, a);
	else
		nfct_set_attr(ct, a, v);
	return 2 + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nf_conntrack *ct = nfct_new();
	size_t off = 0, used;

	if (!ct)
		return 0;
	while ((used = apply(ct, data + off, size - off)))
		off += used;
	read_entry(ct);
	nfct_destroy(ct);
	return 0;
}

#ifdef FUZZ_SEEDS
static uint8_t buf[1024];

/* Append attribute @a (its index in attrs[]) with @len bytes of @v. */
static size_t rec(size_t at, enum nf_conntrack_attr a, const void *v, uint8_t len)
{
	size_t i;

	for (i = 0; i < NATTRS && attrs[i] != a; i++)
		;
	buf[at] = i;
	buf[at + 1] = len;
	memcpy(buf + at + 2, v, len);
	return at + 2 + len;
}

static size_t rec_u8(size_t at, enum nf_conntrack_attr a, uint8_t v)
{
	return rec(at, a, &v, 1);
}

static size_t rec_u16(size_t at, enum nf_conntrack_attr a, uint16_t v)
{
	return rec(at, a, &v, 2);
}

static size_t rec_u32(size_t at, enum nf_conntrack_attr a, uint32_t v)
{
	return rec(at, a, &v, 4);
}

static size_t tcp4_nat(void)
{
	size_t n = 0;

	n = rec_u8(n, ATTR_L3PROTO, AF_INET);
	n = rec_u8(n, ATTR_L4PROTO, IPPROTO_TCP);
	n = rec_u32(n, ATTR_ORIG_IPV4_SRC, htonl(0x0a000102));
	n = rec_u32(n, ATTR_ORIG_IPV4_DST, htonl(0x0a000202));
	n = rec_u32(n, ATTR_REPL_IPV4_SRC, htonl(0x0a000202));
	n = rec_u32(n, ATTR_REPL_IPV4_DST, htonl(0xc6336401));
	n = rec_u16(n, ATTR_ORIG_PORT_SRC, htons(40000));
	n = rec_u16(n, ATTR_ORIG_PORT_DST, htons(5201));
	n = rec_u16(n, ATTR_REPL_PORT_SRC, htons(5201));
	n = rec_u16(n, ATTR_REPL_PORT_DST, htons(61000));
	n = rec_u32(n, ATTR_ID, 1234);
	n = rec_u32(n, ATTR_STATUS, IPS_ASSURED | IPS_SRC_NAT | IPS_CONFIRMED);
	n = rec_u16(n, ATTR_ZONE, 2);
	n = rec_u8(n, ATTR_TCP_STATE, TCP_CONNTRACK_ESTABLISHED);
	n = rec(n, ATTR_HELPER_NAME, "ftp", 4);
	return n;
}

static size_t udp6(void)
{
	static const uint8_t a[16] = { 0xfd, 0, 2, 0x11, 0, 1, [15] = 2 };
	static const uint8_t b[16] = { 0xfd, 0, 2, 0x11, 0, 2, [15] = 2 };
	size_t n = 0;

	n = rec_u8(n, ATTR_L3PROTO, AF_INET6);
	n = rec_u8(n, ATTR_L4PROTO, IPPROTO_UDP);
	n = rec(n, ATTR_ORIG_IPV6_SRC, a, 16);
	n = rec(n, ATTR_ORIG_IPV6_DST, b, 16);
	n = rec(n, ATTR_REPL_IPV6_SRC, b, 16);
	n = rec(n, ATTR_REPL_IPV6_DST, a, 16);
	n = rec_u16(n, ATTR_ORIG_PORT_SRC, htons(5000));
	n = rec_u16(n, ATTR_ORIG_PORT_DST, htons(53));
	n = rec_u16(n, ATTR_REPL_PORT_SRC, htons(53));
	n = rec_u16(n, ATTR_REPL_PORT_DST, htons(5000));
	n = rec_u32(n, ATTR_STATUS, IPS_ASSURED);
	return n;
}

static void seeds(const char *dir)
{
	size_t n;

	seed_write(dir, "tcp4-nat", buf, tcp4_nat());
	seed_write(dir, "udp6", buf, udp6());
	n = udp6();
	buf[n] = 0x80 | 10;	/* then the reply's source unset */
	buf[n + 1] = 0;
	seed_write(dir, "udp6-no-reply-src", buf, n + 2);
}
#endif
