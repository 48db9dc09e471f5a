#!/usr/bin/env bash
# bench-view.sh: mcview on a 10^9-value recording (256 streams x 4e6
# samples, generated once with tests/tools/gen-recording and kept under
# /tmp/mcz-bench): open time, first screen, frame times over a scripted walk
# of zooms, pans, cursor moves, a group opened and a filter on a 200x60
# screen (tests/bench/bench-view.c), and peak memory — medians of 5 runs,
# each a fresh process.  Bars (../shared/DESIGN.md): open <= 100 ms,
# redraw <= 16 ms, memory <= 200 MB.  A frame is timed as mcview draws it:
# within its decode budget, key handling included; "settle" is the time
# from a key to the exact screen (frames drawn again while refining).  The
# same walk with every frame exact (no budget) is measured beside it.
#
# Reference, measured in the same run: pmdumplog reading a real PCP archive
# of the testsuite, as values per second, and the time it would take at that
# rate to read as many values as the recording holds — what a tool that
# reads every value must pay before it can draw.
#
#   MCZ_BENCH_BIG=FILE   use (or create) this recording
#   BENCH_QUICK=1        a 10^8-value recording and 3 runs
#   BENCH_HUGE=1         a 10^10-value recording (256 streams x 39,062,500
#                        samples, about 22 GB, generated once where the disk
#                        has room: about half an hour), 3 runs, bars as at
#                        10^9 but memory <= 300 MB; no run without budget
#                        (a frame exact over 10^10 values is not a frame),
#                        no phase detection, no wide archive
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BUILD:-build}
rows=4000000 runs=5 rss_bar=200 huge=
F=${MCZ_BENCH_BIG:-/tmp/mcz-bench/view-1e9.mcz}
if [ -n "${BENCH_QUICK:-}" ]; then
	rows=400000 runs=3
	F=${MCZ_BENCH_BIG:-/tmp/mcz-bench/view-1e8.mcz}
elif [ -n "${BENCH_HUGE:-}" ]; then
	rows=39062500 runs=3 rss_bar=300 huge=1
	F=${MCZ_BENCH_BIG:-/tmp/mcz-bench/view-1e10.mcz}
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
	# about 2.2 bytes a value, and room left beside it
	need=$((values / 1000000 * 22 / 10 + 2048))
	avail=$(df -Pm "$(dirname "$F")" | awk 'NR == 2 { print $4 }')
	if [ "$avail" -lt "$need" ]; then
		echo "bench-view: $values values need about $need MB on $(dirname "$F"), $avail MB free: not generated"
		exit 1
	fi
	echo "generating $F: 256 streams x $rows samples (once; kept for later runs)"
	t0=$(date +%s)
	"$B/tests/tools/gen-recording" -o "$F.tmp" --streams 256 --rows "$rows" --counters \
		--phases && mv "$F.tmp" "$F" || { echo "bench-view: generation failed"; exit 1; }
	echo "generated in $(( $(date +%s) - t0 )) s, $(du -h "$F" | cut -f1)"
fi

cat "$F" >/dev/null # page cache warm, as a file just recorded or opened before
res=() exact=()
for ((i = 0; i < runs; i++)); do
	res+=("$("$B/bench/bench-view" "$F" 200 60)") || { echo "bench-view failed"; exit 1; }
	if [ -n "$huge" ]; then
		exact+=("- - - - - - - - - - - - - -")
	else
		exact+=("$(BENCH_EXACT=1 "$B/bench/bench-view" "$F" 200 60)") || { echo "bench-view failed"; exit 1; }
	fi
done
# median of column N over the runs (of array $2: res or exact)
med() { local -n a=${2:-res}; printf '%s\n' "${a[@]}" | awk -v c="$1" '{ print $c }' | sort -g |
	awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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
echo "steps: $(med 4) keys; frames: $(med 12) with refinement, $(med 12 exact) exact"
printf '| %-30s | %14s | %14s | %8s | %-4s |\n' "what" "mcview" "no budget" "bar" ""
printf '|%s|%s|%s|%s|%s|\n' "--------------------------------" "----------------" "----------------" "----------" "------"
row() { printf '| %-30s | %11s %s | %11s %2s | %8s | %-4s |\n' "$1" "$2" "$3" "$4" "${4:+$3}" "$5" "$6"; }
row "open" "$(med 1)" ms "$(med 1 exact)" "100 ms" "$(ok "$(med 1)" 100)"
row "first frame" "$(med 2)" ms "$(med 2 exact)" "" ""
row "first screen exact" "$(med 3)" ms "$(med 3 exact)" "" ""
row "frame p50" "$(med 5)" ms "$(med 5 exact)" "" ""
row "frame p95" "$(med 6)" ms "$(med 6 exact)" "" ""
row "frame p99" "$(med 7)" ms "$(med 7 exact)" "16 ms" "$(ok "$(med 7)" 16)"
row "frame max" "$(med 8)" ms "$(med 8 exact)" "" ""
row "settle p50 (key to exact)" "$(med 9)" ms "$(med 9 exact)" "" ""
row "settle p99" "$(med 10)" ms "$(med 10 exact)" "100 ms" "$(ok "$(med 10)" 100)"
row "settle max" "$(med 11)" ms "$(med 11 exact)" "" ""
row "CPU, open to last step" "$(med 14)" ms "$(med 14 exact)" "" ""
row "peak memory (RSS)" "$(med 13)" MB "$(med 13 exact)" "$rss_bar MB" "$(ok "$(med 13)" "$rss_bar")"
if [ -n "$huge" ]; then
	echo "reference: $ref"
	echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
	exit 0
fi
# Phase detection, as on the first open of the file (nothing cached yet:
# mcview shows the first screen, then detects): wall time and peak RSS.
if command -v /usr/bin/time >/dev/null; then
	ph=$( { /usr/bin/time -f "%e %M" env MCVIEW_PHASE_CACHE=0 "$B/mcview" --report "$F" >/dev/null; } 2>&1 | tail -n 1)
	echo "phase detection on the first open (mcview --report, no cache): ${ph% *} s, peak RSS $(( ${ph#* } / 1024 )) MB"
fi
echo "reference: $ref"

# The widest archive of pcp-testsuite (20180416.10.00: 36,886 streams of
# 3,316 rows), imported, then opened and drawn as above.  Bars: it opens
# and draws its first screen in <= 100 ms, its first exact screen in
# <= 300 ms; the keys' bars as above.  Beside it, the PCP command that shows what an
# archive holds with values, pminfo -f -a (every metric's values at the
# archive's start), on the same archive.  Medians of $runs runs.
W=/var/lib/pcp/testsuite/archives/20180416.10.00
if [ -f "$W.index" ] && command -v pminfo >/dev/null; then
	T=$(mktemp -d /tmp/mcz-bench-view.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	"$B/mcz" import -q -o "$T/wide.mcz" "$W" || { echo "bench-view: mcz import $W failed"; exit 1; }
	res=() ref=()
	for ((i = 0; i < runs; i++)); do
		res+=("$("$B/bench/bench-view" "$T/wide.mcz" 200 60)") || { echo "bench-view failed"; exit 1; }
		ref+=("$(TIMEFORMAT=%R; { time pminfo -f -a "$W" >/dev/null 2>&1; } 2>&1)")
	done
	first=$(printf '%s\n' "${res[@]}" | awk '{ print $1 + $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	pm=$(printf '%s\n' "${ref[@]}" | sort -g |
		awk '{ v[NR] = $1 * 1000 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo
	echo "mcview on $(basename "$W") imported: $("$B/mcz" info "$T/wide.mcz" | sed -n 's/^streams *\([0-9]*\).*/\1/p') streams, $("$B/mcz" info "$T/wide.mcz" | sed -n 's/.* \([0-9]*\) rows in.*/\1/p') rows; 200x60 screen; median of $runs runs"
	printf '| %-30s | %14s | %14s | %8s | %-4s |\n' "what" "mcview" "pminfo -f -a" "bar" ""
	printf '|%s|%s|%s|%s|%s|\n' "--------------------------------" "----------------" "----------------" "----------" "------"
	row "open + first screen" "$first" ms "$pm" "100 ms" "$(ok "$first" 100)"
	row "first screen exact" "$(med 3)" ms "" "300 ms" "$(ok "$(med 3)" 300)"
	row "frame p99" "$(med 7)" ms "" "16 ms" "$(ok "$(med 7)" 16)"
	row "settle p99" "$(med 10)" ms "" "100 ms" "$(ok "$(med 10)" 100)"
	row "peak memory (RSS)" "$(med 13)" MB "" "200 MB" "$(ok "$(med 13)" 200)"
else
	echo "(the widest pcp-testsuite archive is not installed: no row for it)"
fi
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
