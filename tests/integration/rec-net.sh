#!/usr/bin/env bash
# rec-net.sh: loopback bytes recorded by the net source agree with the
# /proc/net/dev deltas around a loopback transfer of known size within 1 %.
set -u
. "$(dirname "$0")/rec-common.inc"
SIZE=$((200 * 1024 * 1024))
lo_rx() { awk -F'[: ]+' '$2 == "lo" { print $3 }' /proc/net/dev; }
before=$(lo_rx)
"$MCREC" -q -i 50ms -o "$T/n.mcz" -e net:lo -- "$WORK" --loopback $SIZE --hold 0.2 || fail "mcrec exited with $?"
after=$(lo_rx)
proc=$((after - before))
rec=$("$RR" "$T/n.mcz" series net.rx_bytes | awk '{ s += $2 } END { printf "%.0f", s }')
echo "transfer $SIZE B   /proc/net/dev delta $proc B   mcrec net.rx_bytes(lo) $rec B"
# At least the payload; other processes on this machine share lo, so the
# exact check is against /proc/net/dev over the same period.
between "$rec" "$SIZE" $((SIZE * 2)) || fail "recorded $rec B for a $SIZE B transfer"
within "$rec" "$proc" 0.01 || fail "recorded $rec B vs /proc/net/dev delta $proc B (> 1 %)"
"$RR" "$T/n.mcz" streams | grep -q "net.rx_bytes lo net B counter" || fail "stream descriptor"
ok "loopback bytes within 1 %"
