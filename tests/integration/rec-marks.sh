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
between "$tri" 0.25 1.5 || fail "triad region not busy in the samples ($tri; the machine may be overloaded)"
between "$idl" 0 0.1 || fail "idle region not idle in the samples ($idl)"

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
between $gap 500 $((500 + IV + 80)) || fail "begin-start = $gap ms, expected 500 ms + process start"
"$RR" "$T/s.mcz" series core.task_clock >"$T/tc"
wb=$(busy "$t_b" "$t_e")
echo "CPU busy inside the work region: $wb"
between "$wb" 0.25 1.5 || fail "work region not busy ($wb)"
"$MCMARK" --check && fail "mcmark --check outside mcrec should fail"
"$MCMARK" "outside" || fail "mcmark outside mcrec must be a silent no-op"
ok "marks at the right times"
