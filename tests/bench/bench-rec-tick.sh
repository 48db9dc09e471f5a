#!/usr/bin/env bash
# bench-rec-tick.sh: microseconds of sampling-thread work per tick, per
# source (build/bench/rec-tick), beside what perf stat itself costs per
# interval read (its -I 10 run's own task-clock per interval).  The bar:
# <= 100 us per tick for 500 streams.
set -u
B=${MCZ_BIN:-build}
N=2000
[ "${BENCH_QUICK:-}" = 1 ] && N=500
echo "cost of one tick per source (this process as the command; $N ticks)"
"$B/bench/rec-tick" "$N"
if command -v perf >/dev/null; then
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	# perf stat's own CPU time per interval read, measured by an outer perf stat.
	perf stat -x, -e task-clock -o "$T/outer" -- perf stat -I 10 -e task-clock,page-faults,context-switches,cpu-migrations -a -o /dev/null -- sleep 2 2>/dev/null
	awk -F, '!/^#/ && $3 == "task-clock" { printf "reference: perf stat -I 10 (4 events, -a), whole process: %.1f us of CPU per 10 ms interval\n", $1 * 1000 / 200 }' "$T/outer"
fi
