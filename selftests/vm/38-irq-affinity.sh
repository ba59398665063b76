#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interrupts by affinity: the model's vectors honour /proc/irq/N/smp_affinity
# (its irq chip records the effective CPUs and the model raises each vector
# there, by IPI from another CPU), so /proc/interrupts counts each on the
# CPU the operator chose.  Under a ping stream pc <-> far through the host:
# every npuep vector to CPU 1, its effective mask reads 1 and only CPU 1's
# counts move; to CPU 0 and the reverse; back to 0-1.  The counted pings
# that span the three changes all come back.  An empty mask and one with no
# online CPU are refused and change nothing; a mask outlives a close and
# reopen of the port.  npuep's safety-net poll goes with queue 0's vector:
# in each window it runs only on the vectors' CPU, as a watchdog (every
# vector requested: at most two runs per 100 ms of the window, where the
# fast period's 1,000 a second would pass it many times over).
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 15
PINGS=1000

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ncpu=$(getconf _NPROCESSORS_ONLN)
diag "online CPUs $(cat /sys/devices/system/cpu/online), possible $(cat /sys/devices/system/cpu/possible)"
[ "$ncpu" = 2 ] || { diag "needs a guest of 2 vCPUs, has $ncpu"; ktap_fail "2 vCPUs"; ktap_finish; }

# The coprocessor's vectors npuep holds, by the names it requests them
# with: the command vector (the auxiliary device's name) and, per queue of
# an open port (3 and 8), <netdev>-q<Q>.
names="npusim.npu.0 $P3-q0 $P3-q1 $P8-q0 $P8-q1"
# vec_awk ACTION [END]: awk's ACTION on the lines of /proc/interrupts of
# those vectors, then END
vec_awk() {
	awk -v names="$names" "BEGIN { n = split(names, a); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		\$NF in want { $1 } END { ${2:-} }" /proc/interrupts
}
# counts: the vectors' interrupts on CPU 0 and on CPU 1, summed
counts() { vec_awk 'c0 += $2; c1 += $3' 'print c0 + 0, c1 + 0'; }
IRQS=$(vec_awk 'sub(":", "", $1); print $1' | xargs)
vec_awk 'print "# " $0'
ktap_result $([ "$(echo "$IRQS" | wc -w)" = 5 ]; echo $?) \
	"5 vectors (the command vector, 2 queues x ports 3 and 8) in /proc/interrupts"

# set_aff LIST: every vector's smp_affinity_list := LIST
set_aff() {
	local i
	for i in $IRQS; do echo "$1" > /proc/irq/$i/smp_affinity_list || return 1; done
}
# eff_is LIST: every vector's effective_affinity_list reads LIST
eff_is() {
	local i e
	for i in $IRQS; do
		read -r e < /proc/irq/$i/effective_affinity_list
		[ "$e" = "$1" ] || { diag "irq $i: effective $e, not $1"; return 1; }
	done
}
# ipis: the function-call IPIs CPU 0 and CPU 1 took (the cross-calls)
ipis() { awk '$1 == "CAL:" { print $2, $3 }' /proc/interrupts; }
# poll_on CPU: wait (5 s at most) for the poll's timer to be armed on CPU
# alone: the affinity notifier moves it from a work item
poll_on() {
	local i
	for i in $(seq 50); do
		[ "$(poll_timer_cpus)" = "$1" ] && return 0
		sleep 0.1
	done
	diag "the poll's timer is on CPU(s) '$(poll_timer_cpus)', not $1"
	return 1
}
# window LIST: the vectors to LIST, then over 1.5 s of the stream the
# interrupts each CPU took: D0 and D1; the function-call IPIs: I0 and I1;
# the poll's runs: PR, PR_CPUS, PR_MS (lib.sh)
window() {
	local a0 a1 b0 b1 c0 c1 e0 e1
	set_aff "$1" || return 1
	sleep 0.2	# an IPI raised before the write lands where it was sent
	poll_on "$1"
	read -r a0 a1 <<< "$(counts)"
	read -r c0 c1 <<< "$(ipis)"
	poll_runs_start || { diag "no trace of the poll's timer"; return 1; }
	sleep 1.5
	poll_runs_stop
	read -r b0 b1 <<< "$(counts)"
	read -r e0 e1 <<< "$(ipis)"
	D0=$((b0 - a0)) D1=$((b1 - a1)) I0=$((e0 - c0)) I1=$((e1 - c1))
}
# poll_follows CPU: the poll ran in the window, only on CPU, at most twice
# per 100 ms (the watchdog period, NPUEP_POLL_WATCHDOG_MS: a bound, not a
# rate, that the fast period's 1,000 a second would pass tenfold and more)
poll_follows() {
	diag "the poll: $PR runs in $PR_MS ms on CPU(s) ${PR_CPUS:-none}"
	ktap_result $([ "$PR_CPUS" = "$1" ] && [ "$PR" -ge 1 ] &&
		[ "$PR" -le $((PR_MS / 50 + 5)) ]; echo $?) \
		"the poll follows queue 0's vector to CPU $1: $PR runs in $PR_MS ms, all there, at most two per 100 ms"
}

ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null	# neighbours resolved
# the stream runs until the windows are over (however long TCG takes to
# move the poll: a count of pings ran out before the second window on a
# loaded host), then SIGALRM ends it with its summary (SIGINT comes in
# ignored to a background job)
ip netns exec pc ping -i 0.002 -W 5 $FAR4 > /tmp/38-ping.txt 2>&1 &
ppid=$!
sleep 0.5

window 1; ok=$?
diag "affinity 1: CPU 0 took $D0 interrupts, CPU 1 $D1; function-call IPIs $I0 and $I1"
[ $ok = 0 ] && eff_is 1
ktap_result $? "smp_affinity_list 1 written on every vector; effective_affinity_list reads 1"
ktap_result $([ $ok = 0 ] && [ "$D0" = 0 ] && [ "$D1" -gt 0 ]; echo $?) \
	"affinity 1: only CPU 1's counts move ($D0 on CPU 0, $D1 on CPU 1)"
poll_follows 1

window 0; ok=$?
diag "affinity 0: CPU 0 took $D0 interrupts, CPU 1 $D1; function-call IPIs $I0 and $I1"
[ $ok = 0 ] && eff_is 0
ktap_result $? "smp_affinity_list 0 written on every vector; effective_affinity_list reads 0"
ktap_result $([ $ok = 0 ] && [ "$D0" -gt 0 ] && [ "$D1" = 0 ]; echo $?) \
	"affinity 0: only CPU 0's counts move ($D0 on CPU 0, $D1 on CPU 1)"
poll_follows 0

set_aff 0-1 && eff_is 0-1
ktap_result $? "back to 0-1: effective_affinity_list reads 0-1"

kill -ALRM $ppid; wait $ppid
vec_awk 'print "# " $0'
tail -3 /tmp/38-ping.txt | sed 's/^/# /'
read -r tx rx <<< "$(awk '/packets transmitted/ { print $1, $4 }' /tmp/38-ping.txt)"
# the one in flight at the signal may go unanswered
ktap_result $([ "${tx:-0}" -ge $PINGS ] && [ "${rx:-0}" -ge $((tx - 1)) ]; echo $?) \
	"${tx:-0} pings across the three changes (at least $PINGS): every one answered (${rx:-0})"

# Refused: a mask with no CPU (the core's -EINVAL) and one of a CPU the
# guest does not have (the parser's -ERANGE, or -EINVAL for one offline).
i=${IRQS%% *}
set_aff 1
check_fail "an empty mask is refused" sh -c "echo 0 > /proc/irq/$i/smp_affinity"
check_fail "a mask of no online CPU is refused" sh -c "echo $ncpu > /proc/irq/$i/smp_affinity_list"
eff_is 1
ktap_result $? "the refused writes changed nothing: effective_affinity_list reads 1"
# The mask stays with the IRQ: port 3 closed and reopened frees and
# requests its vectors again, on the same IRQ numbers.
ip link set "$P3" down && ip link set "$P3" up && wait_carrier "$P3"
IRQS=$(vec_awk 'sub(":", "", $1); print $1' | xargs)
[ "$(echo "$IRQS" | wc -w)" = 5 ] && eff_is 1 && poll_on 1
ktap_result $? "port 3 closed and reopened: its vectors back, effective_affinity_list still 1, the poll on CPU 1"
set_aff 0-1
check "ping after the changes" ip netns exec pc ping -c 3 -i 0.2 -W 5 $FAR4
ktap_finish
