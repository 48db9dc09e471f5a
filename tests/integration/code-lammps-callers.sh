#!/usr/bin/env bash
# code-lammps-callers.sh: who owns the time on a distribution build.
# Debian's LAMMPS and Open MPI have no frame pointers; under `mpirun -n 2
# mcrec --call-graph dwarf` (stacks unwound from .eh_frame) each rank's
# samples inside LAMMPS_NS::Verlet::run (the MD loop) are split by the
# function the loop called: LAMMPS_NS::Pair* (Pair), Neighbor/NPair*
# (Neigh), Comm* (Comm, its MPI time included: the samples in libmpi are
# charged to the Comm function that called it).  The mean over the ranks
# of each share is LAMMPS's own "%total" of its timing breakdown (the
# ranks' mean time in that section over the loop time), within 5 points,
# for Pair, Neigh and Comm; rank 0 (twice rank 1's atoms) has the larger
# Pair share, as LAMMPS's max/min Pair times say.  The job report's
# waiting line names a LAMMPS Comm function as the owner of the MPI time.
set -u
. "$(dirname "$0")/rec-common.inc"
. "$(dirname "$0")/lammps-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v lmp >/dev/null || { echo "no lmp (apt install lammps)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the checks need it"; exit 77; }
"$MCREC" -q --call-graph dwarf -o "$T/probe.mcz" -- true >/dev/null 2>"$T/probe.err" ||
	{ echo "mcrec --call-graph dwarf unavailable here: $(head -1 "$T/probe.err")"; exit 77; }
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
lammps_melt_cut 20 14 10 3000 >"$T/in.imb"
REC=$(realpath "$MCREC")
(cd "$T" && OMP_NUM_THREADS=1 timeout 300 mpirun $ROOT --oversubscribe -n 2 "$REC" -q --call-graph dwarf \
	-o l.%r.mcz -- lmp -in in.imb -log lmp.log >out.txt 2>&1) || fail "mpirun lmp: $(tail -3 "$T/out.txt")"
"$B/mcz" merge -q "$T/l.0.mcz" "$T/l.1.mcz" -o "$T/job.mcz" || fail "mcz merge"
for r in 0 1; do
	"$B/mcz" dump --code --folded --rank $r "$T/job.mcz" >"$T/f.$r.txt" || fail "dump --folded --rank $r"
done
python3 - "$T/lmp.log" "$T/f.0.txt" "$T/f.1.txt" <<'PY' || fail "the sections (above)"
import re, sys
log = open(sys.argv[1]).read()
lmp = {m.group(1): (float(m.group(2)), float(m.group(4)), float(m.group(5))) for m in re.finditer(
    r"^(Pair|Neigh|Comm) +\| +([0-9.e-]+) +\| +([0-9.e-]+) +\| +([0-9.e-]+) +\| +[0-9.]+ +\| +([0-9.]+)", log, re.M)}
# min, max, %total
assert len(lmp) == 3, "no LAMMPS timing breakdown in its log"
def section(frame):
    if re.match(r"LAMMPS_NS::Pair", frame): return "Pair"
    if re.match(r"LAMMPS_NS::(Neighbor|NPair|NBin|NStencil)", frame): return "Neigh"
    if re.match(r"LAMMPS_NS::Comm", frame): return "Comm"
    return "Other"
shares = []
for fn in sys.argv[2:]:
    c, tot = {"Pair": 0, "Neigh": 0, "Comm": 0, "Other": 0}, 0
    for line in open(fn):
        stack, n = line.rsplit(" ", 1)
        fr = stack.split(";")
        if "LAMMPS_NS::Verlet::run" not in fr:
            continue
        i = fr.index("LAMMPS_NS::Verlet::run")
        c[section(fr[i + 1] if i + 1 < len(fr) else "")] += int(n)
        tot += int(n)
    assert tot > 1000, "%s: %d samples in the MD loop" % (fn, tot)
    shares.append({k: 100 * v / tot for k, v in c.items()})
bad = []
for k in ("Pair", "Neigh", "Comm"):
    mean = sum(s[k] for s in shares) / len(shares)
    print("%-5s mcz %5.1f %% (r0 %5.1f, r1 %5.1f)  LAMMPS %5.1f %%" % (k, mean, shares[0][k], shares[1][k], lmp[k][2]))
    if abs(mean - lmp[k][2]) > 5:
        bad.append(k)
assert not bad, "off by more than 5 points: %s" % bad
assert shares[0]["Pair"] > shares[1]["Pair"], "rank 0 (more atoms) has the smaller Pair share"
PY
"$B/mcview" --report "$T/job.mcz" >"$T/report.txt" 2>&1 || fail "report: $(tail -3 "$T/report.txt")"
grep -qE '^(# )?waiting, the whole run: MPI [0-9.]+ %: LAMMPS_NS::Comm' "$T/report.txt" ||
	fail "the report's waiting line names no LAMMPS Comm function: $(grep -i waiting "$T/report.txt" | head -3)"
ok "LAMMPS (no frame pointers) under --call-graph dwarf: Pair, Neigh and Comm shares within 5 points of its timers; MPI owned by its Comm"
