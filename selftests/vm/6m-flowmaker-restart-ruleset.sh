#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A ruleset committed while npuflowd is down.  npuflowd keeps the nftables
# generation it last saw (the pinned map fmgen); a start that finds another
# releases every connection it restores, and makes none of them again
# before the host has forwarded it under the new ruleset.  pc sends UDP
# datagrams to far until the connection is made; npuflowd stops (its rules
# and pinned state stay, the coprocessor keeps forwarding); a drop rule for
# the connection goes in; npuflowd starts.  Its rules and the coprocessor's
# connection must go, and no datagram sent after the start may reach far.
# Counts only; the bounds are timeouts.
# timeout: 180
. "$(dirname "$0")/lib.sh"
ktap_plan 7
trap 'rm -f /tmp/6m.go /tmp/6m.far; fm_cleanup' EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
rm -f /tmp/6m.go /tmp/6m.far
udp_echo_far 5310 /tmp/6m.far
srv=$!
sleep 1
# one socket, one 5-tuple: 4 datagrams over 4 s (conntrack: ASSURED), 100
# at 20 ms (the threshold crossed: made), then (go) 60 more at 20 ms
ip netns exec pc python3 -c "
import os, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('', 4310))
s.setblocking(False)
def burst(tag, n, gap):
    for i in range(n):
        s.sendto(b'%s-%d' % (tag, i), ('$FAR4', 5310))
        time.sleep(gap)
burst(b'pre', 4, 1.0)
burst(b'made', 100, 0.02)
while not os.path.exists('/tmp/6m.go'):
    time.sleep(0.05)
burst(b'post', 60, 0.02)" &
cli=$!
made=1
fm_wait_jq 30 '[.[] | select(.proto == 17 and .dirs[0].dport == 5310 and .state == "made")] | length == 1' && made=0
ktap_result $([ $made = 0 ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 1 ]; echo $?) \
	"the connection is made, the coprocessor holds it"

fm_stop
r0=$(fm_rules "$P3")
nft insert rule inet fw forward udp dport 5310 counter drop
fm_start; ktap_result $? "npuflowd started again under the drop rule"
for i in $(seq 25); do [ "$(fm_rules "$P3")" = 0 ] && break; sleep 0.2; done
r1=$(fm_rules "$P3"); hw=$(eth_stat "$P3" hw_fp_conns)
diag "rules $r0 before the start, $r1 after; coprocessor $hw"
ktap_result $([ "$r0" = 1 ] && [ "$r1" = 0 ] && [ "$hw" = 0 ]; echo $?) \
	"the restored connection's rules and the coprocessor's entry go"

touch /tmp/6m.go
wait $cli
sleep 1
post=$(grep -c '^post' /tmp/6m.far)
st=$(fm_flows | jq -r '[.[] | select(.proto == 17 and .dirs[0].dport == 5310)][0].state // "none"')
diag "after the start: far received $post of 60; state $st, coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $([ "$post" = 0 ]; echo $?) "no datagram sent after the start passes the drop rule"
ktap_result $([ "$st" != made ] && [ "$(eth_stat "$P3" hw_fp_conns)" = 0 ]; echo $?) \
	"the connection is not made again"
kill $srv 2>/dev/null
ktap_finish
