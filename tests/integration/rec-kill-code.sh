#!/usr/bin/env bash
# rec-kill-code.sh: a killed recorder keeps its code profile.  The code
# source writes its samples every 0.5 s as CODEPART blocks (format/SPEC.md
# 5.11), unsymbolized; mcz and mcview name them from this host's binaries
# when they read the file.  Three ways a recorder dies:
#   - SIGKILL of mcrec at 4 s of a busy 1-thread program (two functions,
#     3:1): at least 3 s of code samples, named hot_a and hot_b, 3:1 within
#     10 %, up to 1 s before the last row;
#   - TERM then KILL 0.3 s later to mcrec and its command, as a scheduler
#     ends a job: the same;
#   - a 2-rank LAMMPS job (Debian's lmp, a 12 MB C++ library) under mpirun,
#     TERM then KILL 0.3 s later to the whole job at 4 s: both ranks' files
#     hold at least 2.5 s of code named LAMMPS_NS::..., and `mcview
#     --report` of the job reads its useful time from code samples.
# Files cut before their first CODEPART block (no code at all) are said to
# be so because their recorder was killed, not for want of the code source.
# The first two run side by side (one busy thread each, 2 cores).
set -u
. "$(dirname "$0")/rec-common.inc"
. "$(dirname "$0")/lammps-common.inc"
MCZ=$B/mcz
MCVIEW=$B/mcview
cat >"$T/spin.c" <<'C'
#include <time.h>
static volatile double x;
__attribute__((noinline)) static void hot_a(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }
__attribute__((noinline)) static void hot_b(long n) { for (long i = 0; i < n; i++) x -= i * 0.25; }
int main(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		hot_a(3000000);
		hot_b(1000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 30);
	return 0;
}
C
cc -O2 -g -o "$T/spin" "$T/spin.c" || fail "cc spin.c"

# code_span FILE: $n samples, from $a to $b s, of the code profile as mcz
# dump --code names it (into FILE.code); $last_row: the last row's time
code_span() {
	"$MCZ" dump --code --csv "$1" >"$1.code" 2>&1 || fail "$1: mcz dump --code: $(head -2 "$1.code")"
	last_row=$("$MCZ" dump --csv "$1" | awk -F, 'NR > 1 { t = $1 } END { print t }')
	read -r n a b < <(awk -F, 'NR > 1 { n += $2; if (!s || $1 < a) a = $1; if ($1 > b) b = $1; s = 1 }
		END { printf "%d %.3f %.3f\n", n, a, b }' "$1.code")
}

# killed_spin FILE HOW: mcrec of spin, killed at 4 s (kill9: SIGKILL of
# mcrec; term: TERM then KILL 0.3 s later to mcrec and spin)
killed_spin() {
	local f=$1 how=$2
	setsid "$MCREC" -q -o "$f" -- "$T/spin" &
	local m=$!
	sleep 4
	if [ "$how" = kill9 ]; then
		kill -9 $m
	else
		kill -TERM -- -$m
		sleep 0.3
		kill -KILL -- -$m 2>/dev/null
	fi
	wait $m 2>/dev/null
	pkill -f "$T/spin" 2>/dev/null
	code_span "$f"
	span=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a + 0.1 }')
	echo "$how: $n code samples from $a to $b s ($span s), last row at $last_row s"
	between "$span" 3 5 || fail "$how: $span s of code samples, expected at least 3 s"
	# 1 kHz of CPU time: side by side with the other case and two
	# recorders on 2 cores, each spin has at least a third of a CPU
	between "$n" 1000 5000 || fail "$how: $n code samples in $span s at 1 kHz"
	between "$(awk -v b="$b" -v l="$last_row" 'BEGIN { print l - b }')" -0.2 1 ||
		fail "$how: the last code samples at $b s, the last row at $last_row s"
	a_n=$(awk -F, '$3 == "hot_a" { n += $2 } END { print n + 0 }' "$f.code")
	b_n=$(awk -F, '$3 == "hot_b" { n += $2 } END { print n + 0 }' "$f.code")
	[ "$b_n" -gt 0 ] || fail "$how: hot_b not named: $(head -5 "$f.code")"
	ratio=$(awk -v a="$a_n" -v b="$b_n" 'BEGIN { printf "%.2f", a / b }')
	between "$ratio" 2.7 3.3 || fail "$how: hot_a:hot_b = $ratio, expected 3 within 10 %"
	echo "$how: hot_a $a_n, hot_b $b_n samples ($ratio:1)"
}

(killed_spin "$T/k9.mcz" kill9) >"$T/k9.out" 2>&1 &
k9=$!
(killed_spin "$T/term.mcz" term) >"$T/term.out" 2>&1
trc=$?
wait $k9
k9rc=$?
cat "$T/k9.out" "$T/term.out"
[ $k9rc = 0 ] || fail "SIGKILL (above)"
[ $trc = 0 ] || fail "TERM then KILL (above)"
# the report says the code is there, and where it came from
"$MCZ" info "$T/k9.mcz" >"$T/k9.info"
grep -q '^code note .*cut before its end.*symbolized when read' "$T/k9.info" ||
	fail "mcz info: $(grep '^code' "$T/k9.info")"
"$MCVIEW" --report "$T/k9.mcz" >"$T/k9.report" 2>&1 || fail "mcview --report: $(tail -3 "$T/k9.report")"
grep -q 'hot_a' "$T/k9.report" || fail "the report names no hot_a: $(cat "$T/k9.report")"
ok "SIGKILL and TERM+KILL: $(head -1 "$T/k9.out" | cut -d: -f2-)"

# before_parts FILE OUT: FILE cut where its first CODEPART block begins, as
# a recorder killed before any (or one before format 1.6) left it
before_parts() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
o = 20
while o + 16 <= len(b) and b[o:o + 4] == b'mczB' and struct.unpack_from('<H', b, o + 4)[0] != 15:
    o += 20 + struct.unpack_from('<I', b, o + 8)[0]
open(sys.argv[2], 'wb').write(b[:o])
PY
}
# no code profile: the reason is the kill, not a missing code source
before_parts "$T/k9.mcz" "$T/k9-none.mcz"
"$MCZ" dump --code "$T/k9-none.mcz" 2>"$T/none.err" && fail "a file without code: dump --code exit 0"
grep -q 'killed before it wrote any' "$T/none.err" || fail "no code, said as: $(cat "$T/none.err")"

# a killed file's repair writes its code, symbolized, as a CODE block: the
# repaired file names it without the binary, the killed one no longer can
"$MCZ" check "$T/k9.mcz" --repair "$T/k9-fixed.mcz" >/dev/null || fail "repair of the killed file"
mv "$T/spin" "$T/spin.gone"
"$MCZ" dump --code --csv "$T/k9-fixed.mcz" | grep -q ',hot_b,' || fail "the repaired file lost its names"
"$MCZ" dump --code --csv "$T/k9.mcz" >"$T/k9.gone"
grep -q ',hot_b,' "$T/k9.gone" && fail "named from a binary that is gone"
grep -q "$T/spin,0x" "$T/k9.gone" || fail "without its binary: $(head -3 "$T/k9.gone")"

if ! command -v mpirun >/dev/null || ! command -v lmp >/dev/null; then
	echo "note: no mpirun or lmp (apt install openmpi-bin lammps): the job part not run"
	exit 0
fi
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
lammps_melt 16 100 100000 >"$T/in.melt"
rec=$(realpath "$MCREC")
(cd "$T" && exec setsid mpirun $ROOT --oversubscribe -n 2 -x OMP_NUM_THREADS=1 "$rec" -q \
	-o "$T/lmp.%r.mcz" -- lmp -in in.melt -log none >"$T/lmp.out" 2>&1) &
j=$!
sleep 4
kill -TERM -- -$j
sleep 0.3
kill -KILL -- -$j 2>/dev/null
wait $j 2>/dev/null
pkill -KILL -f "lmp -in in.melt" 2>/dev/null
for r in 0 1; do
	f=$T/lmp.$r.mcz
	[ -f "$f" ] || fail "rank $r left no file"
	code_span "$f"
	span=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a + 0.1 }')
	echo "rank $r: $n code samples over $span s, last row at $last_row s"
	between "$span" 2.5 5 || fail "rank $r: $span s of code samples, expected at least 2.5 s"
	grep -q 'LAMMPS_NS::' "$f.code" || fail "rank $r: no LAMMPS_NS:: name: $(head -5 "$f.code")"
done
"$MCVIEW" --report "$T"/lmp.0.mcz "$T"/lmp.1.mcz >"$T/job.txt" 2>&1 || fail "the job's report: $(tail -3 "$T/job.txt")"
grep -q '^useful time from code samples' "$T/job.txt" || fail "job report: $(head -4 "$T/job.txt")"
# the same job's files without their parts: the report says why there is no code
for r in 0 1; do before_parts "$T/lmp.$r.mcz" "$T/none.$r.mcz"; done
"$MCVIEW" --report "$T"/none.0.mcz "$T"/none.1.mcz >"$T/none.txt" 2>&1 || fail "report of the cut job: $(tail -3 "$T/none.txt")"
grep -q 'the code source ran, but the files hold no code profile: their recorder was killed' "$T/none.txt" ||
	fail "the cut job's report: $(head -4 "$T/none.txt")"
grep -q "record with mcrec's code source" "$T/none.txt" && fail "the cut job's report advises the code source, which ran"
ok "LAMMPS, 2 ranks, TERM then KILL at 4 s: both files keep their code (LAMMPS_NS:: named)"
