#!/usr/bin/env bash
# kokkos-regions.sh: a Kokkos program's own regions and kernels, recorded
# by mcrec with its default options through mcrec's Kokkos Tools connector
# (recorder/connect/kokkos-connect.c), the program not rebuilt.
# samples/kokkos/kokkos-phases (built against Debian's Trilinos Kokkos)
# runs 3 steps of a region "assemble" (with an inner region "boundary")
# and a region "solve", kernels inside, and prints each outer region's
# start and end by its own clock.  Asserted:
#   - the recording says where its regions came from (regions.kokkos), no
#     mark dropped, and holds a BEGIN and an END per region, the deep
#     copies as point marks;
#   - `mcview --report=json` with no option: the phases are the program's
#     regions, assemble, solve, assemble, ... (the outermost only), each
#     boundary within one sampling interval of the program's timers;
#   - --phase-level fine: the inner region "boundary" is a phase too;
#   - the kernel row: JSON "kernels" names only the program's labels, at
#     least three of them, and the timeline's snapshot draws a "kernel"
#     row whose legend names the longest;
#   - `mcview --compare` of two runs matches every phase by region name
#     (assemble#1 ... solve#3), none unmatched but the time before the
#     first region;
#   - --region-rate 5: marks dropped and counted (regions.dropped), as
#     many ENDs as BEGINs kept;
#   - mcrec --no-kokkos: no region marks, the phases detected.
set -u
. "$(dirname "$0")/tmp-common.inc"
. "$(dirname "$0")/kokkos-common.inc"
RR=$B/tests/tools/rec-read
[ -x "$RR" ] || fail "$RR not built (make units)"
IV=0.1
for run in a b; do
	"$B"/mcrec -o "$T/$run.mcz" -- "$K" --steps 3 >"$T/$run.out" 2>"$T/$run.err" ||
		fail "mcrec $run: $(tail -3 "$T/$run.err")"
done
cat "$T/a.err"
grep -q '^mcrec: regions: Kokkos: [0-9]* kernels of [0-9]* labels' "$T/a.err" ||
	fail "mcrec said nothing of the kernels: $(cat "$T/a.err")"
"$B"/mcz info "$T/a.mcz" >"$T/a.info"
grep -q '^meta *regions.kokkos = Kokkos Tools interface 20' "$T/a.info" || fail "no regions.kokkos: $(grep regions "$T/a.info")"
grep -q '^meta *regions.dropped = 0$' "$T/a.info" || fail "marks dropped: $(grep regions.dropped "$T/a.info")"
"$RR" "$T/a.mcz" marks >"$T/a.marks"
nb=$(grep -c ' begin ' "$T/a.marks"); ne=$(grep -c ' end ' "$T/a.marks")
[ "$nb" = 9 ] && [ "$ne" = 9 ] || fail "9 regions expected (3 x assemble, boundary, solve): $nb begins, $ne ends"
[ "$(grep -c ' point [0-9]* deep_copy: y <- z' "$T/a.marks")" = 3 ] || fail "no deep copy marks: $(grep deep_copy "$T/a.marks")"

"$B"/mcview --report=json "$T/a.mcz" >"$T/a.json" || fail "report of a.mcz"
"$B"/mcview --report=json --phase-level fine "$T/a.mcz" >"$T/a-fine.json" || fail "fine report"
"$B"/mcz dump --json --streams code.samples "$T/a.mcz" >"$T/a.rows" || fail "mcz dump"
python3 - "$T/a.json" "$T/a-fine.json" "$T/a.out" "$T/a.info" "$T/a.rows" "$IV" <<'PY' || fail "phases against the program's timers"
import json, re, sys
d, fine = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
info = open(sys.argv[4]).read()
epoch = int(re.search(r"wall_epoch_ns = (\d+)", info).group(1))
t_min = json.load(open(sys.argv[5]))["rows"][0][0]   # the report's 0, in recording time
iv = float(sys.argv[6])
own = []
for line in open(sys.argv[3]):
    m = re.match(r"region (\w+) (\d+) (\d+) (\d+)$", line)
    if m:
        own.append((m.group(1), (int(m.group(3)) - epoch) / 1e9 - t_min, (int(m.group(4)) - epoch) / 1e9 - t_min))
assert len(own) == 6, own
assert d["source"] == "marks", "phases from %s, not the regions" % d["source"]
ph = [(p["mark"], p["start_s"], p["end_s"]) for p in d["phases"] if p["mark"] not in ("", "-")]
assert [p[0] for p in ph] == [o[0] for o in own], "phases %r, regions %r" % ([p[0] for p in ph], [o[0] for o in own])
worst = inner = 0
for k, ((name, s, e), (_, os_, oe)) in enumerate(zip(ph, own)):
    off = max(abs(e - oe), abs(s - os_))
    worst = max(worst, off)
    # the first start: the report's first phase takes in the time before it
    inner = max(inner, abs(e - oe), abs(s - os_) if k else 0)
    assert off <= iv, "%s: phase %.3f-%.3f s, its timers %.3f-%.3f s" % (name, s, e, os_, oe)
names = [p["mark"] for p in fine["phases"]]
assert names.count("boundary") == 3, "fine level: %r" % names
labels = {"fill_matrix", "assemble_norm", "apply_bc", "spmv", "dot"}
kern = [k["label"] for k in d["kernels"] or []]
named = [k for k in kern if k in labels]
assert len(named) >= 3, "kernels named: %r" % kern
assert all(k in labels or k.startswith("Kokkos::") for k in kern), "unknown kernels: %r" % kern
print("ok: %d phases = the program's regions, boundaries within %.1f ms of its timers "
      "(%.3f ms but the first start); fine level adds boundary x3; kernels %s"
      % (len(ph), worst * 1e3, inner * 1e3, ", ".join(named)))
PY
"$B"/mcview --snapshot 160x40 "$T/a.mcz" >"$T/a.snap" 2>&1 || fail "snapshot"
top=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernels'][0]['label'])" "$T/a.json")
grep -q "^kernel  *[a-z]" "$T/a.snap" || fail "no kernel row: $(head -8 "$T/a.snap")"
grep -q "a $top [0-9]*%" "$T/a.snap" || fail "the kernel legend does not name $top: $(grep -A1 '^kernel' "$T/a.snap")"
echo "ok: the timeline's kernel row, its legend names $top"

"$B"/mcview --compare "$T/a.mcz" "$T/b.mcz" --report=json >"$T/cmp.json" || fail "compare"
python3 - "$T/cmp.json" <<'PY' || fail "compare by region name"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["matched_by"] == "marks", c["matched_by"]
got = sorted(m["label"] for m in c["matched"])
want = sorted("%s#%d" % (n, i) for n in ("assemble", "solve") for i in (1, 2, 3))
assert got == want, "matched %r" % got
# the time before the first region is a phase when longer than an interval
# (Kokkos's start on a busy machine): unmarked, it has no name to match
left = [u["label"] for u in c["unmatched_a"] + c["unmatched_b"] if u["label"] != "(unmarked)"]
assert not left, left
print("ok: compare matched %s" % " ".join(got))
PY

# a rate of 5 marks a second: most regions dropped, counted, whole pairs
"$B"/mcrec -q --region-rate 5 -o "$T/rate.mcz" -- "$K" --steps 3 --region-ms 100 >/dev/null 2>&1 ||
	fail "mcrec --region-rate 5"
dropped=$("$B"/mcz info "$T/rate.mcz" | sed -n 's/^meta *regions.dropped = //p')
"$RR" "$T/rate.mcz" marks >"$T/rate.marks"
nb=$(grep -c ' begin ' "$T/rate.marks"); ne=$(grep -c ' end ' "$T/rate.marks")
[ -n "$dropped" ] && [ "$dropped" -gt 0 ] || fail "--region-rate 5: dropped '$dropped'"
[ "$nb" = "$ne" ] && [ "$nb" -gt 0 ] && [ "$nb" -lt 9 ] || fail "--region-rate 5: $nb begins, $ne ends"
echo "ok: --region-rate 5: $dropped marks dropped (regions.dropped), $nb regions kept whole"

"$B"/mcrec -q --no-kokkos -o "$T/off.mcz" -- "$K" --steps 1 >/dev/null 2>&1 || fail "mcrec --no-kokkos"
"$B"/mcz info "$T/off.mcz" | grep -q 'regions.kokkos' && fail "--no-kokkos still loaded the connector"
"$RR" "$T/off.mcz" marks | grep -q ' begin ' && fail "--no-kokkos: region marks"
"$B"/mcview --report=json "$T/off.mcz" | python3 -c "import json,sys; assert json.load(sys.stdin)['source'] == 'auto'" ||
	fail "--no-kokkos: phases not detected"
echo "ok: --no-kokkos: no regions, phases detected"
