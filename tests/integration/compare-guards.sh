#!/usr/bin/env bash
# compare-guards.sh: mcview --compare refuses what is not two runs of one
# program, in one line with exit status 2 (issue 34, finding 6), instead of
# a table of nonsense with exit 0:
#   - a job file (its ranks' marks pooled gave 14 phases of -0.000 s and a
#     delta of "+nan%"): one rank of it (JOB:NAME) is compared instead;
#   - runs ten times apart in length (a day's archive of another host
#     against a 3 s run was "1 phases matched ... -99.9 % faster").
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
mkdir "$T/j"
"$B"/tests/tools/gen-job -d "$T/j" --ranks 4 --phases 3 --phase-s 0.5 >/dev/null || fail "gen-job"
"$B"/mcz merge -q "$T"/j/run.*.mcz -o "$T/job.mcz" || fail "merge"
"$B"/mcview --compare "$T/job.mcz" "$T/job.mcz" --report >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "job vs itself: exit $rc: $(cat "$T/err" "$T/out" | head -5)"
grep -q "job.mcz holds 4 recordings (a job's ranks): compare one of them" "$T/err" || fail "job: $(cat "$T/err")"
"$B"/mcview --compare "$T/job.mcz:run.1.mcz" "$T/j/run.1.mcz" --report >"$T/out" 2>"$T/err" ||
	fail "one rank against its file: $(cat "$T/err")"
grep -q '^3 phases matched (marks), 0 only in A, 0 only in B' "$T/out" || fail "one rank: $(sed -n 3p "$T/out")"
grep -qi 'nan' "$T/out" && fail "nan in the comparison: $(grep -i nan "$T/out")"
echo "ok: a job file refused, one of its ranks compared"

"$B"/tests/tools/gen-recording -o "$T/short.mcz" --rows 100 --streams 4 >/dev/null || fail "gen short"
"$B"/tests/tools/gen-recording -o "$T/long.mcz" --rows 3000 --streams 4 >/dev/null || fail "gen long"
"$B"/mcview --compare "$T/short.mcz" "$T/long.mcz" --report >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "1 s vs 30 s: exit $rc: $(cat "$T/err" "$T/out" | head -5)"
grep -q 'not comparable: short.mcz runs 0.99 s and long.mcz 30 s (30x)' "$T/err" || fail "lengths: $(cat "$T/err")"
"$B"/mcview --compare "$T/short.mcz" "$T/short.mcz" --report >"$T/out" 2>"$T/err" || fail "a run against itself: $(cat "$T/err")"
grep -q '^1 phase matched' "$T/out" || fail "itself: $(sed -n 3p "$T/out")"
echo "ok: runs 30x apart refused; a run against itself compared"
