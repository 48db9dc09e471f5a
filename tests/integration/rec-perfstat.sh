#!/usr/bin/env bash
# rec-perfstat.sh: totals recorded by mcrec agree with perf stat within 2 %.
# Both observe the same execution: mcrec launches `sh` that stops itself,
# perf stat attaches to it (-p), then it continues and execs a workload with
# threads and a child process (so inherit is exercised).  Software events
# here (task-clock, page-faults, context-switches); hardware events
# (instructions, cycles) too where `perf stat -e instructions true` works.
set -u
. "$(dirname "$0")/rec-common.inc"
command -v perf >/dev/null || { echo "perf not installed (linux-perf)"; exit 77; }

compare() { # events(perf names, comma list) streams(space list) workload...
	local events=$1 streams=$2; shift 2
	local mev
	mev=$(echo "$events" | sed 's/[^,]*/perf:&/g')
	"$MCREC" -q -o "$T/p.mcz" -e "$mev" -- sh -c 'kill -STOP $$; exec "$@"' sh "$@" &
	local m=$! c="" i
	for i in $(seq 100); do
		c=$(pgrep -P $m) && grep -q '^State:.*T' /proc/$c/status 2>/dev/null && break
		sleep 0.05
	done
	[ -n "$c" ] || fail "mcrec's child did not start"
	perf stat -x, -e "$events" -p "$c" -o "$T/perfstat.txt" &
	local ps=$!
	sleep 0.5
	kill -CONT "$c"
	wait $m || fail "mcrec exited with $?"
	wait $ps
	local ev st n=1
	for st in $streams; do
		ev=$(echo "$events" | cut -d, -f$n)
		local pv rv
		pv=$(grep -v '^#' "$T/perfstat.txt" | awk -F, -v e="$ev" '$3 == e { print $1 }')
		rv=$("$RR" "$T/p.mcz" total "$st") || fail "no $st in the recording"
		[ "$ev" = task-clock ] && rv=$(awk -v v="$rv" 'BEGIN { printf "%.3f", v * 1000 }') # s -> ms
		printf '%-20s perf stat %14s   mcrec %14s\n' "$ev" "$pv" "$rv"
		[ -n "$pv" ] || fail "perf stat gave no $ev"
		within "$rv" "$pv" 0.02 || fail "$ev: mcrec $rv vs perf stat $pv (> 2 %)"
		n=$((n + 1))
	done
}

compare task-clock,page-faults,context-switches \
	"core.task_clock core.page_faults core.context_switches" \
	"$WORK" --pages 30000 --sleeps 1000 --spin 40 --threads 2 --fork
ok "software events within 2 %"

if perf stat -x, -e instructions true 2>&1 | grep -q 'not supported'; then
	echo "hardware part skipped: perf stat -e instructions says 'not supported' here (no hardware PMU)"
else
	compare instructions,cycles "core.instructions core.cycles" \
		"$WORK" --pages 1000 --spin 200 --threads 2 --fork
	ok "hardware events within 2 %"
fi
