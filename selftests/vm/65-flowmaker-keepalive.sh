#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker over time (issue 5, "Must show"), npuflowd on ports 3 and
# 8 making the connections as TC flower skip_sw rules: a busy UDP flow
# outlives conntrack's UDP stream timeout (set to 6 s) in hardware, the
# keepalive refreshing it; once idle it expires and leaves the hardware.
# Many connections at once, and conntrack -F of them all, are 6n's (4,096).
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 6
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
cleanup() {
	[ -n "${UP:-}" ] && kill $UP 2>/dev/null
	fm_cleanup
}
trap cleanup EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
fm_firewall || { ktap_fail "firewall (nft) loaded"; ktap_finish; }
# Short UDP timeouts, read by npuflowd at start for its refreshes.
sysctl -qw net.netfilter.nf_conntrack_udp_timeout=5 \
	net.netfilter.nf_conntrack_udp_timeout_stream=6
ip netns exec pc ping -c1 -W2 $FAR4 >/dev/null
ip netns exec far ping -c1 -W2 $PC4 >/dev/null
fm_start; ktap_result $? "npuflowd on $P3 $P8"

# ---- a busy UDP flow outlives the UDP timeout -----------------------------
# iperf3 UDP at 2 Mbit/s, ~490 datagrams/s (its first reply from far makes
# conntrack see both ways; it is assured 2 s later)
iperf_server far 5202
ip netns exec pc iperf3 -u -c $FAR4 -p 5202 -b 2M -l 512 -t 45 >/dev/null 2>&1 &
UP=$!
ktap_result $(fm_wait_jq 40 '[.[] | select(.proto == 17 and .dirs[0].dport == 5202 and .state == "made")] | length == 1'; echo $?) \
	"the UDP flow is made"
U=$(fm_flows | jq -c '[.[] | select(.proto == 17 and .dirs[0].dport == 5202)][0]')
UID_=$(echo "$U" | jq -r .id); p0=$(echo "$U" | jq -r '.dirs[0].packets')
h0=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
sleep 15	# 2.5 x the UDP stream timeout, the frames all in hardware
U=$(fm_flows | jq -c "[.[] | select(.id == $UID_)][0]")
p1=$(echo "$U" | jq -r '.dirs[0].packets // 0')
h=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) - h0 ))
ct=$(conntrack -L -p udp --dport 5202 2>/dev/null | grep -c .)
diag "15 s later: $(echo "$U" | jq -c '{state, packets: [.dirs[].packets]}'); conntrack entries $ct; host frames $h"
ktap_result $([ "$(echo "$U" | jq -r .state)" = made ] && [ "$ct" = 1 ] &&
	[ $((p1 - p0)) -gt 500 ] && [ $((h * 100)) -lt $((p1 - p0)) ]; echo $?) \
	"in hardware for 2.5 x the UDP timeout, its conntrack entry kept alive"
kill $UP 2>/dev/null; wait $UP 2>/dev/null; UP=
# idle: conntrack expires it (6 s), the DESTROY takes it out of hardware.
# conntrack sends an expired entry's DESTROY when its gc worker reaches it,
# up to GC_SCAN_INTERVAL_MAX (60 s, nf_conntrack_core.c) later: 40 s was
# too short once (left at 40 s: the rules, the driver's connection; gone
# moments after).
for i in $(seq 80); do
	[ "$(fm_rules "$P3")" = 0 ] && [ "$(fp fp_conns)" = 0 ] && break
	sleep 1
done
diag "idle: gone after ~$i s; $(fm_ctl status --json | jq -c '.counters | {taken_out, expired, ct_refresh}'); left: rules $(fm_rules "$P3")+$(fm_rules "$P8"), driver $(fp fp_conns), conntrack $(conntrack -L -p udp --dport 5202 2>/dev/null | grep -c .)"
ktap_result $([ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ] && [ "$(fp fp_conns)" = 0 ] &&
	[ "$(conntrack -L -p udp --dport 5202 2>/dev/null | grep -c .)" = 0 ]; echo $?) \
	"once idle it expires and leaves the hardware"

ktap_result $([ "$(fm_ctl status --json | jq .counters.hw_orphans)" = 0 ]; echo $?) "no orphan rule seen"
[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
