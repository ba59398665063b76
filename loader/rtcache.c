// SPDX-License-Identifier: GPL-2.0
/*
 * rtcache.c - egress facts kept between connections (see rtcache.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "rtcache.h"

static int alen(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

/* FNV-1a over the bytes of a key, folded to a slot. */
static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

static uint32_t slot(int family, uint32_t ifindex, const uint8_t *a, const uint8_t *b)
{
	uint32_t h = fnv(2166136261u, &ifindex, sizeof(ifindex));

	h = fnv(h, a, alen(family));
	if (b)
		h = fnv(h, b, alen(family));
	return h & (RTC_SLOTS - 1);
}

void rtc_init(struct rtc *c, uint64_t max_age_ns, uint64_t lookup_max_age_ns)
{
	memset(c, 0, sizeof(*c));
	c->gen = 1;
	c->max_age_ns = max_age_ns;
	c->lookup_max_age_ns = lookup_max_age_ns;
}

void rtc_invalidate(struct rtc *c)
{
	c->gen++;
}

static int fresh_for(const struct rtc *c, uint64_t gen, uint64_t at_ns, uint64_t now_ns,
		     uint64_t max_age_ns)
{
	return gen == c->gen && now_ns >= at_ns && now_ns - at_ns < max_age_ns;
}

int rtc_fresh(const struct rtc *c, uint64_t gen, uint64_t at_ns, uint64_t now_ns)
{
	return fresh_for(c, gen, at_ns, now_ns, c->max_age_ns);
}

/* @f as a key: a zero flow for NULL. */
static struct nls_flow flow_key(const struct nls_flow *f)
{
	struct nls_flow k;

	memset(&k, 0, sizeof(k));
	if (f) {
		k.mark = f->mark;
		k.proto = f->proto;
		k.sport = f->sport;
		k.dport = f->dport;
	}
	return k;
}

static uint32_t route_slot(int family, uint32_t iif, const uint8_t *src, const uint8_t *dst,
			   const struct nls_flow *k)
{
	uint32_t x = iif ^ k->mark ^ ((uint32_t)k->sport << 16 | k->dport) ^ k->proto;

	return slot(family, x, src, dst);
}

int rtc_route_get(struct rtc *c, int family, const uint8_t *src, const uint8_t *dst,
		  uint32_t iif, const struct nls_flow *f, uint64_t now_ns, struct nls_route *out)
{
	struct nls_flow k = flow_key(f);
	const struct rtc_route_slot *s = &c->route[route_slot(family, iif, src, dst, &k)];
	int n = alen(family);

	if (s->used && s->family == family && s->iif == iif && !memcmp(s->src, src, n) &&
	    !memcmp(s->dst, dst, n) && !memcmp(&s->f, &k, sizeof(k)) &&
	    fresh_for(c, s->gen, s->at_ns, now_ns, c->lookup_max_age_ns)) {
		*out = s->r;
		c->hits++;
		return 0;
	}
	c->misses++;
	return -ENOENT;
}

void rtc_route_put(struct rtc *c, int family, const uint8_t *src, const uint8_t *dst,
		   uint32_t iif, const struct nls_flow *f, uint64_t now_ns,
		   const struct nls_route *r)
{
	struct nls_flow k = flow_key(f);
	struct rtc_route_slot *s = &c->route[route_slot(family, iif, src, dst, &k)];
	int n = alen(family);

	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->family = family;
	s->iif = iif;
	s->f = k;
	memcpy(s->src, src, n);
	memcpy(s->dst, dst, n);
	s->r = *r;
	s->gen = c->gen;
	s->at_ns = now_ns;
}

/* The slot of neighbour @addr on @ifindex if it holds that neighbour, or NULL. */
static struct rtc_neigh_slot *neigh_slot(struct rtc *c, int family, uint32_t ifindex,
					 const uint8_t *addr)
{
	struct rtc_neigh_slot *s = &c->neigh[slot(family, ifindex, addr, NULL)];

	return s->used && s->family == family && s->ifindex == ifindex &&
	       !memcmp(s->addr, addr, alen(family)) ? s : NULL;
}

int rtc_neigh_get(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		  uint64_t now_ns, uint8_t mac[6])
{
	const struct rtc_neigh_slot *s = neigh_slot(c, family, ifindex, addr);

	if (s && s->unresolved && fresh_for(c, s->gen, s->at_ns, now_ns, c->max_age_ns)) {
		c->hits++;
		return -EAGAIN;
	}
	if (s && !s->unresolved && fresh_for(c, s->gen, s->at_ns, now_ns, c->lookup_max_age_ns)) {
		memcpy(mac, s->mac, 6);
		c->hits++;
		return 0;
	}
	c->misses++;
	return -ENOENT;
}

void rtc_neigh_put(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		   uint64_t now_ns, const uint8_t mac[6])
{
	struct rtc_neigh_slot *s = &c->neigh[slot(family, ifindex, addr, NULL)];

	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->family = family;
	s->ifindex = ifindex;
	memcpy(s->addr, addr, alen(family));
	if (mac)
		memcpy(s->mac, mac, 6);
	else
		s->unresolved = 1;
	s->gen = c->gen;
	s->at_ns = now_ns;
}

int rtc_neigh_seen(struct rtc *c, int family, uint32_t ifindex, const uint8_t *addr,
		   const uint8_t *mac)
{
	struct rtc_neigh_slot *s = neigh_slot(c, family, ifindex, addr);

	if (!s || s->gen != c->gen)
		return 1;
	if (s->unresolved ? !mac : mac && !memcmp(s->mac, mac, 6))
		return 0;
	memset(s, 0, sizeof(*s));
	return 1;
}
