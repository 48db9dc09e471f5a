#!/usr/bin/env bash
# job-hpcc.sh: mcview's default job report on a real MPI application no one
# here wrote — hpcc, the HPC Challenge suite (Debian's hpcc, Open MPI) — under
# `mpirun -n 2 mcrec`, checked against hpcc's own log (job-hpcc.py; the same
# checks on runs kept from earlier: job-hpcc-recorded.sh): with
# default options the phases are detected (the exit mark is no region), each
# section longer than 2 s is a phase whose boundaries lie within 2 s of the
# times hpccoutf.txt gives (cut only where the job stalled: on this VM a CPU
# is taken from a rank for a second at times), each Single* section has a load balance of at
# most 0.6 and names the computing rank (read from the ranks' code samples)
# as the slowest, StarDGEMM and StarRandomAccess are balanced (>= 0.9), and
# HPL's solve is as long as HPL's own timer says (within 1 s, not counting
# the generation and the residual check where its phase took them in: the
# time at its edges where the ranks hardly ran the BLAS), at most two
# phases (the must-show's bound), or three where the extra pieces are short
# ones in which a rank computed while the other waited, its matrix's
# generation and its residual check at most a short phase each.
# HPCC_N sets the problem size (default 5000:
# about 50 s here with 2 ranks; at 4000 SingleDGEMM is 4 s, its
# matrix generation a tenth of it, and its load balance 0.57).
set -u
. "$(dirname "$0")/rec-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v hpcc >/dev/null || { echo "hpcc not installed (Debian package hpcc; make deps installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the checks need it"; exit 77; }
INF=/usr/share/doc/hpcc/examples/_hpccinf.txt
[ -f "$INF" ] || { echo "FAIL: no $INF (the hpcc package's example input)"; exit 1; }
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
N=${HPCC_N:-5000}
# one problem of order N on a 1 x 2 process grid; the rest as Debian ships it
sed -e "s/^[0-9]* *Ns\$/$N         Ns/" -e 's/^[0-9]* *Ps$/1            Ps/' \
	-e 's/^[0-9]* *Qs$/2            Qs/' "$INF" >"$T/hpccinf.txt"
grep -q "^$N *Ns" "$T/hpccinf.txt" || fail "could not set N in $INF"
rec=$(readlink -f "$MCREC") # hpcc reads hpccinf.txt from its working folder
(cd "$T" && timeout 600 mpirun $ROOT --oversubscribe -n 2 "$rec" -q -o hpcc.%r.mcz -- hpcc \
	>run.out 2>&1) || fail "mpirun hpcc: $(tail -5 "$T/run.out")"
grep -q "End of HPL section" "$T/hpccoutf.txt" || fail "hpcc did not finish: $(tail -5 "$T/hpccoutf.txt")"
[ -f "$T/hpcc.0.mcz" ] && [ -f "$T/hpcc.1.mcz" ] || fail "no rank files: $(ls "$T")"
"$B/mcview" --report "$T"/hpcc.*.mcz >"$T/report.txt" 2>&1 || fail "report: $(cat "$T/report.txt")"
sed 's/^/  | /' "$T/report.txt"
python3 "$(dirname "$0")/job-hpcc.py" "$B" "$T" || {
	cp "$T"/hpcc.*.mcz "$T/hpccoutf.txt" "${MCZ_BUILD:-build}/test-logs/" 2>/dev/null
	fail "the report does not match hpcc's log (files kept in ${MCZ_BUILD:-build}/test-logs/)"
}
ok "hpcc N=$N: every section over 2 s found, Single* sections unbalanced, Star* balanced"
