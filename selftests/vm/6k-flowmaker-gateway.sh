#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A route moved to a new gateway on the same port under a made connection:
# the host now sends far's frames to 203.0.113.9, which nobody has
# resolved (the hardware carries every frame, so nothing asks for it).
# npuflowd compares the next hop's address, not only its MAC, and takes
# the connection back to the host within a second or two; the rules never
# go on sending to the old next hop.  Counts only; the bounds are timeouts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 4
LOAD=$NPU_REPO/build/bin/npuload
trap 'ip route del $FAR4/32 2>/dev/null; fm_cleanup' EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201
fm_stream $FAR4 120
fm_wait_jq 30 '[.[] | select(.family == 4 and .state == "made")] | length == 1'
ktap_result $? "the connection is made"

ip route add $FAR4/32 via 203.0.113.9 dev "$P8"
for i in $(seq 15); do
	[ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ] &&
		[ "$(eth_stat "$P3" hw_fp_conns)" = 0 ] && break
	sleep 0.2
done
diag "route via 203.0.113.9: rules $(fm_rules "$P3")/$(fm_rules "$P8"), coprocessor $(eth_stat "$P3" hw_fp_conns), $(ip neigh show 203.0.113.9 dev "$P8")"
ktap_result $([ "$(fm_rules "$P3")" = 0 ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 0 ]; echo $?) \
	"a new gateway, unresolved: the connection goes back to the host"
ktap_finish
