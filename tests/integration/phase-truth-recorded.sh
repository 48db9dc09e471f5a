#!/usr/bin/env bash
# phase-truth-recorded.sh: the checks of phase-truth.sh (every kernel/idle
# boundary within 2 sampling intervals of the sample's marks, none inside
# an idle phase, the idle phases one class) on its runs kept in
# tests/data/phase-truth/, where a new run's timing varies:
#   gemm-burst.mcz  gemm's first 100 ms made 20 times the idle phase's
#                   context switches: a 2-sample segment of its own, which
#                   joined the idle phase before it and put gemm's start
#                   105 ms late (make check failed so).
# mcz-test: parallel
set -u
D=$(dirname "$0")/../data/phase-truth
n=0
for f in "$D"/*.mcz; do
	out=$(bash "$(dirname "$0")/phase-truth.sh" "$f" 2>&1)
	rc=$?
	sed "s|^|$(basename "$f"): |" <<<"$out"
	[ $rc -eq 0 ] || { echo "FAIL: $(basename "$f"): detected phases differ from the marks"; exit 1; }
	n=$((n + 1))
done
[ $n -ge 1 ] || { echo "FAIL: no recording in $D"; exit 1; }
echo "ok: $n kept phase-truth runs"
