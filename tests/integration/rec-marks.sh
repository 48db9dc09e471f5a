#!/usr/bin/env bash
# rec-marks.sh: marks from mcmark.h (the phased sample) and from the mcmark
# command land in the file at the right times (within one interval), on the
# same time axis as the samples.
set -u
. "$(dirname "$0")/rec-common.inc"
IV=20 # ms
"$MCREC" -q -i ${IV}ms -o "$T/m.mcz" -- "$PHASED" --scale 0.4 >"$T/phased.out" || fail "mcrec exit $?"
cat "$T/phased.out"
"$RR" "$T/m.mcz" marks >"$T/marks"
cat "$T/marks"
# Region names in order, each begin followed by its end.
names=$(awk '$2 == "begin" { print $4 }' "$T/marks" | tr '\n' ' ')
[ "$names" = "triad gemm triad gemm idle chase " ] || fail "regions: $names"
[ "$(grep -c ' end ' "$T/marks")" = 6 ] || fail "expected 6 region ends"
# Phase starts relative to the first, from the marks and from phased itself.
awk '$2 == "begin" { print $1 }' "$T/marks" >"$T/mb"
awk '$1 ~ /^[0-9]+$/ { print $3 }' "$T/phased.out" >"$T/ps"
paste "$T/mb" "$T/ps" | awk -v iv=$IV 'NR == 1 { m0 = $1; p0 = $2 }
	{ d = ($1 - m0) / 1e6 - ($2 - p0) * 1e3; if (d < 0) d = -d
	  printf "phase %d: mark %.1f ms, phased %.1f ms, off %.2f ms\n", NR, ($1 - m0) / 1e6, ($2 - p0) * 1e3, d
	  if (d > iv) bad = 1 }
	END { exit bad }' || fail "mark times differ from the phases' own clock by more than ${IV} ms"
# Samples and marks share the time axis: CPU busy in triad, idle in idle.
"$RR" "$T/m.mcz" series core.task_clock >"$T/tc"
region() { # name occurrence -> "begin end" ns
	awk -v n="$1" -v k="$2" '$2 == "begin" && $4 == n { c++; if (c == k) { b = $1; want = 1; next } }
		want && $2 == "end" { print b, $1; exit }' "$T/marks"
}
busy() { # begin end -> mean CPUs busy over samples well inside
	awk -v b="$1" -v e="$2" -v iv=$((IV * 1000000)) 'NR > 1 && $1 > b + iv && $1 <= e { s += $2; n += ($1 - pt) / 1e9 } { pt = $1 }
		END { printf "%.2f", n ? s / n : -1 }' "$T/tc"
}
tri=$(busy $(region triad 1))
idl=$(busy $(region idle 1))
echo "CPU busy inside triad: $tri, inside idle: $idl"
# (the share of a CPU the kernel gets depends on the machine's load: only the
# contrast with the idle region is asserted)
between "$idl" 0 0.05 || fail "idle region not idle in the samples ($idl)"
awk -v t="$tri" -v i="$idl" 'BEGIN { exit !(t >= i + 0.1) }' || fail "triad region ($tri) not busier than idle ($idl)"

# The mcmark command from a shell script.
"$MCREC" -q -i ${IV}ms -o "$T/s.mcz" -- sh -c "'$MCMARK' start; sleep 0.5; '$MCMARK' -b work; '$WORK' --spin 60; '$MCMARK' --end; '$MCMARK' --check" \
	|| fail "mcmark under mcrec: exit $?"
"$RR" "$T/s.mcz" marks >"$T/smarks"
cat "$T/smarks"
t_start=$(awk '$2 == "point" && $4 == "start" { print $1 }' "$T/smarks")
t_b=$(awk '$2 == "begin" && $4 == "work" { print $1 }' "$T/smarks")
t_e=$(awk '$2 == "end" { print $1 }' "$T/smarks")
[ -n "$t_start" ] && [ -n "$t_b" ] && [ -n "$t_e" ] || fail "mcmark marks missing"
gap=$(( (t_b - t_start) / 1000000 ))
# the second mark comes 500 ms and one start of the mcmark program later:
# 80 ms at most, 250 ms for an ASan build (make check SAN=1: its runtime's
# start-up is most of it)
start_ms=80
[[ $B == *-san ]] && start_ms=250
between $gap 500 $((500 + IV + start_ms)) || fail "begin-start = $gap ms, expected 500 ms + process start"
"$RR" "$T/s.mcz" series core.task_clock >"$T/tc"
wb=$(busy "$t_b" "$t_e")
# The spin is a fixed amount of CPU work; how much of a CPU it gets per second
# depends on the machine's load, so what is asserted is where its CPU time
# lands: nearly all of the run's task clock falls in the samples that overlap
# the work region (the rest is sh, sleep and the mcmark calls).
share=$(awk -v b="$t_b" -v e="$t_e" 'NR > 1 && $1 > b && pt < e { s += $2 } { a += $2; pt = $1 }
	END { printf "%.2f", (a > 0 ? s / a : -1) }' "$T/tc")
echo "CPU busy inside the work region: $wb; share of the run's CPU time there: $share"
between "$share" 0.7 1 || fail "work region not busy: $share of the run's CPU time in it"
between "$wb" 0 1.5 || fail "work region busier than one CPU ($wb)"
# An application that includes mcmark.h, built as strict ISO C and as C++.
HDR=$(cd "$(dirname "$0")/../../recorder" && pwd)
cat >"$T/app.c" <<'APP'
#include "mcmark.h"
#include <time.h>
int main(void)
{
	struct timespec ts = {0, 200000000};
	mcmark("app start");
	mcmark_work(2.0, 24.0);
	mcmark_begin("nap");
	nanosleep(&ts, NULL);
	mcmark_end();
	return mcmark_active() ? 0 : 3;
}
APP
cc -std=c11 -Wall -Wextra -pedantic -Werror -I"$HDR" -o "$T/app" "$T/app.c" || fail "mcmark.h does not build as -std=c11 -pedantic"
if command -v c++ >/dev/null; then
	cp "$T/app.c" "$T/app.cpp"
	c++ -Wall -Wextra -Werror -I"$HDR" -o "$T/appxx" "$T/app.cpp" || fail "mcmark.h does not build as C++"
fi
"$T/app" && fail "the app thinks it runs under mcrec"
"$MCREC" -q -i ${IV}ms -o "$T/a.mcz" -- "$T/app" || fail "the app under mcrec: exit $?"
"$RR" "$T/a.mcz" marks >"$T/amarks"
cat "$T/amarks"
t_a=$(awk '$2 == "point" && $3 != 0 && $4 == "app" { print $1; exit }' "$T/amarks")
t_nb=$(awk '$2 == "begin" && $4 == "nap" { print $1 }' "$T/amarks")
t_ne=$(awk '$2 == "end" { print $1; exit }' "$T/amarks")
[ -n "$t_a" ] && [ -n "$t_nb" ] && [ -n "$t_ne" ] || fail "the app's marks are missing"
between $(( (t_ne - t_nb) / 1000000 )) 199 $((200 + IV)) || fail "nap region lasts $(( (t_ne - t_nb) / 1000000 )) ms, slept 200 ms"

"$MCMARK" --check && fail "mcmark --check outside mcrec should fail"
"$MCMARK" "outside" || fail "mcmark outside mcrec must be a silent no-op"
ok "marks at the right times"
