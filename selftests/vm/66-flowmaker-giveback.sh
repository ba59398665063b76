#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Give-back with the flow maker (issue 5, "Must show"; seed 004): a stream
# made by npuflowd (flower skip_sw rules) is given back by the model.
#   - revive on (the default): the driver revives it in place from its
#     receive path after a handful of punted frames;
#   - revive off and the identities expired (fp_expire_ms): its frames miss,
#     npuflowd sees the connection cross the threshold again, takes it out,
#     holds it for the first wait (--hold-min-ms) and makes it again.
# Counts only; times belong to the benchmark.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 7
LOAD=$NPU_REPO/build/bin/npuload
DBG=/sys/kernel/debug/npusim/0
DL=auxiliary/npusim.npu.0
st() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { s += $2 } END { print s + 0 }'; }
na() { echo $(( $(st "$P3" hw_punt_not_active) + $(st "$P8" hw_punt_not_active) )); }
fmc() { fm_ctl status --json | jq ".counters.$1"; }
trap fm_cleanup EXIT

fm_setup
# Give-backs here come from the debugfs knob only: under TCG the transitions
# retransmit, and the retransmit rule (63's subject) would give back again.
echo 0 > $DBG/fp_retrans_max
fm_start --hold-min-ms 1000; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201
fm_stream $FAR4 240
fm_wait_jq 30 '[.[] | select(.dirs[0].dport == 5201 and .state == "made")] | length == 1'
ktap_result $? "the stream's connection is made"
sleep 2

# revive in place from the receive path
n0=$(na); r0=$(st "$P3" fp_revived)
for i in $(seq 0 15); do echo $i > $DBG/fp_giveback 2>/dev/null; done
sleep 3
n=$(( $(na) - n0 )); r=$(( $(st "$P3" fp_revived) - r0 ))
diag "given back: $n frames punted not-active, $r revives; npuflowd: revives $(fmc revives), state $(fm_flows | jq -c '[.[].state]')"
ktap_result $([ "$r" -ge 1 ] && [ "$n" -ge 1 ] && [ "$n" -le $((r * 32)) ] &&
	[ "$(fm_flows | jq -r '[.[] | select(.state == "made")] | length')" = 1 ]; echo $?) \
	"revived in place after at most 32 punted frames per revive ($n for $r), still made"

# identities expire with revive off: held, then made again after the wait
devlink dev param set $DL name revive value false cmode runtime
echo 200 > $DBG/fp_expire_ms
g0=$(fmc givebacks); m0=$(fmc remade); h0=$(fmc held)
for i in $(seq 0 15); do echo $i > $DBG/fp_giveback 2>/dev/null; done
ok=1
for i in $(seq 60); do
	[ $(( $(fmc remade) - m0 )) -ge 1 ] && [ "$(fm_flows | jq -r '[.[] | select(.state == "made")] | length')" = 1 ] && { ok=0; break; }
	sleep 0.5
done
diag "after ~$((i / 2)) s: givebacks $(( $(fmc givebacks) - g0 )), held $(( $(fmc held) - h0 )), remade $(( $(fmc remade) - m0 )); model: $(tr '\n' ' ' < $DBG/fp_stats)"
ktap_result $([ $(( $(fmc givebacks) - g0 )) -ge 1 ] && [ $(( $(fmc held) - h0 )) -ge 1 ]; echo $?) \
	"the new identities are seen as a give-back and held"
ktap_result $ok "made again after the wait"
sleep 3
h0=$(ip_punts)
w0=$(link_stat -n far npuw0p8 rx_packets)
sleep 5
h=$(( $(ip_punts) - h0 ))
w=$(( $(link_stat -n far npuw0p8 rx_packets) - w0 ))
diag "after the remake: far received $w frames in 5 s, the host took $h IP frames"
ktap_result $([ "$w" -gt 500 ] && [ $((h * 100)) -lt "$w" ]; echo $?) \
	"the stream is back in hardware (host share < 1 %)"
devlink dev param set $DL name revive value true cmode runtime
[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
