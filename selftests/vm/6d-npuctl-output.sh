#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# npuctl's --json and --prometheus on what npuflowd really writes (issue 16):
# npuflowd on ports 3 and 8 with one TCP stream pc -> far made in hardware
# and a few pings on the host's path.  Every --json output parses and has
# the members the operator's guide names (docs/operator-guide.md, npuctl);
# stats and status --prometheus pass `promtool check metrics`, alone and in
# one file as the guide's timer line writes it, and agree with the JSON read
# just before and just after; stopped, status says running 0 and keeps the
# counters; flushed, it exits 3 with running 0, pinned 0.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 14
LOAD=$NPU_REPO/build/bin/npuload
NPUCTL="$NPU_REPO/build/bin/npuctl --pin-dir $FM_PIN --ctl-socket $FM_CTL --lock-file $FM_LOCK"
OUT=$(mktemp -d /tmp/npuctl-out.XXXXXX)
trap 'fm_cleanup; rm -rf "$OUT"' EXIT

# has_members FILE JQ-PATH MEMBER...: FILE's array is not empty and every
# element (at JQ-PATH within it: ".", ".dirs[]") has every MEMBER.
has_members() {
	local f=$1 path=$2
	shift 2
	jq -e --arg p "$path" --args 'length > 0 and
		all(.[] | (if $p == "." then . else .dirs[] end); . as $o |
		    all($ARGS.positional[]; . as $m | $o | has($m)))' "$@" < "$f" >/dev/null
}
# prom_value FILE SERIES: the value of SERIES ('name{labels}') in FILE.
prom_value() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
# promtool_ok FILE: promtool check metrics passes FILE (said if not).
promtool_ok() {
	local out
	out=$(promtool check metrics < "$1" 2>&1) && return 0
	diag "promtool: $out"
	return 1
}
have_promtool() { command -v promtool >/dev/null; }
# us SECONDS: "12.000345" as microseconds.
us() { local s=${1%.*} f=${1#*.}; echo $(( 10#$s * 1000000 + 10#$f )); }

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201
fm_stream $FAR4 120
ktap_result $(fm_wait_jq 30 '[.[] | select(.dirs[0].dport == 5201 and .state == "made")] | length == 1'; echo $?) \
	"the stream's connection is made"
# below the threshold: candidates that stay
ip netns exec pc ping -c 4 -i 0.2 -W 2 $FAR4 >/dev/null

$NPUCTL candidates --json > "$OUT/cand.json"
$NPUCTL stats --json > "$OUT/stats.json"
$NPUCTL flows --json > "$OUT/flows.json"
$NPUCTL status --json > "$OUT/status.json"
diag "candidates $(jq length "$OUT/cand.json"), port slots $(jq length "$OUT/stats.json"), connections $(jq length "$OUT/flows.json")"
ktap_result $(has_members "$OUT/cand.json" . ifindex ifname vlan_outer vlan_inner family \
	proto saddr daddr sport dport frames bytes first_ns last_ns tcp_flags reason port conn \
	flags; echo $?) "candidates --json: the guide's members"
ktap_result $(has_members "$OUT/stats.json" . slot port ifindex ifname reasons stats &&
	jq -e --arg d "$P3" '[.[] | select(.ifname == $d and .port == 3)] | length == 1' \
		"$OUT/stats.json" >/dev/null; echo $?) \
	"stats --json: the guide's members, port 3 as $P3"
ktap_result $(has_members "$OUT/flows.json" . id state reason proto family ct_id zone nat \
	routed age_ns idle_ns givebacks remakes revives holds wait_ns made_ns first_ns cross_ns \
	hw_ns punted dirs &&
	has_members "$OUT/flows.json" .dirs in out vlan out_vlan src sport dst dport handle \
		in_hw packets bytes; echo $?) "flows --json: the guide's members, both directions'"
ktap_result $(jq -e '(.running == true) and (.pid > 0) and
	([.uptime_ns, .updated_ns_ago, .states, .counters, .refused] | all(. != null)) and
	.states.made == 1' "$OUT/status.json" >/dev/null; echo $?) \
	"status --json: the guide's members, running, one connection made"

# Prometheus, read between two JSON reads: its values lie between theirs
S3="npuflow_punt_frames_total{slot=\"2\",port=\"3\",ifname=\"$P3\",reason=\"flow_miss\"}"
j1=$($NPUCTL stats --json | jq '[.[] | select(.port == 3)][0].reasons.flow_miss.frames')
l1=$($NPUCTL status --json | jq .counters.lookup_us)
$NPUCTL stats --prometheus > "$OUT/stats.prom"; rs=$?
$NPUCTL status --prometheus > "$OUT/status.prom"; rt=$?
j2=$($NPUCTL stats --json | jq '[.[] | select(.port == 3)][0].reasons.flow_miss.frames')
l2=$($NPUCTL status --json | jq .counters.lookup_us)
# the timer line of the guide, npuctl's options aside
sh -c "{ $NPUCTL stats --prometheus; $NPUCTL status --prometheus; } > $OUT/npuflow.prom.tmp; mv $OUT/npuflow.prom.tmp $OUT/npuflow.prom"
p3=$(prom_value "$OUT/stats.prom" "$S3")
pl=$(prom_value "$OUT/status.prom" npuflow_flowmaker_lookup_seconds_total)
diag "port 3 flow_miss frames: json $j1, prometheus $p3, json $j2; lookups: $l1 us, $pl s, $l2 us"
if have_promtool; then
	ktap_result $([ $rs = 0 ] && promtool_ok "$OUT/stats.prom"; echo $?) \
		"stats --prometheus passes promtool check metrics"
	ktap_result $([ $rt = 0 ] && promtool_ok "$OUT/status.prom"; echo $?) \
		"status --prometheus passes promtool check metrics"
	ktap_result $(grep -q '^npuflow_punt_frames_total{' "$OUT/npuflow.prom" &&
		grep -q '^npuflow_daemon_running 1$' "$OUT/npuflow.prom" &&
		promtool_ok "$OUT/npuflow.prom"; echo $?) \
		"the guide's timer line: stats and status in one .prom file, promtool passes it"
else
	for t in "stats --prometheus" "status --prometheus" "the guide's timer line"; do
		ktap_skip "$t: no promtool (Debian package prometheus)"
	done
fi
ktap_result $([ -n "$p3" ] && [ "$p3" -gt 0 ] && [ "$j1" -le "$p3" ] && [ "$p3" -le "$j2" ]; echo $?) \
	"stats --prometheus: port 3's flow_miss frames as stats --json counts them"
ktap_result $([ "$(prom_value "$OUT/status.prom" npuflow_daemon_running)" = 1 ] &&
	[ "$(prom_value "$OUT/status.prom" 'npuflow_connections{state="made"}')" = 1 ] &&
	[ "$(prom_value "$OUT/status.prom" npuflow_flowmaker_made_total)" = \
	  "$(jq .counters.made "$OUT/status.json")" ] &&
	[ -n "$pl" ] && [ "$l1" -le "$(us "$pl")" ] && [ "$(us "$pl")" -le "$l2" ] &&
	[ "$l1" -gt 0 ]; echo $?) \
	"status --prometheus: running, one made, made and lookup time as status --json has them"

# npuflowd's stop detaches the classifier: no frame may reach the ports
# meanwhile.  Under TCG a detach patches kernel text (the XDP dispatcher's
# call site), and a vCPU running that text meanwhile can die of
# "Oops: int3" (cross-modifying code).  The wires drop everything for the
# while (the stream's connection stays open; conntrack keeps it).
ip netns exec pc tc qdisc add dev npuw0p3 root netem loss 100%
ip netns exec far tc qdisc add dev npuw0p8 root netem loss 100%
sleep 0.5
fm_stop
ip netns exec pc tc qdisc del dev npuw0p3 root
ip netns exec far tc qdisc del dev npuw0p8 root
$NPUCTL status --prometheus > "$OUT/stopped.prom"; rc=$?
diag "stopped: rc $rc, $(grep -E '^npuflow_(daemon_running|maps_pinned|connections\{state="made"\})' "$OUT/stopped.prom" | tr '\n' ' ')"
ktap_result $([ $rc = 0 ] && [ "$(prom_value "$OUT/stopped.prom" npuflow_daemon_running)" = 0 ] &&
	[ "$(prom_value "$OUT/stopped.prom" npuflow_maps_pinned)" = 1 ] &&
	[ "$(prom_value "$OUT/stopped.prom" 'npuflow_connections{state="made"}')" = 1 ] &&
	{ ! have_promtool || promtool_ok "$OUT/stopped.prom"; }; echo $?) \
	"npuflowd stopped: running 0, the pinned counters still read"
fm_flush
$NPUCTL status --prometheus > "$OUT/flushed.prom"; rc=$?
j=$($NPUCTL status --json); rj=$?
diag "flushed: rc $rc/$rj, $j"
ktap_result $([ $rc = 3 ] && [ $rj = 3 ] && [ "$j" = '{"running":false,"pid":0,"pinned":false}' ] &&
	[ "$(prom_value "$OUT/flushed.prom" npuflow_daemon_running)" = 0 ] &&
	[ "$(prom_value "$OUT/flushed.prom" npuflow_maps_pinned)" = 0 ] &&
	{ ! have_promtool || promtool_ok "$OUT/flushed.prom"; }; echo $?) \
	"flushed: exit 3, running 0, pinned 0, in both outputs"
ktap_finish
