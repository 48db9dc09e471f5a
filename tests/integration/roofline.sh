#!/usr/bin/env bash
# roofline.sh: the roofline end to end on real workloads under mcrec.
#   - before calibration a recording has no ceilings: mcz info and the
#     report say "no ceilings: run mcrec --calibrate", figures are null;
#   - mcrec --calibrate takes at most 30 s, prints its table and caches
#     the ceilings per host in $XDG_CACHE_HOME; later recordings carry them
#     (roof.* metadata, shown by mcz info with the method); with a fixture
#     sysfs of two NUMA nodes, each domain is measured;
#   - the phased sample (marks as phases): triad at 1/12 flop/byte +-3 %,
#     gemm at its analytic N/16 = 6 flop/byte +-3 %, every phase's GFLOP/s
#     within 5 % of what the sample printed; detected phases that lie
#     within one marked phase (give or take a sampling interval and a
#     half) have the same intensity +-3 %;
#   - an unseen workload (tests/tools/roof-unseen.c): its streaming phase
#     at 0.25 flop/byte +-3 % and memory-bound, its cache phase at 3 +-3 %;
#   - PCP archives (written with libpcp_import from tests/tools/gen-roof,
#     perfevent metric names as documented, no PMU needed): the roofline
#     from FP_ARITH_INST_RETIRED.* and CAS events; without FP events the
#     view says what is missing;
#   - a damaged cache: one line from mcrec, the recording goes on without
#     ceilings; a bad counter name (-e mark:NAME) is one line and exit 2;
#     bad mcmark_count and mcmark_work calls and counts for an undeclared
#     name are dropped, each kind said in one line at the end;
#   - mcmark_work's flops and bytes land in the same sample, also when the
#     application is descheduled all the time (two busy loops on the CPUs,
#     10-ms samples): every sample of triad holds 12 bytes per flop.
set -u
B=${MCZ_BIN:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/mcz-roofline.XXXXXX)
busy=()
trap 'kill "${busy[@]}" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
export XDG_CACHE_HOME=$T/cache

# ---- before calibration ------------------------------------------------------
"$B"/mcrec -q -o "$T/before.mcz" -- "$B"/samples/phased --phases triad:0.6,gemm:0.6 >/dev/null ||
	fail "recording before calibration"
"$B"/mcz info "$T/before.mcz" | grep -q '^ceilings   none (no ceilings: run mcrec --calibrate' ||
	fail "mcz info without ceilings: $("$B"/mcz info "$T/before.mcz" | grep ceilings)"
"$B"/mcview --report --phases marks "$T/before.mcz" >"$T/before.txt" || fail "--report before"
grep -q '^# roofline: no ceilings: run mcrec --calibrate' "$T/before.txt" || fail "report: $(cat "$T/before.txt")"
"$B"/mcview --report=json --phases marks "$T/before.mcz" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["roofline"]["bw_Bps"] is None, d["roofline"]
for p in d["phases"]:
    assert p["attainable_gflops"] is None and p["bound"] is None, p
    if p["mark"] == "triad":
        assert abs(p["intensity_fpb"] / (1 / 12) - 1) < 0.03, p
' || fail "JSON before calibration"

# ---- PCP archives with (and without) perfevent FP and memory metrics ----------------
"$B"/tests/tools/gen-roof "$T/hw.mcz" hw && "$B"/tests/tools/gen-pcp-from-mcz "$T/hw.mcz" "$T/hwarch" ||
	fail "writing the perfevent archive"
"$B"/mcview -q --report=json "$T/hwarch" >"$T/pcp.json" || fail "--report on the PCP archive"
python3 - "$T/pcp.json" <<'PY' || fail "PCP archive roofline"
import json, sys
d = json.load(open(sys.argv[1]))
ph = sorted(d["phases"], key=lambda p: p["start_s"])
assert len(ph) == 2, ph
want = [((4 * 1e8 + 1e8) / (64 * (5e7 + 1.5625e7)), 0.5), (4 * 5e9 / (64 * 1e7), 20.0)]
for p, (fpb, gf) in zip(ph, want):
    print(p["class"], p["intensity_fpb"], p["gflops"], p["flops_source"], p["bytes_source"])
    assert abs(p["intensity_fpb"] / fpb - 1) < 0.03 and abs(p["gflops"] / gf - 1) < 0.05, p
    assert p["flops_source"] == "hardware FP events", p
    assert p["bytes_source"] == "memory-controller events (perfevent)", p
PY
"$B"/tests/tools/gen-roof "$T/nofp.mcz" hw nofp && "$B"/tests/tools/gen-pcp-from-mcz "$T/nofp.mcz" "$T/nofparch" ||
	fail "writing the archive without FP events"
"$B"/mcview -q --snapshot 80x24 --view roofline "$T/nofparch" >"$T/nofp.txt" || fail "snapshot of the archive without FP"
grep -q 'no roofline points:' "$T/nofp.txt" && grep -q 'no FP operation counts (FP events or app.flops)' "$T/nofp.txt" ||
	fail "the view does not say what is missing: $(cat "$T/nofp.txt")"

# ---- calibration ----------------------------------------------------------------
t0=$(date +%s.%N)
"$B"/mcrec --calibrate >"$T/cal.txt" 2>&1 || fail "mcrec --calibrate: $(cat "$T/cal.txt")"
took=$(echo "$(date +%s.%N) - $t0" | bc)
cat "$T/cal.txt"
echo "calibration took $took s"
[ "$(echo "$took <= 30" | bc)" = 1 ] || fail "calibration took $took s (more than 30)"
grep -q 'triad, all' "$T/cal.txt" && grep -q 'FMA, 1 core' "$T/cal.txt" || fail "calibration table"
cache=$(ls "$XDG_CACHE_HOME"/mcz/ceilings-* 2>/dev/null | head -1)
[ -f "$cache" ] || fail "no cache file in $XDG_CACHE_HOME/mcz"
case $(basename "$cache") in
ceilings-*-[0-9]*cpu-[0-9]*GiB) ;;
*) fail "cache name $(basename "$cache") is not keyed by CPU model, CPUs and memory" ;;
esac
head -1 "$cache" | grep -qx '# mcz ceilings 1' || fail "cache header"

# per NUMA domain: this machine has one, so a fixture sysfs (MCREC_SYSFS)
# says CPU 0 is node 0 and CPU 1 node 1: each domain measured on its CPUs
if [ "$(nproc)" -ge 2 ]; then
	MCREC_SYSFS=$ROOT/tests/data/rec-sysfs XDG_CACHE_HOME=$T/cache-numa "$B"/mcrec --calibrate >"$T/numa.txt" 2>&1 ||
		fail "calibration with two NUMA domains: $(cat "$T/numa.txt")"
	grep -q ', 2 NUMA domains,' "$T/numa.txt" || fail "not 2 NUMA domains: $(head -1 "$T/numa.txt")"
	grep -q '^roof.bw_numa = numa0 triad [0-9.e+]* read [0-9.e+]*; numa1 triad [0-9.e+]* read [0-9.e+]*$' \
		"$T"/cache-numa/mcz/ceilings-* || fail "per-domain figures: $(grep numa "$T"/cache-numa/mcz/ceilings-*)"
fi

# ---- the phased sample ----------------------------------------------------------------
"$B"/mcrec -q -o "$T/phased.mcz" -- "$B"/samples/phased --scale 2 >"$T/sample.txt" ||
	fail "recording the phased sample"
cat "$T/sample.txt"
"$B"/mcz info "$T/phased.mcz" >"$T/info.txt" || fail "mcz info"
grep -q '^ceilings   memory .* GB/s triad' "$T/info.txt" || fail "mcz info: no memory ceiling"
grep -q '^ceilings   compute .* GFLOP/s .* FMA all CPUs' "$T/info.txt" || fail "mcz info: no compute ceiling"
grep -q '^ceilings   measured by mcrec --calibrate' "$T/info.txt" || fail "mcz info: no method"
grep -q 'app.flops .*mcmark_count:flops' "$T/info.txt" || fail "no app.flops stream"
"$B"/mcview --report --phases marks "$T/phased.mcz" | tee "$T/marks.txt" | cut -c1-120
grep -q '^# roofline: ceilings .* measured by mcrec --calibrate' "$T/marks.txt" || fail "report ceilings line"
"$B"/mcview --report=json --phases marks "$T/phased.mcz" >"$T/marks.json" || fail "--report=json"
"$B"/mcview --report=json "$T/phased.mcz" >"$T/auto.json" || fail "--report=json (auto)"
python3 - "$T/marks.json" "$T/sample.txt" "$T/auto.json" <<'PY' || fail "phased sample figures"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l[:1].isdigit()]
sample = [(r[1], float(r[6])) for r in rows]          # kernel, GFLOP/s
assert d["roofline"]["bw_Bps"] > 0 and d["roofline"]["peak_flops"] > 0, d["roofline"]
phases = [p for p in d["phases"] if p["mark"] in ("triad", "gemm", "idle", "chase")]
assert [p["mark"] for p in phases] == [s[0] for s in sample], (phases, sample)
want = {"triad": 2 / 24, "gemm": 96 / 16}
bad = 0
for p, (k, gf) in zip(phases, sample):
    line = "%-6s intensity %-10.4g gflops %-8.4g sample %-8.4g bound %s" % (
        k, p["intensity_fpb"] or 0, p["gflops"] or 0, gf, p["bound"])
    print(line)
    if k in want:
        if abs(p["intensity_fpb"] / want[k] - 1) > 0.03:
            print("  intensity off by more than 3 %"); bad = 1
        if abs(p["gflops"] / gf - 1) > 0.05:
            print("  GFLOP/s off by more than 5 %"); bad = 1
        if p["bound"] not in ("memory", "compute") or not p["attainable_gflops"] > 0:
            print("  no bound or attainable"); bad = 1
        if p["flops_source"] != "app.flops (mcmark_count)":
            print("  provenance " + str(p["flops_source"])); bad = 1
    elif p["gflops"] not in (0, None) and p["gflops"] > 0.01:
        print("  flops in a phase without any"); bad = 1
triad = [p for p in phases if p["mark"] == "triad"]
if any(p["bound"] != "memory" for p in triad):
    print("triad not memory-bound"); bad = 1
# detected phases wholly inside one marked phase: the same intensity
a = json.load(open(sys.argv[3]))
inside = 0
for p in a["phases"]:
    for m in phases:
        if m["mark"] in want and p["start_s"] >= m["start_s"] - 0.15 and p["end_s"] <= m["end_s"] + 0.15 \
                and p["duration_s"] >= 1.0:
            inside += 1
            if p["intensity_fpb"] is None or abs(p["intensity_fpb"] / want[m["mark"]] - 1) > 0.03:
                print("detected phase %s at %.2f s: intensity %s, not %.4g" % (
                    p["class"], p["start_s"], p["intensity_fpb"], want[m["mark"]])); bad = 1
print("detected phases inside a marked one:", inside)
if inside < 2:
    print("fewer than 2 detected phases lie inside marked ones"); bad = 1
sys.exit(bad)
PY

# ---- flops and bytes of a repetition in the same sample, on a busy machine -------------
# (sent as two counts, 16 % of these samples held one repetition's flops
# without its bytes; mcmark_work sends them as one)
for c in $(seq "$(nproc)"); do
	(while :; do :; done) &
	busy+=($!)
done
"$B"/mcrec -q -i 10ms -o "$T/busy.mcz" -- "$B"/samples/phased --mem 2 --phases triad:1.5 >/dev/null
rc=$?
kill "${busy[@]}"
wait "${busy[@]}" 2>/dev/null
busy=()
[ $rc = 0 ] || fail "recording triad beside two busy loops"
"$B"/mcz dump "$T/busy.mcz" --csv --streams app.flops,app.bytes | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "app.flops") f = i; if ($i == "app.bytes") b = i }; next }
	$f != "" && $b != "" { n++; if ($b != 12 * $f) { bad++; if (!first) first = $0 } }
	END { printf "%d samples, %d with flops and bytes apart %s\n", n, bad, first; exit !(f && b && n >= 100 && !bad) }' ||
	fail "a sample held a repetition's flops without its bytes"

# ---- an unseen workload ---------------------------------------------------------------
"$B"/mcrec -q -o "$T/unseen.mcz" -- "$B"/tests/tools/roof-unseen 3 >"$T/unseen.txt" ||
	fail "recording roof-unseen"
cat "$T/unseen.txt"
"$B"/mcview --report=json --phases marks "$T/unseen.mcz" >"$T/unseen.json" || fail "unseen report"
python3 - "$T/unseen.json" "$T/unseen.txt" <<'PY' || fail "unseen workload figures"
import json, sys
d = json.load(open(sys.argv[1]))
own = {l.split()[1]: (float(l.split()[2]), float(l.split()[3])) for l in open(sys.argv[2]) if l.startswith("phase ")}
bad = 0
for p in d["phases"]:
    if p["mark"] not in own:
        continue
    fpb, gf = own[p["mark"]]
    print("%-6s intensity %.4g (own %.4g)  gflops %.4g (own %.4g)  bound %s" % (
        p["mark"], p["intensity_fpb"], fpb, p["gflops"], gf, p["bound"]))
    if abs(p["intensity_fpb"] / fpb - 1) > 0.03:
        print("  intensity off by more than 3 %"); bad = 1
    if abs(p["gflops"] / gf - 1) > 0.05:
        print("  GFLOP/s off by more than 5 %"); bad = 1
    if p["mark"] == "sumsq" and p["bound"] != "memory":
        print("  the streaming phase is not memory-bound"); bad = 1
sys.exit(bad)
PY

# ---- bad input ----------------------------------------------------------------------
printf '# mcz ceilings 1\nroof.bw_triad_Bps = lots\n' >"$cache"
"$B"/mcrec -q -o "$T/damaged.mcz" -- true 2>"$T/err" || fail "a damaged cache stopped the recording"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'ignoring the ceiling cache .*line 2: roof.bw_triad_Bps = lots is not a plausible bandwidth' "$T/err" ||
	fail "damaged cache message: $(cat "$T/err")"
"$B"/mcz info "$T/damaged.mcz" | grep -q '^ceilings   none' || fail "ceilings from a damaged cache"
head -c 3000 /dev/urandom >"$cache"
"$B"/mcrec -q -o "$T/damaged2.mcz" -- true 2>"$T/err" || fail "a binary cache stopped the recording"
grep -q 'ignoring the ceiling cache' "$T/err" || fail "binary cache: $(cat "$T/err")"
# issue 34, findings 7 and 8: a FIFO in its place is not waited on (one
# note, the recording made); implausible values and duplicate keys refused
rm -f "$cache" && mkfifo "$cache"
timeout 20 "$B"/mcrec -q -o "$T/fifo.mcz" -- true 2>"$T/err"
rc=$?
[ $rc = 124 ] && fail "mcrec blocked on a FIFO in place of the ceiling cache"
[ $rc = 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'ignoring the ceiling cache .*not a regular file' "$T/err" ||
	fail "FIFO ceiling cache: exit $rc: $(cat "$T/err")"
rm -f "$cache"
printf '# mcz ceilings 1\nroof.bw_triad_Bps = 1e10\nroof.bw_read_Bps = 1e10\nroof.flops = 1e-300\n' >"$cache"
"$B"/mcrec -q -o "$T/tiny.mcz" -- true 2>"$T/err" || fail "a tiny ceiling stopped the recording"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'roof.flops = 1e-300 is not a plausible rate' "$T/err" ||
	fail "1e-300 ceiling: $(cat "$T/err")"
"$B"/mcz info "$T/tiny.mcz" | grep -q '^ceilings   none' || fail "ceilings from a cache with 1e-300"
rm -f "$cache"
"$B"/mcrec -q -o "$T/bad.mcz" -e 'mark:no/slash' -- true 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "bad counter name: exit $rc"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "bad counter name 'no/slash'" "$T/err" || fail "bad name message: $(cat "$T/err")"
"$B"/mcrec -q -o "$T/named.mcz" -e mark:items -- "$B"/samples/phased --phases idle:0.3 >/dev/null 2>"$T/err" ||
	fail "-e mark:items"
"$B"/mcz info "$T/named.mcz" | grep -q 'app.items' || fail "no app.items stream with -e mark:items"
# bad calls of mcmark_count: counted and said at the end, in two lines; the run goes on
"$B"/mcrec -q -o "$T/badcalls.mcz" -- "$B"/tests/tools/roof-unseen --bad 2>"$T/err" ||
	fail "bad mcmark_count calls stopped the recording: $(cat "$T/err")"
cat "$T/err"
grep -q '^mcrec: mark: 6 work counts ignored: a name not 1 to 48' "$T/err" || fail "no note of the 6 bad calls"
grep -q "^mcrec: mark: 1 work count for undeclared counters ('items'...) not recorded: name them with -e mark:items" \
	"$T/err" || fail "no note of the undeclared counter"
[ "$(wc -l <"$T/err")" -eq 2 ] || fail "more than two lines for bad calls"
echo "roofline: ok"
