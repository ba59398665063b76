// SPDX-License-Identifier: GPL-2.0
/*
 * 57-xdp-conn-index.sh: what the driver's metadata at data_meta tells an
 * attached program.  Every frame is counted under its (punt reason,
 * connection index) as the metadata carries them; a frame without the
 * metadata (too short an area, another magic or version) under
 * META_REC_NONE.  Every frame is passed on.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "npuflow_meta.h"

#define META_REC_NONE	0xff	/* reason of a frame without the metadata */

struct meta_rec_key {
	__u32 reason;
	__u32 conn;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct meta_rec_key);
	__type(value, __u64);
} meta_recs SEC(".maps");

SEC("xdp")
int xdp_meta_rec(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	struct npuflow_meta *meta = (void *)(long)ctx->data_meta;
	struct meta_rec_key k = { .reason = META_REC_NONE,
				  .conn = NPUFLOW_CONN_NONE };
	__u64 one = 1, *n;

	if ((void *)(meta + 1) <= data && meta->magic == NPUFLOW_META_MAGIC &&
	    meta->version == NPUFLOW_META_VERSION) {
		k.reason = meta->reason;
		k.conn = meta->conn;
	}
	n = bpf_map_lookup_elem(&meta_recs, &k);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return XDP_PASS;
	}
	/* the first of its key; another CPU may have added it meanwhile */
	if (bpf_map_update_elem(&meta_recs, &k, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&meta_recs, &k);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
