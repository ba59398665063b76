#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Binds and unbinds raced against reloads (issue 30, items 9 and 10): for
# a bounded time, at once,
#   - devlink reloads the device, resizing the connection table each time
#     (the reload frees the table the bind paths look at);
#   - an nftables flowtable "flags offload" is bound to ports 3 and 4 and
#     unbound (the flowtables' block-callback list);
#   - a tc block shared by ports 5 and 6, holding a skip_sw flower rule, is
#     bound and unbound, and bound to port 7 with hw-tc-offload off, which
#     fails and makes tc unroll the bind (tc's list, under rtnl only);
#   - the fw health reporter is diagnosed and dumped (it reads the table).
# Each kind must have run, the kernel must print no warning (the runner
# fails a run on one), the driver and the coprocessor must hold nothing
# afterwards, and the modules must unload.  The interleaving is not
# deterministic: the test guards the locking, it does not replay a race.
# Counts only.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 4
DL=auxiliary/npusim.npu.0
SECS=30
END=/tmp/6o.end
trap 'touch $END; wait; nft flush ruleset; rm -f $END /tmp/6o.*.n' EXIT

npu_load && npu_new 0 8 2 || { ktap_fail "setup"; ktap_finish; }
for p in 3 4 5 6 7; do eval "Q$p=$(npu_port_dev 0 $p)"; done
for d in "$Q3" "$Q4" "$Q5" "$Q6"; do ethtool -K "$d" hw-tc-offload on; done
ethtool -K "$Q7" hw-tc-offload off
ktap_ok "ports $Q3 $Q4 $Q5 $Q6 (offload on) and $Q7 (off)"
rm -f $END /tmp/6o.*.n

# loop NAME CMD...: run CMD until $END exists; the rounds in /tmp/6o.NAME.n
loop() {
	local name=$1 n=0

	shift
	while [ ! -e $END ]; do
		"$@" >/dev/null 2>&1
		n=$((n + 1))
	done
	echo $n > /tmp/6o.$name.n
}
reload() {
	local size=$(( RANDOM % 2 ? 8192 : 16384 ))

	devlink resource set $DL path /fastpath/connections size $size
	devlink dev reload $DL
}
ft_bind() {
	nft -f - <<NFT
table inet r {
	flowtable f { hook ingress priority 0; devices = { $Q3, $Q4 }; flags offload; }
}
NFT
	nft delete table inet r
}
tc_bind() {
	local d

	for d in "$Q5" "$Q6"; do tc qdisc add dev "$d" ingress_block 22 clsact; done
	tc filter add block 22 protocol ip prio 1 flower skip_sw ip_proto udp src_ip 10.9.0.1 \
		dst_ip 10.9.0.2 src_port 4000 dst_port 5000 action mirred egress redirect dev "$Q6"
	tc qdisc add dev "$Q7" ingress_block 22 clsact
	for d in "$Q5" "$Q6" "$Q7"; do tc qdisc del dev "$d" clsact; done
}
fw_read() {
	devlink health diagnose $DL reporter fw
	devlink health dump show $DL reporter fw
	devlink health dump clear $DL reporter fw
}

loop reload reload &
loop ft ft_bind &
loop tc tc_bind &
loop fw fw_read &
sleep $SECS
touch $END
wait
r=$(cat /tmp/6o.reload.n) f=$(cat /tmp/6o.ft.n) t=$(cat /tmp/6o.tc.n) h=$(cat /tmp/6o.fw.n)
diag "in $SECS s: $r reloads, $f flowtable binds, $t shared-block binds, $h fw reporter reads"
ktap_result $([ "$r" -gt 0 ] && [ "$f" -gt 0 ] && [ "$t" -gt 0 ] && [ "$h" -gt 0 ]; echo $?) \
	"reloads, flowtable binds, shared-block binds and fw reads raced"

nft flush ruleset
for d in "$Q5" "$Q6" "$Q7"; do tc qdisc del dev "$d" clsact 2>/dev/null; done
sleep 1
c="$(eth_stat "$Q3" fp_conns)/$(eth_stat "$Q3" hw_fp_conns)"
diag "afterwards: driver/coprocessor connections $c"
ktap_result $([ "$c" = 0/0 ]; echo $?) "the driver and the coprocessor hold nothing"
npu_unload
ktap_result $(! grep -qE '^(npuep|npusim) ' /proc/modules; echo $?) "the modules unload"
ktap_finish
