#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker with IPv6 (issue 5, "Must show"): an IPv6 stream made by
# npuflowd from conntrack's two tuples and forwarded in hardware both ways:
# the host takes < 0.1 % of the stream's frames.  (Masquerade: see
# 68-flowmaker-nat.sh.)
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 5
LOAD=$NPU_REPO/build/bin/npuload
trap fm_cleanup EXIT

fm_setup
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max	# 63's subject
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201

# IPv6, routed
fm_stream $FAR6
ktap_result $(fm_wait_jq 30 '[.[] | select(.family == 6 and .state == "made")] | length == 1'; echo $?) \
	"the IPv6 connection is made"
diag "$(fm_flows | jq -c '[.[] | select(.family == 6)][0] | {id, state, dirs}')"
ktap_result $([ "$(fm_in_hw "$P3")" -ge 1 ] && [ "$(fm_in_hw "$P8")" -ge 1 ] &&
	[ "$(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.protocol == "ipv6" and .options.in_hw == true)] | length')" = 1 ]; echo $?) \
	"its IPv6 rules are in hardware on both ports"
sleep 3
fm_share "IPv6"; ktap_result $? "IPv6: the host sees < 0.1 % of the stream"
[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
