#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Forwarding turned off under a made connection: the host would drop its
# frames, so the coprocessor must not carry them.  npuflowd hears
# rtnetlink's netconf announcements and takes the connection back within a
# second or two: net.ipv4.ip_forward=0, then net.ipv4.conf.PORT.forwarding=0
# on the ingress port, then net.ipv6.conf.all.forwarding=0 under an IPv6
# connection.  Each time a new stream is made first.  Counts only; the
# bounds are timeouts.
# timeout: 400
. "$(dirname "$0")/lib.sh"
ktap_plan 8
LOAD=$NPU_REPO/build/bin/npuload
trap 'sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1; fm_cleanup' EXIT

fm_setup
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201

made() { fm_wait_jq 30 "[.[] | select(.family == $1 and .state == \"made\")] | length == 1"; }
# gone: within 3 s, no rule of npuflowd's and nothing in the coprocessor
gone() {
	local i
	for i in $(seq 15); do
		[ "$(fm_rules "$P3")" = 0 ] && [ "$(fm_rules "$P8")" = 0 ] &&
			[ "$(eth_stat "$P3" hw_fp_conns)" = 0 ] && return 0
		sleep 0.2
	done
	return 1
}
# stream FAMILY ADDR: a new stream, made
stream() {
	[ -n "${FM_CLI:-}" ] && kill "$FM_CLI" 2>/dev/null && wait "$FM_CLI" 2>/dev/null
	FM_CLI=
	for i in $(seq 25); do [ "$(fm_rules "$P3")" = 0 ] && break; sleep 0.2; done
	fm_stream "$2" 120
	made "$1"
}

stream 4 $FAR4; ktap_result $? "an IPv4 stream is made"
sysctl -qw net.ipv4.ip_forward=0
gone; ok=$?
diag "ip_forward=0: rules $(fm_rules "$P3")/$(fm_rules "$P8"), coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $ok "net.ipv4.ip_forward=0 takes the connection back"
sysctl -qw net.ipv4.ip_forward=1

stream 4 $FAR4; ktap_result $? "a new IPv4 stream is made"
sysctl -qw "net.ipv4.conf.$P3.forwarding=0"
gone; ok=$?
diag "$P3 forwarding=0: rules $(fm_rules "$P3")/$(fm_rules "$P8"), coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $ok "forwarding off on the ingress port takes the connection back"
sysctl -qw "net.ipv4.conf.$P3.forwarding=1"

stream 6 $FAR6; ktap_result $? "an IPv6 stream is made"
sysctl -qw net.ipv6.conf.all.forwarding=0
gone; ok=$?
diag "ipv6 forwarding=0: rules $(fm_rules "$P3")/$(fm_rules "$P8"), coprocessor $(eth_stat "$P3" hw_fp_conns)"
ktap_result $ok "net.ipv6.conf.all.forwarding=0 takes the connection back"
ktap_finish
