# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end tests: KTAP output, loading the modules,
# creating a coprocessor and finding a port's host netdev through devlink.
# Source it from a selftests/vm/NN-name.sh script; the guest runs scripts as
# root with the repository as the working directory.

KTAP_N=0
KTAP_FAIL=0

ktap_plan() { echo "1..$1"; }

# ok CONDITION-EXIT-STATUS NAME
ktap_result() {
	local rc=$1; shift
	KTAP_N=$((KTAP_N + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $KTAP_N $*"
	else
		echo "not ok $KTAP_N $*"
		KTAP_FAIL=$((KTAP_FAIL + 1))
	fi
}
ktap_ok() { ktap_result 0 "$@"; }
ktap_fail() { ktap_result 1 "$@"; }
ktap_skip() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $* # SKIP"; }
# check NAME COMMAND...: run COMMAND, ok if it succeeds.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then
		ktap_ok "$name"
	else
		echo "$out" | sed 's/^/# /' | tail -20
		ktap_fail "$name"
	fi
}
# check_fail NAME COMMAND...: ok if COMMAND fails.
check_fail() {
	local name=$1; shift
	if "$@" >/dev/null 2>&1; then ktap_fail "$name"; else ktap_ok "$name"; fi
}
diag() { echo "# $*"; }
ktap_finish() { [ "$KTAP_FAIL" = 0 ]; exit $?; }

NPU_REPO=$(pwd)

npu_load() {
	grep -q '^npusim ' /proc/modules || insmod "$NPU_REPO/kernel/npusim/npusim.ko" || return 1
	if [ "${1:-}" != nodriver ]; then
		grep -q '^npuep ' /proc/modules || insmod "$NPU_REPO/kernel/npuep/npuep.ko" || return 1
	fi
}

npu_unload() {
	grep -q '^npuep ' /proc/modules && rmmod npuep
	grep -q '^npusim ' /proc/modules && rmmod npusim
	return 0
}

# npu_new ID NPORTS NQUEUES: create a coprocessor and wait for its netdevs.
npu_new() {
	echo "$1 $2 $3" > /sys/bus/npusim/new_device || return 1
	udevadm settle 2>/dev/null
	local i
	for i in $(seq 50); do
		[ -n "$(npu_port_dev "$1" "$2" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

# npu_port_dev ID PORT: host netdev of panel port PORT of coprocessor ID.
npu_port_dev() {
	devlink -j port show 2>/dev/null | python3 -c '
import json, sys
want_id, want_port = sys.argv[1], int(sys.argv[2])
for name, p in json.load(sys.stdin).get("port", {}).items():
    if name.startswith("auxiliary/npusim.npu.%s/" % want_id) and p.get("number") == want_port:
        print(p.get("netdev", ""))
' "$1" "$2"
}

# npu_wire ID PORT: the wire netdev (far end of the cable) of a port.
npu_wire() { echo "npuw$1p$2"; }

# ethtool -S value of one counter.
eth_stat() { ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
