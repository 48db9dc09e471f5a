#!/usr/bin/env bash
# ompt-threads.sh: OpenMP threads' time at barriers, exact, from the
# runtime's own OMPT callbacks (mcrec's tool recorder/connect/ompt-connect.c
# in OMP_TOOL_LIBRARIES), beside the same figures from each thread's code
# samples (viewer/analysis/code/threads.c).  samples/omp/omp-imbalance-clang
# (clang, libomp) gives thread 0 three times the work of thread 1 in each
# parallel region; active waiting.  Asserted, on `mcview --report=json`:
#   - "threads_ompt": 2 threads, from OMPT, and "threads" from samples;
#   - where both threads had their CPUs (their samples cover 85 % of twice
#     the run, as omp-threads.sh; up to 3 tries, else skipped: a neighbour
#     that takes a CPU lengthens OMPT's wall-clock times and makes the
#     spinning thread's time off CPU in the samples): OMPT's load balance
#     0.67 +- 0.05 (the injected (1 + K) / (2 K)) and within 0.05 of the
#     program's own timers, its sync share within 0.05 of the samples';
#   - the text report has both lines and says which figures are OMPT's;
#   - with gcc's libgomp (no OMPT) and with mcrec --no-ompt: no OMPT
#     figures ("threads_ompt": null), the sampled ones still there;
#   - a user's OMP_TOOL_LIBRARIES: mcrec says so and puts its tool after
#     theirs, which runs when theirs declines.
set -u
. "$(dirname "$0")/tmp-common.inc"
OMP=$B/samples/omp-imbalance
if [ ! -x "$OMP-clang" ]; then
	echo "skip: no $OMP-clang (clang cannot link -fopenmp: apt install libomp-dev)"
	exit 77
fi
[ -r "$B/libmcz-ompt.so" ] || fail "$B/libmcz-ompt.so not built"
k=3
checked=0
for try in 1 2 3; do
	f=$T/clang-$try
	OMP_WAIT_POLICY=active "$B"/mcrec -o "$f.mcz" -- "$OMP-clang" --k $k --reps 6 >"$f.out" 2>"$f.err" ||
		fail "mcrec: $(tail -3 "$f.err")"
	grep -q '^mcrec: regions: OMPT: 2 threads, 6 parallel regions$' "$f.err" || fail "mcrec said: $(cat "$f.err")"
	own=$(sed -n 's/.*by the threads. own CPU timers \([0-9.]*\)$/\1/p' "$f.out")
	"$B"/mcview --report=json "$f.mcz" >"$f.json" || fail "report=json"
	"$B"/mcview --report "$f.mcz" >"$f.txt" || fail "report"
	python3 - "$f.json" "$k" "$own" >"$f.py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k, own = float(sys.argv[2]), float(sys.argv[3])
o, s = d["threads_ompt"], d["threads"]
assert o and o["source"] == "ompt" and o["n"] == 2, "threads_ompt: %r" % (o,)
assert s and s["source"] == "samples" and s["n"] == 2, "threads: %r" % (s,)
want = (1 + k) / (2 * k)
span = d["phases"][-1]["end_s"] - d["phases"][0]["start_s"]
cpu = sum(s["useful_s"]) + sum(s["sync_s"]) + sum(s["mpi_s"])
line = "OMPT load balance %.3f sync share %.3f; samples %.3f and %.3f; injected %.3f and %.3f" % (
    o["load_balance"], o["sync_share"], s["load_balance"], s["sync_share"], want, (k - 1) / (2 * k))
if cpu < 0.85 * 2 * span:
    # OMPT's times are the wall clock's: a thread whose CPU was taken
    # works longer by it, so neither figure is checked then
    print("unchecked: %s (the threads had %.0f %% of their CPUs)" % (line, 100 * cpu / (2 * span)))
    sys.exit(3)
assert abs(o["load_balance"] - want) <= 0.05, "OMPT load balance %.3f, injected %.3f" % (o["load_balance"], want)
assert abs(o["load_balance"] - own) <= 0.05, "OMPT load balance %.3f, own timers %.3f" % (o["load_balance"], own)
assert abs(o["sync_share"] - s["sync_share"]) <= 0.05, "sync share: OMPT %.3f, samples %.3f" % (o["sync_share"], s["sync_share"])
print("ok: %s (checked)" % line)
PY
	rc=$?
	cat "$f.py"
	[ $rc = 0 ] || [ $rc = 3 ] || fail "$(tail -1 "$f.py")"
	grep -q '^# threads: 2; ' "$f.txt" && grep -q '^# threads by OMPT (exact' "$f.txt" ||
		fail "the text report: $(grep '^# threads' "$f.txt")"
	grep -q '(checked)$' "$f.py" && { checked=1; break; }
done
for how in gcc no-ompt; do
	f=$T/$how
	if [ $how = gcc ]; then
		OMP_WAIT_POLICY=active "$B"/mcrec -q -o "$f.mcz" -- "$OMP" --k $k --reps 4 >/dev/null 2>&1
	else
		OMP_WAIT_POLICY=active "$B"/mcrec -q --no-ompt -o "$f.mcz" -- "$OMP-clang" --k $k --reps 4 >/dev/null 2>&1
	fi || fail "mcrec $how"
	"$B"/mcview --report=json "$f.mcz" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['threads_ompt'] is None and d['threads']['n'] == 2, (d['threads_ompt'], d['threads'])" ||
		fail "$how: OMPT figures where there is no OMPT"
	echo "ok: $how: no OMPT figures, the sampled ones"
done
# the user's own OMP_TOOL_LIBRARIES: said, kept first; a tool of theirs
# that declines (no ompt_start_tool) leaves the runtime to mcrec's
printf 'int not_a_tool;\n' >"$T/decline.c"
cc -shared -fPIC -o "$T/decline.so" "$T/decline.c" || fail "building the declining tool"
OMP_TOOL_LIBRARIES=$T/decline.so "$B"/mcrec -o "$T/user.mcz" -- "$OMP-clang" --k $k --reps 2 >/dev/null 2>"$T/user.err" ||
	fail "mcrec with OMP_TOOL_LIBRARIES"
grep -q "^mcrec: regions: OMP_TOOL_LIBRARIES is yours ($T/decline.so): mcrec's OMPT tool .*libmcz-ompt.so comes after it" "$T/user.err" ||
	fail "OMP_TOOL_LIBRARIES not said: $(cat "$T/user.err")"
"$B"/mcz info "$T/user.mcz" | grep -q '^meta *ompt.threads = 2$' || fail "mcrec's tool did not run after the user's"
echo "ok: the user's OMP_TOOL_LIBRARIES said and kept first; it declined, mcrec's tool ran"
if [ $checked = 0 ]; then
	echo "skip: the threads never had both CPUs in 3 runs (a busy machine): OMPT's figures not compared"
	exit 77
fi
