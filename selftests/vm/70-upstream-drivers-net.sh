#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own driver selftests against an npuep port, in env mode:
# drivers/net/ping.py, stats.py, queues.py from Debian's linux-source-6.12
# (unpacked into build/ksft by tools/vm/ksft-prep before the VM boots).
# NETIF = the host netdev of port 3, the remote = netns "pc" on its wire.
# Their KTAP is nested in ours.
# timeout: 900
. "$(dirname "$0")/lib.sh"
KSRC=${KSRC:-$NPU_REPO/build/ksft/linux-source-6.12}
TESTS=(ping.py stats.py queues.py)
ktap_plan $(( ${#TESTS[@]} + 1 ))

if [ ! -d "$KSRC/tools/testing/selftests/drivers/net" ]; then
	diag "no kernel selftests in $KSRC (run tools/vm/ksft-prep on the host)"
	ktap_fail "kernel selftests unpacked"
	ktap_finish
fi
setup() {
	npu_load && npu_new 0 8 2 || return 1
	D=$(npu_port_dev 0 3)
	ip netns add pc && ip link set npuw0p3 netns pc &&
	_topo_host pc npuw0p3 $PC4 $H3_4 $PC6 $H3_6 &&
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
ktap_finish
