# SPDX-License-Identifier: GPL-2.0
# TAP for the test scripts: one counter and one way to print a result, for
# selftests/vm/lib.sh (the VM tests' KTAP) and selftests/bpf/veth-*.sh.
# Source it (bash), then:
#   tap_result RC DESC...      ok if RC is 0, else not ok (counted in KTAP_FAIL)
#   tap_fail DESC [DIAG]       not ok, and DIAG as a "# " line
#   tap_check DESC CMD...      tap_result of CMD's exit status (CMD's output as it comes)
#   tap_skip DESC [WHY]        ok ... # SKIP [WHY] (counted in KTAP_SKIP)
#   tap_diag TEXT...           a "# " line
# KTAP_N counts the results.  TAP_SEP goes between a result's number and its
# description: " - " unless the sourcing script set it (selftests/vm: " ").
KTAP_N=${KTAP_N:-0}
KTAP_FAIL=${KTAP_FAIL:-0}
KTAP_SKIP=${KTAP_SKIP:-0}
TAP_SEP=${TAP_SEP:-" - "}

tap_result() {
	local rc=$1; shift
	KTAP_N=$((KTAP_N + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $KTAP_N$TAP_SEP$*"
	else
		echo "not ok $KTAP_N$TAP_SEP$*"
		KTAP_FAIL=$((KTAP_FAIL + 1))
	fi
}
tap_fail() { tap_result 1 "$1"; [ -n "${2:-}" ] && tap_diag "$2"; }
tap_check() { local d=$1; shift; if "$@"; then tap_result 0 "$d"; else tap_result 1 "$d"; fi; }
tap_skip() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_N$TAP_SEP$1 # SKIP${2:+ $2}"
}
tap_diag() { echo "# $*"; }
