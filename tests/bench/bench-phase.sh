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
echo
# Through the viewer's model on a recording (gen-recording: 32 streams, 12
# phases): detection reads summaries and samples from the file (libmcz
# decoding), then re-detection after a parameter change, then the cache.
rows=1000000
[ -n "${BENCH_QUICK:-}" ] && rows=100000
T=$(mktemp -d /tmp/mcz-bench-phase.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$B"/tests/tools/gen-recording -o "$T/big.mcz" --streams 32 --rows $rows --interval-ms 10 --phases
taskset -c 0 "$prog" model "$T/big.mcz" 2>/dev/null || "$prog" model "$T/big.mcz"
