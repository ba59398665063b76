#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A made TCP connection that both ends close: its FINs cross the host
# (the coprocessor punts them), conntrack leaves ESTABLISHED, and npuflowd
# takes the connection out at once - rules and the coprocessor's entry gone
# - so keepalive never sets a closing entry's timeout to ESTABLISHED's
# days: conntrack keeps the entry in a closing state with that state's
# short timeout.  Counts only; the bounds are timeouts.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 6
trap 'rm -f /tmp/6j.stop; fm_cleanup' EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
rm -f /tmp/6j.stop
# far: reads until pc's FIN, then closes its side.  pc: a message every
# 10 ms until /tmp/6j.stop, then shutdown, far's FIN, close.
ip netns exec far python3 -c '
import socket
s = socket.create_server(("", 7000)); c, _ = s.accept()
while c.recv(4096): pass
c.close()' &
srv=$!
wait_listen far 7000
ip netns exec pc python3 -c "
import os, socket, time
s = socket.create_connection(('$FAR4', 7000), 5)
while not os.path.exists('/tmp/6j.stop'):
    s.send(b'x' * 100); time.sleep(0.01)
s.shutdown(socket.SHUT_WR)
while s.recv(4096): pass
s.close()" &
cli=$!
ktap_result $(fm_wait_jq 60 '[.[] | select(.dirs[0].dport == 7000 and .state == "made")] | length == 1'; echo $?) \
	"the connection is made"
sleep 1		# keepalive (every 500 ms) has refreshed it
touch /tmp/6j.stop
wait $cli; wait $srv
in_hw_conns() { eth_stat "$P3" hw_fp_conns; }
for i in $(seq 15); do
	[ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ] && [ "$(in_hw_conns)" = 0 ] && break
	sleep 0.2
done
sleep 1		# two keepalive periods: nothing may refresh it now
ct=$(conntrack -L -p tcp --dport 7000 2>/dev/null | head -1)
diag "3 s after the close: rules $(fm_rules "$P3")/$(fm_rules "$P8"), coprocessor $(in_hw_conns); conntrack: $ct"
ktap_result $([ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ]; echo $?) \
	"the closed connection's rules are gone"
ktap_result $([ "$(in_hw_conns)" = 0 ]; echo $?) "the coprocessor's entry is gone"
# FIN_WAIT/CLOSE_WAIT/TIME_WAIT 120 s at most, LAST_ACK 30 s: whichever
# the close reached before the takeout, never ESTABLISHED's five days
tmo=$(echo "$ct" | awk '{ print $3 }')
ktap_result $(echo "$ct" | grep -qE 'FIN_WAIT|CLOSE_WAIT|LAST_ACK|TIME_WAIT|CLOSE ' &&
	[ "${tmo:-999999}" -le 120 ]; echo $?) \
	"conntrack keeps a closing state with its own short timeout (${tmo:-none} s)"
ktap_finish
