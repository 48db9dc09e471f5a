#!/usr/bin/env bash
# src-memtraffic.sh: the memory-traffic path decision (recorder/sources/memtraffic.c)
# as mcrec --list and the recording show it.
#  - On this machine as it is: the path found (on a VM without uncore PMU,
#    perfevent PMDA or LLC counter: "none", with the reason for each path).
#  - MCREC_MEM_PATH=pcp with MCREC_PCP_MEM_METRICS naming real metrics of
#    the local pmcd (the plumbing the perfevent metrics take on a machine
#    that has them): mem.read_bytes / mem.write_bytes come from the pcp
#    source as the sum over the metrics' instances x bytes per count, and
#    equal the sum of the same metrics recorded beside them; perf says the
#    memory path is not its own.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd python3
src_tmp

"$MCREC" --list >"$T/list" 2>&1 || src_fail "--list failed"
grep -q "memory traffic: " "$T/list" || src_fail "--list does not say the memory-traffic path"
grep -o "memory traffic: [a-z-]*" "$T/list" | head -1
if [ ! -e /sys/bus/event_source/devices/cpu ] && ! pminfo perfevent.hwcounters >/dev/null 2>&1; then
	grep -q "memory traffic: none (no uncore memory-controller PMU.*no perfevent.hwcounters.*no LLC-miss counter" "$T/list" ||
		src_fail "the 'none' decision lacks its reasons: $(grep 'memory traffic' "$T/list")"
fi

export MCREC_MEM_PATH=pcp MCREC_PCP_MEM_METRICS="read:network.interface.in.bytes*2;write:network.interface.out.bytes"
"$MCREC" --list -g mem >"$T/list2" 2>&1 || src_fail "--list failed"
grep -q "memory traffic: pcp" "$T/list2" || grep -q "mem.read_bytes" "$T/list2" || src_fail "pcp path not taken: $(cat "$T/list2")"
grep -A1 "^    mem.read_bytes" "$T/list2" | grep -q "pmcd at local:, sum of 2 metrics" || src_fail "note: $(grep -A1 mem.read_bytes "$T/list2")"
grep -q "not from perf" "$T/list2" || src_fail "perf does not defer to the pcp path"

"$MCREC" -q -i 50ms -g mem -e pcp:network.interface.in.bytes,pcp:network.interface.out.bytes -o "$T/r.mcz" \
	-- python3 tests/integration/src-loopback.py 4 0.1 || src_fail "mcrec exited $?"
"$VALUES" "$T/r.mcz" pcp:mem.read_bytes >"$T/rd" || src_fail "no mem.read_bytes"
"$VALUES" "$T/r.mcz" pcp:network.interface.in.bytes >"$T/in" || src_fail "no in.bytes"
"$VALUES" "$T/r.mcz" pcp:mem.write_bytes >"$T/wr" || src_fail "no mem.write_bytes"
"$VALUES" "$T/r.mcz" pcp:network.interface.out.bytes >"$T/out" || src_fail "no out.bytes"
# mem.read_bytes = 2 x sum over interfaces, sample for sample (first and last)
rd=$(awk '{ print $(NF-3) - $(NF-4) }' "$T/rd")
in=$(awk '{ s += $(NF-3) - $(NF-4) } END { print s }' "$T/in")
wr=$(awk '{ print $(NF-3) - $(NF-4) }' "$T/wr")
out=$(awk '{ s += $(NF-3) - $(NF-4) } END { print s }' "$T/out")
echo "mem.read_bytes $rd = 2 x $in; mem.write_bytes $wr = $out"
[ "$in" -ge $((4 << 20)) ] || src_fail "only $in B seen on the interfaces"
[ "$rd" -eq $((2 * in)) ] || src_fail "mem.read_bytes $rd is not 2 x $in"
[ "$wr" -eq "$out" ] || src_fail "mem.write_bytes $wr is not $out"
grep -q "pcp pcp:network.interface.in.bytes B 1 counter" "$T/rd" || src_fail "mem.read_bytes descriptor: $(cat "$T/rd")"
