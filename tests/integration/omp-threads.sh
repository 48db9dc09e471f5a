#!/usr/bin/env bash
# omp-threads.sh: OpenMP threads that work against threads that wait, from
# each thread's own code samples (format 1.6 splits the code profile by
# thread).  samples/omp/omp-imbalance gives thread 0 K times the work of
# thread 1 in each of its parallel regions, built with gcc (libgomp) and
# clang (libomp), run with OMP_WAIT_POLICY active and passive, K = 1.5 and
# 3, each under mcrec.  For each run, `mcview --report=json`:
#   - 2 threads;
#   - the threads' load balance (mean / max useful, POP's) within 0.05 of
#     the injected (1 + K) / (2 K) and of the program's own CPU timers';
#   - with active waiting, the share of the samples at the barrier within
#     0.05 of (K - 1) / (2 K), checked where both threads had their CPUs
#     (their samples cover 85 % of twice the run: a neighbour that takes a
#     CPU stops the spinning thread's samples, and that time is off CPU,
#     not sync); passive: under 0.05;
#   - the text report's description says which thread does how much more;
#   - the word MPI appears in no output: the text and JSON reports, the
#     timeline's snapshot (its waiting row is "sync %"), mcz info.
set -u
. "$(dirname "$0")/tmp-common.inc"
OMP=$B/samples/omp-imbalance
[ -x "$OMP" ] || fail "$OMP not built"
builds=("$OMP")
if [ -x "$OMP-clang" ]; then
	builds+=("$OMP-clang")
else
	echo "note: no $OMP-clang (clang cannot link -fopenmp: apt install libomp-dev)"
fi
checked=0
for prog in "${builds[@]}"; do
	for k in 1.5 3; do
		# about 0.5 s of work: thread 0 does 10^7 K iterations a region
		reps=$(awk -v k="$k" 'BEGIN { printf "%d", 18 / k }')
		for pol in active passive; do
			f=$T/$(basename "$prog")-$k-$pol
			OMP_WAIT_POLICY=$pol "$B"/mcrec -q -o "$f.mcz" -- "$prog" --k "$k" --reps "$reps" >"$f.out" 2>&1 ||
				fail "mcrec $prog: $(tail -3 "$f.out")"
			own=$(sed -n 's/.*by the threads. own CPU timers \([0-9.]*\)$/\1/p' "$f.out")
			[ -n "$own" ] || fail "$prog printed no timers: $(cat "$f.out")"
			"$B"/mcview --report=json "$f.mcz" >"$f.json" || fail "report=json of $f.mcz"
			"$B"/mcview --report "$f.mcz" >"$f.txt" || fail "report of $f.mcz"
			"$B"/mcview --snapshot 150x42 "$f.mcz" >"$f.snap" 2>&1 || fail "snapshot of $f.mcz"
			"$B"/mcz info "$f.mcz" >"$f.info" || fail "mcz info $f.mcz"
			python3 - "$f.json" "$k" "$pol" "$own" >"$f.py" 2>&1 <<'PY' || fail "$(basename "$f"): $(tail -2 "$f.py")"
import json, sys
d = json.load(open(sys.argv[1]))
k, pol, own = float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
t = d["threads"]
assert t and t["n"] == 2, "threads: %r" % (t,)
lb, want = t["load_balance"], (1 + k) / (2 * k)
assert abs(lb - want) <= 0.05, "load balance %.3f, injected %.3f" % (lb, want)
assert abs(lb - own) <= 0.05, "load balance %.3f, the program's timers %.3f" % (lb, own)
span = d["phases"][-1]["end_s"] - d["phases"][0]["start_s"]
cpu = sum(t["useful_s"]) + sum(t["sync_s"]) + sum(t["mpi_s"])
sync = t["sync_share"]
if pol == "passive":
    assert sync < 0.05, "passive waiting, yet %.3f of the samples at the barrier" % sync
    note = "sync %.3f" % sync
elif cpu >= 0.85 * 2 * span:
    want = (k - 1) / (2 * k)
    assert abs(sync - want) <= 0.05, "sync share %.3f, expected %.3f" % (sync, want)
    note = "sync %.3f (expected %.3f, checked)" % (sync, want)
else:
    note = "sync %.3f not checked: the threads had %.0f %% of their CPUs" % (sync, 100 * cpu / (2 * span))
print("ok: k %.1f %s: load balance %.3f (injected %.3f, own timers %.3f), %s" % (k, pol, lb, (1 + k) / (2 * k), own, note))
PY
			cat "$f.py"
			grep -q ', checked)$' "$f.py" && checked=$((checked + 1))
			grep -q 'OpenMP, 2 threads: thread 0 does [0-9.]*x the work of thread 1' "$f.txt" ||
				fail "$(basename "$f"): the description: $(tail -1 "$f.txt")"
			for o in txt json snap info; do
				grep -q 'MPI' "$f.$o" && fail "$(basename "$f").$o says MPI: $(grep -m1 MPI "$f.$o")"
			done
			[ $pol = active ] && { grep -q '^sync %' "$f.snap" || fail "no 'sync %' row: $(head -8 "$f.snap")"; }
		done
	done
done
echo "ok: ${#builds[@]} builds x K 1.5, 3 x active, passive: thread load balance and sync as injected; no MPI said ($checked active runs' sync share checked)"
