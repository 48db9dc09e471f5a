#!/usr/bin/env bash
# src-pcp.sh: the pcp source against a real pmcd.  A command under mcrec
# sends 20 MB over loopback TCP and burns about a second of CPU, and reads
# the same metrics with pmval at its start and at its end, each pmval call
# between two marks (mcmark) so its moment is known on the recording's time
# axis.  The recording's kernel (kernel.all.cpu.user) and network
# (network.interface.in.bytes, lo) counters must agree with pmval exactly:
# each value pmval printed lies between the recorded samples just before
# and just after its pair of marks (other traffic on the shared loopback
# cannot break this, as it would a comparison of two windows), and both see
# the 20 MB and the second of CPU.  Also: one stream per instance
# (kernel.percpu.cpu.user x CPUs, bound to PUs), units and scale from the
# descriptors (ms -> s x 0.001, Kbyte -> B x 1024).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd python3
src_tmp
[ -x "$B/mcmark" ] || src_fail "no $B/mcmark"

cat >"$T/work.sh" <<'W'
T=$1 MARK=$3
sleep 0.2 # a few samples before the first mark
for k in 0 1; do
	if [ $k = 1 ]; then
		python3 "$2" 20 || exit 1
		# one second of user CPU, however loaded the machine (a one-second
		# wall-clock loop of `date` forks is mostly system time, and less
		# than a second of CPU when other work runs)
		python3 -c 'import os
u = os.times().user
while os.times().user - u < 1:
	for i in range(100000): pass' || exit 1
	fi
	"$MARK" "a$k"
	pmval -r -s 1 -i lo network.interface.in.bytes | tail -1 | awk '{print $NF}' >"$T/lo$k"
	"$MARK" "b$k"
	sleep 0.1
	"$MARK" "c$k"
	pmval -r -s 1 kernel.all.cpu.user | tail -1 | awk '{print $NF}' >"$T/u$k"
	"$MARK" "d$k"
	sleep 0.1
done
W

"$MCREC" -q -i 50ms -o "$T/r.mcz" \
	-e pcp:network.interface.in.bytes,pcp:kernel.all.cpu.user,pcp:kernel.percpu.cpu.user,pcp:mem.util.used \
	-- sh "$T/work.sh" "$T" "$PWD/tests/integration/src-loopback.py" "$B/mcmark" || src_fail "mcrec exited $?"
for f in lo0 lo1 u0 u1; do [ -s "$T/$f" ] || src_fail "pmval gave no $f"; done

"$READ" "$T/r.mcz" marks >"$T/marks"
mark() { awk -v m="$1" '$3 == m || $NF == m { print $1; exit }' "$T/marks"; }
# bracket NAME INSTANCE FROM TO VALUE: VALUE lies between the samples of the
# stream last before mark FROM and first after mark TO
bracket() {
	local lo hi t0 t1
	t0=$(mark "$3") t1=$(mark "$4")
	[ -n "$t0" ] && [ -n "$t1" ] || src_fail "marks $3/$4 missing: $(cat "$T/marks")"
	read -r lo hi <<<"$(SRC_VALUES_SERIES=1 "$VALUES" "$T/r.mcz" "pcp:$1" $2 |
		awk -v a="$t0" -v b="$t1" 'NR > 1 { if ($1 <= a) lo = $2; if ($1 >= b && hi == "") hi = $2 } END { print lo, hi }')"
	[ -n "$lo" ] && [ -n "$hi" ] || src_fail "$1: no samples around marks $3..$4"
	echo "$1 $2: pmval $5 between recorded $lo and $hi"
	[ "$lo" -le "$5" ] && [ "$5" -le "$hi" ] || src_fail "$1: pmval's $5 is not between the recorded $lo and $hi"
}

read -r _ src native unit scale kind n first last _ <<<"$("$VALUES" "$T/r.mcz" network.interface.in.bytes lo)"
[ "$src $native $unit $kind" = "pcp pcp:network.interface.in.bytes B counter" ] ||
	src_fail "lo stream described as: $src $native $unit $kind"
[ "$n" -ge 10 ] || src_fail "only $n samples of lo in.bytes"
bracket network.interface.in.bytes lo a0 b0 "$(cat "$T/lo0")"
bracket network.interface.in.bytes lo a1 b1 "$(cat "$T/lo1")"
[ $(( $(cat "$T/lo1") - $(cat "$T/lo0") )) -ge $((20 << 20)) ] || src_fail "pmval saw less than 20 MiB on lo"
[ $((last - first)) -ge $((20 << 20)) ] || src_fail "mcrec saw only $((last - first)) B on lo"

read -r _ src native unit scale kind n first last _ <<<"$("$VALUES" "$T/r.mcz" kernel.all.cpu.user)"
[ "$unit $scale $kind" = "s 0.001 counter" ] || src_fail "cpu.user unit/scale/kind: $unit $scale $kind"
bracket kernel.all.cpu.user "" c0 d0 "$(cat "$T/u0")"
bracket kernel.all.cpu.user "" c1 d1 "$(cat "$T/u1")"
[ $(( $(cat "$T/u1") - $(cat "$T/u0") )) -ge 700 ] || src_fail "pmval saw under 0.7 s of user CPU (a 1 s spin ran)"
[ $((last - first)) -ge 700 ] || src_fail "mcrec saw under 0.7 s of user CPU"

ncpu=$(pminfo -f kernel.percpu.cpu.user | grep -c 'inst \[')
"$VALUES" "$T/r.mcz" kernel.percpu.cpu.user >"$T/percpu" || src_fail "no percpu streams"
[ "$(wc -l <"$T/percpu")" -eq "$ncpu" ] || src_fail "$(wc -l <"$T/percpu") percpu streams, pmcd has $ncpu instances"
awk '$1 !~ /^cpu[0-9]+$/ || $NF < 0 { bad = 1 } END { exit bad }' "$T/percpu" ||
	src_fail "percpu streams not named cpuN or not bound to a PU: $(cat "$T/percpu")"

read -r _ src native unit scale kind n _ <<<"$("$VALUES" "$T/r.mcz" mem.util.used)"
[ "$unit $scale $kind" = "B 1024 gauge" ] || src_fail "mem.util.used (Kbyte instant) became $unit $scale $kind"
echo "pcp source agrees with pmval"
