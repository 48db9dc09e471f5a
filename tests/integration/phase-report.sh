#!/usr/bin/env bash
# phase-report.sh: `mcview --report` on a known recording (gen-recording
# --phases writes 12 phases of 4 kinds and their true starts): every true
# boundary within 2 sampling intervals, no spurious one, repeated phases in
# one class, the text and JSON forms, the cache on the second run, marks as
# phases, bad phase options answered by one line and a non-zero exit, and
# the same boundaries on a recording large enough to be detected from its
# chunk summaries.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
T=$(mktemp -d /tmp/mcz-phase-report.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$B"/tests/tools/gen-recording -o "$T/run.mcz" --streams 16 --rows 3000 --interval-ms 10 \
	--phases --truth "$T/truth" || fail "gen-recording"
[ "$(wc -l <"$T/truth")" -eq 12 ] || fail "truth file: $(wc -l <"$T/truth") phases"

# text: a title, the streams used, a header, one line per phase
"$B"/mcview --report "$T/run.mcz" >"$T/report.txt" 2>"$T/err" || fail "--report: $(cat "$T/err")"
cat "$T/report.txt"
head -1 "$T/report.txt" | grep -q "12 phases, 4 classes (auto: 7 streams, penalty 1)" ||
	fail "title: $(head -1 "$T/report.txt")"
grep -q '^class    start duration      read     write   r/w     mem BW      GPU    network   IPC mark' \
	"$T/report.txt" || fail "header"
[ "$(grep -c '^[A-Z] ' "$T/report.txt")" -eq 12 ] || fail "not 12 phase lines"
grep -q '^B .*memory-bound: 190 GB/s read, 2.5 reads per write$' "$T/report.txt" || fail "memory phase description"
grep -q '^C .*network: 18.0 GB/s rx$' "$T/report.txt" || fail "network phase description"
grep -q '^D .* idle$' "$T/report.txt" || fail "idle phase description"

# JSON: boundaries against the truth, classes against the names
"$B"/mcview --report=json "$T/run.mcz" >"$T/report.json" || fail "--report=json"
if command -v python3 >/dev/null; then
	python3 -m json.tool "$T/report.json" >/dev/null || fail "JSON does not parse"
fi
grep -q '"source":"auto"' "$T/report.json" || fail "JSON source"
# check_truth JSON TRUTH N: N phases; each boundary within 2 sampling
# intervals (10 ms) of the truth; one class per kind of phase
check_truth() {
	grep -o '"class":"[A-Z]*","start_s":[0-9.e+-]*' "$1" |
		sed 's/"class":"\([A-Z]*\)","start_s":/\1 /' >"$T/found"
	[ "$(wc -l <"$T/found")" -eq "$3" ] || fail "$1: $(wc -l <"$T/found") phases, not $3"
	# truth: row t_ns name; found: class start_s (from the first sample, t = 0 here)
	paste -d' ' "$2" "$T/found" | awk '
		NR > 1 { d = $5 * 1e9 - $2; if (d < 0) d = -d; if (d > 2 * 10e6) { print "boundary " NR ": " $2 / 1e9 " s found at " $5 " s"; bad = 1 } }
		{ if ($3 in cls && cls[$3] != $4) { print $3 " is class " cls[$3] " and " $4; bad = 1 } cls[$3] = $4 }
		{ if ($4 in name && name[$4] != $3) { print "class " $4 " is " name[$4] " and " $3; bad = 1 } name[$4] = $3 }
		END { exit bad }' || fail "$1: boundaries or classes differ from the truth"
}
check_truth "$T/report.json" "$T/truth" 12

# second run: from the user's cache folder, the same table
"$B"/mcview --report "$T/run.mcz" >"$T/report2.txt" || fail "second --report"
head -1 "$T/report2.txt" | grep -q "penalty 1, cached)" || fail "second run not cached: $(head -1 "$T/report2.txt")"
diff <(tail -n +2 "$T/report.txt") <(tail -n +2 "$T/report2.txt") || fail "cached table differs"
# a parameter changed: detected again (not cached), fewer phases with a cap-like penalty
"$B"/mcview --report --phase-penalty 1e5 "$T/run.mcz" >"$T/report3.txt" || fail "--phase-penalty"
grep -q "cached" "$T/report3.txt" && fail "a new penalty used the cache"
[ "$(grep -c '^[A-Z] ' "$T/report3.txt")" -lt 12 ] || fail "penalty 1e5 still finds 12 phases"

# marks as phases
"$B"/mcview --report --phases marks "$T/run.mcz" >"$T/marks.txt" || fail "--phases marks"
head -1 "$T/marks.txt" | grep -q "12 phases, 4 classes (from marks)" || fail "marks title"
grep -q '^B .* phase:memory  *memory-bound' "$T/marks.txt" || fail "marks labels"

# detection on chosen rows only
"$B"/mcview --report --phase-streams gpu.power "$T/run.mcz" >"$T/gpu.txt" || fail "--phase-streams"
grep -q "^# streams: gpu.power (2)$" "$T/gpu.txt" || fail "streams line: $(sed -n 2p "$T/gpu.txt")"

# a recording of one sample: one phase, a sensible line
"$B"/tests/tools/gen-recording -o "$T/one.mcz" --streams 4 --rows 1 || fail "gen one"
"$B"/mcview --report "$T/one.mcz" >"$T/one.txt" || fail "--report on one sample"
head -1 "$T/one.txt" | grep -q "1 phase, 1 class" || fail "one sample: $(head -1 "$T/one.txt")"
[ "$(grep -c '^A ' "$T/one.txt")" -eq 1 ] || fail "one sample: not one phase line"

# bad input: one line, non-zero exit
check_bad() { # expected-exit pattern args...
	local want=$1 pat=$2
	shift 2
	"$B"/mcview "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc -eq "$want" ] || fail "mcview $*: exit $rc, wanted $want"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "mcview $*: not one line: $(cat "$T/err")"
	grep -qF -- "$pat" "$T/err" || fail "mcview $*: $(cat "$T/err")"
}
check_bad 2 "--report takes =text or =json, not 'xml'" --report=xml "$T/run.mcz"
check_bad 2 "--phases wants auto, marks or off, not 'some'" --phases some "$T/run.mcz"
check_bad 2 "--phase-penalty wants a number > 0, not '-1'" --phase-penalty -1 "$T/run.mcz"
check_bad 2 "--phase-min wants a time" --phase-min 3parsecs "$T/run.mcz"
check_bad 1 "--phase-streams: no row matches 'nosuch'" --report --phase-streams nosuch "$T/run.mcz"
check_bad 1 "--report needs phases" --report --phases off "$T/run.mcz"
"$B"/tests/tools/gen-recording -o "$T/nomarks.mcz" --streams 4 --rows 100 || fail "gen"
check_bad 1 "the recording has no marks (use --phases auto)" --report --phases marks "$T/nomarks.mcz"

# A large recording (256 streams in 625 chunks: more chunk columns than the
# detector decodes): the coarse level comes from the chunk summaries of the
# index, and the boundaries are still placed on samples.
"$B"/tests/tools/gen-recording -o "$T/big.mcz" --streams 256 --rows 40000 --chunk-rows 64 \
	--counters --phases \
	--truth "$T/big.truth" || fail "gen-recording (large)"
MCVIEW_PHASE_CACHE=0 "$B"/mcview --report=json "$T/big.mcz" >"$T/big.json" || fail "--report (large)"
check_truth "$T/big.json" "$T/big.truth" "$(wc -l <"$T/big.truth")"
echo "phase report: ok"
