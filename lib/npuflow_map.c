// SPDX-License-Identifier: GPL-2.0
/* npuflow_map.c - a BPF map's entries read in batches (npuflow_map.h). */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "npuflow_map.h"

/* Make room for @want entries of @ksz + @vsz bytes in *keys, *vals (capacity *cap). */
static int dump_room(char **keys, char **vals, size_t ksz, size_t vsz, size_t *cap,
		     size_t want)
{
	size_t c = *cap ? *cap : 1024;
	char *k, *v;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	k = realloc(*keys, c * ksz);
	if (k)
		*keys = k;
	v = realloc(*vals, c * vsz);
	if (v)
		*vals = v;
	if (!k || !v)
		return -ENOMEM;
	*cap = c;
	return 0;
}

long npuflow_map_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, o);
	char *k = NULL, *v = NULL;
	size_t n = 0, cap = 0;
	__u32 chunk = 256, count, in = 0, out = 0;
	int first = 1, e;

	for (;;) {
		e = dump_room(&k, &v, ksz, vsz, &cap, n + chunk);
		if (e)
			goto fail;
		count = chunk;
		e = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, k + n * ksz, v + n * vsz,
					 &count, &o);
		if (e == -ENOSPC && !count) {
			chunk *= 2;	/* a bucket longer than the chunk */
			continue;
		}
		if (e && e != -ENOENT)
			goto fail;
		n += count;
		if (e)		/* -ENOENT: the last bucket was read */
			break;
		in = out;
		first = 0;
	}
	*keys = k;
	*vals = v;
	return n;
fail:
	free(k);
	free(v);
	*keys = *vals = NULL;
	return e;
}
