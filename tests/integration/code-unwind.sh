#!/usr/bin/env bash
# code-unwind.sh: `mcrec --call-graph dwarf` on code built as distributions
# build it, without frame pointers (-O2 -g -fomit-frame-pointer): the
# workload tests/tools/unwind-split.c calls its leaf, in a shared library
# of its own, through mid three times as often from caller_a as from
# caller_b, the same work per call.  Through the real mcrec and the file's
# stacks (mcz dump --code --folded): the leaf's samples whose chain goes
# through caller_a and through caller_b are 3:1 within 10 %, and 95 % of
# them have one of the two in their chain (main above it); the same with
# -g0 (only .eh_frame to unwind by).  --call-graph fp on the same build
# finds neither caller above the leaf (under 5 % of its samples): why
# dwarf is needed.  --call-graph dwarf,SIZE asks the kernel for SIZE bytes;
# a bad SIZE is one line, exit 2.  On Debian's LAMMPS (lmp, where
# installed: a distribution's C++ build, Open MPI's components loaded and
# unloaded over each other at its start), 95 % of the samples reach its
# start (__libc_start_main), and the pair force's run under Run::command
# and Verlet::run.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc
MCZ=$B/mcz
S=${UNWIND_S:-2.5}

build() { # name, cflags...: lib<name>.so (the leaf) and <name> linked to it
	local n=$1
	shift
	cc "$@" -fPIC -shared -DSPLIT_LEAF -o "$T/lib$n.so" tests/tools/unwind-split.c &&
		cc "$@" -DSPLIT_MAIN -o "$T/$n" tests/tools/unwind-split.c -L"$T" -l"$n" \
			-Wl,-rpath,"$T" || fail "cc $*"
}
# the leaf's samples (folded lines "root;...;leaf count"): with
# main;caller_a;mid above it, with main;caller_b;mid, in all
leaf_split() {
	"$MCZ" dump --code --folded "$1" | awk '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s !~ /(^|;)split_leaf$/) next
		t += n
		if (s ~ /;main;split_caller_a;split_mid;split_leaf$/) a += n
		else if (s ~ /;main;split_caller_b;split_mid;split_leaf$/) b += n
	} END { print a + 0, b + 0, t + 0 }'
}
# record: name, file, mcrec options...: asserts the 3:1 split
check_split() {
	local n=$1 f=$2
	shift 2
	"$MCREC" -f -g code --code-hz 2000 "$@" -o "$f" -- "$T/$n" "$S" >"$T/out" 2>"$T/err" ||
		fail "$n: mcrec exit $?: $(tail -3 "$T/err")"
	read -r a b tot < <(leaf_split "$f")
	echo "$n: leaf samples $tot, under caller_a $a, under caller_b $b; $(grep -o 'unwound: .*each' "$T/err")"
	[ "${tot:-0}" -ge 1000 ] || fail "$n: only ${tot:-0} samples of the leaf"
	[ "$b" -gt 0 ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(a / b >= 2.7 && a / b <= 3.3) }' ||
		fail "$n: caller_a:caller_b = $a:$b, not 3:1 within 10 %"
	awk -v a="$a" -v b="$b" -v t="$tot" 'BEGIN { exit !(a + b >= 0.95 * t) }' ||
		fail "$n: only $((a + b)) of the leaf's $tot samples have caller_a or caller_b in their chain"
}

build split -O2 -g -fomit-frame-pointer
check_split split "$T/dwarf.mcz" --call-graph dwarf
ok "--call-graph dwarf, -O2 -g -fomit-frame-pointer: the leaf's callers 3:1"

build split0 -O2 -g0 -fomit-frame-pointer
readelf -S "$T/split0" | grep -q debug_info && fail "-g0 build has .debug_info"
check_split split0 "$T/dwarf0.mcz" --call-graph dwarf
ok "--call-graph dwarf, -g0 (.eh_frame only): the leaf's callers 3:1"

# frame pointers on code without them: the leaf's callers are not found
"$MCREC" -q -f -g code --code-hz 2000 --call-graph fp -o "$T/fp.mcz" -- "$T/split" 1 >/dev/null ||
	fail "mcrec --call-graph fp exit $?"
read -r a b tot < <(leaf_split "$T/fp.mcz")
echo "fp: leaf samples $tot, under caller_a $a, under caller_b $b"
[ "${tot:-0}" -ge 500 ] && [ $((a + b)) -lt $((tot / 20)) ] ||
	fail "fp on -fomit-frame-pointer: $((a + b)) of $tot leaf samples have caller_a or caller_b"
ok "--call-graph fp without frame pointers: the split not found ($((a + b)) of $tot)"

# a smaller copy reaches as far here (the stack is shallow); bad sizes refused
check_split split "$T/d1k.mcz" --call-graph dwarf,1024
ok "--call-graph dwarf,1024: the same split"
if command -v lmp >/dev/null; then
	. tests/integration/lammps-common.inc
	lammps_melt 10 100 400 >"$T/in.melt"
	(cd "$T" && "$MCREC" -f -g code --call-graph dwarf -o "$T/lmp.mcz" -- lmp -in in.melt -log none \
		-screen none >/dev/null 2>"$T/lmp.err") || fail "lmp: mcrec exit $?: $(tail -3 "$T/lmp.err")"
	"$MCZ" dump --code --folded "$T/lmp.mcz" >"$T/lmp.folded" || fail "lmp: dump --folded"
	read -r tot deep pair pairrun < <(awk '{
		n = $NF; t += n
		if ($0 ~ /;main;|\[lmp\];__libc_start_main/) d += n
		if ($0 ~ /PairLJCut::compute [0-9]+$/) {
			p += n
			if ($0 ~ /Run::command;LAMMPS_NS::Verlet::run;LAMMPS_NS::PairLJCut::compute /) r += n
		}
	} END { print t + 0, d + 0, p + 0, r + 0 }' "$T/lmp.folded")
	echo "lmp: $tot samples, $deep from the program's start; PairLJCut::compute $pair, $pairrun under Run::command;Verlet::run"
	[ "$tot" -gt 300 ] && [ "$deep" -ge $((tot * 95 / 100)) ] && [ "$pair" -gt $((tot * 3 / 10)) ] &&
		[ "$pairrun" -ge $((pair * 95 / 100)) ] || fail "lmp: stacks not whole: $(sort -t' ' -k2 -n "$T/lmp.folded" | tail -3)"
	ok "lmp (Debian's LAMMPS): PairLJCut::compute under Run::command;Verlet::run, $deep of $tot samples from the start"
else
	echo "note: no lmp (Debian's lammps package): LAMMPS left out"
fi

for bad in dwarf,0 dwarf,70000 dwarf,x dwarf,-8 dwarfy lbr; do
	"$MCREC" --call-graph "$bad" -- true >"$T/out" 2>&1
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] || fail "--call-graph $bad: exit $rc: $(cat "$T/out")"
done
ok "bad --call-graph values: one line, exit 2"
