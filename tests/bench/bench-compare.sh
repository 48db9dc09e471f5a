#!/usr/bin/env bash
# bench-compare.sh: does `mcview --compare` point at the phase that got
# slower?  10 pairs of real mcrec recordings of the phased sample (six
# marked phases of 1.5 s: triad, gemm, triad, gemm, idle, chase); in each pair
# one phase, a different one from pair to pair, is given 5 % more work in B
# (--work K:1.05).  The bar: that phase ranked first in 10 of 10 pairs.
# Beside it, what the reference tool tells: `time` (the run's wall time,
# whose delta names no phase), and the largest other |delta| (the margin).
# Then the open and report time of a compare of two large recordings
# (tests/tools/gen-recording, 10^6 rows x 32 streams each), measured, and
# the frames of the timeline with run B overlaid (budgeted, and exact).
# BENCH_QUICK=1: 4 pairs, 10^5 rows.
set -u
B=${MCZ_BUILD:-build}
T=$(mktemp -d /tmp/mcz-bench-compare.XXXXXX)
trap 'rm -rf "$T"' EXIT
command -v python3 >/dev/null || { echo "python3 missing"; exit 1; }
P='triad:1.5,gemm:1.5,triad:1.5,gemm:1.5,idle:1.5,chase:1.5'
names=(triad#1 gemm#1 triad#2 gemm#2 idle chase)
pairs=10
[ -n "${BENCH_QUICK:-}" ] && pairs=4
# As root, under nice -10: a step preempted for 100 ms by another job of
# the shared machine would be a slowdown of its own (SCHED_FIFO would not
# do: the kernel throttles a FIFO task spinning over 0.95 s a second).
NICE=()
nice -n -10 true 2>/dev/null && NICE=(nice -n -10)
rec() { "${NICE[@]}" "$B"/mcrec -q -o "$1" -- "$B"/samples/phased -q --mem 4 --phases "$P" "${@:2}" >/dev/null; }

printf '%-5s %-9s %-9s %9s %12s %10s %9s\n' pair slowed "ranked 1" delta "next |delta|" "time: run" verdict
first=0
for ((i = 0; i < pairs; i++)); do
	k=$((i % 6 + 1))
	rec "$T/a.mcz" || { echo "mcrec failed"; exit 1; }
	rec "$T/b.mcz" --work "$k:1.05" || { echo "mcrec failed"; exit 1; }
	"$B"/mcview --compare "$T/a.mcz" "$T/b.mcz" --report=json >"$T/r.json" || { echo "compare failed"; exit 1; }
	line=$(python3 - "$T/r.json" "${names[$((k - 1))]}" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
m = sorted(r["matched"], key=lambda x: x["rank"])
top, want = m[0], sys.argv[2]
nxt = max(abs(x["delta_pct"]) for x in m[1:]) if len(m) > 1 else 0
run = 100 * (r["total_b_s"] / r["total_a_s"] - 1)
print("%s %+.1f%% %.1f%% %+.1f%% %s" % (top["label"], top["delta_pct"], nxt, run,
      "ok" if top["label"] == want else "MISSED"))
EOF
)
	read -r top d nxt run verdict <<<"$line"
	[ "$verdict" = ok ] && first=$((first + 1))
	printf '%-5d %-9s %-9s %9s %12s %10s %9s\n' $((i + 1)) "${names[$((k - 1))]}" "$top" "$d" "$nxt" "$run" "$verdict"
done
echo "slowed phase ranked first: $first of $pairs (bar: all)"

echo
rows=1000000
[ -n "${BENCH_QUICK:-}" ] && rows=100000
"$B"/tests/tools/gen-recording -o "$T/big1.mcz" --streams 32 --rows $rows --interval-ms 10 --phases >/dev/null
"$B"/tests/tools/gen-recording -o "$T/big2.mcz" --streams 32 --rows $rows --interval-ms 10 --phases >/dev/null
cp "$T/big1.mcz" "$T/big1b.mcz"
t0=$(date +%s%N)
"$B"/mcview --compare "$T/big1.mcz" "$T/big2.mcz" --report >"$T/big.txt" 2>&1
t1=$(date +%s%N)
"$B"/mcview --compare "$T/big1.mcz" "$T/big2.mcz" --report >/dev/null 2>&1
t2=$(date +%s%N)
"$B"/mcview --compare "$T/big1.mcz" "$T/big2.mcz" --snapshot 200x60 >/dev/null 2>&1
t3=$(date +%s%N)
"$B"/mcview --compare "$T/big1.mcz" "$T/big2.mcz" --snapshot 200x60 --view timeline >/dev/null 2>&1
t4=$(date +%s%N)
"$B"/mcview --snapshot 200x60 "$T/big1b.mcz" >/dev/null 2>&1
t5=$(date +%s%N)
printf '%-52s %10s\n' "two recordings of $rows rows x 32 streams" "wall"
printf '%-52s %8d ms\n' "compare --report, first (phases detected, cached)" $(((t1 - t0) / 1000000))
printf '%-52s %8d ms\n' "compare --report, again (phases from the cache)" $(((t2 - t1) / 1000000))
printf '%-52s %8d ms\n' "compare, Compare view 200x60 (open + draw)" $(((t3 - t2) / 1000000))
printf '%-52s %8d ms\n' "compare, timeline 200x60 with B overlaid" $(((t4 - t3) / 1000000))
printf '%-52s %8d ms\n' "reference: mcview one file, timeline 200x60" $(((t5 - t4) / 1000000))
# the overlaid timeline as mcview draws it: frames within the budget while
# run B's rows are read, then refined (bench-view's scripted walk)
read -r _ _ _ _ p50 _ p99 fmax _ s99 _ _ rss _ <<<"$("$B"/bench/bench-view --view timeline --size 200x60 --compare "$T/big1.mcz" "$T/big2.mcz")"
read -r _ _ _ _ e50 _ e99 _ _ _ _ _ _ _ <<<"$(BENCH_EXACT=1 "$B"/bench/bench-view --view timeline --size 200x60 --compare "$T/big1.mcz" "$T/big2.mcz")"
printf '%-52s %s\n' "compare, timeline with B: frame p50/p99/max (ms)" "$p50 / $p99 / $fmax (bar 16), settled p99 $s99, RSS ${rss} MB"
printf '%-52s %s\n' "  every frame exact (no budget): p50/p99 (ms)" "$e50 / $e99"
sed -n 3p "$T/big.txt"
[ "$first" -eq "$pairs" ]
