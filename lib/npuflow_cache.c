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

/*
 * One BPF_MAP_LOOKUP_BATCH reads every slot of the per-CPU array (a
 * lookup a slot cost NPUFLOW_CACHE_SLOTS system calls a read); a short
 * batch (the kernel stops at its own bound) is followed by the next.
 * The values come as each slot's CPUs in a row, a value's size rounded up
 * to 8 bytes (the per-CPU map's layout, as bpf_map_lookup_elem()).
 */
int npuflow_cache_read(int cache_fd, struct npuflow_cache **out, size_t *n)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t vsz = (sizeof(struct npuflow_cache) + 7) & ~(size_t)7;
	__u32 *keys, in = 0, next = 0, got, slot, done = 0;
	struct npuflow_cache *res;
	unsigned char *vals;
	size_t cnt = 0;
	int cpu, err = 0;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	*out = NULL;
	*n = 0;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	keys = calloc(NPUFLOW_CACHE_SLOTS, sizeof(*keys));
	vals = calloc((size_t)ncpu * NPUFLOW_CACHE_SLOTS, vsz);
	res = calloc((size_t)ncpu * NPUFLOW_CACHE_SLOTS, sizeof(*res));
	if (!keys || !vals || !res) {
		err = -ENOMEM;
		goto out;
	}
	while (done < NPUFLOW_CACHE_SLOTS) {
		got = NPUFLOW_CACHE_SLOTS - done;
		err = bpf_map_lookup_batch(cache_fd, done ? &in : NULL, &next,
					   keys + done, vals + (size_t)done * ncpu * vsz,
					   &got, &opts);
		if (err && errno != ENOENT) {
			err = -errno;
			goto out;
		}
		done += got;
		in = next;
		err = 0;
		if (!got)
			break;
	}
	for (slot = 0; slot < done; slot++)
		for (cpu = 0; cpu < ncpu; cpu++) {
			const struct npuflow_cache *c = (const void *)
				(vals + ((size_t)slot * ncpu + cpu) * vsz);

			if (c->frames && c->key.ifindex)
				res[cnt++] = *c;
		}
out:
	free(keys);
	free(vals);
	if (err) {
		free(res);
		return err;
	}
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
