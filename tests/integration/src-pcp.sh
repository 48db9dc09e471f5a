#!/usr/bin/env bash
# src-pcp.sh: the pcp source against a real pmcd.  A command under mcrec
# sends 20 MB over loopback TCP and burns about a second of CPU, and reads
# the same metrics with pmval at its start and at its end.  The recording's
# kernel (kernel.all.cpu.user) and network (network.interface.in.bytes, lo)
# metrics must agree with pmval over that period: bytes within 1 %, CPU time
# within 10 % + 0.15 s (the two windows differ by the pmval calls).  Also:
# one stream per instance (kernel.percpu.cpu.user x CPUs, bound to PUs),
# units and scale from the descriptors (ms -> s x 0.001).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd python3
src_tmp

cat >"$T/work.sh" <<'W'
T=$1
pmval -r -s 1 -i lo network.interface.in.bytes | tail -1 | awk '{print $NF}' >"$T/lo0"
pmval -r -s 1 kernel.all.cpu.user | tail -1 | awk '{print $NF}' >"$T/u0"
python3 "$2" 20 || exit 1
i=0; end=$(( $(date +%s%N) + 1000000000 ))
while [ "$(date +%s%N)" -lt "$end" ]; do i=$((i+1)); done
pmval -r -s 1 -i lo network.interface.in.bytes | tail -1 | awk '{print $NF}' >"$T/lo1"
pmval -r -s 1 kernel.all.cpu.user | tail -1 | awk '{print $NF}' >"$T/u1"
W

"$MCREC" -q -i 50ms -o "$T/r.mcz" \
	-e pcp:network.interface.in.bytes,pcp:kernel.all.cpu.user,pcp:kernel.percpu.cpu.user,pcp:mem.util.used \
	-- sh "$T/work.sh" "$T" "$PWD/tests/integration/src-loopback.py" || src_fail "mcrec exited $?"
for f in lo0 lo1 u0 u1; do [ -s "$T/$f" ] || src_fail "pmval gave no $f"; done

read -r _ src native unit scale kind n first last _ <<<"$("$VALUES" "$T/r.mcz" network.interface.in.bytes lo)"
[ "$src $native $unit $kind" = "pcp pcp:network.interface.in.bytes B counter" ] ||
	src_fail "lo stream described as: $src $native $unit $kind"
[ "$n" -ge 10 ] || src_fail "only $n samples of lo in.bytes"
rec=$((last - first)) ref=$(( $(cat "$T/lo1") - $(cat "$T/lo0") ))
echo "lo in.bytes: mcrec $rec B, pmval $ref B"
[ "$ref" -ge $((20 << 20)) ] || src_fail "pmval saw only $ref B on lo (20 MiB sent)"
awk -v a="$rec" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b) }' ||
	src_fail "lo in.bytes: mcrec $rec vs pmval $ref differ by more than 1 %"

read -r _ src native unit scale kind n first last _ <<<"$("$VALUES" "$T/r.mcz" kernel.all.cpu.user)"
[ "$unit $scale $kind" = "s 0.001 counter" ] || src_fail "cpu.user unit/scale/kind: $unit $scale $kind"
rec=$((last - first)) ref=$(( $(cat "$T/u1") - $(cat "$T/u0") ))
echo "kernel.all.cpu.user: mcrec $rec ms, pmval $ref ms"
[ "$ref" -ge 700 ] || src_fail "pmval saw only $ref ms of user CPU (a 1 s spin ran)"
awk -v a="$rec" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.10 * b + 150) }' ||
	src_fail "cpu.user: mcrec $rec ms vs pmval $ref ms"

ncpu=$(pminfo -f kernel.percpu.cpu.user | grep -c 'inst \[')
"$VALUES" "$T/r.mcz" kernel.percpu.cpu.user >"$T/percpu" || src_fail "no percpu streams"
[ "$(wc -l <"$T/percpu")" -eq "$ncpu" ] || src_fail "$(wc -l <"$T/percpu") percpu streams, pmcd has $ncpu instances"
awk '$1 !~ /^cpu[0-9]+$/ || $NF < 0 { bad = 1 } END { exit bad }' "$T/percpu" ||
	src_fail "percpu streams not named cpuN or not bound to a PU: $(cat "$T/percpu")"

read -r _ src native unit scale kind n _ <<<"$("$VALUES" "$T/r.mcz" mem.util.used)"
[ "$unit $scale $kind" = "B 1024 gauge" ] || src_fail "mem.util.used (Kbyte instant) became $unit $scale $kind"
echo "pcp source agrees with pmval"
