#!/usr/bin/env bash
# src-combined.sh: one recording of the phased sample that combines the
# perf, papi, pcp, net and proc sources on one time axis, read back with
# `mcz info`, which must show each stream's source and native event.
#
# PAPI joins where it can count the child; on a kernel without a hardware
# PMU (this CI VM) PAPI cannot attach to another process at all (see
# src-papi-perf.sh), so the recording is made without it and the test says
# so on its output; the four other sources are always checked.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd
src_tmp
MCZ=$B/mcz
[ -x "$MCZ" ] || src_fail "no $MCZ"
PHASED=$B/samples/phased

ev=perf:task-clock,perf:page-faults,pcp:kernel.all.cpu.user,pcp:network.interface.in.bytes,pcp:mem.util.used
ev=$ev,net:lo,papi:perf::TASK-CLOCK
want="perf pcp net proc papi"
run() { "$MCREC" -q -i 50ms -g os -o "$T/r.mcz" -e "$1" -- "$PHASED" -q --phases triad:0.4,gemm:0.4,idle:0.3 2>"$T/err"; }
if ! run "$ev"; then
	grep -qE "PAPI cannot attach|PAPI perf_event component disabled" "$T/err" || src_fail "mcrec failed: $(cat "$T/err")"
	echo "papi left out: $(cat "$T/err")"
	ev=${ev%,papi:*}
	want="perf pcp net proc"
	run "$ev" || src_fail "mcrec failed: $(cat "$T/err")"
fi

"$MCZ" info "$T/r.mcz" >"$T/info" || src_fail "mcz info failed"
cat "$T/info"
# stream rows: ID NAME INSTANCE KIND TYPE UNIT SOURCE NATIVE ...
awk '$1 ~ /^[0-9]+$/ && NF >= 8 { print $7, $8 }' "$T/info" | sort -u >"$T/src-native"
for s in $want; do
	grep -q "^$s " "$T/src-native" || src_fail "no $s stream in mcz info"
done
for n in perf:task-clock pcp:kernel.all.cpu.user pcp:network.interface.in.bytes pcp:mem.util.used \
	proc:/proc/stat; do
	grep -q " $n" "$T/src-native" || src_fail "mcz info does not show native event $n"
done
grep -q "^net net:/proc/net/dev" "$T/src-native" || src_fail "no net stream from /proc/net/dev"
case $want in *papi*) grep -q "^papi papi:perf::TASK-CLOCK" "$T/src-native" || src_fail "no papi native event" ;; esac
# one time axis: every source's streams have samples in the same rows
rows=$("$READ" "$T/r.mcz" info | awk '/^rows/ {print $2}')
[ "$rows" -ge 15 ] || src_fail "only $rows rows"
for name in pcp:kernel.all.cpu.user perf:core.task_clock; do
	n=$("$VALUES" "$T/r.mcz" "$name" | awk '{print $7; exit}')
	[ "$n" -ge $((rows - 2)) ] || src_fail "$name present in $n of $rows rows"
done
echo "combined recording: $(echo $want) in one file"
