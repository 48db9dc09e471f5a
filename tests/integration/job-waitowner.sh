#!/usr/bin/env bash
# job-waitowner.sh: where a real MPI job's waiting comes from.  A small MPI
# program built with frame pointers, under a real mpirun -n 2 and mcrec
# with call stacks: rank 0 computes 3 units then calls MPI_Barrier from
# wait_a, 1 unit then MPI_Allreduce from wait_b; rank 1 only waits, so its
# time in MPI is charged 3:1 to wait_a and wait_b.  The job report's
# "waiting" (JSON, the whole run) names wait_a and wait_b as the owners of
# the MPI samples, 3:1 within 10 %, together most of them (80 %), their
# samples and shares adding up to the class's; rank 1's own the same; the
# text report says it in a line "waiting, the whole run: MPI ...: wait_a
# ..., wait_b ...".
#
# Before that, whoever owns them, each rank's MPI share of its samples
# with stacks is the job report's (mpi_s over its useful, MPI and sync
# time) to 0.01.
#
# The stacks must get through Open MPI's libraries to reach the callers:
# Debian builds them without frame pointers, so `--call-graph fp` stacks
# stop inside libmpi ("[no application frame]").  The test records with
# `--call-graph dwarf` where mcrec has it, else with fp, and is skipped
# (77) when no stack of the waiting rank reaches wait_a or wait_b.
set -u
. "$(dirname "$0")/rec-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v mpicc >/dev/null || { echo "mpicc not installed (libopenmpi-dev)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
MCVIEW=$B/mcview
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
cat >"$T/wait31.c" <<'EOF'
#include <mpi.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void work(int units)
{
	double x = sink;
	for (long i = 0; i < units * 20000000L; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

__attribute__((noinline)) void wait_a(void)
{
	/* not the last call (a tail call jumps to MPI: wait_a's frame would
	 * be gone, its waiting main's, as perf shows it too) */
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
		abort();
}

__attribute__((noinline)) void wait_b(void)
{
	double v = sink, s;
	MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, n = argc > 1 ? atoi(argv[1]) : 20;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < n; i++) {
		if (rank == 0)
			work(3);
		wait_a();
		if (rank == 0)
			work(1);
		wait_b();
	}
	MPI_Finalize();
	return 0;
}
EOF
mpicc -O2 -g -fno-omit-frame-pointer -o "$T/wait31" "$T/wait31.c" || fail "mpicc"
cg=fp
"$MCREC" -q --call-graph dwarf -o "$T/probe.mcz" -- true >/dev/null 2>&1 && cg=dwarf
timeout 180 mpirun $ROOT --oversubscribe -n 2 "$MCREC" -q --call-graph $cg -o "$T/r.%r.mcz" -- \
	"$T/wait31" 12 >"$T/mpirun.out" 2>&1 || fail "mpirun: $(tail -3 "$T/mpirun.out")"
"$B/mcz" merge "$T"/r.0.mcz "$T"/r.1.mcz -o "$T/job.mcz" >/dev/null || fail "mcz merge"
"$B/mcz" dump --code --folded --rank 1 "$T/job.mcz" >"$T/r1.folded" 2>"$T/err" ||
	{ echo "no code profile (perf_event_paranoid?): $(head -1 "$T/err")"; exit 77; }
# whoever owns them, the waiting samples are the job report's time in
# MPI: each rank's MPI share of its samples with stacks is its mpi_s over
# useful_s + mpi_s + sync_s (its samples, scaled to its CPU time), to 0.01
"$MCVIEW" --report=json "$T/job.mcz" >"$T/job.json" 2>"$T/err" || fail "report: $(cat "$T/err")"
python3 - "$T/job.json" <<'EOF' || fail "the waiting samples against mpi_s (above)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
for r in j["run"]["per_rank"]:
    w = r.get("waiting", {}).get("MPI", {}).get("share", 0)
    want = r["mpi_s"] / (r["useful_s"] + r["mpi_s"] + (r["sync_s"] or 0))
    if abs(w - want) > 0.01:
        sys.exit("FAIL: rank %d: MPI %.4f of the samples with stacks, the report's mpi_s %.4f" % (r["rank"], w, want))
    print("ok: rank %d: MPI %.4f of the samples with stacks, mpi_s %.3f s: %.4f" % (r["rank"], w, r["mpi_s"], want))
EOF
if ! grep -Eq ';wait_[ab];' "$T/r1.folded"; then
	echo "--call-graph $cg: no stack of the waiting rank reaches wait_a or wait_b (the heaviest:" \
		"$(sort -t' ' -k2 -nr "$T/r1.folded" | head -2 | tr '\n' ' '));" \
		"Open MPI has no frame pointers: this needs mcrec --call-graph dwarf"
	exit 77
fi
ok "--call-graph $cg stacks reach the callers"
python3 - "$T/job.json" <<'EOF' || fail "the waiting owners (above)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
def check(w, what):
    mpi = w["MPI"]
    own = {o["name"]: o for o in mpi["owners"]}
    a, b = own.get("wait_a"), own.get("wait_b")
    if not a or not b:
        sys.exit("FAIL: %s: wait_a and wait_b are not both owners: %s" % (what, mpi["owners"]))
    r = a["samples"] / b["samples"]
    if not 2.7 <= r <= 3.3:
        sys.exit("FAIL: %s: wait_a %d : wait_b %d samples, not 3:1 within 10 %%" % (what, a["samples"], b["samples"]))
    if a["samples"] + b["samples"] < 0.8 * mpi["samples"]:
        sys.exit("FAIL: %s: wait_a and wait_b own %d of %d MPI samples" % (what, a["samples"] + b["samples"], mpi["samples"]))
    if sum(o["samples"] for o in mpi["owners"]) > mpi["samples"]:
        sys.exit("FAIL: %s: the owners hold more than the class" % what)
    if abs(sum(o["share"] for o in mpi["owners"]) - mpi["share"]) > 1e-4 * max(1, len(mpi["owners"])):
        sys.exit("FAIL: %s: the owners' shares do not add up to the class's" % what)
    print("ok: %s: MPI %.1f %% of the samples: wait_a %.1f %%, wait_b %.1f %% (%.2f:1)" %
          (what, 100 * mpi["share"], 100 * a["share"], 100 * b["share"], r))
check(j["run"]["waiting"], "the job")
r1 = [r for r in j["run"]["per_rank"] if r["rank"] == 1][0]
check(r1["waiting"], "rank 1")
EOF
"$MCVIEW" --report "$T/job.mcz" >"$T/job.txt" 2>"$T/err" || fail "text report: $(cat "$T/err")"
grep -Eq '^waiting, the whole run: MPI [0-9.]+ %: wait_a [0-9.]+ %, wait_b [0-9.]+ %' "$T/job.txt" ||
	fail "no waiting line in the text report: $(grep -i waiting "$T/job.txt")"
ok "$(grep '^waiting, the whole run' "$T/job.txt")"
