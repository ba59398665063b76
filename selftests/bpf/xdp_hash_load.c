// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_hash_load OBJ IFNAME SECONDS: load xdp_hash.bpf.o as a device-bound
 * program (prog ifindex = IFNAME, BPF_F_XDP_DEV_BOUND_ONLY, the only way
 * 6.12 accepts the rx metadata kfuncs), attach it in native mode, wait,
 * print what it saw as key=value pairs, detach.  Exit 0 if attached.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_hash.h"

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY	(1U << 6)
#endif

int main(int argc, char **argv)
{
	struct xdp_hash_res r = {};
	struct bpf_program *prog;
	struct bpf_object *obj;
	unsigned int ifindex;
	int err, fd, key = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s OBJ IFNAME SECONDS\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, "xdp_hash");
	if (!prog) {
		fprintf(stderr, "no program xdp_hash\n");
		return 1;
	}
	bpf_program__set_ifindex(prog, ifindex);
	bpf_program__set_flags(prog, bpf_program__flags(prog) |
			       BPF_F_XDP_DEV_BOUND_ONLY);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "load: %s\n", strerror(-err));
		return 1;
	}
	fd = bpf_program__fd(prog);
	err = bpf_xdp_attach(ifindex, fd, XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		fprintf(stderr, "attach (native) to %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	printf("attached=1\n");
	fflush(stdout);
	sleep(atoi(argv[3]));
	err = bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(obj, "res"),
				  &key, &r);
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		fprintf(stderr, "lookup: %s\n", strerror(errno));
		return 1;
	}
	printf("frames=%llu hash_ok=%llu hash_nonzero=%llu hash_nodata=%llu "
	       "hash_meta_match=%llu vlan_ok=%llu vlan_nodata=%llu "
	       "last_hash=0x%08x last_type=0x%x last_tci=%u last_proto=0x%04x\n",
	       (unsigned long long)r.frames, (unsigned long long)r.hash_ok,
	       (unsigned long long)r.hash_nonzero,
	       (unsigned long long)r.hash_nodata,
	       (unsigned long long)r.hash_meta_match,
	       (unsigned long long)r.vlan_ok, (unsigned long long)r.vlan_nodata,
	       r.last_hash, r.last_type, r.last_tci, ntohs(r.last_proto));
	bpf_object__close(obj);
	return 0;
}
