#!/usr/bin/env bash
# ranks-view.sh: the Ranks view in a real terminal (tmux, 80x24) on the
# files of a job recorded by the real mcrec — 4 ranks of samples/imbalance
# launched by a loop with PMI_RANK/PMI_SIZE, rank 2 given twice the work in
# "solve": the timeline folds the ranks into one row per stream (R
# unfolds), Tab reaches the Ranks view (not shown for one file), a row per
# rank, the job phases across the top; with the cursor in solve, `s` puts
# rank 2 first, marked, and the readout names it the slowest; `L` folds the
# ranks into one row per host; `m` colours by another stream; q exits 0.
# Where mcrec sampled code (perf allowed it), the view colours by each
# rank's hot function first: letters on every rank's row, the readout
# names the function at the cursor (80 columns: the top one in the phase
# is cut off);
# `m` then goes to core.task_clock.  On a recorded hpcc run where a rank
# lost its CPU for 1.2 s, the readout gives each rank's time off its CPU
# in the cursor's phase, and the report's note is shown above it.
# mcz-test: parallel (the slowest rank by CPU time: it holds on a loaded
# machine, as its 4 ranks already share 2 CPUs)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] && [ -x "$B/samples/imbalance" ] || tmux_fail "no $B/mcview or sample (make first)"
D=$(mktemp -d /tmp/mcz-e2e-ranks.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
# Tab until the Ranks view shows a title matching $1 (the views before it
# depend on the build)
rk_tab_to() {
	local k
	for k in 1 2 3 4 5 6; do
		tmux_screen | grep -Eq "$1" && return
		tmux_keys Tab
		tmux_settle
	done
}
pids=
for r in 0 1 2 3; do
	PMI_RANK=$r PMI_SIZE=4 "$B/mcrec" -q -i 50ms -o "$D/run.$r.mcz" -- \
		"$B/samples/imbalance" --steps 40 --slow 2:2:2 --barrier "$D/bar" -q &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || tmux_fail "a rank failed"; done
# solve (phase 2) runs from about 0.4 s: its middle, where rank 2 still works
at=$("$B/mcview" --report=json "$D"/run.*.mcz | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["jobs"][0]["phases"] if p["label"] == "solve"][0]
print("%.3f" % (p["start_s"] + 0.75 * p["duration_s"]))')

tmux_start_sh 80 24 "$B/mcview --at $at $D/run.*.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
tmux_expect ' Ranks'
# the timeline folds the ranks: one row per stream for the job; R unfolds
tmux_wait_for '(4×2)'
tmux_screen | grep -q '^▸core.task.* (4×2) Σ' || tmux_fail "no folded core.task_clock row"
tmux_expect_not 'r1:core.'
tmux_keys R
tmux_wait_for 'r1:core.'
tmux_keys R
tmux_wait_for '(4×2)'
rk_tab_to 'colour (core.task_clock|hot function)'
if tmux_screen | grep -q 'colour hot function'; then
	for r in 0 1 2 3; do
		tmux_screen | grep -Eq "^r$r .* +[·.]*[A-Z]" || tmux_fail "hot function: no letters for rank $r"
	done
	tmux_screen | grep -Eq ' \| [0-9.]+s code ' || tmux_fail "hot function readout: $(tmux_screen | sed -n 23p)"
	# what each rank did: samples/imbalance computes for a few ms a step and
	# waits asleep, so off CPU (a dot) nearly everywhere, never MPI or sync
	tmux_keys m
	tmux_wait_for 'colour work/MPI/sync/off CPU'
	for r in 0 1 2 3; do
		tmux_screen | grep -Eq "^r$r .* +[·█]{40,}$" || tmux_fail "work/MPI: rank $r not work or off CPU"
	done
	tmux_screen | sed -n '5,8p' | grep -q '[▒░]' && tmux_fail "work/MPI: MPI or sync where no MPI ran"
	tmux_screen | grep -Eq '\| [0-9.]+s off CPU' || tmux_fail "work/MPI readout: $(tmux_screen | sed -n 23p)"
	tmux_keys m
fi
tmux_wait_for 'colour core.task_clock'
tmux_expect '4 ranks, by rank'
tmux_screen | grep -Eq '^phases +A=*|^phases +A─*' || tmux_fail "no job phases line"
for r in 0 1 2 3; do tmux_screen | grep -q "^r$r " || tmux_fail "no row for rank $r"; done
tmux_keys s
tmux_wait_for 'by time in phase'
first=$(tmux_screen | sed -n 5p)
case "$first" in "r2 "*) ;; *) tmux_fail "s: first row is '$first', not rank 2" ;; esac
echo "$first" | grep -q '▲' || tmux_fail "rank 2 not marked: '$first'"
tmux_screen | grep -q '^r2 vm solve .*slowest r2)' || tmux_fail "readout: $(tmux_screen | sed -n 23p)"
tmux_keys L
tmux_wait_for '1 host, by'
n=$(tmux_screen | sed -n '4,22p' | grep -c ' x4 ')
[ "$n" = 1 ] || tmux_fail "L: $n host rows for 4 ranks on one host"
tmux_keys m
tmux_settle
tmux_expect_not 'colour core.task_clock'
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_stop

# a rank off its CPU (hpcc, tests/data/hpcc/lcg-stall: a busy loop took
# rank 0's CPU for 1.2 s): coloured by what each rank did, the readout of
# rank 0 in the phase of the stall gives its time off the CPU there, as
# the report's JSON has it (1.087 s)
L=tests/data/hpcc/lcg-stall
tmux_start_sh 160 24 "$B/mcview --at 8.6 $L/hpcc.0.mcz $L/hpcc.1.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
rk_tab_to 'colour work/MPI/sync/off CPU'
tmux_expect 'colour work/MPI/sync/off CPU'
# off CPU in its own colour, and in the readout with its share, taken by
# another process (the node's CPUs were busy: no note calls it asleep)
tmux_screen | grep -q 'note: rank 0 was off its CPU' && tmux_fail "a note calls the taken CPU asleep"
tmux_screen | grep -Eq '^r0 .*off CPU \(waiting [0-9]+%\) \| in phase: useful 0\.080s, MPI 0\.033s, off CPU 1\.087s \(91%\), taken by others 1\.087s' ||
	tmux_fail "off CPU readout: $(tmux_screen | tail -1)"
tmux_keys Down
tmux_settle
tmux_screen | grep -Eq '^r1 .*in phase: useful 0\.087s, MPI 1\.100s, off CPU 0\.013s' ||
	tmux_fail "rank 1 readout: $(tmux_screen | tail -1)"
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_stop

# one file: no Ranks view
tmux_start_sh 80 24 "$B/mcview $D/run.0.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
tmux_expect_not 'Ranks'
tmux_keys q
tmux_wait_for 'AFTER rc=0'
echo PASS
