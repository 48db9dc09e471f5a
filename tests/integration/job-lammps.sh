#!/usr/bin/env bash
# job-lammps.sh: the job report on LAMMPS (Debian's lmp) against LAMMPS's
# own timers ("MPI task timing breakdown", job-lammps.py), 2 ranks under a
# real mpirun on a 3/4-filled box (rank 0 holds twice rank 1's atoms: a
# load balance near 0.75), alone, beside `stress-ng --cpu 1` from 2.5 s to
# 5.5 s of the run, and beside it for the whole run:
#   - in every run the load balance and comm_eff of the longest phase (the
#     MD loop) are within 0.08 of LAMMPS's (avg / max of Pair+Neigh+Modify,
#     max of it / loop time); with the hog the old figure, max useful /
#     phase time, gave comm_eff 0.54 where LAMMPS said 0.77;
#   - either hog makes at most one phase more than the quiet run (the one
#     that came and went cut the loop in three: the ranks' waits shifted,
#     rank 0's from 1 % to 40 % of its samples, and os.cpu.busy moved);
#   - with the hog the header says the CPUs were taken by other processes
#     (a quarter of each rank's time: 3 busy processes on 2 CPUs), the JSON
#     gives each rank's taken_s and the host's others_cpu_s, and the table
#     has the off_s column.
# Measured (5 runs, this 2-CPU VM shared with other sessions): quiet,
# LAMMPS 0.73/0.96 against mcz 0.72/0.97; with the hog LAMMPS 0.69-0.74 /
# 0.56-0.77 against mcz 0.73/0.58-0.72.  LAMMPS's comm_eff drops under the
# hog too: its timers are wall clock, and rank 0 is pushed aside in Pair.
set -u
. "$(dirname "$0")/rec-common.inc"
. "$(dirname "$0")/lammps-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v lmp >/dev/null || { echo "lmp not installed (apt install lammps)"; exit 77; }
command -v stress-ng >/dev/null || { echo "stress-ng not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
MCVIEW=$B/mcview
CMP=$(dirname "$0")/job-lammps.py
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
rec=$(realpath "$MCREC")

# an LJ liquid filling x in [0, 18) of a [0, 24) box cut in two along x
lammps_melt_cut 24 18 12 1500 >"$T/in.lj"

# run NAME: LAMMPS under mcrec, its log in $T/NAME.log, the report's JSON
run() {
	(cd "$T" && OMP_NUM_THREADS=1 timeout 120 mpirun $ROOT --oversubscribe -n 2 "$rec" -q \
		-o "$T/$1.%r.mcz" -- lmp -in in.lj -log none >"$T/$1.log" 2>&1) ||
		fail "$1: mpirun lmp: $(tail -3 "$T/$1.log")"
	"$MCVIEW" --report=json "$T"/$1.*.mcz >"$T/$1.json" 2>"$T/$1.err" || fail "$1: report: $(cat "$T/$1.err")"
	"$MCVIEW" --report "$T"/$1.*.mcz >"$T/$1.txt" 2>&1 || fail "$1: text report"
}
nphases() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jobs"][0]["phases"]))' "$1"; }

run quiet
line=$(python3 "$CMP" "$T/quiet.log" "$T/quiet.json") || fail "alone: $line"
ok "alone: $line"
nq=$(nphases "$T/quiet.json")

# a hog that comes and goes: the loop alone takes 4-7 s
(sleep 2 && exec stress-ng --cpu 1 --timeout 2 -q) &
hog=$!
cleanup_hooks+=("kill $hog 2>/dev/null; wait $hog 2>/dev/null")
run mid
wait $hog 2>/dev/null
line=$(python3 "$CMP" "$T/mid.log" "$T/mid.json") || fail "stress-ng mid-run: $line"
ok "stress-ng mid-run: $line"
nm=$(nphases "$T/mid.json")
[ "$nm" -le $((nq + 1)) ] || fail "the hog mid-run made $nm phases, the quiet run $nq: $(cat "$T/mid.txt")"

stress-ng --cpu 1 --timeout 150 -q &
hog=$!
cleanup_hooks+=("kill $hog 2>/dev/null; wait $hog 2>/dev/null")
sleep 1
run hog
kill $hog
wait $hog 2>/dev/null
line=$(python3 "$CMP" "$T/hog.log" "$T/hog.json") || fail "beside stress-ng: $line"
ok "beside stress-ng: $line"
nh=$(nphases "$T/hog.json")
[ "$nh" -le $((nq + 1)) ] || fail "the hog made $nh phases, the quiet run $nq: $(cat "$T/hog.txt")"
ok "phases: $nq alone, $nm with the hog mid-run, $nh beside it throughout"

grep -q "^CPUs taken by other processes from [0-9.]* s to [0-9.]* s: .*'s 2 CPUs ran others .*they took rank [01] " "$T/hog.txt" ||
	fail "no header line on the CPUs taken: $(head -4 "$T/hog.txt")"
grep -q '^phase .* mpi_s  *off_s  *imbalance ' "$T/hog.txt" || fail "no off_s column: $(sed -n 4p "$T/hog.txt")"
python3 - "$T/hog.json" <<'PY' || fail "taken: $(head -c 800 "$T/hog.json")"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
p = max(j["phases"], key=lambda p: p["duration_s"])
h = j["contention"]["hosts"][0]
# stress-ng's worker had a third of the 2 CPUs: each rank lost about a
# quarter of its time (measured 0.25-0.53 on this shared VM)
for r in p["per_rank"]:
    assert r["taken_s"] >= 0.1 * p["duration_s"], r
    assert r["taken_s"] <= r["off_cpu_s"] + 1e-9, r
assert h["others_cpu_s"] >= 0.1 * h["cpus"] * p["duration_s"], h
print("taken per rank %s of a %.1f s phase; others %.1f CPU-s"
      % ([round(r["taken_s"], 2) for r in p["per_rank"]], p["duration_s"], h["others_cpu_s"]))
PY
ok "header: $(grep '^CPUs taken' "$T/hog.txt" | cut -c 1-160)"
echo "PASS"
