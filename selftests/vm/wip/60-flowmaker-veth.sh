#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker end to end on veth in the guest, whose 6.12 kernel has
# cls_flower, act_pedit, act_csum and act_mirred (the build machine's kernel
# does not): npuflowd with --tc-skip-sw 0 writes its rules in software, and
# selftests/bpf/veth-flowmaker.sh asserts their exact contents, the keepalive
# counters, takeout on conntrack -D, release with be-liberal, IPv6, restart
# without duplicates or orphans, and --flush.  No npuep port is involved: this
# checks npuflowd's messages against the kernel's own flower and pedit.
# timeout: 1200
. "$(dirname "$0")/../lib.sh"
ktap_plan 2
for m in cls_flower act_pedit act_csum act_mirred nf_conntrack_netlink; do
	modprobe -q $m 2>/dev/null
done
echo "    # Subtest: veth-flowmaker"
# streamed, not captured: under TCG a timeout must still show how far it got
NPFM_SLOW=4 NPFM_NO_FLOOD=1 "$NPU_REPO/selftests/bpf/veth-flowmaker.sh" "$NPU_REPO/build" \
	> /tmp/veth-flowmaker.out 2>&1 &
tpid=$!
tail -n +1 -f /tmp/veth-flowmaker.out --pid=$tpid | sed 's/^/    /'
wait $tpid
rc=$?
out=$(cat /tmp/veth-flowmaker.out)
if [ $rc = 0 ] && ! echo "$out" | grep -q '^not ok'; then
	ktap_ok "veth-flowmaker (software flower)"
else
	ktap_fail "veth-flowmaker (software flower) # exit=$rc"
fi
# the rules were really written and checked, not skipped for want of flower
if echo "$out" | grep -q '^# software flower: yes'; then
	ktap_ok "software flower present: rule contents asserted"
else
	ktap_fail "software flower missing in the guest"
fi
ktap_finish
