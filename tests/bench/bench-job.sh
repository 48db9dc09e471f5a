#!/usr/bin/env bash
# bench-job.sh: the files of a 1,024-rank job (tests/tools/gen-job: 16
# hosts of 64 ranks, 6 marked phases of 10 s sampled every 100 ms, 2
# task-clock counters and 2 gauges per rank, rank 517 given 1.3x the work
# in phase 3).  Measured: the job report (open every file, cut each rank by
# its marks, match the phases, the per-phase figures): wall time, peak RSS,
# and whether it names rank 517 with the injected imbalance; the Ranks
# view and the folded timeline on a 200x60 screen (bench-view's scripted
# walk: open, first screen, frame p50/p99/max, peak RSS).  Beside them the
# same number of values in one file (4,096 streams x 630 rows, written by
# gen-recording), opened and walked the same way: what the job's 1,024
# files cost over one file.  And the same job merged into one job file
# (mcz merge: every rank's file kept whole inside it, SPEC.md 5.8): the
# merge's time, the report and both views on it, beside the rank files.
# The same job again with code profiles (gen-job --code: ranks that poll
# while they wait, as MPI libraries do, so that only the code samples tell
# work from waiting): the report and the Ranks view beside the job
# without them, and whether the report names rank 517 with the load
# balance injected.  And once more with 8 threads a rank (gen-job --code
# --threads 8: each rank's profile split by thread, thread 0 computing or
# waiting in MPI, the others partly in the outlined body and partly at
# libgomp's barriers, sync): the report and the Ranks view of a hybrid
# MPI + OpenMP job of 1,024 x 8 threads.
# Bars: the report <= 2 s, RSS <= 1 GB, redraw p99 <= 16 ms (DESIGN.md's
# frame budget).
# Then the report's growth with ranks: gen-job --code at 1,024, 4,096,
# 16,384 and 65,536 ranks (BENCH_JOB_RANKS to choose), each report's time,
# peak RSS, its time over the one 4x smaller, and whether it names the slow
# rank.  The rank files are given as their folder (a command line holds
# about 50,000 of their paths: ARG_MAX); a job of more ranks than mcview
# maps at once (vm.max_map_count, less the 1,024 it keeps for its own:
# 65,536 here) is merged first (mcz merge DIR -o job.mcz, its time and
# peak RSS printed) and its report is the job file's.  A row runs where
# MemAvailable holds about 100 KB a rank and 512 MB more (the 16,384-rank
# report takes about 1.4 GB, the 65,536-rank one 5.3 GB), and is said
# left out otherwise.  Bars at 16,384: <= 4 s, <= 2 GB, <= 5x the
# 4,096-rank report.
# BENCH_QUICK=1: 256 ranks, and the growth at 256 and 1,024, the 1,024 row
# through mcz merge (BENCH_JOB_MERGE=N: rows of N ranks or more merged).
set -u
B=${MCZ_BUILD:-build}
T=$(mktemp -d /tmp/mcz-bench-job.XXXXXX)
trap 'rm -rf "$T"' EXIT
command -v python3 >/dev/null || { echo "python3 missing"; exit 1; }
ranks=1024
[ -n "${BENCH_QUICK:-}" ] && ranks=256
slow=$((ranks / 2 + 5)) # 517 of 1,024
"$B"/tests/tools/gen-job -d "$T/job" --ranks $ranks --phases 6 --phase-s 10 --slow $slow:3:1.3 ||
	{ echo "gen-job failed"; exit 1; }
"$B"/tests/tools/gen-job -d "$T/jobc" --ranks $ranks --phases 6 --phase-s 10 --slow $slow:3:1.3 --code ||
	{ echo "gen-job --code failed"; exit 1; }
"$B"/tests/tools/gen-job -d "$T/jobt" --ranks $ranks --phases 6 --phase-s 10 --slow $slow:3:1.3 --code --threads 8 ||
	{ echo "gen-job --threads failed"; exit 1; }
"$B"/tests/tools/gen-recording -o "$T/one.mcz" --streams $((ranks * 4)) --rows 630 --phases >/dev/null ||
	{ echo "gen-recording failed"; exit 1; }
/usr/bin/time -f "%e %M" -o "$T/merge.time" "$B"/mcz merge -q "$T/job" -o "$T/job.mcz" ||
	{ echo "mcz merge failed"; exit 1; }
read -r merge_s merge_kb <"$T/merge.time"
echo "$ranks rank files: $(du -sh "$T/job" | cut -f1); merged into one job file: $(du -h "$T/job.mcz" | cut -f1) in ${merge_s} s (peak RSS $((merge_kb / 1024)) MB); one file of the same values: $(du -sh "$T/one.mcz" | cut -f1)"

# the report, 3 runs: median wall time, peak RSS
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$T/time.$i" "$B"/mcview --report=json "$T/job" >"$T/r.json" ||
		{ echo "report failed"; exit 1; }
done
read -r rep_s rep_kb <<<"$(sort -n "$T"/time.* | sed -n 2p)"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$T/jtime.$i" "$B"/mcview --report=json "$T/job.mcz" >"$T/rj.json" ||
		{ echo "report on the job file failed"; exit 1; }
done
read -r jrep_s jrep_kb <<<"$(sort -n "$T"/jtime.* | sed -n 2p)"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$T/ctime.$i" "$B"/mcview --report=json "$T/jobc" >"$T/rc.json" ||
		{ echo "report on the job with code profiles failed"; exit 1; }
done
read -r crep_s crep_kb <<<"$(sort -n "$T"/ctime.* | sed -n 2p)"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$T/ttime.$i" "$B"/mcview --report=json "$T/jobt" >"$T/rt.json" ||
		{ echo "report on the job of 8 threads a rank failed"; exit 1; }
done
read -r trep_s trep_kb <<<"$(sort -n "$T"/ttime.* | sed -n 2p)"
cmp -s "$T/r.json" "$T/rj.json" && same="the same JSON as the rank files'" || same="JSON DIFFERS from the rank files'"
verdict=$(python3 - "$T/r.json" $ranks $slow <<'EOF'
import json, sys
n, slow = int(sys.argv[2]), int(sys.argv[3])
p = json.load(open(sys.argv[1]))["jobs"][0]["phases"][2]
want = 1.3 / ((n - 1 + 1.3) / n)
ok = p["slowest_rank"] == slow and abs(p["imbalance"] / want - 1) < 0.05
print("phase3: slowest r%d, imbalance %.4f (injected %.4f): %s" % (p["slowest_rank"], p["imbalance"], want, "ok" if ok else "WRONG"))
EOF
)
echo "$verdict"
python3 - "$T/rc.json" $ranks $slow <<'EOF'
import json, sys
n, slow = int(sys.argv[2]), int(sys.argv[3])
j = json.load(open(sys.argv[1]))["jobs"][0]
p = j["phases"][2]
want = (n - 1 + 1.3) / (n * 1.3)
ok = p["slowest_rank"] == slow and abs(p["load_balance"] - want) < 0.02 and j["useful_from"] == "code samples"
print("with code profiles (ranks poll while they wait): phase3 slowest r%d, load balance %.4f (injected %.4f), useful time from %s: %s"
      % (p["slowest_rank"], p["load_balance"], want, j["useful_from"], "ok" if ok else "WRONG"))
EOF
python3 - "$T/rt.json" $ranks $slow <<'EOF'
import json, sys
n, slow = int(sys.argv[2]), int(sys.argv[3])
j = json.load(open(sys.argv[1]))["jobs"][0]
p = j["phases"][2]
want = (n - 1 + 1.3) / (n * 1.3)
thr = sorted(set(r["threads"] for r in p["per_rank"]))
ok = p["slowest_rank"] == slow and abs(p["load_balance"] - want) < 0.02 and thr == [8]
print("8 threads a rank: phase3 slowest r%d, load balance %.4f (injected %.4f), threads %s: %s"
      % (p["slowest_rank"], p["load_balance"], want, thr, "ok" if ok else "WRONG"))
EOF
echo
printf '%-28s %9s %9s %9s %9s %9s %9s %8s\n' what open_ms first_ms p50_ms p99_ms max_ms settle99 rss_MB
row() {
	local what=$1
	shift
	read -r open first _ _ p50 _ p99 max _ s99 _ _ rss _ <<<"$("$B"/bench/bench-view "$@")"
	printf '%-28s %9s %9s %9s %9s %9s %9s %8s\n' "$what" "$open" "$first" "$p50" "$p99" "$max" "$s99" "$rss"
}
row "job: Ranks view" --view ranks --size 200x60 "$T/job"
row "job: timeline (folded)" --view timeline --size 200x60 "$T/job"
row "job+code: Ranks view" --view ranks --size 200x60 "$T/jobc"
row "job+code: timeline" --view timeline --size 200x60 "$T/jobc"
row "job x8 threads: Ranks view" --view ranks --size 200x60 "$T/jobt"
row "job file: Ranks view" --view ranks --size 200x60 "$T/job.mcz"
row "job file: timeline (folded)" --view timeline --size 200x60 "$T/job.mcz"
row "one file: timeline" --view timeline --size 200x60 "$T/one.mcz"
printf '%-28s %9s\n' "job: --report=json (median)" "$(awk -v s="$rep_s" 'BEGIN { printf "%.0f", s * 1000 }')"
printf '%-28s %9s\n' "job+code: --report=json" "$(awk -v s="$crep_s" 'BEGIN { printf "%.0f", s * 1000 }')"
printf '%-28s %9s\n' "job x8 threads: --report" "$(awk -v s="$trep_s" 'BEGIN { printf "%.0f", s * 1000 }')"
printf '%-28s %9s   %s\n' "job file: --report=json" "$(awk -v s="$jrep_s" 'BEGIN { printf "%.0f", s * 1000 }')" "$same"
echo "report peak RSS $((rep_kb / 1024)) MB (job file: $((jrep_kb / 1024)) MB, with code profiles: $((crep_kb / 1024)) MB, 8 threads a rank: $((trep_kb / 1024)) MB); bars: open <= 2000 ms, RSS <= 1024 MB, redraw p99 <= 16 ms"

# the report's growth with ranks
echo
maps=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
merge_from=${BENCH_JOB_MERGE:-$([ -n "${BENCH_QUICK:-}" ] && echo 1024 || echo $((maps > 1024 ? maps - 1024 + 1 : 1 << 30)))}
printf '%-8s %-9s %9s %8s %10s %8s %8s  %s\n' ranks opened merge_ms merge_MB report_ms rss_MB growth "slow rank (phase 3)"
prev=
for n in ${BENCH_JOB_RANKS:-$([ -n "${BENCH_QUICK:-}" ] && echo 256 1024 || echo 1024 4096 16384 65536)}; do
	avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
	need_kb=$((n * 100 + 512 * 1024))
	if [ "${avail_kb:-0}" -lt $need_kb ]; then
		printf '%-8s left out: MemAvailable %d MB, the report needs about %d MB\n' "$n" $((avail_kb / 1024)) $((need_kb / 1024))
		prev=
		continue
	fi
	d=$T/grow.$n
	sl=$((n / 2 + 5))
	"$B"/tests/tools/gen-job -d "$d" --ranks $n --phases 6 --phase-s 10 --slow $sl:3:1.3 --code >/dev/null ||
		{ echo "gen-job --ranks $n failed"; break; }
	what=$d opened=folder merge_ms=- merge_mb=-
	if [ "$n" -ge "$merge_from" ]; then
		/usr/bin/time -f "%e %M" -o "$T/grow.mtime" "$B"/mcz merge -q "$d" -o "$T/grow.mcz" ||
			{ echo "mcz merge of $n ranks failed"; break; }
		read -r ms mkb <"$T/grow.mtime"
		merge_ms=$(awk -v s="$ms" 'BEGIN { printf "%.0f", s * 1000 }')
		merge_mb=$((mkb / 1024))
		rm -rf "$d"
		what=$T/grow.mcz opened="job file"
	fi
	/usr/bin/time -f "%e %M" -o "$T/grow.time" "$B"/mcview --report=json "$what" >"$T/grow.json" ||
		{ echo "report of $n ranks failed"; break; }
	read -r gs gkb <"$T/grow.time"
	named=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["jobs"][0]["phases"][2]; print("r%d %s" % (p["slowest_rank"], "ok" if p["slowest_rank"] == int(sys.argv[2]) else "WRONG"))' "$T/grow.json" $sl)
	growth=-
	[ -n "$prev" ] && growth=$(awk -v a="$gs" -v b="$prev" 'BEGIN { printf "%.1fx", a / b }')
	printf '%-8s %-9s %9s %8s %10s %8s %8s  %s\n' "$n" "$opened" "$merge_ms" "$merge_mb" \
		"$(awk -v s="$gs" 'BEGIN { printf "%.0f", s * 1000 }')" $((gkb / 1024)) "$growth" "$named"
	prev=$gs
	rm -rf "$d" "$T/grow.mcz"
done
echo "bars at 16,384 ranks: report <= 4000 ms, RSS <= 2048 MB, growth over 4,096 <= 5x"
