#!/usr/bin/env bash
# code-unwind.sh: `mcrec --call-graph dwarf` on code built as distributions
# build it, without frame pointers (-O2 -g -fomit-frame-pointer): the
# workload tests/tools/unwind-split.c calls its leaf, in a shared library
# of its own, three times as often from caller_a as from caller_b, the same
# work per call.  Through the real mcrec and the file (mcz dump --code
# --json, its callers): the leaf's samples under caller_a and under
# caller_b are 3:1 within 10 %, and nearly all of them (95 %) have one of
# the two above them; the same with -g0 (only .eh_frame to unwind by).
# --call-graph fp on the same build finds neither caller for the leaf
# (under 5 % of its samples): why dwarf is needed.  --call-graph dwarf,SIZE
# asks the kernel for SIZE bytes; a bad SIZE is one line, exit 2.  On
# Debian's LAMMPS (lmp, where installed: a distribution's C++ build, Open
# MPI's components loaded and unloaded over each other at its start), the
# pair force's samples are called from Verlet::run (95 %), and 95 % of all
# samples reach a caller.
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
# the leaf's samples: under caller_a, under caller_b, in all
leaf_split() {
	"$MCZ" dump "$1" --code --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
L = d["locations"]
leaf = {l["id"] for l in L if l["function"] == "split_leaf"}
tot = sum(n for iv in d["intervals"] for loc, n in iv["hits"] if loc in leaf)
by = {"split_caller_a": 0, "split_caller_b": 0}
for loc, caller, n in d["callers"]:
    f = L[caller]["function"]
    if loc in leaf and f in by:
        by[f] += n
print(by["split_caller_a"], by["split_caller_b"], tot)'
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
		fail "$n: only $((a + b)) of the leaf's $tot samples have a caller"
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
	"$MCZ" dump "$T/lmp.mcz" --code --json | python3 -c '
import collections, json, sys
d = json.load(sys.stdin)
L = d["locations"]
tot = sum(n for iv in d["intervals"] for loc, n in iv["hits"])
deep = sum(n for _, _, n in d["callers"])
pair = collections.Counter()
for loc, caller, n in d["callers"]:
    if "PairLJCut7compute" in L[loc]["function"]:
        pair[L[caller]["function"]] += n
own = sum(n for iv in d["intervals"] for loc, n in iv["hits"] if "PairLJCut7compute" in L[loc]["function"])
top, n = pair.most_common(1)[0] if pair else ("-", 0)
print(f"lmp: {tot} samples, {deep} with a caller; PairLJCut::compute {own}, from {top} {n}")
sys.exit(not (deep >= 0.95 * tot and "Verlet3run" in top and n >= 0.95 * own and own > 0.3 * tot))' ||
		fail "lmp: callers not found (see above)"
	ok "lmp (Debian's LAMMPS): PairLJCut::compute called from Verlet::run"
else
	echo "note: no lmp (Debian's lammps package): LAMMPS left out"
fi

for bad in dwarf,0 dwarf,70000 dwarf,x dwarf,-8 dwarfy lbr; do
	"$MCREC" --call-graph "$bad" -- true >"$T/out" 2>&1
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] || fail "--call-graph $bad: exit $rc: $(cat "$T/out")"
done
ok "bad --call-graph values: one line, exit 2"
