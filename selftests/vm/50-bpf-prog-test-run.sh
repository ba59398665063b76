#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The classifier's BPF_PROG_TEST_RUN suite and the npuflowd veth test, run
# again inside the guest: the 6.12 verifier is not the build machine's.
# Their TAP output is nested in ours.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 2
B=$NPU_REPO/build
for t in "test_classify:$B/selftests-bpf/test_classify" \
	 "veth-npuflowd:$NPU_REPO/selftests/bpf/veth-npuflowd.sh $B"; do
	name=${t%%:*} cmd=${t#*:}
	echo "    # Subtest: $name"
	out=$($cmd 2>&1)
	rc=$?
	echo "$out" | sed 's/^/    /'
	if [ $rc = 0 ] && ! echo "$out" | grep -q '^not ok'; then
		ktap_ok "$name (6.12 verifier)"
	else
		ktap_fail "$name (6.12 verifier) # exit=$rc"
	fi
done
ktap_finish
