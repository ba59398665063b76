// SPDX-License-Identifier: GPL-2.0
/*
 * 55-xdp.sh: a device-bound program (loaded by xdp_hash_load with the
 * port's ifindex and BPF_F_XDP_DEV_BOUND_ONLY) reading the rx metadata
 * kfuncs, and checking them against the npuflow metadata at data_meta.
 * Every frame is passed on.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "npuflow_meta.h"
#include "xdp_hash.h"

/* Only the name matters for the kfunc's prototype. */
enum xdp_rss_hash_type { XDP_HASH_TEST_TYPE };

extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx,
					__be16 *vlan_proto,
					__u16 *vlan_tci) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_hash_res);
} res SEC(".maps");

SEC("xdp")
int xdp_hash(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *meta_p = (void *)(long)ctx->data_meta;
	enum xdp_rss_hash_type type = XDP_HASH_TEST_TYPE;
	struct npuflow_meta *meta = meta_p;
	struct xdp_hash_res *r;
	__u32 key = 0, hash = 0;
	__u16 tci = 0;
	__be16 proto = 0;

	r = bpf_map_lookup_elem(&res, &key);
	if (!r)
		return XDP_PASS;
	r->frames++;
	if (!bpf_xdp_metadata_rx_hash(ctx, &hash, &type)) {
		r->hash_ok++;
		if (hash)
			r->hash_nonzero++;
		r->last_hash = hash;
		r->last_type = type;
		if ((void *)(meta + 1) <= data &&
		    meta->magic == NPUFLOW_META_MAGIC && meta->hash == hash)
			r->hash_meta_match++;
	} else {
		r->hash_nodata++;
	}
	if (!bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci)) {
		r->vlan_ok++;
		r->last_tci = tci;
		r->last_proto = proto;
	} else {
		r->vlan_nodata++;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
