// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Benchmark reference for the classifier (classify_bench): the
 * straightforward update.  The same parse, metadata and counters as the
 * classifier, then the candidate copied, changed and written back with
 * bpf_map_update_elem() every frame; no cache, no events.
 */
#include "../../bpf/classify.bpf.c"

SEC("xdp")
int npuflow_classify_naive(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct npuflow_meta *m = (void *)(long)ctx->data_meta;
	__u32 ifindex = ctx->ingress_ifindex;
	__u32 len = end - data;
	__u32 conn = NPUFLOW_CONN_NONE, slot, rslot;
	__u8 reason = NPUFLOW_R_NONE, port = NPUFLOW_PORT_NONE, bad_meta = 0;
	struct npuflow_cand nv = {}, *ov;
	union npuflow_key_w kw;
	struct npuflow_counters *c;
	struct parsed p = {};
	__u64 now;
	__be16 l3;
	__u32 off;

	off = parse_l2(data, end, ifindex, &kw, &p, &l3);
	if (off)
		parse_l3_xdp(ctx, off, l3, &kw, &p);
	if ((void *)(m + 1) <= data && m->magic == NPUFLOW_META_MAGIC) {
		if (m->version == NPUFLOW_META_VERSION && m->port < NPUFLOW_MAX_PORTS) {
			reason = m->reason;
			port = m->port;
			conn = m->conn;
			p.cflags |= NPUFLOW_CF_META;
		} else {
			bad_meta = 1;
		}
	}
	slot = port != NPUFLOW_PORT_NONE ? port :
		NPUFLOW_MAX_PORTS + ifindex % NPUFLOW_IF_SLOTS;
	c = bpf_map_lookup_elem(&counters, &slot);
	if (!c)
		return XDP_PASS;
	rslot = reason < NPUFLOW_R_MAX ? reason : NPUFLOW_R_UNKNOWN;
	c->frames[rslot]++;
	c->bytes[rslot] += len;
	if (c->ifindex != ifindex)
		c->ifindex = ifindex;
	if (bad_meta)
		c->stat[NPUFLOW_S_BAD_META]++;
	if (p.cflags & NPUFLOW_CF_IP_OPTIONS)
		c->stat[NPUFLOW_S_IP_OPTIONS]++;
	if (p.cflags & NPUFLOW_CF_EXTHDR)
		c->stat[NPUFLOW_S_EXTHDR]++;
	if (p.stat == NPUFLOW_S_NONFIRST_FRAG) {
		c->stat[NPUFLOW_S_FRAGMENT]++;
		c->stat[NPUFLOW_S_NONFIRST_FRAG]++;
		return XDP_PASS;
	}
	if (p.stat != NPUFLOW_S_CANDIDATE) {
		if (p.stat < NPUFLOW_S_SLOTS)
			c->stat[p.stat]++;
		return XDP_PASS;
	}
	if (p.cflags & NPUFLOW_CF_FRAGMENT)
		c->stat[NPUFLOW_S_FRAGMENT]++;
	if (p.other_l4)
		c->stat[NPUFLOW_S_OTHER_L4]++;
	c->stat[NPUFLOW_S_CANDIDATE]++;

	ov = bpf_map_lookup_elem(&candidates, &kw.k);
	now = bpf_ktime_get_ns();
	if (ov)
		nv = *ov;
	else
		nv.first_ns = now;
	nv.frames++;
	nv.bytes += len;
	nv.last_ns = now;
	nv.tcp_flags |= p.tcp_flags;
	nv.flags |= p.cflags;
	nv.reason = reason;
	nv.conn = conn;
	nv.port = port;
	bpf_map_update_elem(&candidates, &kw.k, &nv, BPF_ANY);
	return XDP_PASS;
}
