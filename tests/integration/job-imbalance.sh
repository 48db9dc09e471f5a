#!/usr/bin/env bash
# job-imbalance.sh: the files of a parallel job read as one job
# (`mcview --report` on rank files, viewer/analysis/jobs/job.c):
#   - samples/imbalance under a real `mpirun --oversubscribe -n 8 mcrec`,
#     rank 3 given 2x the work in phase 2 ("solve"): the JSON report
#     names rank 3 as solve's slowest rank, its imbalance within 10 % of
#     what the sample says it injected (2 / (9 / 8) = 1.78), its load
#     balance below 0.8 (0.56 expected: at 1.5x, 0.71 expected, 8 ranks on
#     2 cores measured 0.62 to 0.84 over six runs, and the report flags
#     only what is below 0.8), the other phases balanced; the job id and
#     the size come from the launcher; the text report says the same;
#   - an unseen job, launched by a shell loop setting PMI_RANK/PMI_SIZE
#     (the environment Hydra gives), its phases marked by the `mcmark`
#     command around sleeps, rank 5 sleeping twice as long in "exchange":
#     found the same way;
#   - bad input: files of two jobs given together (a note, two jobs), a
#     rank missing, a rank given twice, a rank file cut by kill -9 in the
#     middle of a phase (its figures there, time off its CPU too, unknown);
#   - several hosts (generated files, host k's clock 5k ms ahead): the
#     per-host offsets of the phase starts give the 5 ms steps back.
set -u
. "$(dirname "$0")/rec-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
MCVIEW=$B/mcview
IMB=$B/samples/imbalance
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
# the report's phase named $2 in job $1 (index), field $3
jq_() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][int(sys.argv[2])]
if sys.argv[3] == "-":
    print(j[sys.argv[4]])
else:
    p = [p for p in j["phases"] if p["label"] == sys.argv[3]][0]
    print(p[sys.argv[4]])' "$@"
}

# ---- 8 ranks under mpirun -------------------------------------------------
mkdir -p "$T/a"
timeout 120 mpirun $ROOT --oversubscribe -n 8 "$MCREC" -q -o "$T/a/run.%r.mcz" -- \
	"$IMB" --steps 60 --slow 3:2:2 --barrier "$T/bar" >"$T/a.out" 2>&1 ||
	fail "mpirun: $(tail -3 "$T/a.out")"
[ "$(ls "$T"/a/run.*.mcz | wc -l)" = 8 ] || fail "expected 8 rank files: $(ls "$T/a")"
want=$(awk '$2 == "solve" && $3 == 3 { print $5 }' "$T/a.out")
[ -n "$want" ] || fail "the sample did not print its injected imbalance: $(cat "$T/a.out")"
"$MCVIEW" --report=json "$T"/a/run.*.mcz >"$T/a.json" 2>"$T/a.err" || fail "report: $(cat "$T/a.err")"
[ "$(jq_ "$T/a.json" 0 - ranks)" = 8 ] || fail "ranks: $(jq_ "$T/a.json" 0 - ranks)"
[ "$(jq_ "$T/a.json" 0 - size)" = 8 ] || fail "size from the launcher"
[ -n "$(jq_ "$T/a.json" 0 - job)" ] || fail "no job id from the launcher"
[ "$(jq_ "$T/a.json" 0 - source)" = marks ] || fail "phases not from the marks"
for ph in init solve halo update; do
	[ "$(jq_ "$T/a.json" 0 $ph ranks)" = 8 ] || fail "$ph: not every rank has it"
done
slow=$(jq_ "$T/a.json" 0 solve slowest_rank)
imb=$(jq_ "$T/a.json" 0 solve imbalance)
lb=$(jq_ "$T/a.json" 0 solve load_balance)
lost=$(jq_ "$T/a.json" 0 solve lost_s)
[ "$slow" = 3 ] || fail "solve's slowest rank is $slow, not 3"
within "$imb" "$want" 0.10 || fail "solve's imbalance $imb, injected $want"
between "$lb" 0.3 0.8 || fail "solve's load balance $lb (rank 3 has 2x the CPU time)"
between "$lost" 0.4 0.7 || fail "solve's lost time $lost s (60 steps of 20 - 11.25 ms: 0.525 s expected)"
for ph in halo update; do
	i=$(jq_ "$T/a.json" 0 $ph imbalance)
	between "$i" 1 1.08 || fail "$ph imbalance $i (balanced)"
done
ok "mpirun -n 8: solve's slowest rank 3, imbalance $imb (injected $want), load balance $lb, lost ${lost} s"
"$MCVIEW" --report "$T"/a/run.*.mcz >"$T/a.txt" 2>&1 || fail "text report"
grep -q "^job .*: 8 ranks" "$T/a.txt" || fail "text report header: $(head -2 "$T/a.txt")"
grep -Eq '^solve .* r3 +0\.[0-7][0-9]!' "$T/a.txt" || fail "text report row: $(grep solve "$T/a.txt")"
ok "text report: $(grep '^solve' "$T/a.txt" | tr -s ' ')"
# detected phases instead of the marks: found on the folded job, each
# rank's time in them its CPU time
"$MCVIEW" --report=json --phases auto "$T"/a/run.*.mcz >"$T/auto.json" || fail "--phases auto"
python3 - "$T/auto.json" <<'PY' || fail "--phases auto: $(head -c 300 "$T/auto.json")"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["source"] == "auto" and j["ranks"] == 8 and len(j["phases"]) >= 1, j
assert all(p["ranks"] == 8 and p["mean_s"] > 0 for p in j["phases"]), j["phases"]
PY
ok "--phases auto: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"][0]["phases"]))' "$T/auto.json") detected phases, every rank's CPU time in each"

# ---- an unseen job, launched by a loop --------------------------------------
mkdir -p "$T/b"
# (600 and 1200 sleeps, not 150 and 300: each rank's region also holds the
# start of rec-work and of mcmark, which on a loaded machine under the
# sanitizers took 0.12 s a rank and brought the imbalance down to 1.43)
cat >"$T/rank.sh" <<EOF
#!/bin/sh
n=600; [ "\$PMI_RANK" = 5 ] && n=1200; [ -n "\${LONG:-}" ] && n=\$LONG
$MCMARK -b setup; $WORK --sleeps 80; $MCMARK -e
$MCMARK -b exchange; $WORK --sleeps \$n; $MCMARK -e
$MCMARK -b compute; $WORK --spin 20; $MCMARK -e
EOF
chmod +x "$T/rank.sh"
pids=
for r in 0 1 2 3 4 5 6 7; do
	PMI_RANK=$r PMI_SIZE=8 "$MCREC" -q -i 50ms -o "$T/b/u.$r.mcz" -- "$T/rank.sh" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "rank of the unseen job failed"; done
"$MCVIEW" --report=json "$T"/b/u.*.mcz >"$T/b.json" 2>"$T/b.err" || fail "report: $(cat "$T/b.err")"
slow=$(jq_ "$T/b.json" 0 exchange slowest_rank)
imb=$(jq_ "$T/b.json" 0 exchange imbalance)
[ "$slow" = 5 ] || fail "unseen job: exchange's slowest rank $slow, not 5"
between "$imb" 1.5 2.0 || fail "unseen job: exchange imbalance $imb (rank 5 sleeps 2x: ~1.78)"
i=$(jq_ "$T/b.json" 0 setup imbalance)
between "$i" 1 1.45 || fail "unseen job: setup imbalance $i (balanced: 80 sleeps of 1 ms each)"
ok "unseen job (loop launcher): exchange's slowest rank 5, imbalance $imb"

# a label longer than a phase holds (47 bytes) is still one phase for every rank
L=assemble_the_global_stiffness_matrix_and_apply_the_boundary_conditions
for r in 0 1 2; do
	PMI_RANK=$r PMI_SIZE=3 "$MCREC" -q -i 50ms -o "$T/b/long.$r.mcz" -- \
		sh -c "$MCMARK -b $L; $WORK --sleeps 30; $MCMARK -e" &
	eval "lp$r=$!"
done
wait "$lp0" "$lp1" "$lp2" || fail "long-label ranks"
"$MCVIEW" --report=json "$T"/b/long.*.mcz >"$T/long.json" || fail "long-label report"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["jobs"][0]["phases"]; assert len(p) == 1 and p[0]["ranks"] == 3, p' \
	"$T/long.json" || fail "a long label split the phase: $(head -c 400 "$T/long.json")"
ok "a 70-byte label: one phase of 3 ranks"

# ---- bad input ---------------------------------------------------------------
"$MCVIEW" --report=json "$T"/a/run.*.mcz "$T"/b/u.*.mcz >"$T/c.json" 2>"$T/c.err" ||
	fail "two jobs: $(cat "$T/c.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["jobs"]) == 2, d["note"]; assert "2 jobs" in d["note"]' "$T/c.json" ||
	fail "two jobs given together not told apart"
ok "files of two jobs: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["note"])' "$T/c.json")"

"$MCVIEW" --report=json $(ls "$T"/a/run.*.mcz | grep -v 'run\.5\.') >"$T/d.json" || fail "rank missing"
grep -q 'rank 5 of 8 missing' "$T/d.json" || fail "missing rank not noted: $(jq_ "$T/d.json" 0 - notes)"
[ "$(jq_ "$T/d.json" 0 solve slowest_rank)" = 3 ] || fail "a missing rank lost the answer"
cp "$T/a/run.2.mcz" "$T/dup.mcz"
"$MCVIEW" --report=json "$T"/a/run.*.mcz "$T/dup.mcz" >"$T/e.json" || fail "duplicate rank"
grep -q 'rank 2 given twice' "$T/e.json" || fail "duplicate rank not noted: $(jq_ "$T/e.json" 0 - notes)"
[ "$(jq_ "$T/e.json" 0 - ranks)" = 8 ] || fail "duplicate rank counted"
ok "a rank missing, a rank twice: noted, solve's slowest rank still 3"

# a rank killed in the middle of "exchange": its file ends there
mkdir -p "$T/k"
for r in 0 1 2; do
	long=; [ $r = 1 ] && long=3000
	LONG=$long PMI_RANK=$r PMI_SIZE=3 "$MCREC" -q -i 50ms -o "$T/k/k.$r.mcz" -- "$T/rank.sh" &
	eval "kp$r=$!"
done
sleep 1.5
kill -9 "$kp1"
wait "$kp0" "$kp2"
wait "$kp1" 2>/dev/null
rm -f "$T"/k/k.1.mcz.old
"$MCVIEW" --report=json "$T"/k/k.*.mcz >"$T/k.json" 2>"$T/k.err" || fail "killed rank: $(cat "$T/k.err")"
notes=$(jq_ "$T/k.json" 0 - notes)
case "$notes" in *"file cut inside a phase (rank 1 in "*) ;; *) fail "killed rank not noted: $notes" ;; esac
[ "$(jq_ "$T/k.json" 0 - ranks)" = 3 ] || fail "killed rank's file not read"
# its time in the phase it was cut in is unknown: no time off its CPU either
cut=$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["jobs"][0]["phases"]:
    for r in p["per_rank"]:
        if r["rank"] == 1 and r["useful_s"] is None and r["start_s"] is not None:
            print(p["label"], r["off_cpu_s"])' "$T/k.json")
case "$cut" in *" None") ;; *) fail "the cut rank's phase: '$cut' (its time off CPU should be unknown)" ;; esac
ok "rank killed mid-phase: $notes"

# ---- several hosts: the clock skew estimated from the phase starts -----------
# 4 hosts of 8 ranks (tests/tools/gen-job), host k's clock 5k ms ahead
"$B/tests/tools/gen-job" -d "$T/h" --ranks 32 --per-host 8 --host-skew-ms 5 --phases 4 --phase-s 2 ||
	fail "gen-job"
"$MCVIEW" --report=json "$T"/h/run.*.mcz >"$T/h.json" || fail "report on 4 hosts"
python3 - "$T/h.json" <<'PY' || fail "host offsets: $(grep -o '"host_offset_ms": {[^}]*}' "$T/h.json")"
import json, sys
o = json.load(open(sys.argv[1]))["jobs"][0]["host_offset_ms"]
d = [o["node%03d" % (k + 1)] - o["node%03d" % k] for k in range(3)]
assert all(abs(x - 5) < 0.6 for x in d), d
PY
"$MCVIEW" --report "$T"/h/run.*.mcz | grep -q '^hosts: phases start from -7\.[0-9] ms (node000) to +7\.[0-9] ms (node003)' ||
	fail "text report: $("$MCVIEW" --report "$T"/h/run.*.mcz | grep '^hosts')"
ok "4 hosts, clocks 5 ms apart: $(grep -o '"host_offset_ms": {[^}]*}' "$T/h.json")"

# ---- the code column and mpi_s tell the same: each rank in its own region --
# 16 ranks that poll while they wait (gen-job --code), rank 5 given 1.5x
# the work in phase 2: the others wait for it at the barrier after their
# own region ends.  Inside every rank's region no time is in MPI (mpi_s
# 0), so the phase's code column says no MPI either; the waiting is the
# whole run's, where both say it.  The column read the job phase's whole
# span over every rank, barrier included: "solve_kernel 77%, MPI 23%"
# beside mpi_s 0.000 on 16,384 ranks.
"$B/tests/tools/gen-job" -d "$T/c" --ranks 16 --phases 3 --phase-s 2 --slow 5:2:1.5 --code ||
	fail "gen-job --code"
"$MCVIEW" --report=json "$T"/c/run.*.mcz >"$T/c.json" || fail "report on the code job"
python3 - "$T/c.json" <<'PY' || fail "code column against mpi_s: $(grep -o '"code": "[^"]*"' "$T/c.json" | tr '\n' ' ')"
import json, re, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
def mpi_share(code):
    m = re.search(r"MPI (\d+)%", code)
    return int(m.group(1)) / 100 if m else 0.0
for p in j["phases"] + [j["run"]]:
    useful, mpi = p["useful_mean_s"], p["mpi_mean_s"]
    want = mpi / (useful + mpi) if useful + mpi > 0 else 0
    got = mpi_share(p["code"])
    # the column rounds to whole percents and leaves out shares under 2 %
    assert abs(got - want) <= 0.021, (p["label"], p["code"], useful, mpi)
slow = j["phases"][1]
assert slow["slowest_rank"] == 5 and mpi_share(slow["code"]) == 0, slow["code"]
assert mpi_share(j["run"]["code"]) > 0.05, j["run"]["code"]
PY
ok "code column = mpi_s share in every phase and the run: $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(" | ".join("%s %s" % (p["label"], p["code"]) for p in j["phases"] + [j["run"]]))' "$T/c.json")"
