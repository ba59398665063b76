#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker on the coprocessor's ports (issue 5, "Must show"): npuflowd
# attached to ports 3 and 8 (native XDP, rules skip_sw through the driver's
# flower hook), nftables conntrack on the host between them.
#   - one TCP stream pc -> far over the threshold: the connection is made
#     (both directions in hardware, in_hw), and over the next 10 s the host's
#     port counters move by < 0.1 % of the stream's frames;
#   - keepalive: the connection's hardware counters reach npuctl flows and
#     the conntrack entry's timeout is refreshed;
#   - conntrack -D: both rules go, the coprocessor's table empties (fp_conns);
#   - release: be-liberal set, rules gone, the stream goes on through the host
#     with no invalid-state drop;
#   - npuflowd killed and restarted under traffic: the rules stay in
#     hardware while it is down, no duplicate and no orphan after.
# Counts only; times belong to the benchmark.
# timeout: 900
. "$(dirname "$0")/../lib.sh"
ktap_plan 12
B=$NPU_REPO/build
PIN=/sys/fs/bpf/npfm-vm
LOCK=/run/npfm-vm.lock
CTL=/run/npfm-vm.sock
LOG=/tmp/npfm-vm.log
DPID=

npuctl() { "$B/bin/npuctl" --pin-dir $PIN --ctl-socket $CTL --lock-file $LOCK "$@"; }
flows() { npuctl flows --json; }
start_d() {
	"$B/bin/npuflowd" -f -l debug -t 16 --keepalive-ms 500 --pin-dir $PIN \
		--lock-file $LOCK --ctl-socket $CTL "$P3" "$P8" >>$LOG 2>&1 &
	DPID=$!
	for i in $(seq 100); do [ -S $CTL ] && return 0; sleep 0.1; done
	return 1
}
stop_d() { [ -n "$DPID" ] && kill -TERM $DPID && wait $DPID; DPID=; }
wait_jq() {	# SECONDS FILTER
	local i
	for i in $(seq $(( $1 * 5 ))); do
		[ "$(flows | jq -r "$2" 2>/dev/null)" = true ] && return 0
		sleep 0.2
	done
	return 1
}
cleanup() {
	stop_d
	[ -n "${SP:-}" ] && kill $SP 2>/dev/null
	ip netns pids pc 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids far 2>/dev/null | xargs -r kill 2>/dev/null
	"$B/bin/npuflowd" --flush --pin-dir $PIN --lock-file $LOCK >/dev/null 2>&1
}
trap cleanup EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
for d in "$P3" "$P8"; do ethtool -K "$d" hw-tc-offload on; done
nft -f - <<'NFT'
table inet fw {
	counter inv { }
	chain fwd {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter name "inv" drop
		ct state established,related accept
	}
}
NFT
ip netns exec pc ping -c1 -W2 $FAR4 >/dev/null
ip netns exec far ping -c1 -W2 $PC4 >/dev/null
check "npuflowd on $P3 $P8 (native XDP, skip_sw rules)" start_d

# one TCP stream at a steady rate (socat; iperf3 under TCG is too bursty to count)
ip netns exec far socat -u TCP-LISTEN:5201,reuseaddr,fork OPEN:/dev/null &
sleep 0.5
touch /tmp/npfm-go
( while [ -e /tmp/npfm-go ]; do head -c 65536 /dev/zero; sleep 0.01; done |
	ip netns exec pc socat -u - TCP:$FAR4:5201 ) &
SP=$!
ktap_result $(wait_jq 30 '[.[] | select(.dirs[0].dport == 5201 and .state == "made")] | length == 1'; echo $?) \
	"the stream's connection is made"
F=$(flows | jq -c '[.[] | select(.dirs[0].dport == 5201)][0]')
diag "$F"
ID=$(echo "$F" | jq -r .id) SPORT=$(echo "$F" | jq -r '.dirs[0].sport')
ktap_result $(tc -j filter show dev "$P3" ingress | jq -e '[.[] | select(.options.in_hw == true and .options.flags == "skip_sw")] | length == 1' >/dev/null &&
	tc -j filter show dev "$P8" ingress | jq -e '[.[] | select(.options.in_hw == true)] | length == 1' >/dev/null; echo $?) \
	"one skip_sw rule per port, both in hardware"
sleep 5
h0=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
w0=$(link_stat -n far npuw0p8 rx_packets)
sleep 10
h=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) - h0 ))
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
diag "seconds 5-15: far received $w frames, the host's ports took $h"
ktap_result $([ "$w" -gt 1000 ] && [ $(( h * 1000 )) -lt "$w" ]; echo $?) \
	"the host sees < 0.1 % of the stream's frames"
ktap_result $(wait_jq 5 "[.[] | select(.id == $ID and .dirs[0].packets > 1000)] | length == 1"; echo $?) \
	"keepalive: hardware counters reach npuctl flows"
ktap_result $([ "$(npuctl status --json | jq .counters.ct_refresh)" -ge 1 ]; echo $?) \
	"keepalive: conntrack timeouts refreshed"

# release: be-liberal, then the rules go, the stream goes on through the host
inv0=$(nft -j list counter inet fw inv | jq '.nftables[1].counter.packets')
ktap_result $([ "$(npuctl release "$ID")" = "released 1" ]; echo $?) "npuctl release $ID"
ktap_result $("$B/selftests-bpf/fmtool" ct-show tcp $PC4 "$SPORT" $FAR4 5201 | grep -q 'be_liberal 1'; echo $?) \
	"be-liberal set on both directions"
w0=$(link_stat -n far npuw0p8 rx_packets)
sleep 5
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
inv=$(( $(nft -j list counter inet fw inv | jq '.nftables[1].counter.packets') - inv0 ))
diag "after the release: far received $w frames in 5 s, $inv invalid-state drops"
ktap_result $([ "$w" -gt 1000 ] && [ "$inv" = 0 ] &&
	[ "$(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options)] | length')" = 0 ]; echo $?) \
	"the stream goes on through the host, rules gone, no invalid-state drop"

# takeout: a new stream, then its conntrack entry killed
rm -f /tmp/npfm-go; sleep 1; touch /tmp/npfm-go
( while [ -e /tmp/npfm-go ]; do head -c 65536 /dev/zero; sleep 0.01; done |
	ip netns exec pc socat -u - TCP:$FAR4:5201 ) &
SP=$!
wait_jq 30 '[.[] | select(.state == "made")] | length == 1'
# restart under traffic: rules stay while npuflowd is down, once after
stop_d
n_down=$(( $(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options)] | length') +
	   $(tc -j filter show dev "$P8" ingress | jq '[.[] | select(.options)] | length') ))
start_d
sleep 2
n_up=$(( $(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options)] | length') +
	 $(tc -j filter show dev "$P8" ingress | jq '[.[] | select(.options)] | length') ))
diag "rules while down: $n_down, after the restart: $n_up; $(npuctl status --json | jq -c '.counters | {restored, hw_orphans}')"
ktap_result $([ "$n_down" = 2 ] && [ "$n_up" = 2 ] &&
	[ "$(npuctl status --json | jq .counters.hw_orphans)" = 0 ]; echo $?) \
	"restart: rules stay in hardware, no duplicate, no orphan"
S2=$(flows | jq -r '[.[] | select(.state == "made")][0].dirs[0].sport')
conntrack -D -p tcp --orig-src $PC4 --sport "$S2" >/dev/null 2>&1
sleep 2
fp=$(ethtool -S "$P3" | awk '$1 == "fp_conns:" { print $2 }')
ktap_result $([ "$(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options)] | length')" = 0 ] &&
	[ "${fp:-1}" = 0 ]; echo $?) "conntrack -D: rules gone, the coprocessor's table empty"
rm -f /tmp/npfm-go
[ "$KTAP_FAIL" = 0 ] || tail -30 $LOG | sed 's/^/# /'
ktap_finish
