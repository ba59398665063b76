#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Receive doorbell moderation (ethtool -C) that visibly works, in counts:
# one UDP stream pc -> far (port 3 receives only: no transmit completions
# share its vector) at rx-frames 1 and at rx-frames 32, the interrupts per
# received frame as the driver and the model count them; the model holds
# what -C set; adaptive-rx (DIM) moves the model's moderation under the
# stream, back to its first profile when idle, and the static values come
# back when it is turned off; every
# configuration ethtool -c reports can be written back unchanged; a refused
# -C says why (extack), so does a refused -L.
# timeout: 300
# guest: alone (DIM moves only at the rate a stream reaches at full speed)
. "$(dirname "$0")/lib.sh"
ktap_plan 11
DBG=/sys/kernel/debug/npusim/0

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null
iperf_server far 5201 many
wait_listen far 5201

# model Q FIELD: a field of the model's queue pair Q of port 3.
model() { awk -v k="$2" '$1 == k { print $2 }' $DBG/p3/q$1; }
# stream: 3 s of UDP pc -> far at ~1,000 frames/s; sets FR (frames port 3
# took), IRQ (interrupts on its vectors), HWIRQ (the model's raises),
# DBF/PLF (frames taken by doorbell / by poll passes).
# sums FILE: "frames irqs raises doorbell-frames poll-frames" of one
# ethtool -S snapshot (one read: no frame lands between the counters).
sums() {
	awk '{ k = $1; sub(":$", "", k) }
		k ~ /^rx_q[0-9]+_packets$/ { f += $2 } k ~ /^rx_q[0-9]+_doorbell_irqs$/ { i += $2 }
		k ~ /^hw_rx_q[0-9]+_irqs$/ { h += $2 } k ~ /doorbell_frames$/ { d += $2 }
		k ~ /poll_frames$/ { p += $2 }
		END { print f + 0, i + 0, h + 0, d + 0, p + 0 }' "$1"
}
stream() {
	local f0 i0 h0 d0 p0 f1 i1 h1 d1 p1
	ethtool -S "$P3" > /tmp/coal-s0
	ip netns exec pc iperf3 -u -c $FAR4 -b 8M -l 1000 -t 3 >/dev/null 2>&1
	sleep 0.2	# the last frames through the poll
	ethtool -S "$P3" > /tmp/coal-s1
	read -r f0 i0 h0 d0 p0 <<< "$(sums /tmp/coal-s0)"
	read -r f1 i1 h1 d1 p1 <<< "$(sums /tmp/coal-s1)"
	FR=$((f1 - f0)) IRQ=$((i1 - i0)) HWIRQ=$((h1 - h0)) DBF=$((d1 - d0)) PLF=$((p1 - p0))
}

# ---- rx-frames 1 vs 32, the same stream -------------------------------------
ethtool -C "$P3" rx-frames 1 rx-usecs 0
stream
diag "rx-frames 1: $FR frames, $IRQ interrupts (model raised $HWIRQ); by doorbell $DBF, by poll $PLF"
ktap_result $([ "$FR" -gt 1000 ] && [ $((IRQ * 10)) -ge $((FR * 9)) ]; echo $?) \
	"rx-frames 1: an interrupt per frame ($IRQ for $FR)"
fr1=$FR
ethtool -C "$P3" rx-frames 32 rx-usecs 0
ktap_result $([ "$(model 0 coal_frames)/$(model 0 coal_usecs)" = 32/0 ] &&
	[ "$(model 1 coal_frames)/$(model 1 coal_usecs)" = 32/0 ]; echo $?) \
	"the model's queues hold rx-frames 32 rx-usecs 0 (debugfs)"
stream
diag "rx-frames 32: $FR frames, $IRQ interrupts (model raised $HWIRQ); by doorbell $DBF, by poll $PLF"
# The frames that do not wait for a 32nd are taken by the safety-net poll
# (the watchdog's 100 ms): every frame is still received.
ktap_result $([ "$FR" -gt 1000 ] && [ $((FR * 10)) -ge $((fr1 * 9)) ] &&
	[ $((IRQ * 16)) -le "$FR" ] && [ $((DBF + PLF)) = "$FR" ]; echo $?) \
	"rx-frames 32: at most one interrupt per 16 frames ($IRQ for $FR), every frame taken"
ktap_result $([ "$IRQ" = "$HWIRQ" ]; echo $?) \
	"the driver took every interrupt the model raised ($IRQ of $HWIRQ)"

# ---- adaptive-rx: DIM moves the model's moderation ---------------------------
ethtool -C "$P3" rx-frames 1 rx-usecs 0 adaptive-rx on
pre0=$(model 0 coal_frames)/$(model 0 coal_usecs) pre1=$(model 1 coal_frames)/$(model 1 coal_usecs)
ip netns exec pc iperf3 -u -c $FAR4 -b 40M -l 1000 -t 4 >/dev/null 2>&1 &
ipid=$!
seen=""
for i in $(seq 8); do
	sleep 0.5
	seen+="$(model 0 coal_frames)/$(model 0 coal_usecs),$(model 1 coal_frames)/$(model 1 coal_usecs) "
done
wait $ipid
diag "adaptive-rx on under the stream, the model's q0,q1 every 0.5 s (before: $pre0,$pre1): $seen"
ktap_result $(echo "$seen" | tr ' ' '\n' | grep -v '^$' | grep -qvx "$pre0,$pre1"; echo $?) \
	"adaptive-rx on: DIM changed the model's moderation under the stream"
# Idle: a queue DIM moved goes back to DIM's first profile (net_dim's
# RX EQE profile 0: 256 frames, 1 us) within the driver's idle time (1 s)
# and a poll, with no frame to decide on.
# The queues DIM left elsewhere than where they started and than its first
# profile when the stream ended: those must come back.
away=""
for q in 0 1; do
	m=$(model $q coal_frames)/$(model $q coal_usecs)
	pre=$([ $q = 0 ] && echo "$pre0" || echo "$pre1")
	[ "$m" != "$pre" ] && [ "$m" != 256/1 ] && away+="$q "
done
back=""
for i in $(seq 30); do
	[ -z "$away" ] && break
	sleep 0.1
	back=""
	for q in $away; do
		m=$(model $q coal_frames)/$(model $q coal_usecs)
		[ "$m" = 256/1 ] || back+="q$q:$m "
	done
	[ -z "$back" ] && break
done
diag "idle after the stream: left elsewhere: ${away:-none}; $(model 0 coal_frames)/$(model 0 coal_usecs),$(model 1 coal_frames)/$(model 1 coal_usecs) after $((i * 100)) ms"
if [ -z "$away" ]; then
	ktap_skip "adaptive-rx on, idle: nothing to bring back (DIM ended the stream on its first profile)"
else
	ktap_result $([ -z "$back" ]; echo $?) \
		"adaptive-rx on, idle: the queues DIM left moved ($away) are back at its first profile (256/1)${back:+, not: $back}"
fi
ethtool -C "$P3" adaptive-rx off
ktap_result $([ "$(model 0 coal_frames)/$(model 0 coal_usecs)" = 1/0 ] &&
	[ "$(model 1 coal_frames)/$(model 1 coal_usecs)" = 1/0 ] &&
	ethtool -c "$P3" | grep -q '^Adaptive RX: off'; echo $?) \
	"adaptive-rx off: the static rx-frames 1 rx-usecs 0 are back in the model"

# ---- what ethtool -c reports can be written back -----------------------------
# coal DEV: "adaptive-rx rx-usecs rx-frames rx-frames-irq" as -c reports them.
coal() {
	ethtool -c "$1" | awk '/^Adaptive RX:/ { a = $3 } $1 == "rx-usecs:" { u = $2 }
		$1 == "rx-frames:" { f = $2 } $1 == "rx-frames-irq:" { i = $2 }
		END { print a, u, f, i }'
}
bad=""
for cfg in "" "rx-usecs 50 rx-frames 32" "rx-frames 0" "rx-usecs 100000 rx-frames 4096 rx-frames-irq 1" \
	"adaptive-rx on rx-frames-irq 64" "adaptive-rx off rx-usecs 0 rx-frames 1"; do
	# shellcheck disable=SC2086
	[ -n "$cfg" ] && { ethtool -C "$P3" $cfg || bad+="[set $cfg] "; }
	set -- $(coal "$P3")
	# every field as reported, after another value of one of them: the
	# driver's set path judges them all
	ethtool -C "$P3" rx-frames-irq $(( $4 == 64 ? 63 : 64 )) || bad+="[irq $cfg] "
	ethtool -C "$P3" adaptive-rx "$1" rx-usecs "$2" rx-frames "$3" rx-frames-irq "$4" ||
		bad+="[write back $*] "
	[ "$(coal "$P3")" = "$*" ] || bad+="[reads $(coal "$P3") not $*] "
	diag "${cfg:-the defaults}: -c reports '$*', written back"
done
ktap_result $([ -z "$bad" ]; echo $?) "every configuration -c reports is taken back unchanged ${bad}"

# ---- refusals say why --------------------------------------------------------
before=$(coal "$P3") bad=""
refused() {	# MESSAGE ARGS...: ethtool -C ARGS fails and prints MESSAGE
	local msg=$1 out; shift
	out=$(ethtool -C "$P3" "$@" 2>&1) && { bad+="[accepted $*] "; return; }
	echo "$out" | grep -qF "$msg" || bad+="[$* said: $out] "
	diag "ethtool -C $*: $out"
}
refused "rx-usecs must be at most 100000" rx-usecs 100001
refused "rx-frames must be at most 4096" rx-frames 4097
refused "rx-frames-irq (per-queue NAPI budget) must be 1 to 64" rx-frames-irq 0
refused "rx-frames-irq (per-queue NAPI budget) must be 1 to 64" rx-frames-irq 65
ktap_result $([ -z "$bad" ] && [ "$(coal "$P3")" = "$before" ]; echo $?) \
	"a refused -C says why (extack) and changes nothing ${bad}"
# 6.12's ethtool core judges -L itself before the driver (the maximum, an
# ntuple rule's queue) and says why through extack; the driver's own checks
# log their reason (set_channels has no extack).
ethtool -N "$P3" flow-type udp4 dst-port 5000 action 1 loc 5
o1=$(ethtool -L "$P3" combined 1 2>&1); r1=$?
o2=$(ethtool -L "$P3" combined 3 2>&1); r2=$?
diag "ethtool -L combined 1 (rule 5 steers to queue 1): rc $r1: $o1"
diag "ethtool -L combined 3: rc $r2: $o2"
ktap_result $([ $r1 != 0 ] && echo "$o1" | grep -q 'too low for existing ntuple filter' &&
	[ $r2 != 0 ] && echo "$o2" | grep -q 'exceeds maximum' &&
	[ "$(ethtool -l "$P3" | awk '$1 == "Combined:" { n = $2 } END { print n }')" = 2 ]; echo $?) \
	"a refused -L says why and changes nothing (2 queues)"
ethtool -N "$P3" delete 5
ktap_finish
