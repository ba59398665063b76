#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The classifier's BPF_PROG_TEST_RUN suite, run again inside the guest:
# the 6.12 verifier is not the build machine's.  Its TAP output is nested
# in ours.  The npuflowd veth test (selftests/bpf/veth-npuflowd.sh) runs
# natively in make check only: on 6.12 npuflowd loads the same program in
# 64-6e, and its libxdp dispatcher is 56-xdp-coexist's subject.
# timeout: 600
. "$(dirname "$0")/lib.sh"
ktap_plan 1
B=$NPU_REPO/build
for t in "test_classify:$B/selftests-bpf/test_classify"; do
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
