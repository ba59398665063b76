#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker on the coprocessor's ports (issue 5, "Must show"): npuflowd
# attached to ports 3 and 8 (native XDP, rules skip_sw through the driver's
# flower hook), conntrack on the host between them.  One steady TCP stream
# pc -> far (npuload, one connection at a bounded rate):
#   - the connection is made: both directions in hardware (in_hw), and over
#     the next 10 s the host's port counters move by < 0.1 % of the stream;
#   - keepalive: the hardware counters reach npuctl flows; the conntrack
#     entry's timeout is refreshed a quarter of it after the make (none in
#     the first seconds under TCP's 5 days), within seconds of a cut to 8 s,
#     and when the timeout is raised again, before the 8 s set last run out;
#   - release: be-liberal set, rules gone, the stream goes on through the
#     host with no invalid-state drop;
#   - npuflowd stopped and restarted under traffic: the rules stay in
#     hardware while it is down, no duplicate and no orphan after;
#   - conntrack -D of a made connection: its rules go, the coprocessor's
#     table empties, and (no mid-stream pick-up) fewer than a second's worth
#     of its frames cross after the kill.
# Counts only; times belong to the benchmark.
# timeout: 600
# guest: alone (frames counted against a second of the stream)
. "$(dirname "$0")/lib.sh"
ktap_plan 15
LOAD=$NPU_REPO/build/bin/npuload
trap fm_cleanup EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8 (native XDP, skip_sw rules)"

ip netns exec far "$LOAD" server -p 5201 -t 400 >/dev/null 2>&1 &
wait_listen far 5201
fm_stream $FAR4 120
ktap_result $(fm_wait_jq 30 '[.[] | select(.dirs[0].dport == 5201 and .state == "made")] | length == 1'; echo $?) \
	"the stream's connection is made"
F=$(fm_flows | jq -c '[.[] | select(.dirs[0].dport == 5201)][0]')
diag "$F"
ID=$(echo "$F" | jq -r .id) SPORT=$(echo "$F" | jq -r '.dirs[0].sport')
ktap_result $([ "$(fm_in_hw "$P3")" = 1 ] && [ "$(fm_in_hw "$P8")" = 1 ]; echo $?) \
	"one skip_sw rule per port, both in hardware"
sleep 2
h0=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) ))
p0=$(ip_punts)
w0=$(link_stat -n far npuw0p8 rx_packets)
sleep 5
hall=$(( $(link_stat "$P3" rx_packets) + $(link_stat "$P8" rx_packets) - h0 ))
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
h=$(( $(ip_punts) - p0 ))
diag "seconds 2-7 after it was made: far received $w frames; the host's ports took $hall, $h of them IP unicast"
ktap_result $([ "$w" -gt 1000 ] && [ $(( h * 1000 )) -lt "$w" ]; echo $?) \
	"the host sees < 0.1 % of the stream's frames"
ktap_result $(fm_wait_jq 5 "[.[] | select(.id == $ID and .dirs[0].packets > 1000)] | length == 1"; echo $?) \
	"keepalive: hardware counters reach npuctl flows"
ct_refresh() { fm_ctl status --json | jq .counters.ct_refresh; }
ct_secs() { conntrack -L -p tcp --orig-port-src "$SPORT" 2>/dev/null | awk '{ print $3; exit }'; }
r0=$(ct_refresh)
ktap_result $([ "$r0" = 0 ]; echo $?) \
	"keepalive: no conntrack refresh within a quarter of TCP's timeout after the make (ct_refresh $r0)"
TO=$(sysctl -n net.netfilter.nf_conntrack_tcp_timeout_established)
sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_established=8
ok=1; for i in $(seq 50); do [ "$(ct_refresh)" -ge 1 ] && { ok=0; break; }; sleep 0.2; done
diag "timeout cut to 8 s: ct_refresh $(ct_refresh) after ~$((i / 5)) s, the entry's $(ct_secs) s left"
ktap_result $ok "keepalive: the timeout cut to 8 s, the entry refreshed within seconds"
# raised again: the entry holds the 8 s set last; keepalive must set the
# new timeout before they run out, not a quarter of the new one later
sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_established=$TO
sleep 10
diag "timeout back to $TO s: 10 s later the entry has $(ct_secs) s left; $(fm_flows | jq -c ".[] | select(.id == $ID) | {state}")"
ktap_result $([ "$(ct_secs)" -gt 8 ] && [ "$(fm_flows | jq -r ".[] | select(.id == $ID) | .state")" = made ]; echo $?) \
	"keepalive: the timeout raised again, the entry refreshed to it before the old one ran out"

# release: be-liberal, then the rules go, the stream goes on through the host
inv0=$(nft -j list counter inet fw inv | jq '.nftables[1].counter.packets')
ktap_result $([ "$(fm_ctl release "$ID")" = "released 1" ]; echo $?) "npuctl release $ID"
ktap_result $("$NPU_REPO/build/selftests-bpf/fmtool" ct-show tcp $PC4 "$SPORT" $FAR4 5201 | grep -q 'be_liberal 1'; echo $?) \
	"be-liberal set on both directions"
w0=$(link_stat -n far npuw0p8 rx_packets)
sleep 5
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
inv=$(( $(nft -j list counter inet fw inv | jq '.nftables[1].counter.packets') - inv0 ))
diag "after the release: far received $w frames in 5 s, $inv invalid-state drops"
ktap_result $([ "$w" -gt 500 ] && [ "$inv" = 0 ] && [ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ]; echo $?) \
	"the stream goes on through the host, rules gone, no invalid-state drop"
kill $FM_CLI 2>/dev/null; wait $FM_CLI 2>/dev/null

# A second stream; no mid-stream pick-up from here on, so that a killed
# conntrack entry stays killed.
sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
fm_stream $FAR4 120
fm_wait_jq 30 '[.[] | select(.state == "made")] | length == 1'
# restart under traffic: rules stay while npuflowd is down, once after
fm_stop
n_down=$(( $(fm_rules "$P3") + $(fm_rules "$P8") ))
fm_start
sleep 2
n_up=$(( $(fm_rules "$P3") + $(fm_rules "$P8") ))
diag "rules while down: $n_down, after the restart: $n_up; $(fm_ctl status --json | jq -c '.counters | {restored, hw_orphans}')"
ktap_result $([ "$n_down" = 2 ] && [ "$n_up" = 2 ] &&
	[ "$(fm_flows | jq '[.[] | select(.state == "made")] | length')" = 1 ] &&
	[ "$(fm_ctl status --json | jq .counters.hw_orphans)" = 0 ] &&
	! grep -q 'warn: .*Exclusivity flag on' $FM_LOG; echo $?) \
	"restart: rules stay in hardware, the connection made once, no duplicate, no orphan, the ports' clsact no warning"

# takeout: the second stream's conntrack entry killed; a second's worth of
# its frames is measured just before
S2=$(fm_flows | jq -r '[.[] | select(.state == "made")][0].dirs[0].sport')
r0=$(link_stat -n far npuw0p8 rx_packets); sleep 2
w0=$(link_stat -n far npuw0p8 rx_packets); fps=$(( (w0 - r0) / 2 ))
conntrack -D -p tcp --orig-src $PC4 --sport "$S2" >/dev/null 2>&1
sleep 3
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
fp=$(ethtool -S "$P3" | awk '$1 == "fp_conns:" { print $2 }')
diag "conntrack -D: rules $(fm_rules "$P3")+$(fm_rules "$P8"), coprocessor $fp; far received $w frames in the 3 s after"
ktap_result $([ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ] && [ "${fp:-1}" = 0 ]; echo $?) \
	"conntrack -D: rules gone, the coprocessor's table empty"
ktap_result $([ "$fps" -gt 100 ] && [ "$w" -lt "$fps" ]; echo $?) \
	"fewer than a second's worth of its frames cross after the kill ($w, a second is $fps)"
[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
