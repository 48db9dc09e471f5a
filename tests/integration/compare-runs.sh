#!/usr/bin/env bash
# compare-runs.sh: `mcview --compare A B` on runs recorded by the real mcrec.
#   - the phased sample twice, its 4th phase (the second gemm) given 30 %
#     more work (--work 4:1.3): that phase +30 % +-5, every other within
#     +-5 %, ranked first, regressed; --fail-above 10 exits 1 naming it;
#     two runs with the same arguments exit 0; a run against itself reports
#     no change; the text report;
#   - an unseen pair (no marks: busy and idle phases found by detection at
#     10 ms, the third one given 30 % more) judged the same way;
#   - repeated runs (A1,A2 B1,B2): the runs counted, the slow phase beyond
#     noise;
#   - PCP archives compared (pcp-testsuite), across machines: the host,
#     kernel and recorder differences stated;
#   - bad input: different sampling intervals (said at the top, compared),
#     two unrelated programs (nothing matched: one line, exit 2), an empty
#     file and a truncated one, a wrong number of arguments.
# The phases last a given time (NAME:SECONDS; --work scales it): the
# machine the tests share has two cores and other jobs, and a fixed amount
# of work there takes from 0.5 to 0.8 s from one run to the next, which is
# the machine's noise, not the comparison's.  Marked phases are the regions
# between their marks, exact; detected ones are placed within an interval.
set -u
B=${MCZ_BIN:-build}
T=$(mktemp -d /tmp/mcz-compare.XXXXXX)
trap 'rm -rf "$T"' EXIT
# on failure the recordings are kept in $B/test-logs/compare-runs/ to look at
fail() {
	echo "FAIL: $*"
	mkdir -p "$B/test-logs/compare-runs" && cp "$T"/*.mcz "$B/test-logs/compare-runs/" 2>/dev/null
	exit 1
}
ok() { echo "ok: $*"; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
MCREC=$B/mcrec
MCVIEW=$B/mcview
PHASED=$B/samples/phased
# a second a phase (marks are exact), but chase's 2: it sets its cycle up
# inside its region, 20-50 ms that differ from run to run (more under SAN),
# which at 1 s made it +2.3 %, beyond the 2 % noise floor
P='triad:1,gemm:1,triad:1,gemm:1,idle:1,chase:2'

# As root, under nice -10: a step preempted for 100 ms by another job of
# the shared machine would be a slowdown of its own (SCHED_FIFO would not
# do: the kernel throttles a FIFO task spinning over 0.95 s a second).
NICE=()
nice -n -10 true 2>/dev/null && NICE=(nice -n -10)
rec() { # out, mcrec options..., --, phased options...
	local out=$1; shift
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	"${NICE[@]}" "$MCREC" -q "${o[@]}" -o "$T/$out" -- "$PHASED" -q --mem 4 "$@" >/dev/null ||
		fail "mcrec $out"
}

# Marked recordings whose phases last a set time (NAME:SECONDS) two at a
# time, one per core: their phases' lengths do not depend on the CPU's
# speed, nor their boundaries on what the host does; those of a fixed
# amount of work (the c,s,c runs below) and those whose phases are
# detected are made one at a time.
pids=()
rec_bg() { rec "$@" & pids+=($!); }
rec_wait() {
	local p
	for p in "${pids[@]}"; do wait "$p" || fail "a recording failed (see above)"; done
	pids=()
}

# check JSON PY-EXPR...: each Python expression, over r (the report), true
check() {
	local j=$1; shift
	python3 - "$j" "$@" <<'EOF' || fail "check on $(basename "$j")"
import json, sys
r = json.load(open(sys.argv[1]))
m = {x["label"]: x for x in r["matched"]}
for e in sys.argv[2:]:
    if not eval(e):
        print("false:", e)
        for x in r["matched"]:
            print("  %-16s %8.3f %8.3f %+6.1f%%" % (x["label"], x["duration_a_s"], x["duration_b_s"], x["delta_pct"]))
        sys.exit(1)
EOF
}

# ---- marked: the phased sample, phase 4 given 30 % more ----------------------
rec_bg a.mcz -- --phases "$P"
rec_bg b.mcz -- --phases "$P" --work 4:1.3
rec_wait
rec_bg c.mcz -- --phases "$P"
rec_bg b2.mcz -- --phases "$P" --work 4:1.3
rec_wait
"$MCVIEW" --compare "$T/a.mcz" "$T/b.mcz" --report >"$T/ab.txt" 2>"$T/err" || fail "report: $(cat "$T/err")"
cat "$T/ab.txt"
"$MCVIEW" --compare "$T/a.mcz" "$T/b.mcz" --report=json >"$T/ab.json" || fail "report=json"
check "$T/ab.json" 'r["phases"] == "marks"' 'len(r["unmatched_a"]) == 0 and len(r["unmatched_b"]) == 0' \
	'sorted(m) == sorted(["triad#1", "gemm#1", "triad#2", "gemm#2", "idle", "chase"])' \
	'25 <= m["gemm#2"]["delta_pct"] <= 35' 'm["gemm#2"]["regressed"] and m["gemm#2"]["rank"] == 1' \
	'all(abs(x["delta_pct"]) <= 5 for l, x in m.items() if l != "gemm#2")' \
	'all(not x["regressed"] for l, x in m.items() if l != "gemm#2")' \
	'abs(m["gemm#2"]["a_start_s"] - m["triad#2"]["a_start_s"] - m["triad#2"]["duration_a_s"]) < 1e-3'
ok "+30 % on gemm#2 found, the others within 5 %"
grep -q '^   1  gemm#2 .* SLOWER$' "$T/ab.txt" || fail "text: gemm#2 not first and SLOWER"
grep -q '^6 phases matched (marks), 0 only in A, 0 only in B' "$T/ab.txt" || fail "text: summary"
"$MCVIEW" --compare "$T/a.mcz" "$T/b.mcz" --fail-above 10 >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "--fail-above 10: exit $rc, want 1"
grep -q '^mcview: 1 phase slower by more than 10 %: gemm#2 (+[23][0-9].[0-9] %)$' "$T/err" ||
	fail "--fail-above names: $(cat "$T/err")"
ok "--fail-above 10: exit 1, $(cat "$T/err")"
"$MCVIEW" --compare "$T/a.mcz" "$T/c.mcz" --fail-above 10 >"$T/ac.txt" 2>"$T/err" ||
	fail "same arguments, --fail-above 10: exit $?: $(cat "$T/err") $(cat "$T/ac.txt")"
ok "same arguments: exit 0"
"$MCVIEW" --compare "$T/a.mcz" "$T/a.mcz" --report=json --fail-above 0 >"$T/aa.json" ||
	fail "a run against itself: exit $?"
check "$T/aa.json" 'len(m) == 6' 'all(x["delta_pct"] == 0 and not x["beyond_noise"] for x in m.values())' \
	'r["differences"] == []'
ok "a run against itself: no change"

# the screen: the Compare view first, gemm#2 on top; the timeline with run B
# under each row, warped: at the end of A's gemm#2 (8.05 s of a window from
# 7.7 s) B's task clock drops where A's does, though B's phase is 0.6 s longer
"$MCVIEW" --compare "$T/a.mcz" "$T/b.mcz" --snapshot 100x14 --ascii >"$T/snap" || fail "snapshot"
sed -n 6p "$T/snap" | grep -q '^   1 gemm#2 .*+[23][0-9]\.[0-9]%.* SLOWER' || fail "compare view: $(cat "$T/snap")"
"$MCVIEW" --compare "$T/a.mcz" "$T/b.mcz" --snapshot 100x12 --ascii --view timeline \
	--filter task_clock --window 7.7,10.2 >"$T/snap" || fail "timeline snapshot"
cat "$T/snap"
python3 - "$T/snap" <<'EOF' || fail "overlay not aligned"
import sys
L = open(sys.argv[1]).read().split("\n")
a = next(i for i, l in enumerate(L) if "core.task_clock" in l)
b = next(i for i, l in enumerate(L) if "`- B" in l)
x0 = L[a].index("|")
# the last busy column of A (any line of its row) and of B (top line)
lastA = max(max((i for i, ch in enumerate(L[k][:x0 + 40]) if ch == "|"), default=0) for k in range(a, b))
lastB = max((i for i, ch in enumerate(L[b][:x0 + 40]) if ch in "|'-"), default=0)
print("A busy to column", lastA, "B busy to column", lastB)
# a column is 33 ms, a sample 100 ms (3 columns); without the warp B's
# phase would end 0.6 s (18 columns) later
sys.exit(0 if abs(lastA - lastB) <= 5 else 1)
EOF
ok "the screen: Compare view, timeline with B overlaid"

# ---- repeated runs ---------------------------------------------------------------
"$MCVIEW" --compare "$T/a.mcz,$T/c.mcz" "$T/b.mcz,$T/b2.mcz" --report=json --fail-above 10 \
	>"$T/rep.json" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "repeated runs, --fail-above 10: exit $rc"
grep -q 'beyond noise: gemm#2' "$T/err" || fail "repeated: $(cat "$T/err")"
check "$T/rep.json" 'r["runs_a"] == 2 and r["runs_b"] == 2' 'm["gemm#2"]["runs_a"] == 2' \
	'25 <= m["gemm#2"]["delta_pct"] <= 35 and m["gemm#2"]["beyond_noise"]' \
	'm["gemm#2"]["sd_a_s"] > 0'
ok "repeated runs: $(cat "$T/err")"

# ---- unseen: no marks, phases detected -------------------------------------------
# 2 s a busy phase: a detected boundary lands within an interval or two on a quiet
# machine, up to 10 (100 ms) when other jobs fight for the cores
U='triad:2,idle:1,gemm:2,idle:1,triad:2,idle:1,gemm:2'
# one at a time: detection sees the host's streams too (os.cpu.busy), where
# a second recording's busy phases would show in this one's idle ones
rec u1.mcz -i 10ms -- --no-marks --phases "$U"
rec u2.mcz -i 10ms -- --no-marks --phases "$U" --work 3:1.3
"$MCVIEW" --compare "$T/u1.mcz" "$T/u2.mcz" --report >"$T/u.txt" 2>"$T/err" || fail "unmarked: $(cat "$T/err")"
cat "$T/u.txt"
"$MCVIEW" --compare "$T/u1.mcz" "$T/u2.mcz" --report=json >"$T/u.json" || fail "unmarked json"
# the third (gemm) phase starts after setup + 2 s of triad + 1 s idle
check "$T/u.json" 'r["phases"] == "detected"' 'len(m) >= 7' \
	'[l for l, x in m.items() if abs(x["delta_pct"]) > 5] == [r["matched"][2]["label"]]' \
	'25 <= r["matched"][2]["delta_pct"] <= 35 and r["matched"][2]["regressed"]' \
	'2.8 <= r["matched"][2]["a_start_s"] <= 3.7 and r["matched"][2]["rank"] == 1'
"$MCVIEW" --compare "$T/u1.mcz" "$T/u2.mcz" --fail-above 10 >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "unmarked --fail-above 10: exit $rc"
grep -q "slower by more than 10 %: #3 " "$T/err" || fail "unmarked names: $(cat "$T/err")"
ok "unmarked pair: $(cat "$T/err")"
# compute, stream, compute, no marks, no idle between them: on a machine
# without a PMU the three look alike to the counters (one CPU busy) and
# only the code samples tell them apart; a fixed amount of work, the
# stream given 1.5x, 2 runs a side: 3 phases matched by their code, the
# stream ranked first, 1.5x slower (below: as it is, or against the
# compute phases), named by --fail-above 20.
# This VM runs the same work up to a third faster or slower from one run
# to the next (gemm*2500 took 1.29 to 2.25 s in six runs).  The
# triad's arrays fit in cache (--mem 4): out of it, the host's memory
# traffic, which varies more here still, would decide its length.  Each
# phase near a second at 10 ms: a detected boundary is placed within an
# interval or two, a few percent of the phase (a 0.3 s triad sampled at
# 20 ms was off by 13 %, and the ratio with it).
W='gemm*2000,triad*6000,gemm*2000'
for v in 1 2; do
	work=; [ $v = 2 ] && work='--work 2:1.5'
	for k in 1 2; do
		"${NICE[@]}" "$MCREC" -q -i 10ms -o "$T/w$v.$k.mcz" -- "$PHASED" --mem 4 --no-marks \
			--phases "$W" $work >"$T/w$v.$k.out" || fail "mcrec w$v.$k"
	done
done
WA="$T/w1.1.mcz,$T/w1.2.mcz" WB="$T/w2.1.mcz,$T/w2.2.mcz"
"$MCVIEW" --compare "$WA" "$WB" --report >"$T/w.txt" 2>"$T/err" || fail "c,s,c: $(cat "$T/err")"
cat "$T/w.txt"
"$MCVIEW" --compare "$WA" "$WB" --report=json >"$T/w.json" || fail "c,s,c json"
# Each phase's length against the sample's own timers (its table: phase,
# kernel, start_s, end_s), the mean over a side's two runs as mcz gives
# it: within 3 intervals and 4 % (a detected boundary lies within an
# interval or two of the change); the stream's delta within 8 points of
# the timers' (this VM runs the same work up to a third faster or slower
# from one run to the next, so the +50 % of work is +35 to +70 % of time:
# what is checked is that mcz measures what happened).  An ASan+UBSan
# build of the sample runs 3 to 4 times slower and its steps vary more:
# 6 intervals and 8 %, 15 points there.
tol_s=0.03 tol_r=0.04 tol_d=8
[[ $B == *-san ]] && tol_s=0.06 tol_r=0.08 tol_d=15
check "$T/w.json" 'r["phases"] == "detected" and len(r["matched"]) == 3' \
	'"hottest code" in r["matched_by"]' \
	'"gemm" in r["matched"][0]["label"] and "triad" in r["matched"][1]["label"] and "gemm" in r["matched"][2]["label"]'
python3 - "$T/w.json" "$T" $tol_s $tol_r $tol_d <<'EOF' || fail "c,s,c: mcz's phases against the sample's timers"
import json, sys
r = json.load(open(sys.argv[1]))
T, tol_s, tol_r, tol_d = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
def timers(v):
    """Per phase, the mean of the side's two runs' own durations."""
    runs = []
    for k in (1, 2):
        d = [float(l.split()[3]) - float(l.split()[2]) for l in open("%s/w%d.%d.out" % (T, v, k))
             if l.split() and l.split()[0].isdigit()]
        assert len(d) == 3, "w%d.%d.out: %d phases in the sample's table" % (v, k, len(d))
        runs.append(d)
    return [sum(x) / 2 for x in zip(*runs)]
ta, tb = timers(1), timers(2)
bad = 0
for i, x in enumerate(r["matched"]):
    for side, got, want in (("A", x["duration_a_s"], ta[i]), ("B", x["duration_b_s"], tb[i])):
        ok = abs(got - want) <= tol_s + tol_r * want
        bad += not ok
        print("%s: %s %s %.3f s, the sample's timers %.3f s" % ("ok" if ok else "FAIL", x["label"], side, got, want))
d = 100 * (tb[1] / ta[1] - 1)
ok = abs(r["matched"][1]["delta_pct"] - d) <= tol_d
bad += not ok
print("%s: the stream %+.1f %%, the sample's timers %+.1f %%" % ("ok" if ok else "FAIL", r["matched"][1]["delta_pct"], d))
# ranked first (most seconds lost) where the timers say it lost 0.2 s more
# than either compute phase: this VM once ran B's two runs so much faster
# that the stream, given 1.5x the work, took 2.7 % less (its gemm 15 % less)
ds = [b - a for a, b in zip(ta, tb)]
if ds[1] > 0 and ds[1] >= max(ds[0], ds[2]) + 0.2:
    ok = r["matched"][1]["rank"] == 1
    bad += not ok
    print("%s: the stream ranked %d, the timers' deltas %+.3f %+.3f %+.3f s" % ("ok" if ok else "FAIL", r["matched"][1]["rank"], *ds))
else:
    print("note: the timers' deltas %+.3f %+.3f %+.3f s: the stream not the one that lost most, its rank not checked" % tuple(ds))
sys.exit(1 if bad else 0)
EOF
# --fail-above 20 names the stream where it took more than 25 % longer
# (the figures above hold it to the timers) and each side's two runs agree
# on it (its noise under 20 %); where not, that is said, and mcz rightly
# calls a slowdown within its runs' noise "same".
deltas=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["matched"]
print(" ".join("%+.1f%%" % x["delta_pct"] for x in m))' "$T/w.json")
steady=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["matched"]
print(int(m[1]["delta_pct"] > 25 and (m[1]["noise_pct"] or 0) < 20))' "$T/w.json")
"$MCVIEW" --compare "$WA" "$WB" --fail-above 20 >/dev/null 2>"$T/err"
rc=$?
if [ "$steady" = 1 ]; then
	[ $rc -eq 1 ] && grep -q "slower by more than 20 %[^:]*: .*#2 .*triad" "$T/err" ||
		fail "c,s,c --fail-above 20: exit $rc: $(cat "$T/err")"
else
	echo "note: the stream took under 25 % longer, or a side's runs disagree on it (compute, stream, compute: $deltas): --fail-above 20 not checked"
fi
ok "compute, stream, compute without marks: $(cat "$T/err")"

# ---- bad input ------------------------------------------------------------------
# the same phases (by their marks) at another interval: only the interval
# difference is checked here
rec_bg i50.mcz -i 50ms -- --phases "$P"
# unrelated: marks of other names (made beside i50: both are marked)
"$MCREC" -q -o "$T/other.mcz" -- sh -c "'$B/mcmark' -b load; sleep 1; '$B/mcmark' -e; '$B/mcmark' -b store; sleep 1; '$B/mcmark' -e" &
pids+=($!)
rec_wait
"$MCVIEW" --compare "$T/a.mcz" "$T/i50.mcz" --report --fail-above 10 >"$T/iv.txt" 2>"$T/err" ||
	fail "different intervals: exit $?: $(cat "$T/err")"
sed -n 3p "$T/iv.txt" | grep -q '^differs: interval: 100ms | 50ms$' || fail "interval not stated: $(head -4 "$T/iv.txt")"
grep -Eq '^[67] phases matched \(marks\)' "$T/iv.txt" || fail "different intervals not compared"
ok "different intervals: stated, compared"

# unrelated: marks of other names; busy only against idle only
"$MCVIEW" --compare "$T/a.mcz" "$T/other.mcz" --report >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "unrelated (marks): exit $rc"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^mcview: nothing matched: ' "$T/err" || fail "unrelated: $(cat "$T/err")"
[ -s "$T/out" ] && fail "unrelated: a report printed"
ok "unrelated marks: $(cat "$T/err")"
rec busy.mcz -- --no-marks --phases gemm:2
"$MCREC" -q -o "$T/idle.mcz" -- sleep 2 || fail "mcrec sleep"
"$MCVIEW" --compare "$T/busy.mcz" "$T/idle.mcz" --report >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q '^mcview: nothing matched: ' "$T/err" || fail "busy vs idle: exit $rc: $(cat "$T/err")"
ok "unrelated programs: $(cat "$T/err")"

: >"$T/empty.mcz"
"$MCVIEW" --compare "$T/a.mcz" "$T/empty.mcz" --report >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'empty.mcz' "$T/err" || fail "empty: exit $rc: $(cat "$T/err")"
ok "empty side: $(cat "$T/err")"
size=$(stat -c %s "$T/b.mcz")
head -c $((size * 2 / 3)) "$T/b.mcz" >"$T/cut.mcz"
"$MCVIEW" --compare "$T/a.mcz" "$T/cut.mcz" --report >"$T/cut.txt" 2>"$T/err"
rc=$?
cat "$T/cut.txt"
[ $rc -eq 0 ] || fail "truncated: exit $rc: $(cat "$T/err")"
grep -q '^warning: cut.mcz: cut short (recovered up to [0-9.]* s)$' "$T/cut.txt" || fail "truncated: no warning"
grep -q ' phases matched (marks), 0 only in A' "$T/cut.txt" && fail "truncated: nothing missing?"
ok "truncated side: compared, said at the top"
"$MCVIEW" --compare "$T/a.mcz" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q '^mcview: --compare wants two runs' "$T/err" || fail "one argument: exit $rc"
"$MCVIEW" --fail-above 10 "$T/a.mcz" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'goes with --compare' "$T/err" || fail "--fail-above alone"
"$MCVIEW" --compare --fail-above x "$T/a.mcz" "$T/b.mcz" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'wants a percentage' "$T/err" || fail "--fail-above x"
ok "bad arguments: one line, exit 2"
# PCP archives (pcp-testsuite): two archives of other runs compare, their
# intervals stated; one against itself unchanged
PA=/var/lib/pcp/testsuite/archives
if [ -f "$PA/20180415.09.16.meta" ] && [ -f "$PA/20180127.08.40.meta" ]; then
	"$MCVIEW" -q --compare "$PA/20180415.09.16" "$PA/20180127.08.40" --report >"$T/pcp.txt" 2>"$T/err" ||
		fail "PCP archives: exit $?: $(cat "$T/err")"
	cat "$T/pcp.txt"
	grep -q '^differs: interval: ' "$T/pcp.txt" || fail "PCP: interval difference not stated"
	grep -Eq ' phases? matched \(detected' "$T/pcp.txt" || fail "PCP: not compared"
	"$MCVIEW" -q --compare "$PA/20180415.09.16" "$PA/20180415.09.16" --report=json --fail-above 0 \
		>"$T/pcp.json" || fail "PCP archive against itself: exit $?"
	check "$T/pcp.json" 'len(m) >= 1' 'all(x["delta_pct"] == 0 for x in m.values())'
	ok "PCP archives"
	# across machines: archives of two hosts; a recording of this machine
	# against another host's archive (kernel and recorder differ too)
	"$MCVIEW" -q --compare "$PA/pcp-uptime" "$PA/moomba.client" --report >"$T/hosts.txt" 2>"$T/err" ||
		fail "two hosts' archives: exit $?: $(cat "$T/err")"
	grep -q '^differs: host: smash | moomba$' "$T/hosts.txt" || fail "host not stated: $(head -5 "$T/hosts.txt")"
	"$MCVIEW" -q --compare "$T/a.mcz" "$PA/moomba.client" --report >"$T/mach.txt" 2>"$T/err" ||
		fail "recording vs archive: exit $?: $(cat "$T/err")"
	grep -q "^differs: host: $(hostname | cut -d. -f1) | moomba\$" "$T/mach.txt" &&
		grep -q "^differs: kernel: $(uname -s) $(uname -r) $(uname -m) | ?\$" "$T/mach.txt" &&
		grep -q '^differs: recorder: mcrec .* | pmlogger' "$T/mach.txt" ||
		fail "machine differences not stated: $(head -7 "$T/mach.txt")"
	ok "across machines: host, kernel, recorder stated"
else
	echo "pcp-testsuite archives not installed: PCP part not run"
fi
echo "PASS"
