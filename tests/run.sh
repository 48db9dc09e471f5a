#!/usr/bin/env bash
# run.sh: the test runner behind `make check`.
#
# Runs, each under a time limit: every unit test binary (cmocka) in
# $MCZ_BUILD/tests/test-*, every fuzz target replayed over its corpus
# ($MCZ_BUILD/tests/replay-NAME over tests/fuzz/corpus-NAME/), and every shell
# test tests/integration/*.sh and tests/e2e/*.sh.  A test passes with exit 0,
# is skipped with exit 77 (it must print why; skips are counted apart, never
# as passes), and fails otherwise: its "FAIL: ..." lines and the end of
# its log are printed.  Logs go to $MCZ_BUILD/test-logs/.
#
#   tests/run.sh [PATTERN]     run only tests whose name contains PATTERN
#   MCZ_TEST_SKIP='e2e/ x'     leave out tests whose name contains a word
#                              (counted as skipped, named on their line)
#   MCZ_TEST_JOBS=1            unit tests, fuzz replays and the shell tests
#                              that measure no time (a line "# mcz-test:
#                              parallel") one at a time (default: two
#                              more than the cores)
set -u
cd "$(dirname "$0")/.."
B=${MCZ_BUILD:-build}
export MCZ_BUILD=$B MCZ_BIN=$PWD/$B
LOG=$B/test-logs
mkdir -p "$LOG"
# the programs' cache folder (topology, ceilings, phases): the tests' own,
# never the user's; emptied for each run
export XDG_CACHE_HOME=$PWD/$B/test-cache
rm -rf "$XDG_CACHE_HOME"
pat=${1:-}
pass=0 fail=0 skip=0 failed=()

run_one() { # name, timeout, command...
	local name=$1 tmo=$2; shift 2
	[ -n "$pat" ] && [[ $name != *"$pat"* ]] && return
	local k
	for k in ${MCZ_TEST_SKIP:-}; do
		if [[ $name == *"$k"* ]]; then
			skip=$((skip + 1))
			printf 'SKIP  %-44s %s\n' "$name" "left out of this pass (MCZ_TEST_SKIP=$k)"
			return
		fi
	done
	local log=$LOG/${name//\//_}.log t0=$SECONDS rc
	timeout -k 10 "$tmo" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	local dt=$((SECONDS - t0))
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-44s %3ds\n' "$name" "$dt" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-44s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   [ $rc -eq 124 ] && echo "(timed out after ${tmo}s)" >>"$log"
	   printf 'FAIL  %-44s %3ds (exit %d, log %s)\n' "$name" "$dt" "$rc" "$log"
	   # what failed first (a test's "FAIL: ..." lines), then the log's end
	   grep -m 6 '^FAIL' "$log" | sed 's/^/      ! /'
	   tail -n 15 "$log" | sed 's/^/      | /' ;;
	esac
}

# The unit tests and fuzz replays use the CPU alone (no sleeps, no clocks
# asserted, temporary files named by pid), so they run side by side: two
# more than the cores, as the shell tests among them wait at times (for a
# pmlogger, a terminal, a compiler's output).  On the 2-core CI machine
# this part took 134 s two at a time, 104 s three at a time and 95 s four
# at a time (under SAN 154 s three at a time, 135 s four).  Their lines
# come out in order once all are done, and are counted from those lines.
par_jobs=${MCZ_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 2))}
par_n=0
run_par() { # name, timeout, command...: run_one in the background
	while [ "$(jobs -rp | wc -l)" -ge "$par_jobs" ]; do
		wait -n
	done
	(run_one "$@") >"$LOG/.par.$par_n" &
	par_n=$((par_n + 1))
}
par_collect() {
	wait
	local i line
	for ((i = 0; i < par_n; i++)); do
		cat "$LOG/.par.$i"
		line=$(head -n 1 "$LOG/.par.$i")
		case $line in
		PASS*) pass=$((pass + 1)) ;;
		SKIP*) skip=$((skip + 1)) ;;
		FAIL*) fail=$((fail + 1)); failed+=("$(awk '{ print $2 }' <<<"$line")") ;;
		esac
		rm -f "$LOG/.par.$i"
	done
	par_n=0
}
# Shell tests that measure no time (they say so: "# mcz-test: parallel")
# run side by side with the unit tests and fuzz replays; then, one at a
# time, those that time what they run.  Those that mostly wait a minute
# (for Slurm's time limit, a silent server) say "# mcz-test: first": they
# start first, so that the rest fill the cores while they wait, and the
# part side by side takes about its work over the jobs, not the longest
# test started last.  (lib-*.sh are the tests' libraries, sourced, not tests.)
shell_tests() {
	local t
	for t in tests/integration/*.sh tests/e2e/*.sh; do
		[ -f "$t" ] && [[ ${t##*/} != lib-* ]] && echo "$t"
	done
}
for t in $(shell_tests); do
	grep -q '^# mcz-test: first' "$t" && run_par "${t#tests/}" 600 bash "$t"
done
for t in "$B"/tests/test-*; do
	[ -x "$t" ] && run_par "unit/$(basename "$t")" 300 "$t"
done
for t in "$B"/tests/replay-*; do
	[ -x "$t" ] || continue
	n=${t##*/replay-}
	run_par "fuzz-replay/$n" 300 "$t" tests/fuzz/corpus-"$n"
done
for t in $(shell_tests); do
	grep -q '^# mcz-test: parallel' "$t" && ! grep -q '^# mcz-test: first' "$t" &&
		run_par "${t#tests/}" 600 bash "$t"
done
par_collect
for t in $(shell_tests); do
	grep -q '^# mcz-test: parallel' "$t" || run_one "${t#tests/}" 600 bash "$t"
done

echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
