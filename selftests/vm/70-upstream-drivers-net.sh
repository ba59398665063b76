#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own driver selftests against an npuep port, in env mode:
# drivers/net/ping.py, stats.py, queues.py from Debian's linux-source-6.12
# (unpacked into build/ksft by tools/vm/ksft-prep before the VM boots).
# NETIF = the host netdev of port 3, the remote = netns "pc" on its wire.
# Their KTAP is nested in ours.  Then what they do not check, through the
# same netdev netlink family (tools/net/ynl/cli.py): queues linked to their
# NAPI and each NAPI to its queue pair's vector, the page_pools tied to the
# netdev and NAPI, the XDP features, and the device's qstats never going
# backwards and agreeing with rtnl stats64 across ethtool -L and link down.
# timeout: 600
. "$(dirname "$0")/lib.sh"
TESTS=(ping.py stats.py queues.py)
ktap_plan $(( ${#TESTS[@]} + 5 ))

if [ ! -d "$KSRC/tools/testing/selftests/drivers/net" ]; then
	diag "no kernel selftests in $KSRC (run tools/vm/ksft-prep on the host)"
	ktap_fail "kernel selftests unpacked"
	ktap_finish
fi
setup() {
	npu_load && npu_new 0 8 2 || return 1
	D=$(npu_port_dev 0 3)
	ip netns add pc && ip link set npuw0p3 netns pc &&
	topo_host pc npuw0p3 $PC4 $H3_4 $PC6 $H3_6 &&
	ip addr add $H3_4/24 dev "$D" && ip -6 addr add $H3_6/64 dev "$D" nodad &&
	ip link set "$D" up && wait_carrier "$D"
}
setup; ktap_result $? "npuep port 3 with netns pc on its wire"

for t in "${TESTS[@]}"; do
	echo "    # Subtest: drivers/net/$t"
	out=$(cd "$KSRC/tools/testing/selftests/drivers/net" &&
		NETIF=$D REMOTE_TYPE=netns REMOTE_ARGS=pc \
		LOCAL_V4=$H3_4 REMOTE_V4=$PC4 LOCAL_V6=$H3_6 REMOTE_V6=$PC6 \
		timeout 300 python3 "./$t" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/    /'
	# All must pass: a SKIP means the driver lacks what the test checks
	# (XFAIL is allowed for pause and FEC statistics, which the ports lack).
	if [ $rc = 0 ] && ! echo "$out" | grep -qE '^not ok|# SKIP'; then
		ktap_ok "drivers/net/$t"
	else
		ktap_fail "drivers/net/$t # exit=$rc"
	fi
done

IFX=$(cat /sys/class/net/$D/ifindex)

# Queues -> NAPI -> IRQ: rx and tx queue N share one NAPI, whose irq is the
# vector named $D-qN in /proc/interrupts.
qs=$(ynl --dump queue-get --json "{\"ifindex\": $IFX}")
ok=0 napis=""
for q in 0 1; do
	rxn=$(echo "$qs" | jq -r --argjson q $q '.[] | select(.type == "rx" and .id == $q) | ."napi-id" // empty')
	txn=$(echo "$qs" | jq -r --argjson q $q '.[] | select(.type == "tx" and .id == $q) | ."napi-id" // empty')
	irq=$(awk -v n="$D-q$q" '$NF == n { sub(":", "", $1); print $1 }' /proc/interrupts)
	nirq=$([ -n "$rxn" ] && ynl --do napi-get --json "{\"id\": $rxn}" | jq -r '.irq // empty')
	diag "queue $q: rx napi ${rxn:-none} tx napi ${txn:-none}; napi irq ${nirq:-none}, $D-q$q irq ${irq:-none}"
	[ -n "$rxn" ] && [ "$rxn" = "$txn" ] && [ -n "$irq" ] && [ "$nirq" = "$irq" ] || ok=1
	napis="$napis $rxn"
done
ktap_result $([ $ok = 0 ] && [ "$(echo "$qs" | jq length)" = 4 ]; echo $?) \
	"queue-get: 2 rx + 2 tx queues, queue N on one NAPI whose irq is $D-qN's vector"

# The live page_pools (no detach-time): one per queue, on this netdev and
# its queue's NAPI.
pp=$(ynl --dump page-pool-get | jq -c --argjson i $IFX \
	'[.[] | select(.ifindex == $i and (has("detach-time") | not)) | ."napi-id"] | sort')
want=$(echo $napis | tr ' ' '\n' | jq -sc 'sort')
diag "page pools of $D on NAPIs $pp, queues' NAPIs $want"
ktap_result $([ "$pp" = "$want" ]; echo $?) "page-pool-get: one pool per queue, tied to $D and the queue's NAPI"

xf=$(ynl --do dev-get --json "{\"ifindex\": $IFX}" |
	jq -c '[."xdp-features"[]] + ["/"] + [."xdp-rx-metadata-features"[]] | sort')
diag "xdp-features / rx metadata: $xf"
ktap_result $([ "$xf" = '["/","basic","hash","ndo-xmit","redirect","vlan-tag"]' ]; echo $?) \
	"dev-get: xdp-features basic, redirect, ndo-xmit (no rx-sg, no xsk); rx metadata hash, vlan-tag"

# Device qstats across ethtool -L and link down: queue 1 is given traffic
# (RSS table on it alone), then folded into the base stats by combined 1.
# Every key only grows; the basic four sit between two stats64 readings.
qstat() { qstat_dev "$D"; }
s64() { ip -j -s link show dev "$D" | jq -c '.[0].stats64 |
	{"rx-packets": .rx.packets, "rx-bytes": .rx.bytes, "tx-packets": .tx.packets, "tx-bytes": .tx.bytes}'; }
ethtool -X "$D" weight 0 1
ip netns exec pc ping -c 5 -i 0.2 -W 2 $H3_4 >/dev/null
ethtool -X "$D" default
q1=$(ynl --dump qstats-get --json "{\"ifindex\": $IFX, \"scope\": \"queue\"}" |
	jq -r '.[] | select(."queue-id" == 1 and ."queue-type" == "rx") | ."rx-packets"')
diag "queue 1 rx-packets before combined 1: $q1"
prev=$(qstat) ok=0
for step in "ethtool -L $D combined 1" "ethtool -L $D combined 2" "ip link set $D down" \
	    "ethtool -L $D combined 1" "ip link set $D up" "ethtool -L $D combined 2"; do
	$step || ok=1
	a=$(s64); cur=$(qstat); b=$(s64)
	bad=$(jq -nr --argjson p "$prev" --argjson c "$cur" --argjson a "$a" --argjson b "$b" \
		'[($p | keys[] | select(($c[.] // -1) < $p[.]) | "\(.) went back \($p[.]) -> \($c[.] // "gone")"),
		  ($a | keys[] | select($c[.] < $a[.] or $c[.] > $b[.]) | "\(.) \($c[.]) outside stats64 [\($a[.]), \($b[.])]")] | join("; ")')
	[ -n "$bad" ] && { ok=1; diag "after $step: $bad"; }
	prev=$cur
done
wait_carrier "$D"
diag "last: $cur"
ktap_result $([ $ok = 0 ] && [ "${q1:-0}" -gt 0 ]; echo $?) \
	"qstats through ethtool -L and link down: never back, equal to stats64"
ktap_finish
