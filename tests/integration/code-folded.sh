#!/usr/bin/env bash
# code-folded.sh: call stacks in the file (CODESTACKS, CODEPARTSTACKS:
# format/SPEC.md 5.13, 5.14) and `mcz dump --code --folded`.  A program
# whose leaf (in a library of its own) is called 3:1 from two callers,
# built with frame pointers (-O2 -g -fno-omit-frame-pointer; the leaf
# calls a function, so that gcc gives it a frame), under mcrec
# --call-graph fp:
#   - folded lines `__libc_start_call_main;main;caller_a;leaf_work N`, the
#     leaf's samples through caller_a and caller_b 3:1 within 10 %; the
#     lines' counts add up to the profile's samples (mcz dump --code
#     --csv), and those of --from/--to to its rows in that span;
#   - SIGKILL of mcrec at 3.5 s: the stacks kept as written while it ran,
#     3:1 within 10 %;
#   - MCZ_FORMAT=1.6 (no stacks): one frame per line, the leaf's samples
#     the same as the csv's;
#   - a job file of two such recordings: its lines the sum of both files',
#     --rank 1 the second file's;
#   - bad usage: one line, exit 2; a rank the job lacks: one line, exit 1.
# mcz-test: parallel (counts of samples, shares; no timing)
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
cat >"$T/leaf.c" <<'C'
__attribute__((noinline)) void leaf_done(double *x) { __asm__ volatile("" : : "r"(x) : "memory"); }
__attribute__((noinline)) double leaf_work(double x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 1.0000001 + 1e-9;
	leaf_done(&x);
	return x;
}
C
cat >"$T/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
double leaf_work(double);
__attribute__((noinline)) double caller_a(double x)
{
	for (int k = 0; k < 3; k++)
		x = leaf_work(x);
	return x + 1;
}
__attribute__((noinline)) double caller_b(double x) { return leaf_work(x) + 2; }
int main(int argc, char **argv)
{
	double x = 1;
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++)
		x = caller_b(caller_a(x));
	printf("%g\n", x);
	return 0;
}
C
FP="-O2 -g -fno-omit-frame-pointer"
cc $FP -fPIC -shared -o "$T/libleaf.so" "$T/leaf.c" || fail "cc leaf.c"
cc $FP -o "$T/prog" "$T/prog.c" -L"$T" -lleaf -Wl,-rpath,"$T" || fail "cc prog.c"

# split FILE [ARGS]: the leaf's samples through caller_a and caller_b
split() {
	"$MCZ" dump --code --folded "$@" >"$T/f.txt" 2>"$T/f.err" || fail "dump --folded $*: $(cat "$T/f.err")"
	awk '/;caller_a;leaf_work [0-9]+$/ { a += $NF } /;caller_b;leaf_work [0-9]+$/ { b += $NF }
	     END { print a + 0, b + 0 }' "$T/f.txt"
}
# sum FILE: the counts of the folded lines
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
# ratio3 A B WHAT: A:B is 3:1 within 10 %
ratio3() {
	[ "$2" -gt 0 ] || fail "$3: no samples through caller_b: $(sort -t' ' -k2 -n "$T/f.txt" | tail -3)"
	within "$(awk -v a="$1" -v b="$2" 'BEGIN { print a / b }')" 3 0.10 ||
		fail "$3: caller_a $1, caller_b $2, not 3:1: $(sort -t' ' -k2 -n "$T/f.txt" | tail -3)"
}

"$MCREC" -q --call-graph fp -o "$T/fp.mcz" -- "$T/prog" 2000 >/dev/null || fail "mcrec exit $?"
read -r a b < <(split "$T/fp.mcz")
ratio3 "$a" "$b" "frame pointers"
grep -q '^__libc_start_call_main;main;caller_a;leaf_work [0-9]*$' "$T/f.txt" ||
	fail "no root-first stack of caller_a: $(head -3 "$T/f.txt")"
"$MCZ" info "$T/fp.mcz" | grep -q 'format 1.7)' || fail "$("$MCZ" info "$T/fp.mcz" | head -1)"
total=$(sum "$T/f.txt")
csv=$("$MCZ" dump --code --csv "$T/fp.mcz" | awk -F, 'NR > 1 { s += $2 } END { print s + 0 }')
[ "$total" = "$csv" ] || fail "the folded lines count $total samples, the profile $csv"
"$MCZ" dump --code --folded --from 1 --to 2 "$T/fp.mcz" >"$T/w.txt" || fail "--from 1 --to 2"
wcsv=$("$MCZ" dump --code --csv --from 1 --to 2 "$T/fp.mcz" | awk -F, 'NR > 1 { s += $2 } END { print s + 0 }')
[ "$(sum "$T/w.txt")" = "$wcsv" ] && [ "$wcsv" -gt 0 ] && [ "$wcsv" -lt "$csv" ] ||
	fail "1 s to 2 s: folded $(sum "$T/w.txt"), csv $wcsv of $csv"
ok "--call-graph fp: caller_a $a, caller_b $b samples of leaf_work; $total in all = the csv's; 1-2 s: $wcsv"

# a killed recorder: the stacks of its CODEPARTSTACKS blocks
"$MCREC" -q --call-graph fp -o "$T/k.mcz" -- "$T/prog" 100000 >/dev/null &
rec=$!
sleep 3.5
kill -KILL "$rec"
wait "$rec" 2>/dev/null
pkill -KILL -f "$T/prog" 2>/dev/null
read -r a b < <(split "$T/k.mcz")
ratio3 "$a" "$b" "SIGKILL at 3.5 s"
# 3.5 s at 1 kHz, less the start and the last half-second part not yet
# written; 1,399 on a machine running two builds beside the test
[ "$((a + b))" -ge 1000 ] || fail "SIGKILL at 3.5 s: only $((a + b)) samples of leaf_work"
ok "SIGKILL at 3.5 s: caller_a $a, caller_b $b (the parts' stacks)"

# a file for 1.6 readers: no stacks, each location alone
MCZ_FORMAT=1.6 "$MCREC" -q --call-graph fp -o "$T/v6.mcz" -- "$T/prog" 500 >/dev/null || fail "MCZ_FORMAT=1.6"
"$MCZ" dump --code --folded "$T/v6.mcz" >"$T/v6.txt" || fail "--folded of a 1.6 file"
grep -q ';' "$T/v6.txt" && fail "a 1.6 file has stacks: $(grep ';' "$T/v6.txt" | head -2)"
leaf6=$(awk '$1 == "leaf_work" { print $2 }' "$T/v6.txt")
csv6=$("$MCZ" dump --code --csv "$T/v6.mcz" | awk -F, 'NR > 1 && $3 == "leaf_work" { s += $2 } END { print s + 0 }')
[ -n "$leaf6" ] && [ "$leaf6" = "$csv6" ] || fail "1.6: leaf_work $leaf6, the csv's $csv6"
ok "MCZ_FORMAT=1.6: one frame a line, leaf_work $leaf6 = the csv's"

# a job: both ranks added up, or one
for r in 0 1; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 "$MCREC" -q --call-graph fp -o "$T/j.$r.mcz" -- "$T/prog" 300 >/dev/null ||
		fail "rank $r"
done
"$MCZ" merge -q "$T/j.0.mcz" "$T/j.1.mcz" -o "$T/job.mcz" || fail "merge"
read -r a0 b0 < <(split "$T/j.0.mcz")
read -r a1 b1 < <(split "$T/j.1.mcz")
read -r aj bj < <(split "$T/job.mcz")
[ "$aj" = $((a0 + a1)) ] && [ "$bj" = $((b0 + b1)) ] || fail "job: $aj $bj, the ranks' $a0+$a1 $b0+$b1"
read -r ar br < <(split --rank 1 "$T/job.mcz")
[ "$ar $br" = "$a1 $b1" ] || fail "--rank 1: $ar $br, rank 1's file $a1 $b1"
ok "a job: the ranks added up ($aj, $bj), --rank 1 = rank 1's file"

# bad usage
"$MCZ" dump --code --folded --csv "$T/fp.mcz" >/dev/null 2>"$T/e1"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/e1")" = 1 ] || fail "--folded --csv: exit $rc: $(cat "$T/e1")"
"$MCZ" dump --folded "$T/fp.mcz" >/dev/null 2>"$T/e2"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/e2")" = 1 ] || fail "--folded without --code: exit $rc: $(cat "$T/e2")"
"$MCZ" dump --code --folded --rank x "$T/job.mcz" >/dev/null 2>"$T/e3"; rc=$?
[ $rc = 2 ] && grep -q "rank 'x'" "$T/e3" || fail "--rank x: exit $rc: $(cat "$T/e3")"
"$MCZ" dump --code --folded --rank 5 "$T/job.mcz" >/dev/null 2>"$T/e4"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/e4")" = 1 ] && grep -q "no rank 5" "$T/e4" || fail "--rank 5: exit $rc: $(cat "$T/e4")"
ok "bad usage: one line each, exit 2; a rank the job lacks: exit 1"
