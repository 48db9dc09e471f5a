#!/usr/bin/env bash
# bench-view.sh: mcview on a 10^9-value recording (256 streams x 4e6
# samples, generated once with tests/tools/gen-recording and kept under
# /tmp/mcz-bench): open time, first screen, redraw times over a scripted walk
# of zooms, pans, cursor moves, a group opened and a filter on a 200x60
# screen (tests/bench/bench-view.c), and peak memory — medians of 5 runs,
# each a fresh process.  Bars (../shared/DESIGN.md): open <= 100 ms,
# redraw <= 16 ms, memory <= 200 MB.
#
# Reference, measured in the same run: pmdumplog reading a real PCP archive
# of the testsuite, as values per second, and the time it would take at that
# rate to read as many values as the recording holds — what a tool that
# reads every value must pay before it can draw.
#
#   MCZ_BENCH_BIG=FILE   use (or create) this recording
#   BENCH_QUICK=1        a 10^8-value recording and 3 runs
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BUILD:-build}
rows=4000000 runs=5
F=${MCZ_BENCH_BIG:-/tmp/mcz-bench/view-1e9.mcz}
if [ -n "${BENCH_QUICK:-}" ]; then
	rows=400000 runs=3
	F=${MCZ_BENCH_BIG:-/tmp/mcz-bench/view-1e8.mcz}
fi
for p in "$B/bench/bench-view" "$B/tests/tools/gen-recording" "$B/mcz"; do
	[ -x "$p" ] || { echo "bench-view: $p missing (make bench builds it)"; exit 1; }
done
mkdir -p "$(dirname "$F")"
values=$((256 * rows))
# A file from an older writer, or cut short, is made again.
if [ -s "$F" ] && ! "$B/mcz" info "$F" 2>/dev/null | grep -q "^values *$values stored" ||
	"$B/mcz" info "$F" 2>/dev/null | grep -q "index *MISSING"; then
	echo "$F is not a complete $values-value recording for this reader; making it again"
	rm -f "$F"
fi
if [ ! -s "$F" ]; then
	echo "generating $F: 256 streams x $rows samples (once; kept for later runs)"
	t0=$(date +%s)
	"$B/tests/tools/gen-recording" -o "$F.tmp" --streams 256 --rows "$rows" --counters \
		--phases && mv "$F.tmp" "$F" || { echo "bench-view: generation failed"; exit 1; }
	echo "generated in $(( $(date +%s) - t0 )) s, $(du -h "$F" | cut -f1)"
fi

cat "$F" >/dev/null # page cache warm, as a file just recorded or opened before
res=()
for ((i = 0; i < runs; i++)); do
	res+=("$("$B/bench/bench-view" "$F" 200 60)") || { echo "bench-view failed"; exit 1; }
done
# median of column N over the runs
med() { printf '%s\n' "${res[@]}" | awk -v c="$1" '{ print $c }' | sort -g |
	awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
open=$(med 1) first=$(med 2) steps=$(med 3) p50=$(med 4) p99=$(med 5) max=$(med 6) rss=$(med 7)
p95=$(med 8) walkw=$(med 9) walkc=$(med 10)

# Reference: pmdumplog over the largest uncompressed testsuite archive.
ref="(pmdumplog or the PCP testsuite archives not installed)"
A=$(ls -S /var/lib/pcp/testsuite/archives/*.0 2>/dev/null | head -n 1)
if command -v pmdumplog >/dev/null && [ -n "$A" ]; then
	A=${A%.0}
	n=$(pmdumplog "$A" 2>/dev/null | grep -c ' value ')
	t=$(TIMEFORMAT=%R; { time pmdumplog "$A" >/dev/null 2>&1; } 2>&1)
	ref=$(awk -v n="$n" -v t="$t" -v v="$values" -v a="$(basename "$A")" 'BEGIN {
		r = n / t; printf "pmdumplog %s: %d values in %.2f s = %.2g values/s; %.3g values would take %.0f s", a, n, t, r, v, v / r }')
fi

ok() { awk -v x="$1" -v b="$2" 'BEGIN { print (x <= b) ? "ok" : "OVER" }'; }
echo "mcview on $(basename "$F"): $values values, $(du -h "$F" | cut -f1); 200x60 screen; median of $runs runs"
printf '| %-34s | %12s | %8s | %-4s |\n' "what" "mcview" "bar" ""
printf '|%s|%s|%s|%s|\n' "------------------------------------" "--------------" "----------" "------"
printf '| %-34s | %9s ms | %8s | %-4s |\n' "open" "$open" "100 ms" "$(ok "$open" 100)"
printf '| %-34s | %9s ms | %8s | %-4s |\n' "first screen" "$first" "" ""
printf '| %-34s | %9s ms | %8s | %-4s |\n' "redraw p50 ($steps steps)" "$p50" "" ""
printf '| %-34s | %9s ms | %8s | %-4s |\n' "redraw p95" "$p95" "" ""
printf '| %-34s | %9s ms | %8s | %-4s |\n' "redraw p99" "$p99" "16 ms" "$(ok "$p99" 16)"
printf '| %-34s | %9s ms | %8s | %-4s |\n' "redraw max" "$max" "" ""
printf '| %-34s | %9s ms | %8s | %-4s |\n' "all redraws, wall" "$walkw" "" ""
printf '| %-34s | %9s ms | %8s | %-4s |\n' "all redraws, CPU (process clock)" "$walkc" "" ""
printf '| %-34s | %9s MB | %8s | %-4s |\n' "peak memory (RSS)" "$rss" "200 MB" "$(ok "$rss" 200)"
echo "reference: $ref"
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
