#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A drop rule for a connection that is established but not yet made: the
# flow maker must not make it from conntrack's state, which says nothing of
# the new rule (conntrack marks an entry before the forward chain sees its
# frames, and the classifier counts frames before the host forwards them).
# pc and far exchange a few UDP datagrams, fewer than the threshold, over
# more than 2 s (conntrack: ASSURED); a drop rule for pc -> far goes in
# first in the forward chain; pc then sends 60 datagrams.  They cross the
# threshold, and none may reach far: the connection is not made.  The rule
# deleted (another ruleset), the next datagrams pass the host, and the
# connection is made.  (A change while npuflowd is down: 6m.)
# Counts only; the bounds are timeouts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 6
trap 'rm -f /tmp/6h.go /tmp/6h.go2 /tmp/6h.far; fm_cleanup' EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
rm -f /tmp/6h.go /tmp/6h.go2 /tmp/6h.far
udp_echo_far 5300 /tmp/6h.far
srv=$!
sleep 1
# one socket, one 5-tuple: 4 datagrams over 4 s, then (go) 60 at 20 ms,
# then (go2) 150 more
ip netns exec pc python3 -c "
import os, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('', 4300))
s.setblocking(False)
def burst(tag, n, gap):
    for i in range(n):
        s.sendto(b'%s-%d' % (tag, i), ('$FAR4', 5300))
        time.sleep(gap)
def wait(f):
    while not os.path.exists(f):
        time.sleep(0.05)
burst(b'pre', 4, 1.0)
open('/tmp/6h.pre', 'w').close()
wait('/tmp/6h.go')
burst(b'post', 60, 0.02)
wait('/tmp/6h.go2')
burst(b'again', 150, 0.02)" &
cli=$!
for i in $(seq 100); do [ -e /tmp/6h.pre ] && break; sleep 0.1; done
rm -f /tmp/6h.pre
ct=$(conntrack -L -p udp --dport 5300 2>/dev/null | head -1)
diag "before the rule: $ct"
ktap_result $(echo "$ct" | grep -q ASSURED; echo $?) "the connection is established (ASSURED)"

nft insert rule inet fw forward udp dport 5300 counter drop
touch /tmp/6h.go
sleep 4		# 60 datagrams (1.2 s), a retry or two of the flow maker
post=$(grep -c '^post' /tmp/6h.far)
made=$(fm_flows | jq '[.[] | select(.proto == 17 and .state == "made")] | length')
diag "after the drop rule: far received $post of 60, connections made $made, coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $([ "$post" = 0 ]; echo $?) "no datagram passes the drop rule"
ktap_result $([ "$made" = 0 ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 0 ]; echo $?) \
	"the connection is not made"

nft flush chain inet fw forward
nft add rule inet fw forward ct state invalid drop
nft add rule inet fw forward ct state established,related accept
touch /tmp/6h.go2
ok=1
fm_wait_jq 20 '[.[] | select(.proto == 17 and .dirs[0].dport == 5300 and .state == "made")] | length == 1' && ok=0
diag "the rule gone: far received $(grep -c '^again' /tmp/6h.far) of 150"
ktap_result $ok "through a ruleset that passes it, the connection is made"
wait $cli
kill $srv 2>/dev/null

ktap_finish
