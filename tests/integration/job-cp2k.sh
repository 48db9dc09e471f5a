#!/usr/bin/env bash
# job-cp2k.sh: a real hybrid MPI + OpenMP code no one here wrote, against
# its own accounting.  CP2K (Debian's cp2k.psmp, Fortran; the H2O
# Quickstep example of /usr/share/doc/cp2k/examples with 40 MD steps and
# every routine in its timing report) under mcrec:
#   - as 2 ranks x 1 thread: the share of the run in MPI, by mcz (mean time
#     in MPI over CP2K's total time) and by CP2K (its mp_* routines' self
#     time, mean over ranks, over its total time), within 0.08; mcz's load
#     balance within what CP2K's report allows (it gives each routine's
#     mean and max over the ranks: see below), less 0.05;
#   - as 1 rank x 2 threads: 2 threads, the threads' figures present, and
#     the run's MPI share within 0.05 of CP2K's (both near 0: one rank).
# Where other processes took the CPUs (job-taken.c), MPI time measured as
# CPU time and CP2K's wall-clock timers part: those checks are said, not
# made.
# mcz-test: parallel (the load balance is of CPU time; the MPI shares are
# compared only where other processes did not take the CPUs)
# mcz-test: first
set -u
. "$(dirname "$0")/tmp-common.inc"
command -v cp2k.psmp >/dev/null || { echo "cp2k not installed (apt install cp2k)"; exit 77; }
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
EX=/usr/share/doc/cp2k/examples/H2O.inp
[ -f "$EX" ] || { echo "no $EX (the cp2k package's examples)"; exit 77; }
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
sed -e 's/STEPS 5/STEPS 40/' -e 's/  PRINT_LEVEL LOW/  PRINT_LEVEL LOW\n  \&TIMINGS\n    THRESHOLD 0.0\n  \&END TIMINGS/' \
	"$EX" >"$T/h2o.inp"
grep -q 'THRESHOLD 0.0' "$T/h2o.inp" || fail "the input was not made: $(head -50 "$T/h2o.inp")"
rec=$(realpath "$B/mcrec")

# cp2k_figures OUT: "total mp_avg mp_max" from CP2K's timing report: its
# total time, and its mp_* (message passing) routines' self time summed,
# the mean over ranks and the max
cp2k_figures() {
	awk '/T I M I N G/ { f = 1 }
		f && $1 == "CP2K" && NF == 7 { total = $6 }
		f && NF == 7 && $1 ~ /^mp_/ && $2 ~ /^[0-9]+$/ { avg += $4; max += $5 }
		END { if (total) printf "%.3f %.3f %.3f\n", total, avg, max }' "$1"
}

(cd "$T" && timeout 120 mpirun $ROOT --oversubscribe -n 2 -x OMP_NUM_THREADS=1 "$rec" -q -o "$T/r2.%r.mcz" -- \
	cp2k.psmp -i h2o.inp >"$T/r2.out" 2>&1) || fail "cp2k, 2 ranks: $(tail -5 "$T/r2.out")"
read -r total mp mpmax < <(cp2k_figures "$T/r2.out")
[ -n "$mpmax" ] || fail "no timing report: $(tail -20 "$T/r2.out")"
"$B"/mcview --report=json "$T"/r2.0.mcz "$T"/r2.1.mcz >"$T/r2.json" || fail "report of 2 ranks"
"$B"/mcview --report "$T"/r2.0.mcz "$T"/r2.1.mcz >"$T/r2.txt" || fail "text report of 2 ranks"
python3 - "$T/r2.json" "$total" "$mp" "$mpmax" <<'PY' || fail "2 ranks x 1 thread (above)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
total, mp, mpmax = map(float, sys.argv[2:5])
run = j["run"]
share_c = mp / total
# over CP2K's own run: the recording also holds mcrec's and MPI's start
share_m = run["mpi_mean_s"] / total
taken = run.get("taken_mean_s") or 0
# CP2K's report gives each routine's mean and max over the ranks, not each
# rank's: a rank computes its total less its message passing, and of 2
# ranks the one that passed messages least did at least 2 mean - max of
# each routine's.  The load balance (mean / max of that) lies between
# (total - mean) / (total - (2 mean - max)) and 1.
lo = (total - mp) / (total - (2 * mp - mpmax))
lb = run["load_balance"]
print("CP2K: total %.2f s, MPI %.2f s (%.2f of it), load balance %.3f..1 | mcz: run %.2f s, MPI %.2f s (%.2f), load balance %.3f, taken %.2f s"
      % (total, mp, share_c, lo, run["duration_s"], run["mpi_mean_s"], share_m, lb, taken))
assert lo - 0.05 <= lb <= 1, "load balance %.3f, CP2K's between %.3f and 1" % (lb, lo)
if taken > 0.1 * run["duration_s"]:
    print("note: others took %.2f s of each rank's CPU: the MPI shares not compared" % taken)
else:
    assert abs(share_m - share_c) <= 0.08, "MPI share %.2f, CP2K's %.2f" % (share_m, share_c)
for r in j["run"]["per_rank"]:
    assert r["threads"] == 1, "rank %d: %r threads" % (r["rank"], r["threads"])
PY

(cd "$T" && OMP_NUM_THREADS=2 timeout 120 "$rec" -q -o "$T/t2.mcz" -- cp2k.psmp -i h2o.inp >"$T/t2.out" 2>&1) ||
	fail "cp2k, 2 threads: $(tail -5 "$T/t2.out")"
read -r total mp mpmax < <(cp2k_figures "$T/t2.out")
"$B"/mcview --report=json "$T/t2.mcz" >"$T/t2.json" || fail "report of 2 threads"
python3 - "$T/t2.json" "$total" "$mp" <<'PY' || fail "1 rank x 2 threads (above)"
import json, sys
d = json.load(open(sys.argv[1]))
total, mp = float(sys.argv[2]), float(sys.argv[3])
t = d["threads"]
assert t and t["n"] == 2, "threads: %r" % (t,)
span = d["phases"][-1]["end_s"] - d["phases"][0]["start_s"]
share_m = sum(t["mpi_s"]) / (t["n"] * span)
print("CP2K: total %.2f s, MPI %.3f s | mcz: %.2f s, 2 threads, load balance %.2f, sync %.2f, MPI share %.3f"
      % (total, mp, span, t["load_balance"], t["sync_share"], share_m))
assert abs(share_m - mp / total) <= 0.05, "MPI share %.3f, CP2K's %.3f" % (share_m, mp / total)
assert span >= total, "the recording (%.2f s) is shorter than CP2K's own run (%.2f s)" % (span, total)
PY
echo "ok: CP2K 2 ranks x 1 thread and 1 rank x 2 threads against its timing report"
