// SPDX-License-Identifier: GPL-2.0
/*
 * npuflow_cache.c - the classifier's per-CPU candidate cache, read and
 * added to the candidates (npuflow_cache.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "npuflow_cache.h"
#include "npuflow_map.h"

/* The values come as each slot's CPUs in a row, a value's size rounded up
 * to 8 bytes (the per-CPU map's layout, as bpf_map_lookup_elem()). */
int npuflow_cache_read(int cache_fd, struct npuflow_cache **out, size_t *n)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t vsz = (sizeof(struct npuflow_cache) + 7) & ~(size_t)7, cnt = 0, i;
	struct npuflow_cache *res;
	unsigned char *vals;
	__u32 *keys;
	long slots;

	*out = NULL;
	*n = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	slots = npuflow_map_dump(cache_fd, sizeof(*keys), vsz * ncpu, (void **)&keys,
				 (void **)&vals);
	if (slots < 0)
		return slots;
	res = calloc((size_t)slots * ncpu + 1, sizeof(*res));	/* +1: never calloc(0) */
	for (i = 0; res && i < (size_t)slots * ncpu; i++) {
		const struct npuflow_cache *c = (const void *)(vals + i * vsz);

		if (c->frames && c->key.ifindex)
			res[cnt++] = *c;
	}
	free(keys);
	free(vals);
	if (!res)
		return -ENOMEM;
	*out = res;
	*n = cnt;
	return 0;
}

/* qsort()/bsearch() order of rows and keys: the key's bytes (a row starts with its key). */
static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct npuflow_key));
}

void npuflow_cache_fold(struct npuflow_row *rows, size_t n,
			const struct npuflow_cache *ents, size_t nents)
{
	size_t i;

	if (!n || !nents)
		return;
	qsort(rows, n, sizeof(*rows), key_cmp);	/* the key is the row's first member */
	for (i = 0; i < nents; i++) {
		struct npuflow_row *r = bsearch(&ents[i].key, rows, n, sizeof(*rows), key_cmp);

		if (r && r->val.first_ns == ents[i].first_ns) {
			r->val.frames += ents[i].frames;
			r->val.bytes += ents[i].bytes;
		}
	}
}

void npuflow_cache_count(struct npuflow_counters *c, __u32 slot,
			 const struct npuflow_cache *ents, size_t nents)
{
	size_t i;

	for (i = 0; i < nents; i++)
		if (ents[i].meta.port == slot)
			npuflow_cache_to_counters(c, &ents[i]);
}

void npuflow_cache_add(const struct npuflow_key *k, struct npuflow_cand *v,
		       const struct npuflow_cache *ents, size_t nents)
{
	size_t i;

	for (i = 0; i < nents; i++)
		if (!memcmp(&ents[i].key, k, sizeof(*k)) && ents[i].first_ns == v->first_ns) {
			v->frames += ents[i].frames;
			v->bytes += ents[i].bytes;
		}
}
