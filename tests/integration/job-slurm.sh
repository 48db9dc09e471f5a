#!/usr/bin/env bash
# job-slurm.sh: mcrec under a real Slurm (one node, this machine: munged,
# slurmctld and slurmd of Debian's packages, started by slurm-common.inc),
# as users type it: sbatch scripts whose srun runs mcrec of LAMMPS (lmp,
# 2 ranks, an LJ melt whose atoms fill 70 % of the box, cut in two along x:
# rank 0 has twice the atoms of rank 1).
#   - srun --mpi=pmix: files named by Slurm's job id (%j), ranks 0 and 1;
#     the report's load balance (its longest phase, the run) within 0.08 of
#     LAMMPS's own timers: avg / max of Pair + Neigh, the compute parts of
#     its "MPI task timing breakdown"; the job's summary (mcview --report
#     --brief, the last line of the script) in the job's output, its
#     figures those of mcview --report=json, its peak memory the sum of
#     the ranks' peak app.rss by mcz dump; one recorder of node-wide
#     streams on the node (SLURM_LOCALID 0: rank 0 has os.mem.used, rank 1
#     not);
#   - scancel of such a job: both files whole (mcz check exit 0, or 3:
#     INCOMPLETE), ended by SIGTERM from slurmstepd, "Slurm: scancel" (rank
#     0 asked scontrol); the summary appended to the job's output by
#     scripts/slurm-epilog.sh as slurm.conf's Epilog, the report's figures;
#   - srun --mpi=pmi2 and --mpi=none, and Open MPI's mpirun in the batch
#     script, of mcrec on a program without MPI (Debian's Open MPI has no
#     PMI-2 client: lmp under --mpi=pmi2 stops in MPI_Init): ranks 0 and 1
#     of 2, one job id per launch;
#   - a job that reaches its time limit (sbatch -t 1) while lmp runs: both
#     files whole, code samples up to the last second before the signal,
#     the signal and "Slurm time limit" in the file and in the report's
#     header, and the summary, printed by the script's TERM trap, in the
#     job's output with the report's figures.
# Slurm's time limits are in minutes, checked by slurmctld every 30 s from
# its start: a 1-minute job started just after slurmctld would end at 90 s.
# slurmctld is started again 33 s into that job so that its check comes at
# 63 s; the other jobs run while the time-limited one waits before its
# srun (the partition shares CPUs), so that the test takes little more
# than the minute (a new time-limited job after them when they took more
# than 40 s of it).
# mcz-test: parallel (its minute is mostly waiting for Slurm's time limit; its
# checks held with the machine loaded by two other builds: the load balance is
# of CPU time, the last code within a second of the signal)
# mcz-test: first
set -u
. "$(dirname "$0")/rec-common.inc"
. "$(dirname "$0")/slurm-common.inc"
. "$(dirname "$0")/lammps-common.inc"
MCZ=$(realpath "$B/mcz")
MCVIEW=$(realpath "$B/mcview")
REC=$(realpath "$MCREC")
command -v lmp >/dev/null || { echo "no lmp (apt install lammps)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
export XDG_CACHE_HOME=$T/cache # the jobs' and the epilog's mcview too
# the site's epilog of mcrec.1 (SLURM), with this build's mcview
printf '#!/bin/sh\nMCVIEW=%s exec %s\n' "$MCVIEW" "$(realpath "$(dirname "$0")/../../scripts/slurm-epilog.sh")" >"$T/epilog"
chmod +x "$T/epilog"
SLURM_EXTRA="Epilog=$T/epilog"
slurm_start
srun --mpi=list 2>&1 | grep -qw pmix || slurm_skip "this Slurm has no pmix plugin: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
t_ctld=$(date +%s)
# el: seconds since slurmctld started
el() { echo "$(( $(date +%s) - t_ctld )) s"; }

# melt RUN: the imbalanced LJ melt of RUN steps
melt() { lammps_melt_cut 20 14 10 "$1"; }
melt 2000 >"$T/in.imb"
melt 10000000 >"$T/in.long"
cd "$T" || fail "cd $T"

# brief_check OUT JSON WHAT: the summary in OUT has the report's figures
brief_check() {
	python3 - "$@" <<'PY'
import json, re, sys
out, js, what = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
j = js["jobs"][0]
m = re.search(r"^mcz job (\S+): (\d+) ranks? on (\d+) nodes? \((\S+)\), wall ([0-9.]+) s\n((?:  .*\n)+)",
              out, re.M)
assert m, "%s: no summary in the job's output:\n%s" % (what, out[-1500:])
lines = dict(re.match(r"  (\w+): +(.*)", l).groups() for l in m.group(6).splitlines())
run = j["run"]
def eq(name, got, want):
    assert got == want, "%s: summary's %s %r, the report's %r" % (what, name, got, want)
eq("job", m.group(1), j["job"])
eq("ranks", int(m.group(2)), j["ranks"])
eq("nodes", int(m.group(3)), j["hosts"])
eq("wall", m.group(5), "%.1f" % run["duration_s"])
eq("load balance", re.search(r"load balance ([0-9.]+)", lines["balance"]).group(1),
   "%.2f" % run["load_balance"])
eq("slowest rank", int(re.search(r"slowest rank (\d+)", lines["balance"]).group(1)),
   run["slowest_rank"])
pr, wall = run["per_rank"], run["duration_s"]
def share(key):
    v = [r[key] for r in pr if r[key] is not None]
    return "%.1f%%" % (100 * sum(v) / len(v) / wall)
eq("MPI share", re.search(r"MPI (\S+),", lines["time"]).group(1), share("mpi_s"))
eq("sync share", re.search(r"sync (\S+),", lines["time"]).group(1), share("sync_s"))
eq("off-CPU share", re.search(r"off-CPU (\S+) ", lines["time"]).group(1), share("off_cpu_s"))
eq("code", lines["code"], run["code"])
eq("phases", int(lines["phases"].split(":")[0]), len(j["phases"]))
for p, b in zip(j["phases"], lines["phases"].split(":", 1)[1].split("|")):
    eq("phase", b.split()[1:3], ["%.1f" % p["duration_s"], "s"])
if j["ended_by"]:
    eq("ended", lines["ended"], j["ended_by"])
print("%s: summary = report: wall %s s, load balance %.2f, slowest r%d, %s, code %s" %
      (what, m.group(5), run["load_balance"], run["slowest_rank"], lines["time"], run["code"]))
PY
}
# signal_at FILE: the time ("at X s") in the file's ended_by
signal_at() { "$MCZ" info "$1" | sed -n 's/^meta *ended_by = .* at \([0-9.]*\) s .*/\1/p'; }
# last_code FILE: the time of the last code sample
last_code() { "$MCZ" dump --code --csv "$1" | awk -F, 'NR > 1 && $1 > b { b = $1 } END { print b + 0 }'; }
# whole FILE: mcz check passes, or says INCOMPLETE only (exit 3)
whole() {
	"$MCZ" check "$1" >"$1.check" 2>&1
	local rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "$1: mcz check exit $rc: $(head -3 "$1.check")"
}

# The time-limited job first: it waits while the others run, until the
# test lets it go (after slurmctld's restart: a restarting slurmctld, or a
# node completing another job's epilog, refuses new steps for a while)
cat >tl.sh <<EOF
#!/bin/bash
trap '$MCVIEW --report --brief tl.\$SLURM_JOB_ID.*.mcz; exit 0' TERM
while [ ! -e go ]; do sleep 0.2; done
srun --mpi=pmix $REC -q -o tl.%j.%r.mcz -- lmp -in in.long -log none
EOF
# tl_submit: the time-limited job, $tl, and its start ($start, seconds
# since the epoch, as slurmctld has it, to the second) once it runs
tl_submit() {
	tl=$(sbatch --parsable -n 2 -t 1 -o tl.%j.out tl.sh) || fail "sbatch -t 1: $tl"
	for _ in $(seq 300); do
		[ "$(squeue -h -j "$tl" -o %T 2>/dev/null)" = RUNNING ] && break
		sleep 0.1
	done
	start=$(scontrol -o show job "$tl" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p')
	start=$(date -d "$start" +%s) || fail "job $tl's StartTime: $(scontrol -o show job "$tl")"
}
tl_submit

# 1. srun --mpi=pmix, the summary as the script's last line
cat >m.sh <<EOF
#!/bin/bash
srun --mpi=pmix $REC -q -o m.%j.%r.mcz -- lmp -in in.imb -log none
$MCVIEW --report --brief m.\$SLURM_JOB_ID.*.mcz
EOF
mj=$(sbatch --parsable -n 2 -o m.%j.out m.sh) || fail "sbatch: $mj"
slurm_wait "$mj" || fail "job $mj still queued: $(squeue)"
for r in 0 1; do
	[ -f "m.$mj.$r.mcz" ] || fail "no m.$mj.$r.mcz (%j = Slurm's job id): $(ls; tail -5 "m.$mj.out")"
done
"$MCVIEW" --report=json m.$mj.*.mcz >m.json 2>m.err || fail "report: $(cat m.err)"
read -r lb slow timers < <(python3 - m.json "m.$mj.out" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
p = max(j["phases"], key=lambda p: p["duration_s"])
t = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in
     re.finditer(r"^(Pair|Neigh) +\| +[0-9.e-]+ +\| +([0-9.e-]+) +\| +([0-9.e-]+)", open(sys.argv[2]).read(), re.M)}
assert len(t) == 2, "no LAMMPS timing breakdown"
print("%.3f %d %.3f" % (p["load_balance"], p["slowest_rank"],
                        (t["Pair"][0] + t["Neigh"][0]) / (t["Pair"][1] + t["Neigh"][1])))
PY
) || fail "job $mj: $(tail -20 "m.$mj.out")"
echo "srun --mpi=pmix: load balance $lb (slowest r$slow), LAMMPS's timers $timers"
awk -v a="$lb" -v b="$timers" 'BEGIN { d = a - b; exit !(d <= 0.08 && d >= -0.08) }' ||
	fail "load balance $lb, LAMMPS's Pair+Neigh avg/max $timers"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["job"])' m.json)" = "$mj.0" ] ||
	fail "the files' job is not $mj.0: $(head -c 300 m.json)"
brief_check "m.$mj.out" m.json "srun --mpi=pmix" || fail "summary (above)"
rss=0
for r in 0 1; do
	rss=$(( rss + $("$MCZ" dump --csv --streams app.rss "m.$mj.$r.mcz" | awk -F, 'NR > 1 && $2 > m { m = $2 } END { printf "%d", m }') ))
done
want=$(awk -v b="$rss" 'BEGIN { printf "%.1f MiB", b / 1048576 }')
grep -q "^  memory:  peak $(hostname -s) $want\$" "m.$mj.out" ||
	fail "summary's memory: $(grep '^  memory' "m.$mj.out"), the ranks' peak app.rss: $want"
"$MCZ" info "m.$mj.0.mcz" | grep -q ' os\.mem\.used ' || fail "rank 0 (SLURM_LOCALID 0) records no node-wide streams"
"$MCZ" info "m.$mj.1.mcz" | grep -q ' os\.mem\.used ' && fail "rank 1 records the node-wide streams too"
echo "memory: peak $want, the ranks' app.rss; node-wide streams in rank 0's file only"
ok "sbatch + srun --mpi=pmix: m.$mj.{0,1}.mcz, load balance $lb against LAMMPS's $timers (at $(el))"

# 2. scancel
cj=$(sbatch --parsable -n 2 -o c.%j.out --wrap "srun --mpi=pmix $REC -q -o c.%j.%r.mcz -- lmp -in in.long -log none") ||
	fail "sbatch: $cj"
for _ in $(seq 100); do [ -s "c.$cj.1.mcz" ] && break; sleep 0.1; done
sleep 4
scancel "$cj"
slurm_wait "$cj" || fail "cancelled job $cj still queued"
for r in 0 1; do
	whole "c.$cj.$r.mcz"
done
"$MCZ" info "c.$cj.0.mcz" | grep -q '^meta *ended_by = ended by SIGTERM at [0-9.]* s from slurmstepd (pid [0-9]*): Slurm: scancel$' ||
	fail "scancel: $("$MCZ" info "c.$cj.0.mcz" | grep -E 'ended|exit')"
"$MCVIEW" --report=json c.$cj.*.mcz >c.json 2>/dev/null || fail "report=json of job $cj"
brief_check "c.$cj.out" c.json "scancel, the epilog's" || fail "summary (above)"
[ "$(grep -c '^mcz job' "m.$mj.out")" = 1 ] || fail "the epilog wrote a second summary: $(grep '^mcz job' "m.$mj.out")"
ok "scancel (at $(el)): both files whole, the epilog's summary in the job's output, $("$MCZ" info "c.$cj.0.mcz" | sed -n 's/^meta *ended_by = //p')"

# 3. the other launchers: rank, size and one job id per launch
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
cat >l.sh <<EOF
#!/bin/bash
srun --mpi=pmi2 $REC -q -o pmi2.%j.%r.mcz -- sleep 0.2
srun --mpi=none $REC -q -o none.%j.%r.mcz -- sleep 0.2
command -v mpirun >/dev/null && mpirun $ROOT -n 2 $REC -q -o mpirun.%j.%r.mcz -- sleep 0.2
EOF
lj=$(sbatch --parsable -n 2 -o l.%j.out l.sh) || fail "sbatch: $lj"
slurm_wait "$lj" || fail "job $lj still queued"
for how in pmi2 none mpirun; do
	[ "$how" = mpirun ] && ! command -v mpirun >/dev/null && continue
	ids=
	for r in 0 1; do
		f=$how.$lj.$r.mcz
		[ -f "$f" ] || fail "$how: no $f: $(ls; cat "l.$lj.out")"
		"$MCZ" info "$f" >"$f.info"
		grep -q "^meta *rank = $r\$" "$f.info" || fail "$how: $f is not rank $r: $(grep -E 'rank|job' "$f.info")"
		grep -q "^meta *nranks = 2\$" "$f.info" || fail "$how: $f: $(grep nranks "$f.info")"
		ids="$ids $(sed -n 's/^meta *job = //p' "$f.info")"
	done
	set -- $ids
	[ "$1" = "$2" ] && case $1 in "$lj".*) true ;; *) false ;; esac ||
		fail "$how: the ranks' job ids $ids, not one id of job $lj"
	echo "$how: ranks 0 and 1 of 2, job $1"
done
ok "srun --mpi=pmi2, --mpi=none, mpirun in the script: ranks and job ids (at $(el))"

# 4. the time limit: slurmctld again, so that its 30 s check comes 63 to
# 70 s into the job; its state and the running job are kept (from 33 s
# after the job's start as slurmctld has it, to the second, so that the
# check falls after its end time). When the other jobs took longer than
# 40 s (a loaded machine: 67 s on CI), the check would come before the
# srun below, or the limit be met before the new slurmctld's first check:
# a new time-limited job, the first one cancelled.
if [ "$(date +%s)" -gt $((start + 40)) ]; then
	echo "the other jobs took until $(el): job $tl cancelled, a new time-limited job"
	scancel "$tl"
	slurm_wait "$tl" || fail "cancelled job $tl still queued"
	tl_submit
fi
left=$((start + 33 - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
kill "${slurm_daemons[1]}"
for _ in $(seq 100); do kill -0 "${slurm_daemons[1]}" 2>/dev/null || break; sleep 0.1; done
t_again=$(date +%s)
slurmctld -f "$SLURM_CONF" 2>"$SL/log/slurmctld.err" || fail "slurmctld again: $(cat "$SL/log/slurmctld.err")"
for _ in $(seq 50); do
	[ "$(cat "$SL/slurmctld.pid" 2>/dev/null)" != "${slurm_daemons[1]}" ] && break
	sleep 0.1
done
slurm_daemons[1]=$(slurm_pid "$SL/slurmctld.pid")
for _ in $(seq 50); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
# lmp from 15 s before the check on (slurmctld's 30 s after its start,
# past the job's end time)
go=$((start + 48 > t_again + 15 ? start + 48 : t_again + 15))
left=$((go - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
squeue -h -j "$tl" 2>/dev/null | grep -q ' R ' ||
	fail "job $tl ended before its srun: the other jobs took until $(el) (a machine this loaded makes the first slurmctld's 90 s check come first)"
touch go
slurm_wait "$tl" || fail "job $tl past its limit: $(squeue)"
grep -q "CANCELLED AT .* DUE TO TIME LIMIT" "tl.$tl.out" || fail "job $tl: $(tail -5 "tl.$tl.out")"
echo "time limit: job $tl started at $((start - t_ctld)) s (slurmctld's start: 0 s, again at $((t_again - t_ctld)) s), left the queue at $(( $(date +%s) - t_ctld )) s; $(grep "Time limit exhausted" "$SL/log/slurmctld.log")"
for r in 0 1; do
	f=tl.$tl.$r.mcz
	[ -f "$f" ] || fail "no $f: $(grep -v '^ *[0-9]' "tl.$tl.out" | tail -5)"
	whole "$f"
	at=$(signal_at "$f")
	lc=$(last_code "$f")
	[ -n "$at" ] || fail "$f: no ended_by: $("$MCZ" info "$f" | grep -E '^meta *(ended|exit)')"
	echo "rank $r: SIGTERM at $at s, the last code sample at $lc s"
	between "$(awk -v a="$at" -v c="$lc" 'BEGIN { print a - c }')" -0.5 1 ||
		fail "rank $r: the signal at $at s, the code up to $lc s"
	"$MCZ" dump --code --csv "$f" | grep -q 'LAMMPS_NS::' || fail "rank $r: no LAMMPS_NS:: code"
done
"$MCZ" info "tl.$tl.0.mcz" | grep -q '^meta *ended_by = .*from slurmstepd (pid [0-9]*): Slurm time limit$' ||
	fail "time limit: $("$MCZ" info "tl.$tl.0.mcz" | grep ended_by)"
"$MCVIEW" --report tl.$tl.*.mcz >tl.txt 2>&1 || fail "report: $(tail -3 tl.txt)"
grep -q '^ended by SIGTERM at [0-9.]* s from slurmstepd (pid [0-9]*): Slurm time limit (rank 0' tl.txt ||
	fail "the report's header: $(head -3 tl.txt)"
"$MCVIEW" --report=json tl.$tl.*.mcz >tl.json 2>/dev/null || fail "report=json of job $tl"
brief_check "tl.$tl.out" tl.json "time limit" || fail "summary (above)"
[ "$(grep -c '^mcz job' "tl.$tl.out")" = 1 ] || fail "job $tl's output has $(grep -c '^mcz job' "tl.$tl.out") summaries"
ok "time limit (at $(el)): both files whole, code to the signal, $(sed -n 1p tl.txt | cut -c 1-60); $(sed -n 2p tl.txt)"
