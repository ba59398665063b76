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

int npuflow_cache_read(int cache_fd, struct npuflow_cache **out, size_t *n)
{
	int ncpu = libbpf_num_possible_cpus();
	struct npuflow_cache *pc, *res;
	size_t cnt = 0;
	__u32 slot;
	int cpu;

	*out = NULL;
	*n = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	pc = calloc(ncpu, sizeof(*pc));
	res = calloc((size_t)ncpu * NPUFLOW_CACHE_SLOTS, sizeof(*res));
	if (!pc || !res) {
		free(pc);
		free(res);
		return -ENOMEM;
	}
	for (slot = 0; slot < NPUFLOW_CACHE_SLOTS; slot++) {
		if (bpf_map_lookup_elem(cache_fd, &slot, pc)) {
			int e = -errno;

			free(pc);
			free(res);
			return e;
		}
		for (cpu = 0; cpu < ncpu; cpu++)
			if (pc[cpu].frames && pc[cpu].key.ifindex)
				res[cnt++] = pc[cpu];
	}
	free(pc);
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
