#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The flow maker with address translation (issue 5, "Must show"):
# masquerade on port 8 (LAN to WAN), the connection made by npuflowd from
# conntrack's two tuples and forwarded in hardware both ways.
# Until npuflowd relaxed conntrack's TCP window tracking before it wrote the
# rules (not after), an ACK the host took as the rules landed acknowledged
# data conntrack had not seen: invalid, so not translated back; addressed to
# the host's own port-8 address it reached the host's stack, which reset the
# connection (captures: the host's RST to far, then far's to pc).  Asserted:
# the host sends no RST and pc's connection is still established.
# Counts only; times belong to the benchmark.
# timeout: 300
. "$(dirname "$0")/lib.sh"
ktap_plan 7
LOAD=$NPU_REPO/build/bin/npuload
# the host's own TCP resets sent (its netns), from /proc/net/snmp
out_rsts() { awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["OutRsts"] }' /proc/net/snmp; }
trap fm_cleanup EXIT

fm_setup
fw_ruleset nofw nat="$P8" | nft -f -
ktap_result $? "masquerade on $P8"
echo 0 > /sys/kernel/debug/npusim/0/fp_retrans_max	# 63's subject
fm_start; ktap_result $? "npuflowd on $P3 $P8"
ip netns exec far "$LOAD" server -p 5201 -t 300 >/dev/null 2>&1 &
wait_listen far 5201

# IPv4 through masquerade: far sees the host's address on port 8
rst0=$(out_rsts)
fm_stream $FAR4
ktap_result $(fm_wait_jq 30 '[.[] | select(.family == 4 and .nat == true and .state == "made")] | length == 1'; echo $?) \
	"the translated IPv4 connection is made (nat)"
diag "$(fm_flows | jq -c '[.[] | select(.family == 4)][0] | {id, state, nat, dirs}')"
rdst=$(tc -j filter show dev "$P8" ingress | jq -r '[.[] | select(.options.keys.dst_ip?) | .options.keys.dst_ip][0]')
diag "the rule on $P8 matches replies to $rdst"
ktap_result $([ "$(fm_in_hw "$P3")" = 1 ] && [ "$(fm_in_hw "$P8")" = 1 ] && [ "$rdst" = "$H8_4" ]; echo $?) \
	"both directions in hardware, the reply matched at the masqueraded address"
sleep 3
fm_share "IPv4, masquerade"; ktap_result $? "IPv4 with masquerade: the host sees < 0.1 % of the stream"
rst=$(( $(out_rsts) - rst0 ))
est=$(ip netns exec pc ss -Htn state established dst $FAR4 | wc -l)
diag "the host's stack sent $rst RST; pc has $est established connection(s) to far"
ktap_result $([ "$rst" = 0 ] && [ "$est" = 1 ]; echo $?) \
	"no reset from the host: the stream's connection is still established on pc"

[ "$KTAP_FAIL" = 0 ] || tail -30 $FM_LOG | sed 's/^/# /'
ktap_finish
