#!/usr/bin/env bash
# code-record.sh: the code source on a real workload (tests/tools/code-phases.c:
# compute, stream, idle, stream, compute; kernels inlined into main at -O2).
# Built with -g: in every busy phase the right function dominates (DWARF's
# inline records name it although the symbol table says main), file:line
# and the inline chain are in the file, the build-id is the binary's; and
# per phase the top function and its share agree with `perf record -e
# cpu-clock:u` + `perf script` over the same program within 5 points.  Built
# without -g: the functions are `main` (symbol table), but the two kernels
# are still two places (64-byte regions).  A stripped binary: a note in the
# file, everything else recorded.  A binary deleted during the run (by the
# shell that started it, 20 ms after): still symbolized, from the file held
# open since it was first seen (through /proc/PID/map_files when it was
# already gone from its path).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc
MCZ=$B/mcz
PH=${CODE_PHASE_S:-1}

cc -O2 -g -o "$T/work-g" tests/tools/code-phases.c || fail "cc -g"
cc -O2 -o "$T/work" tests/tools/code-phases.c || fail "cc"

"$MCREC" -f -g code -o "$T/g.mcz" -- "$T/work-g" "$PH" 2>"$T/g.err" || fail "mcrec exit $?: $(tail -3 "$T/g.err")"
grep -q '^mcrec: code: [0-9]* samples, .* symbolized in' "$T/g.err" || fail "no code summary: $(cat "$T/g.err")"
"$MCZ" dump "$T/g.mcz" --code --csv >"$T/g.csv" || fail "dump --code"
t_first=$("$MCZ" dump "$T/g.mcz" --csv --streams code.samples | awk -F, 'NR == 2 { print $1; exit }')
epoch=$("$MCZ" info "$T/g.mcz" | awk '$2 == "wall_epoch_ns" { print $4 }')
[ -n "$epoch" ] || fail "no wall_epoch_ns"

# the inline chain and file:line of the compute kernel
grep -q ',compute_kernel,main,.*code-phases.c,[0-9]*,' "$T/g.csv" ||
	fail "no compute_kernel inlined into main with file:line: $(head -5 "$T/g.csv")"
bid=$(readelf -n "$T/work-g" | awk '/Build ID/ { print $3 }')
"$MCZ" dump "$T/g.mcz" --code --json | grep -q "\"build_id\": \"$bid\"" || fail "build-id $bid not kept"
ok "compute_kernel inlined into main, file:line, build-id $bid"

# perf over the same program, same rate, user space as mcrec samples it
have_perf=0
if command -v perf >/dev/null &&
	perf record -q -e cpu-clock:u -c 1000000 -k mono -o "$T/perf.data" -- "$T/work-g" "$PH" \
		>/dev/null 2>"$T/p.err"; then
	perf script -i "$T/perf.data" -F time,ip,sym,srcline >"$T/perf.txt" 2>/dev/null && have_perf=1
fi
if [ $have_perf = 1 ]; then
	MCZ_T_FIRST=0 python3 tests/integration/code-phases.py "$T/g.err" "$epoch" "$T/g.csv" "$T/p.err" "$T/perf.txt" >"$T/cmp" ||
		fail "code-phases.py"
else
	echo "note: perf record not usable here; mcz shares only"
	python3 tests/integration/code-phases.py "$T/g.err" "$epoch" "$T/g.csv" >"$T/cmp" || fail "code-phases.py"
fi
cat "$T/cmp"
want=(compute_kernel stream_kernel - stream_kernel compute_kernel)
i=0
while read -r name _ f sh n _ pf psh pn; do
	w=${want[$i]}
	i=$((i + 1))
	if [ "$w" = - ]; then
		# idle: sleeping code is not sampled (user space, cpu-clock)
		[ "${n:-0}" -lt 20 ] || fail "idle phase has $n samples"
		continue
	fi
	[ "$f" = "$w" ] || fail "phase $i ($name): top function $f, want $w"
	between "$sh" 0.9 1.0 || fail "phase $i ($name): $w only $sh of the samples"
	if [ $have_perf = 1 ]; then
		[ "$pf" = "$w" ] || fail "phase $i ($name): perf's top function $pf, want $w"
		awk -v a="$sh" -v b="$psh" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05) }' ||
			fail "phase $i ($name): share $sh vs perf $psh: more than 5 points apart"
	fi
done <"$T/cmp"
[ $i = 5 ] || fail "expected 5 phases, got $i"
ok "every busy phase's top function is the right one$([ $have_perf = 1 ] && echo ", within 5 points of perf")"

# without -g: the symbol table names main, the two kernels are distinct regions
"$MCREC" -q -f -g code -o "$T/n.mcz" -- "$T/work" "$PH" 2>"$T/n.err" || fail "mcrec (no -g) exit $?"
"$MCZ" dump "$T/n.mcz" --code --csv >"$T/n.csv"
python3 tests/integration/code-phases.py "$T/n.err" "$epoch" "$T/n.csv" >/dev/null || fail "code-phases.py (no -g)"
awk -F, 'NR > 1 && $3 == "main" && $5 == "" { print $8 }' "$T/n.csv" | sort -u >"$T/regions"
[ "$(wc -l <"$T/regions")" -ge 2 ] || fail "without -g: fewer than 2 regions of main: $(cat "$T/regions")"
"$MCZ" dump "$T/n.mcz" --code --json | grep -q '"note": "no debug info: functions from the symbol table"' ||
	fail "without -g: no note on the object"
ok "without -g: main in $(wc -l <"$T/regions") regions, noted as symbol table only"

# --call-graph fp on a build with frame pointers in every function (clang:
# gcc 12 leaves them out of leaf functions): the kernels' caller is main
if command -v clang >/dev/null; then
	clang -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
		-o "$T/work-fp" tests/tools/code-phases.c || fail "clang"
	"$MCREC" -q -f -g code --call-graph fp -o "$T/fp.mcz" -- "$T/work-fp" 0.3 2>/dev/null ||
		fail "mcrec --call-graph fp exit $?"
	"$MCZ" dump "$T/fp.mcz" --code --json >"$T/fp.json"
	python3 - "$T/fp.json" <<'PY' || fail "callers: see above"
import collections, json, sys
d = json.load(open(sys.argv[1]))
L = d['locations']
by = collections.defaultdict(collections.Counter)
for loc, caller, n in d['callers']:
    by[L[loc]['function']][L[caller]['function']] += n
for fn in ('compute_kernel', 'stream_kernel'):
    c = by[fn]
    tot = sum(c.values())
    top, n = c.most_common(1)[0] if c else ('-', 0)
    print(f"{fn}: called from {top} {n}/{tot}")
    if top != 'main' or n < 0.9 * tot:
        sys.exit(1)
PY
	MCVIEW_PHASE_CACHE=0 "$B/mcview" --snapshot 140x30 --view phases "$T/fp.mcz" | grep -q 'compute_kernel .*called from main (' ||
		fail "the panel does not name the caller"
	ok "--call-graph fp: the kernels' caller is main (file and panel)"
fi

# stripped, then deleted during the run: notes, and everything else recorded
cp "$T/work" "$T/work-s" && strip "$T/work-s"
"$MCREC" -q -f -g code,os -o "$T/s.mcz" -- "$T/work-s" 0.2 2>/dev/null || fail "mcrec (stripped) exit $?"
"$MCZ" dump "$T/s.mcz" --code --json | grep -q 'work-s: stripped' || fail "stripped: no note"
cp "$T/work" "$T/work-d"
# deleted 20 ms after its start, before the code source has read the
# records naming it: read through /proc/PID/map_files while it runs
"$MCREC" -q -f -g code,os -o "$T/d.mcz" -- sh -c "'$T/work-d' 0.2 & sleep 0.02; rm -f '$T/work-d'; wait" 2>/dev/null ||
	fail "mcrec (deleted) exit $?"
"$MCZ" dump "$T/d.mcz" --code --json >"$T/d.json"
# held open since it was mapped: still symbolized (its symbol table: main)
"$MCZ" dump "$T/d.mcz" --code --csv | grep -q ",main,,,0,$T/work-d," ||
	fail "deleted: its code not symbolized: $(grep work-d "$T/d.json" | head -3)"
grep -q 'work-d: gone' "$T/d.json" && fail "deleted: said gone though it was held open"
# the shell forked and exec'd it: followed, and its build-id kept from the kernel's record
grep -q "\"path\": \"$T/work-d\", \"build_id\": \"[0-9a-f]\{40\}\"" "$T/d.json" ||
	grep -q "\"path\": \"$T/work-d\"" "$T/d.json" || fail "deleted: the child's binary not in the objects"
"$MCZ" dump "$T/d.mcz" --streams 'os.*' --csv | awk -F, 'NR > 2' | grep -q . || fail "deleted: no os rows"
ok "stripped binary noted; deleted binary still symbolized; the rest recorded"
