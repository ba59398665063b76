#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The busiest win (issue 31): the coprocessor's table made small (64) and
# filled by 80 slow TCP connections (npuload, 2 kB/s each: 64 made, 16
# waiting for a slot), then eight bulk iperf3 streams start.  npuflowd
# takes eight slow connections out for them (fm_evict.c: a waiting
# connection at least twice as fast as a made one, at least 30 frames a
# second, displaces it), so the eight streams are made and the hardware
# carries at least 99 % of their bytes (the waiting slow connections stay
# on the host, the table being full; the share of all the bytes crossing
# the router, a diag line, moves with the emulator's speed); the
# displaced connections are held back and do not come back while the
# streams run (no flapping), and the slow waiting ones displace nobody.
# Counts only.
# With the argument "flowtable" (by hand: tools/vm/boot -- bash
# selftests/vm/6q-flowmaker-busiest.sh flowtable) the same load then runs
# under the kernel's flowtable (flags offload) on the same table, reported
# beside it: the streams it put in hardware and the host's share (make test
# leaves it out for time; docs/measurements.md has its figures).
# guest: alone
# timeout: 600
. "$(dirname "$0")/lib.sh"
FT=${1:-}
ktap_plan $([ "$FT" = flowtable ] && echo 11 || echo 10)
LOAD=$NPU_REPO/build/bin/npuload
N=80 T=64 P=8
cleanup() {
	[ -n "${CLI:-}" ] && kill $CLI $SRV 2>/dev/null
	fm_cleanup
}
trap cleanup EXIT
counter() { fm_ctl status --json | jq -r ".counters.$1"; }
# made_streams: made connections of the iperf3 streams (port 5201)
made_streams() {
	fm_flows | jq '[.[] | select(.state == "made" and
		(.dirs[0].dport == 5201 or .dirs[0].sport == 5201))] | length'
}
# host_bytes: bytes the host took from ports 3 and 8
host_bytes() { echo $(( $(link_stat "$P3" rx_bytes) + $(link_stat "$P8" rx_bytes) )); }
far_bytes() { link_stat -n far npuw0p8 rx_bytes; }
# slow_load: N connections of 2 kB/s pc -> far:5310 for 90 s
slow_load() {
	ip netns exec far "$LOAD" server -p 5310 -t 120 > /tmp/6q-srv.json 2>/dev/null &
	SRV=$!
	wait_listen far 5310
	ip netns exec pc "$LOAD" client -a $FAR4 -p 5310 -c $N -t 90 -r 2000 \
		> /tmp/6q-cli.json 2>/dev/null &
	CLI=$!
}
stop_load() {
	kill $CLI $SRV 2>/dev/null; wait $CLI $SRV 2>/dev/null; CLI=
	ip netns pids pc | xargs -r kill 2>/dev/null
	ip netns pids far | xargs -r kill 2>/dev/null
	sleep 1
}
# stream_bytes [far]: the streams' data bytes (to port 5201) the host's
# forward hook counted (the counter "streams" in fm_firewall's table), or
# with "far" those far's input hook took (its own table's); 0 without it
stream_bytes() {
	local b
	if [ "${1:-}" = far ]; then
		b=$(ip netns exec far nft -j list counter inet count streams 2>/dev/null)
	else
		b=$(nft -j list counter inet fw streams 2>/dev/null)
	fi
	b=$(echo "$b" | jq '[.nftables[]?.counter? | select(.) | .bytes] | add // 0' 2>/dev/null)
	echo "${b:-0}"
}
# share LABEL SECONDS: over SECONDS, SH, the host's share of all the bytes
# far received, and SS, the host's share of the streams' data bytes (what
# it forwarded of them against what far took of them), both in parts per
# 10,000.  The host carries the waiting slow connections' 2 kB/s each
# whatever is made, and under TCG the streams run at 5-15 MB/s from run to
# run, so SH moves with the emulator's speed; SS is the streams' own.
share() {
	local h0 f0 s0 t0 h f s t of=""
	h0=$(host_bytes) f0=$(far_bytes) s0=$(stream_bytes) t0=$(stream_bytes far)
	sleep "$2"
	h=$(( $(host_bytes) - h0 )) f=$(( $(far_bytes) - f0 ))
	s=$(( $(stream_bytes) - s0 )) t=$(( $(stream_bytes far) - t0 ))
	SH=$(( f ? h * 10000 / f : 10000 )) SS=$(( t ? s * 10000 / t : 10000 ))
	nft list counter inet fw streams >/dev/null 2>&1 &&
		of="; of the streams' $t bytes far took, the host forwarded $s ($SS / 10,000)"
	diag "$1: far received $f bytes in $2 s, the host took $h ($SH / 10,000)$of"
}

fm_setup_table $T
# the streams' counters, before any connection is made (npuflowd takes
# every connection back on a ruleset change): the host's forward hook and
# far's input, their data direction (to port 5201) alike
nft add counter inet fw streams
nft insert rule inet fw forward tcp dport 5201 counter name streams
ip netns exec far nft -f - <<'NFT'
table inet count {
	counter streams { }
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport 5201 counter name "streams"
	}
}
NFT

slow_load
for i in $(seq 90); do
	[ "$(eth_stat "$P3" hw_fp_conns)" = $T ] &&
		[ "$(fm_ctl status --json | jq -r .full_waiting)" -ge $(( (N - T) * 9 / 10 )) ] && break
	sleep 1
done
st=$(fm_ctl status --json)
diag "after ~$i s: coprocessor $(eth_stat "$P3" hw_fp_conns) of $T, made $(echo "$st" | jq .states.made), waiting $(echo "$st" | jq .full_waiting)"
ktap_result $([ "$(eth_stat "$P3" hw_fp_conns)" = $T ] &&
	[ "$(echo "$st" | jq .full_waiting)" -ge $(( (N - T) * 9 / 10 )) ]; echo $?) \
	"the table is full of slow connections, the rest wait"
sleep 10	# the made ones' first 10 s in hardware: past the eviction's minimum

e0=$(counter evicted)
iperf_server far 5201
ip netns exec pc iperf3 -c $FAR4 -P $P -t 40 -J > /tmp/6q-iperf.json 2>/dev/null &
IPF=$!
t0=$(date +%s%N)
for i in $(seq 100); do
	[ "$(made_streams)" -ge $P ] && break
	sleep 0.2
done
took=$(( ($(date +%s%N) - t0) / 1000000 ))
ev=$(( $(counter evicted) - e0 ))
diag "the $P streams made after $took ms; $ev connections taken out for them; the host forwarded $(stream_bytes) of their data bytes"
ktap_result $([ "$(made_streams)" -ge $P ]; echo $?) "the $P bulk streams are in hardware ($(made_streams))"
ktap_result $([ "$ev" -ge $P ] && [ "$ev" -le $((P + 2)) ]; echo $?) \
	"$P slow connections were taken out for them, no more ($ev)"
ktap_result $([ "$(eth_stat "$P3" hw_fp_conns)" = $T ]; echo $?) "the table stays full"

share "npuflowd, the streams in hardware" 8
ktap_result $([ "$SS" -le 100 ]; echo $?) "the hardware carries at least 99 % of the streams' bytes ($SS / 10,000 on the host)"
e1=$(counter evicted)
sleep 10
ktap_result $([ "$(counter evicted)" = "$e1" ] && [ "$(made_streams)" -ge $P ]; echo $?) \
	"no flapping: no connection taken out over 10 s more, the streams stay ($(counter evicted) - $e1)"
kill $IPF 2>/dev/null; wait $IPF 2>/dev/null	# every check of the streams is done
stop_load
conntrack -F >/dev/null 2>&1
for i in $(seq 30); do
	[ "$(fm_rules "$P3")" = 0 ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 0 ] && break
	sleep 1
done
ktap_result $([ "$(fm_rules "$P3")" = 0 ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 0 ]; echo $?) \
	"after the load and conntrack -F, nothing is left in hardware"
fm_flush
[ "$FT" = flowtable ] || ktap_finish

# The kernel's flowtable on the same table and load, reported beside it.
ft_offload_tcp
conntrack -F >/dev/null 2>&1
slow_load
for i in $(seq 90); do
	[ "$(eth_stat "$P3" hw_fp_conns)" = $T ] && break
	sleep 1
done
sleep 10
iperf_server far 5201
ip netns exec pc iperf3 -c $FAR4 -P $P -t 30 -J > /tmp/6q-iperf-ft.json 2>/dev/null &
IPF=$!
sleep 10
ft=$(ct_offloaded 5201)
share "flowtable, the same load" 8
diag "flowtable: $ft of the $P streams in hardware (conntrack HW_OFFLOAD), coprocessor $(eth_stat "$P3" hw_fp_conns) of $T, the host carried $SH / 10,000 of the bytes; offers refused (table full) $(eth_stat "$P3" fp_enospc)"
wait $IPF
stop_load
nft flush ruleset
ktap_result $([ -n "$ft" ] && [ -n "$SH" ]; echo $?) "the flowtable's figures reported beside"
ktap_finish
