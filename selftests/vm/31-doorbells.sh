#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Seeds 000 and 001 as a test.  Doorbells off, a poll every 10 ms and a
# per-queue budget of 16: NAPI repolls while work remains (rx_q<N>_repolls),
# so a queue is not held to seed 000's one budget a poll (its ceiling:
# 16 x 100 x 1448 B = 18.5 Mbit/s); what remains is ring depth x poll rate
# (1,024 x 100 x 1,448 B = 1.19 Gbit/s), far above what TCG reaches.
# The poll's timer runs more often than the watchdog could (its 10 ms, not
# 100 ms).  Doorbells on (poll_interval_us still 10 ms): the poll is a
# watchdog, at most two runs per 100 ms of the window, and >= 95 % of the
# frames are taken by doorbell passes (seed 001's table).
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 11
SEED000_BPS=18500000

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
DL=auxiliary/npusim.npu.0

check "rx_doorbells=false (driverinit)" \
	devlink dev param set $DL name rx_doorbells value false cmode driverinit
check "devlink dev reload applies it" devlink dev reload $DL
check "poll_interval_us=10000 (runtime)" \
	devlink dev param set $DL name poll_interval_us value 10000 cmode runtime
topo_pc_far 0; ktap_result $? "topology"
for d in "$P3" "$P8"; do ethtool -C "$d" rx-frames-irq 16; done
diag "$(ethtool -c "$P3" | grep -E 'rx-frames-irq|rx-usecs:|rx-frames:' | xargs)"

iperf_server far
# P3's queues from one ethtool -S: frames by doorbell and by the poll,
# NAPI runs the poll started, polls that took their whole budget
napi_counts() {
	ethtool -S "$P3" | awk '{ k = $1; sub(":$", "", k) }
		k ~ /_doorbell_frames$/ { d += $2 } k ~ /_poll_frames$/ { p += $2 }
		k ~ /_poll_runs$/ { r += $2 } k ~ /_repolls$/ { q += $2 }
		END { print d + 0, p + 0, r + 0, q + 0 }'
}
read -r db0 pl0 runs0 rep0 <<< "$(napi_counts)"
poll_runs_start || diag "no trace of the poll's timer"
bps=$(iperf_bps pc $FAR4 10)
poll_runs_stop
read -r db pl runs rep <<< "$(napi_counts)"
pl=$((pl - pl0)) runs=$((runs - runs0)) rep=$((rep - rep0))
# The rate is TCG's, not asserted (tests count, benchmarks time): the
# remaining ceiling is ring depth x poll rate, 1,024 x 100 x 1,448 B.
diag "doorbells off, poll 10 ms, budget 16: ${bps:-0} bit/s (seed-000 ceiling $SEED000_BPS, ring ceiling 1186201600); frames by doorbell $db since the reload, by the poll $pl in $runs NAPI runs it started, $rep polls took their whole budget"
ktap_result $([ "$db" = 0 ] && [ "$pl" -gt 1000 ]; echo $?) \
	"poll only: every frame taken by the poll"
# Seed 000's ceiling: a run that stops at its budget caps the queue at 16
# frames a poll.  A poll that takes its whole budget is polled again at
# once (rx_q<N>_repolls counts them): a count, not TCG's rate.
ktap_result $([ "$rep" -gt 0 ]; echo $?) \
	"NAPI repolls while work remains: $rep polls took their whole budget and were polled again"
# No vector: the fast period, 10 ms.  A timer runs at most once a period
# in a window of the guest's clock (and two more: a late run); more than
# three times what the 100 ms watchdog could is the fast period, whatever
# TCG's pace.
diag "the poll's timer: $PR runs in $PR_MS ms on CPU(s) ${PR_CPUS:-none}"
ktap_result $([ "$PR" -le $((PR_MS / 10 + 2)) ] &&
	[ "$PR" -gt $((3 * (PR_MS / 100 + 2))) ]; echo $?) \
	"no vectors: the poll runs every 10 ms ($PR runs in $PR_MS ms)"

devlink dev param set $DL name rx_doorbells value true cmode driverinit
devlink dev reload $DL
devlink dev param set $DL name poll_interval_us value 10000 cmode runtime
wait_carrier "$P3"; wait_carrier "$P8"
ktap_result $(ip netns exec pc ping -c 2 -W 5 $FAR4 >/dev/null; echo $?) \
	"addresses and routes survive devlink dev reload"
db0=$(eth_sum "$P3" 'doorbell_frames'); pl0=$(eth_sum "$P3" 'poll_frames')
iperf_server far
poll_runs_start || diag "no trace of the poll's timer"
bps=$(iperf_bps pc $FAR4 10)
poll_runs_stop
db=$(( $(eth_sum "$P3" 'doorbell_frames') - db0 ))
pl=$(( $(eth_sum "$P3" 'poll_frames') - pl0 ))
share=$(( db * 1000 / (db + pl + 1) ))
diag "doorbells on, poll 10 ms: ${bps:-0} bit/s; frames by doorbell $db, by poll $pl (${share} permille)"
ktap_result $([ "${bps:-0}" -gt 1000000 ]; echo $?) "doorbells on: the stream runs"
ktap_result $([ "$share" -ge 950 ]; echo $?) ">= 95 % of frames taken by doorbell passes"
diag "the poll's timer: $PR runs in $PR_MS ms on CPU(s) ${PR_CPUS:-none}"
ktap_result $([ "$PR" -ge 1 ] && [ "$PR" -le $((PR_MS / 50 + 5)) ]; echo $?) \
	"every queue has its vector: the poll is a watchdog, $PR runs in $PR_MS ms, at most two per 100 ms"
ktap_finish
