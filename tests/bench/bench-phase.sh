#!/usr/bin/env bash
# bench-phase.sh: phase detection speed (10^6 samples x 32 streams, growth
# 10^4..10^7, 2 vs 200 phases, re-detection after a parameter change) and
# accuracy on synthetic streams, beside plain binary segmentation and PELT
# run on the same data in the same process (tests/bench/phase-bench.c).
# BENCH_QUICK=1: smaller sizes, one repetition.
set -eu
B=${MCZ_BUILD:-build}
prog=$B/bench/phase-bench
[ -x "$prog" ] || { echo "missing $prog (make units)"; exit 1; }
q=${BENCH_QUICK:+quick}
taskset -c 0 "$prog" speed $q 2>/dev/null || "$prog" speed $q
echo
"$prog" accuracy $q
