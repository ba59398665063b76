#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# npuflowd's recoveries on the coprocessor's ports 3 and 8 (issue 14):
#   - killed with SIGKILL under traffic, two connections in hardware: the
#     rules and the coprocessor's connections stay while it is down; meanwhile
#     one connection's conntrack entry is deleted (conntrack -D), the other's
#     reply rule is deleted (tc filter del), and a rule of npuflowd's prio
#     that no connection owns is added; started again as npuflowd.service
#     starts it (its ExecStart, the same options, READY=1 to the service
#     manager once restored), the restart reconciles: the deleted entry's
#     connection leaves the hardware (its rules, the driver's fp_conns), the
#     live one's missing rule is written again and it stays in hardware,
#     once, its counters moving; the orphan rule is deleted;
#   - lost threshold events: npuflowd with a 4 KiB event ring (42 events) is
#     stopped (SIGSTOP) while 64 connections cross the threshold both ways;
#     running again, it rescans the candidates for the crossings the full
#     ring lost, and every connection is made.
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 15
LOAD=$NPU_REPO/build/bin/npuload
NOTIFY=/run/npfm-vm-notify
NLOG=/tmp/npfm-vm-notify.log
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	[ -n "$FM_PID" ] && kill -CONT "$FM_PID" 2>/dev/null
	fm_cleanup
	rm -f "$NOTIFY" "$NLOG"
}
trap cleanup EXIT
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
flow_of() { fm_flows | jq -c "[.[] | select(.dirs[0].dport == $1)][0] // {}"; }
# rules on DEV's ingress with handle H, in hardware
rule_in_hw() {
	tc -j filter show dev "$1" ingress |
		jq "[.[] | select(.options.handle == $2 and .options.in_hw == true)] | length"
}
# rule_pkts DEV HANDLE: the packets the rule's hardware counted, read
# through the driver at this dump (not npuflowd's copy, which keepalive
# refreshes at its own pace)
rule_pkts() {
	tc -s -j filter show dev "$1" ingress | jq "[.[] | select(.options.handle == $2) |
		.options.actions[0].stats.hw_packets // .options.actions[0].stats.packets] | add // 0"
}
stat_sum() { fm_ctl stats --json | jq "[.[].stats.$1] | add // 0"; }

fm_setup
# no mid-stream pick-up: a deleted conntrack entry stays deleted; under TCG
# streams retransmit (give-back is 63's subject)
sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max

# ---- npuflowd as npuflowd.service runs it ------------------------------------
# its ExecStart with /etc/default/npuflowd's variables (split on spaces, as
# systemd splits $VAR), a datagram socket standing for the service manager
EXEC=$(sed -n 's/^ExecStart=//p' "$NPU_REPO/dist/npuflowd.service" |
	sed "s|@BINDIR@|$NPU_REPO/build/bin|")
NPUFLOWD_PORTS="$P3 $P8"
NPUFLOWD_OPTS="--log-level debug --threshold 16 --keepalive-ms 500 --pin-dir $FM_PIN --lock-file $FM_LOCK --ctl-socket $FM_CTL"
diag "ExecStart: $EXEC"
python3 - "$NOTIFY" >"$NLOG" 2>&1 <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    print(s.recv(4096).decode().replace("\n", " "), flush=True)
EOF
PIDS+=($!)
for i in $(seq 50); do [ -S "$NOTIFY" ] && break; sleep 0.1; done
readies() { grep -c 'READY=1' "$NLOG"; }
# svc_start: started, and READY=1 came (the restore is done before it)
svc_start() {
	local n=$(readies) i
	ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P8" hw-tc-offload on
	(export NOTIFY_SOCKET=$NOTIFY; eval "exec $EXEC") >>$FM_LOG 2>&1 &
	FM_PID=$!
	for i in $(seq 300); do
		[ "$(readies)" -gt "$n" ] && return 0
		kill -0 $FM_PID 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

ip netns exec far "$LOAD" server -p 5201 -t 500 >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec far "$LOAD" server -p 5202 -t 500 >/dev/null 2>&1 &
PIDS+=($!)
wait_listen far 5201 && wait_listen far 5202
svc_start; ktap_result $? "npuflowd started as npuflowd.service starts it (READY=1)"
# two streams at ~690 frames/s each
for port in 5201 5202; do
	ip netns exec pc "$LOAD" client -a $FAR4 -p $port -c 1 -t 400 -r 1000000 >/dev/null 2>&1 &
	PIDS+=($!)
done
ktap_result $(fm_wait_jq 40 '[.[] | select((.dirs[0].dport == 5201 or .dirs[0].dport == 5202) and .state == "made")] | length == 2'; echo $?) \
	"both connections made"
C1=$(flow_of 5201) C2=$(flow_of 5202)
diag "C1 $(echo "$C1" | jq -c '{id, sport: .dirs[0].sport, handles: [.dirs[].handle]}'); C2 $(echo "$C2" | jq -c '{id, sport: .dirs[0].sport, handles: [.dirs[].handle]}')"
S1=$(echo "$C1" | jq -r '.dirs[0].sport') ID2=$(echo "$C2" | jq -r .id)
H1=($(echo "$C1" | jq -r '.dirs[].handle')) H2=($(echo "$C2" | jq -r '.dirs[].handle'))
in_hw_both() { # HANDLE0 HANDLE1: direction 0 on P3, direction 1 on P8, in hardware
	[ "$(rule_in_hw "$P3" "$1")" = 1 ] && [ "$(rule_in_hw "$P8" "$2")" = 1 ]
}

# ---- SIGKILL under traffic, a conntrack entry deleted meanwhile ---------------
kill -KILL $FM_PID
wait $FM_PID 2>/dev/null; rc=$?; FM_PID=
sleep 1
fp_down=$(fp fp_conns)
diag "killed (rc $rc): rules $(fm_rules "$P3")+$(fm_rules "$P8"), coprocessor $fp_down"
ktap_result $([ $rc = 137 ] && in_hw_both "${H1[@]}" && in_hw_both "${H2[@]}" &&
	[ "$fp_down" = 2 ]; echo $?) \
	"SIGKILL: npuflowd gone, both connections stay in hardware (rules, coprocessor 2)"
conntrack -D -p tcp --orig-src $PC4 --sport "$S1" --dport 5201 >/dev/null 2>&1
ktap_result $( ! conntrack -L -p tcp --dport 5201 2>/dev/null | grep -q "sport=$S1 " &&
	conntrack -L -p tcp --dport 5202 2>/dev/null | grep -q ESTABLISHED; echo $?) \
	"meanwhile conntrack -D of the first connection's entry (the second's stays)"
# the second's reply rule deleted; a rule of our prio with a handle no
# connection has (software only: the orphan need not be in hardware)
tc filter del dev "$P8" ingress protocol ip prio $((0xc4f0)) handle "${H2[1]}" flower &&
tc filter add dev "$P3" ingress protocol ip prio $((0xc4f0)) handle 99999 flower skip_hw \
	ip_proto udp dst_port 9 action drop
ktap_result $([ "$(rule_in_hw "$P8" "${H2[1]}")" = 0 ] &&
	[ "$(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options.handle == 99999)] | length')" = 1 ]; echo $?) \
	"meanwhile the second's reply rule deleted, an orphan rule of npuflowd's prio added"
sleep 1
t0=$(date +%s%N)
svc_start; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
diag "restarted in $ms ms; $(grep 'restored' $FM_LOG | tail -1)"
ktap_result $rc "restarted with the same options (READY=1 after the restore)"
sleep 1
fp_up=$(fp fp_conns)
diag "after the restart: rules $(fm_rules "$P3")+$(fm_rules "$P8"), coprocessor $fp_up; $(fm_ctl status --json | jq -c '.counters | {restored, hw_deletes, hw_orphans}')"
ktap_result $([ "$(rule_in_hw "$P3" "${H1[0]}")" = 0 ] && [ "$(rule_in_hw "$P8" "${H1[1]}")" = 0 ] &&
	[ "$(fm_rules "$P3")" = 1 ] && [ "$(fm_rules "$P8")" = 1 ] && [ "$fp_up" = 1 ]; echo $?) \
	"the restart takes the deleted entry's connection out of hardware (its rules gone, coprocessor 1)"
ktap_result $(in_hw_both "${H2[@]}" && grep -q "restored .* 1 rule(s) rewritten" $FM_LOG &&
	[ "$(fm_flows | jq "[.[] | select(.state == \"made\")] | map(.id) == [$ID2]")" = true ]; echo $?) \
	"the live connection stays in hardware, its missing rule written again, made once (id $ID2)"
ktap_result $([ "$(fm_ctl status --json | jq .counters.hw_orphans)" = 1 ] &&
	[ "$(tc -j filter show dev "$P3" ingress | jq '[.[] | select(.options.handle == 99999)] | length')" = 0 ]; echo $?) \
	"the orphan rule is deleted (hw_orphans 1)"
p0=$(rule_pkts "$P3" "${H2[0]}")
sleep 4
p1=$(rule_pkts "$P3" "${H2[0]}")
diag "the live connection's hardware packets: $p0 -> $p1 in 4 s; the other: $(flow_of 5201 | jq -c '{state, reason}')"
ktap_result $([ "$p1" -gt $((p0 + 500)) ] && [ "$(fp fp_conns)" = 1 ] &&
	[ "$(flow_of 5201 | jq -r '.state // "gone"')" != made ]; echo $?) \
	"4 s later: the live one forwarded in hardware, the other still out"
for p in "${PIDS[@]:1}"; do kill "$p" 2>/dev/null; done
PIDS=("${PIDS[0]}")

# ---- lost threshold events: a 4 KiB ring, npuflowd stopped under a burst ------
N=64
fm_flush	# the ring is pinned: a new size needs a flush
fm_start --ringbuf 4k; ktap_result $? "npuflowd with a 4 KiB event ring"
ip netns exec far "$LOAD" server -p 5300 -t 200 >/dev/null 2>&1 &
PIDS+=($!)
wait_listen far 5300
kill -STOP $FM_PID
ip netns exec pc "$LOAD" client -a $FAR4 -p 5300 -c $N -t 150 -r 20000 >/dev/null 2>&1 &
PIDS+=($!)
# until the classifier has seen both directions of each cross (raised or lost)
for i in $(seq 60); do
	[ $(( $(stat_sum threshold_events) + $(stat_sum events_lost) )) -ge $((2 * N)) ] && break
	sleep 1
done
lost=$(stat_sum events_lost)
diag "npuflowd stopped: $(stat_sum threshold_events) threshold events raised, $lost lost (ring full)"
kill -CONT $FM_PID
ok=1
for i in $(seq 90); do
	m=$(fm_flows | jq '[.[] | select(.dirs[0].dport == 5300 and .state == "made")] | length')
	[ "$m" = $N ] && [ "$(fm_ctl status --json | jq .counters.rescan_lost)" = "$(stat_sum events_lost)" ] &&
		{ ok=0; break; }
	sleep 1
done
# every crossing lost so far, those after the first count included (a
# slow guest loses more while npuflowd catches up)
lost_all=$(stat_sum events_lost)
diag "after ~$i s: $m of $N made, coprocessor $(fp fp_conns), $lost_all events lost in all; $(fm_ctl status --json | jq -c '.counters | {events, rescans, rescanned, rescan_lost, made}')"
ktap_result $([ "$lost" -gt 0 ]; echo $?) "the full ring lost threshold events ($lost)"
ktap_result $ok "npuflowd rescanned the candidates: all $N connections made"
ktap_result $([ "$(fm_ctl status --json | jq '.counters.rescans >= 1 and .counters.rescanned >= 1 and .counters.rescanned <= '"$lost_all")" = true ] &&
	[ "$(fp fp_conns)" -ge $N ]; echo $?) \
	"rescans counted, each lost crossing handed over at most once, the coprocessor holds them"
[ "$KTAP_FAIL" = 0 ] || tail -40 $FM_LOG | sed 's/^/# /'
ktap_finish
