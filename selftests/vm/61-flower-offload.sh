#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tc flower skip_sw rules on npuep ports forward a UDP flow in the fast
# path (both directions paired into one connection); `tc -s filter show`
# reports the hardware's counters; unsupported rules are refused with an
# extack message; a port driven by flower refuses a flowtable and back.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 18

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
topo_pc_far 0; ktap_result $? "topology"
flower_ports

# pc:4000 -> far:5000 over UDP, routed: MACs rewritten, TTL decremented.
check "flower skip_sw pc -> far" tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
	action pedit ex munge eth dst set "$farmac" munge eth src set "$(mac "$P8")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P8"
check "flower skip_sw far -> pc" tc filter add dev "$P8" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $FAR4 dst_ip $PC4 src_port 5000 dst_port 4000 \
	action pedit ex munge eth dst set "$pcmac" munge eth src set "$(mac "$P3")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P3"
check "both rules are in hardware (in_hw)" bash -c \
	"tc -j filter show dev $P3 ingress | jq -e '.[] | select(.options) | .options.in_hw' && \
	 tc -j filter show dev $P8 ingress | jq -e '.[] | select(.options) | .options.in_hw'"

# Ask the neighbours first so nothing else crosses the host during the count.
ip netns exec pc ping -c 1 -W 2 $FAR4 >/dev/null
fw0=$(eth_sum "$P3" '^hw_fwd_frames$'); miss0=$(eth_sum "$P3" '^hw_punt_flow_miss$')
ip netns exec far socat -u UDP-RECV:5000 OPEN:/tmp/far-udp.out,create,trunc &
rpid=$!
sleep 1
udp_pc_far 200
sleep 2
kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
got=$(grep -c datagram /tmp/far-udp.out)
fw=$(( $(eth_sum "$P3" '^hw_fwd_frames$') - fw0 )); miss=$(( $(eth_sum "$P3" '^hw_punt_flow_miss$') - miss0 ))
diag "far received $got datagrams; port 3 forwarded $fw in hardware, punted $miss as flow misses"
ktap_result $([ "$got" -ge 200 ]; echo $?) "far receives the datagrams"
ktap_result $([ "$fw" -ge 200 ] && [ "$miss" = 0 ]; echo $?) "the fast path forwarded them, none crossed the host"
sleep 2	# stats read back every second
pk=$(tc -s -j filter show dev "$P3" ingress | jq '[.[] | select(.options) | .options.actions[0].stats.hw_packets // .options.actions[0].stats.packets] | add')
diag "tc -s: $pk packets in hardware"
ktap_result $([ "${pk:-0}" -ge 200 ]; echo $?) "tc -s filter show reports the hardware's packets"

err=$(tc filter add dev "$P3" ingress protocol ip prio 2 flower skip_sw ip_proto udp dst_ip $FAR4 \
	action mirred egress redirect dev "$P8" 2>&1)
diag "$err"
ktap_result $(echo "$err" | grep -q 'exact'; echo $?) "a wildcard rule is refused with a reason"
check_fail "nftables flowtable on a flower-driven port is refused" nft -f - <<NFT
table inet t { flowtable f { hook ingress priority 0; devices = { $P3 }; flags offload; } }
NFT
nft flush ruleset 2>/dev/null
tc filter del dev "$P3" ingress
tc filter del dev "$P8" ingress
fl=$(ethtool -S "$P3" | awk '$1 == "fp_conns:" { print $2 }')
ktap_result $([ "${fl:-1}" = 0 ]; echo $?) "deleting the rules takes the connection out"

# A connection's directions written one after the other (npuflowd writes
# each when its frames show): what the first forwarded alone, read by the
# driver before the second joins it, still reaches tc after the join.
hw_pk() {
	tc -s -j filter show dev "$1" ingress |
		jq '[.[] | select(.options) | .options.actions[0].stats.hw_packets // .options.actions[0].stats.packets] | add'
}
tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
	action pedit ex munge eth dst set "$farmac" munge eth src set "$(mac "$P8")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P8"
udp_pc_far 100
sleep 1.5	# the driver reads the device's counters once a second
made() { awk '$1 == "created" { print $2 }' /sys/kernel/debug/npusim/0/fp_stats; }
m0=$(made)
tc filter add dev "$P8" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $FAR4 dst_ip $PC4 src_port 5000 dst_port 4000 \
	action pedit ex munge eth dst set "$pcmac" munge eth src set "$(mac "$P3")" \
	munge ip ttl add 255 pipe action csum ip udp pipe \
	action mirred egress redirect dev "$P3"
ip netns exec far python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('', 5000))
for i in range(50):
    s.sendto(b'reply-%d' % i, ('$PC4', 4000))
    time.sleep(0.005)
"
sleep 2.5
p3=$(hw_pk "$P3"); p8=$(hw_pk "$P8"); m1=$(made)
diag "pc -> far sent 100 before the reply's rule, far -> pc 50 after it: tc -s shows $p3 and $p8 packets; the coprocessor made $((m1 - m0)) connections for the join"
ktap_result $([ "$p3" = 100 ] && [ "$p8" = 50 ]; echo $?) \
	"the first direction's packets survive the second's write"
ktap_result $([ "$m1" = "$m0" ]; echo $?) \
	"the second direction joins the connection in place: the coprocessor makes none"
tc filter del dev "$P3" ingress
tc filter del dev "$P8" ingress
for i in $(seq 50); do [ "$(ethtool -S "$P3" | awk '$1 == "hw_fp_conns:" { print $2 }')" = 0 ] && break; sleep 0.1; done

# A command-ring reset (health "cmd" recovery) drops what the device had not
# executed.  Here a posted reclaim, behind a stalled channel: without a
# resync the coprocessor would keep a connection the driver no longer has.
DL=auxiliary/npusim.npu.0; DBG=/sys/kernel/debug/npusim/0
fp() { ethtool -S "$P3" | awk -v k="$1:" '$1 == k { print $2 }'; }
devlink dev param set $DL name flow_cmd_posted value true cmode runtime
devlink health set $DL reporter cmd auto_recover false
tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
	action mirred egress redirect dev "$P8"
sleep 0.5
c0="$(fp fp_conns)/$(fp hw_fp_conns)"
inject cmd_stall 1
tc filter del dev "$P3" ingress		# a posted reclaim, not executed
ip link set "$P3" mtu 1400 2>/dev/null	# a waited command: times out
inject cmd_stall 0
st=$(devlink -j health show $DL reporter cmd | jq -r '.. | objects | select(.reporter?) | .state')
diag "before: driver/coprocessor connections $c0; after the stalled delete $(fp fp_conns)/$(fp hw_fp_conns), reporter $st"
ktap_result $([ "$c0" = 1/1 ] && [ "$(fp fp_conns)" = 0 ] && [ "$(fp hw_fp_conns)" = 1 ] && [ "$st" = error ]; echo $?) \
	"a stalled channel: the driver took the connection out, the device not yet"
devlink health recover $DL reporter cmd
sleep 0.5
rs=$(devlink -j health diagnose $DL reporter cmd | jq '.. | objects | select(.resyncs?) | .resyncs')
diag "after the recover: $(fp fp_conns)/$(fp hw_fp_conns), resyncs $rs"
ktap_result $([ "$(fp fp_conns)" = 0 ] && [ "$(fp hw_fp_conns)" = 0 ] && [ "$rs" = 1 ]; echo $?) \
	"the recovery found the lost reclaim and re-programmed the fast path: both 0"

# More posted writes than the ring has slots (32), behind a stalled channel:
# the driver queues them behind the ring (the cmd reporter's "backlog"), tc
# returns at once, and every one reaches the device, in order, once it moves
# (the driver rings the doorbell again while the ring stands still).
backlog() { cmd_ring_sum backlog; }
f0=$(fp fp_cmd_ring_full) e0=$(fp fp_cmd_failed)
inject cmd_stall 1
for i in $(seq 40); do
	echo "filter add dev $P3 ingress protocol ip prio 1 flower skip_sw ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port $((4100 + i)) dst_port 5000 action mirred egress redirect dev $P8"
done | tc -batch -; rc=$?
bl=$(backlog); c1="$(fp fp_conns)/$(fp hw_fp_conns)"
inject cmd_stall 0
for i in $(seq 100); do [ "$(fp hw_fp_conns)" = 40 ] && [ "$(backlog)" = 0 ] && break; sleep 0.1; done
diag "tc rc $rc; stalled: driver/coprocessor $c1, backlog $bl, ring-full posts $(( $(fp fp_cmd_ring_full) - f0 )); moving again: $(fp fp_conns)/$(fp hw_fp_conns), backlog $(backlog)"
ktap_result $([ $rc = 0 ] && [ "$c1" = 40/0 ] && [ "${bl:-0}" -ge 8 ]; echo $?) \
	"40 posted writes behind a stalled ring: tc succeeds, the driver holds them in its backlog"
ktap_result $([ "$(fp fp_conns)" = 40 ] && [ "$(fp hw_fp_conns)" = 40 ] && [ "$(backlog)" = 0 ] && [ "$(fp fp_cmd_failed)" = "$e0" ]; echo $?) \
	"the channel moves again: all 40 in the coprocessor, backlog empty, no command failed"
tc filter del dev "$P3" ingress
for i in $(seq 50); do [ "$(fp hw_fp_conns)" = 0 ] && break; sleep 0.1; done
devlink health set $DL reporter cmd auto_recover true

# hw-tc-offload cannot be turned off under offloaded rules (mlx5's rule):
# were it off, tc's DESTROY would never reach the driver and the connection
# would go on in the coprocessor after its rules are gone.  Whatever the
# feature says, a delete takes the connection out of both.
tc filter add dev "$P3" ingress protocol ip prio 1 flower skip_sw \
	ip_proto udp src_ip $PC4 dst_ip $FAR4 src_port 4000 dst_port 5000 \
	action mirred egress redirect dev "$P8"
for i in $(seq 50); do [ "$(fp hw_fp_conns)" = 1 ] && break; sleep 0.1; done
err=$(ethtool -K "$P3" hw-tc-offload off 2>&1); rc=$?
on=$(ethtool -k "$P3" | awk '$1 == "hw-tc-offload:" { print $2 }')
diag "ethtool -K hw-tc-offload off under a rule: rc $rc, feature $on: $err"
ktap_result $([ "$on" = on ]; echo $?) \
	"hw-tc-offload stays on while a rule is offloaded"
tc filter del dev "$P3" ingress
for i in $(seq 50); do [ "$(fp hw_fp_conns)" = 0 ] && break; sleep 0.1; done
# The refused request stays wanted ("on [requested off]"): asked again from on.
ethtool -K "$P3" hw-tc-offload on; ethtool -K "$P3" hw-tc-offload off; rc=$?
diag "after the delete: driver/coprocessor $(fp fp_conns)/$(fp hw_fp_conns); turning it off: rc $rc"
ktap_result $([ "$(fp fp_conns)" = 0 ] && [ "$(fp hw_fp_conns)" = 0 ] && [ $rc = 0 ]; echo $?) \
	"the delete emptied the driver and the coprocessor; then the feature goes off"
ethtool -K "$P3" hw-tc-offload on
ktap_finish
