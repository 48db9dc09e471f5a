#!/usr/bin/env bash
# run-benches.sh: `make bench` — runs every tests/bench/bench-*.sh in turn; each prints
# its own table comparing mcz with the reference tool measured in the same run.
#   tests/bench/run-benches.sh [PATTERN]    only benchmarks whose name contains PATTERN
# BENCH_QUICK=1 asks each benchmark for a shorter run (fewer repetitions).
set -u
cd "$(dirname "$0")/../.."
export MCZ_BUILD=${MCZ_BUILD:-build} MCZ_BIN=$PWD/${MCZ_BUILD:-build}
rc=0
for b in tests/bench/bench-*.sh; do
	[ -f "$b" ] || continue
	[ -n "${1:-}" ] && [[ $b != *"$1"* ]] && continue
	echo "=== $(basename "$b" .sh)"
	bash "$b" || { echo "benchmark $b failed"; rc=1; }
	echo
done
exit $rc
