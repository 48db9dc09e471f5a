#!/usr/bin/env bash
# src-pcp-groups.sh: -g groups through a pmcd named with --pcp-host (here
# "localhost" over TCP, which mcrec treats as another host): `-g net,core`
# maps to network.interface.{in,out}.bytes and kernel.percpu.cpu.{user,sys}
# of that pmcd, not bound to this machine's topology; and the pcp source's
# loopback bytes agree with the net source's (/proc/net/dev) in the same run
# within 1 % around a 10 MiB loopback transfer.  Also the -e forms: a
# non-leaf name (all metrics below it) and [instances] (pmval syntax).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd python3
src_tmp
pminfo -h localhost pmcd.version >/dev/null 2>&1 || { echo "pmcd does not accept TCP connections on localhost"; exit 77; }

"$MCREC" -q -i 50ms --pcp-host localhost -g net,core -o "$T/r.mcz" -- python3 tests/integration/src-loopback.py 10 0.2 || src_fail "mcrec exited $?"

for m in network.interface.in.bytes network.interface.out.bytes kernel.percpu.cpu.user kernel.percpu.cpu.sys; do
	"$VALUES" "$T/r.mcz" "pcp:$m" >"$T/v" || src_fail "-g net,core did not record $m"
	awk -v m="$m" '$3 != "pcp@localhost:" m || $NF != -1 { print "bad: " $0; bad = 1 } END { exit bad }' "$T/v" ||
		src_fail "$m: native event or topology wrong"
done
# first and last raw values are the 5th and 4th fields from the end
read -r p0 p1 <<<"$("$VALUES" "$T/r.mcz" pcp:network.interface.in.bytes lo | awk '{ print $(NF-4), $(NF-3) }')"
read -r n0 n1 <<<"$("$VALUES" "$T/r.mcz" net:net.rx_bytes lo | awk '{ print $(NF-4), $(NF-3) }')"
pcp=$((p1 - p0)) net=$((n1 - n0))
echo "lo received: pcp $pcp B, net source $net B"
[ "$net" -ge $((10 << 20)) ] || src_fail "net source saw only $net B"
awk -v a="$pcp" -v b="$net" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b) }' ||
	src_fail "pcp $pcp B and net $net B differ by more than 1 %"

# -e forms: a non-leaf name takes every metric below it; [instances]
# restricts to those instances (pmval's syntax)
"$MCREC" --list -e pcp:network.interface.in >"$T/l1" 2>&1 || src_fail "--list -e non-leaf: $(cat "$T/l1")"
for m in network.interface.in.bytes network.interface.in.packets network.interface.in.errors; do
	grep -q "^    $m " "$T/l1" || src_fail "non-leaf network.interface.in lacks $m"
done
"$MCREC" -q -i 50ms -o "$T/i.mcz" -e 'pcp:network.interface.in.bytes[lo],pcp:kernel.all.load["1 minute"]' -- sleep 0.2 ||
	src_fail "instance selection refused"
[ "$("$VALUES" "$T/i.mcz" pcp:network.interface.in.bytes | awk '{print $1}')" = lo ] ||
	src_fail "[lo] recorded: $("$VALUES" "$T/i.mcz" pcp:network.interface.in.bytes | awk '{print $1}')"
[ "$("$VALUES" "$T/i.mcz" pcp:kernel.all.load | wc -l)" -eq 1 ] || src_fail "[\"1 minute\"] did not select one instance"
echo "non-leaf names and [instances] select as pmval does"
