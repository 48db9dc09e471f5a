#!/usr/bin/env bash
# bench-rec-tick.sh: microseconds of sampling-thread work per tick, per
# source (build/bench/rec-tick), beside what perf stat itself costs per
# interval read (its -I 10 run's own task-clock per interval).  The bar:
# <= 100 us per tick for 500 streams.
set -u
B=${MCZ_BIN:-build}
N=2000
[ "${BENCH_QUICK:-}" = 1 ] && N=500
echo "cost of one tick per source (this process as the command; $N ticks back to back: warm caches)"
"$B/bench/rec-tick" "$N"
echo
echo "the same, 10 ms apart as at -i 10ms (cold caches and TLB at each tick: what a run pays)"
REC_TICK_SLEEP_US=10000 "$B/bench/rec-tick" $((N / 10))
# Many perf streams: 60 software-event instances per CPU.
ev=$(for i in $(seq 15); do printf 'perf:task-clock,perf:page-faults,perf:context-switches,perf:cpu-migrations,'; done)
echo
echo "perf source with $((60 * $(nproc))) streams (60 events x $(nproc) CPUs): the per-stream cost scales to 500 streams"
"$B/bench/rec-tick" "$N" -e "${ev%,}" | awk '{ print } $1 == "perf" && $2 > 0 { printf "  -> 500 streams: %.0f us per tick (bar: 100 us)\n", $5 * 500 }'
if command -v perf >/dev/null; then
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	# perf stat's own CPU time per interval read, measured by an outer perf stat.
	perf stat -x, -e task-clock -o "$T/outer" -- perf stat -I 10 -e task-clock,page-faults,context-switches,cpu-migrations -a -o /dev/null -- sleep 2 2>/dev/null
	awk -F, '!/^#/ && $3 == "task-clock" { printf "reference: perf stat -I 10 (4 events, -a), whole process: %.1f us of CPU per 10 ms interval\n", $1 * 1000 / 200 }' "$T/outer"
fi
