#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# conntrack zones: the coprocessor's table has no zone, so a tuple that
# conntrack holds in zone 0 and in zone 1 is two connections npuflowd must
# not write as one.  An entry in zone 1 with the tuple of the UDP
# connection pc opens next (conntrack -I -w 1); npuflowd learns the zone in
# use from its start's dump; pc and far exchange datagrams in zone 0 past
# the threshold: refused as a conflict, not made.  The zone-1 entry
# deleted, the next datagrams make it.  Counts only; the bounds are
# timeouts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 6
trap 'rm -f /tmp/6l.go; conntrack -D -w 1 -p udp --dport 5300 >/dev/null 2>&1; fm_cleanup' EXIT

fm_setup
conntrack -I -w 1 -p udp -s $PC4 -d $FAR4 --sport 4300 --dport 5300 -t 120 >/dev/null 2>&1
z=$(conntrack -L -w 1 -p udp --dport 5300 2>/dev/null | grep -c zone=1)
ktap_result $([ "$z" = 1 ]; echo $?) "an entry in zone 1 with the connection's tuple"
fm_start; ktap_result $? "npuflowd on $P3 $P8"
rm -f /tmp/6l.go
udp_echo_far 5300
srv=$!
sleep 1
# one socket, one tuple: 4 datagrams over 4 s (ASSURED), 60 at 20 ms, then
# (go) 150 more
ip netns exec pc python3 -c "
import os, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('', 4300))
s.setblocking(False)
def burst(n, gap):
    for i in range(n):
        s.sendto(b'x' * 64, ('$FAR4', 5300))
        time.sleep(gap)
burst(4, 1.0)
burst(60, 0.02)
while not os.path.exists('/tmp/6l.go'):
    time.sleep(0.05)
burst(150, 0.02)" &
cli=$!
sleep 8
st=$(fm_flows | jq -c '[.[] | select(.proto == 17 and .dirs[0].dport == 5300)][0] | {state, reason}')
diag "zone 0's connection with zone 1's tuple: $st, coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $(echo "$st" | grep -q '"reason":"conflict"' && ! echo "$st" | grep -q '"state":"made"'; echo $?) \
	"refused as a conflict"
ktap_result $([ "$(eth_stat "$P3" hw_fp_conns)" = 0 ]; echo $?) "nothing in the coprocessor"
conntrack -D -w 1 -p udp --dport 5300 >/dev/null 2>&1
touch /tmp/6l.go
fm_wait_jq 20 '[.[] | select(.proto == 17 and .dirs[0].dport == 5300 and .state == "made")] | length == 1'
ktap_result $? "zone 1's entry gone: the connection is made"
wait $cli
kill $srv 2>/dev/null
ktap_finish
