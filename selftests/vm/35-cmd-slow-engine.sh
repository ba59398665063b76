#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A slow command engine with table writes queued (the model's debugfs
# cmd_delay_us: 80 ms a command, 48 posted creates queued behind a stalled
# ring): the once-a-second statistics read neither waits behind the writes
# nor costs a ring reset and a replay; a read that times out (cmd_stall) is
# counted and taken again the next second, not reported to devlink health;
# a stopped engine (reads timing out one after another) is, after three.
# Counts only: the cmd reporter's error/recover, resyncs and replayed (and
# the fw reporter's replayed), connections in the driver and the
# coprocessor, fp_stats_reads, fp_cmd_failed.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 9
DL=auxiliary/npusim.npu.0
DBG=/sys/kernel/debug/npusim/0
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# health: "error recover resyncs replayed" of the cmd reporter, the fw
# reporter's replayed added to the cmd one's (each devlink call is slow
# under TCG: one snapshot a phase)
health() {
	local er rr fw
	er=$(devlink -j health show $DL reporter cmd |
		jq -r '[.. | objects | select(.reporter? != null)][0] | "\(.error) \(.recover)"')
	rr=$(devlink -j health diagnose $DL reporter cmd |
		jq -r '[.. | objects | select(has("resyncs"))][0] | "\(.resyncs) \(.replayed // 0)"')
	fw=$(devlink -j health diagnose $DL reporter fw |
		jq -r '[.. | objects | select(has("replayed"))][0].replayed')
	echo "$er ${rr% *} $(( ${rr#* } + fw ))"
}
read_timeouts() { cmd_ring_sum read_timeouts; }
fp() { eth_stat "$P3" "$1"; }
# wait_until SECONDS CMD...: until CMD succeeds, for at most SECONDS of the
# clock (each try reads devlink or ethtool, slow under TCG)
wait_until() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.1; done
}
in_hw() { [ "$(fp fp_conns)" = "$1" ] && [ "$(fp hw_fp_conns)" = "$1" ]; }
reads_past() { [ "$(fp fp_stats_reads)" -gt "$1" ]; }
read_timeouts_past() { [ "$(read_timeouts)" -gt "$1" ]; }
# rules FIRST COUNT: COUNT one-direction UDP rules, a connection each
rules() {
	local i
	for i in $(seq "$1" $(($1 + $2 - 1))); do
		echo "filter add dev $P3 ingress protocol ip prio 1 flower skip_sw ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port $((4000 + i)) dst_port 5000 action mirred egress redirect dev $P8"
	done | tc -batch -
}

npu_load && npu_new 0 2 1 || { ktap_fail "setup"; ktap_finish; }
P3=$(npu_port_dev 0 1) P8=$(npu_port_dev 0 2)
[ -e $DBG/cmd_delay_us ] || { ktap_fail "the model has cmd_delay_us"; ktap_finish; }
for d in "$P3" "$P8"; do
	ip link set "$d" up
	ethtool -K "$d" hw-tc-offload on
	tc qdisc add dev "$d" clsact
done

rules 1 8
ok=1; wait_until 5 in_hw 8 && wait_until 5 reads_past 0 && ok=0
ktap_result $ok "8 connections in hardware, their statistics read ($(fp fp_stats_reads) reads)"
h0=$(health) f0=$(fp fp_cmd_failed)

# 48 creates queued behind a stalled ring (more than its 32 slots: the rest
# wait in the driver's backlog), then the engine resumes, slowly: 3.8 s of
# writes on the normal ring, longer than a waited command's 2 s timeout.
inject cmd_stall 1
rules 9 48; rc=$?
inject cmd_delay_us 80000
st0=$(fp fp_stats_reads)
inject cmd_stall 0
ok=1; wait_until 20 in_hw 56 && ok=0
st1=$(fp fp_stats_reads)
inject cmd_delay_us 0
h1=$(health)
diag "tc rc $rc; slow engine: $(fp fp_conns)/$(fp hw_fp_conns) in driver/coprocessor; stats reads $st0 -> $st1 while the writes drained"
diag "cmd error recover resyncs replayed: $h0 -> $h1; read timeouts $(read_timeouts)"
ktap_result $([ $rc = 0 ] && [ $ok = 0 ]; echo $?) "a slow engine: all 56 connections reach the coprocessor"
ktap_result $([ "$st1" -gt "$st0" ]; echo $?) \
	"statistics are read while 48 writes are queued ($st0 -> $st1)"
ktap_result $([ "$h1" = "$h0" ]; echo $?) \
	"no ring reset and no replay (cmd error, recover, resyncs, replayed unchanged)"

# A read that times out: the engine stops for longer than a waited command's
# timeout, then resumes.  The timeout is counted, nothing is reset.
t0=$(read_timeouts)
inject cmd_stall 1
ok=1; wait_until 8 read_timeouts_past "$t0" && ok=0
inject cmd_stall 0
st2=$(fp fp_stats_reads)
h2=$(health)
diag "stalled: read timeouts $t0 -> $(read_timeouts); cmd error recover resyncs replayed: $h0 -> $h2"
ktap_result $([ $ok = 0 ] && [ "$h2" = "$h0" ]; echo $?) \
	"a statistics read that times out is counted (read_timeouts), not reported: no reset"
ok=1; wait_until 6 reads_past "$st2" && ok=0
diag "engine moving again: stats reads $st2 -> $(fp fp_stats_reads)"
ktap_result $ok "statistics are read again once the engine moves"
ktap_result $(in_hw 56 && [ "$(fp fp_cmd_failed)" = "$f0" ]; echo $?) \
	"56 connections still in the driver and the coprocessor, no command failed"

# The engine stops for good: one read after another times out, and the
# third in a row is reported as a stopped engine must be, though nothing
# but reads is waited for.  Once the engine moves again (and the operator's
# devlink health recover, if the automatic one ran while it was stopped)
# the connections are in hardware again.
h3=$(health)
errors_past() { [ "$(devlink -j health show $DL reporter cmd |
	jq -r '[.. | objects | select(.reporter? != null)][0].error')" -gt "$1" ]; }
inject cmd_stall 1
ok=1; wait_until 25 errors_past "${h3%% *}" && ok=0
inject cmd_stall 0
wait_until 10 in_hw 56 || { devlink health recover $DL reporter cmd; wait_until 20 in_hw 56; }
h4=$(health)
diag "stopped: read timeouts $(read_timeouts); cmd error recover resyncs replayed: $h3 -> $h4"
ktap_result $ok "a stopped engine is reported after three reads in a row time out (cmd error ${h3%% *} -> ${h4%% *})"
ktap_result $(in_hw 56; echo $?) "once it moves again, 56 connections in hardware"
tc filter del dev "$P3" ingress
wait_until 5 in_hw 0
ktap_finish
