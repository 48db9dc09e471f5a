#!/usr/bin/env bash
# compare-view.sh: `mcview --compare A B` in a real terminal (tmux): it opens
# on the Compare view (12 marked phases matched, run against a copy of itself: all
# "same"), Tab walks Compare -> Timeline (run B under each row) -> Phases ->
# Topology -> Roofline -> Compare, Enter on a phase zooms run A's timeline to it; and
# without --compare the tab bar has no Compare view and Tab never reaches it.
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-compare.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
"$B/tests/tools/gen-recording" -o "$D/a.mcz" --streams 16 --rows 3000 --phases ||
	tmux_fail "gen-recording failed"
cp "$D/a.mcz" "$D/b.mcz"

tmux_start_sh 120 30 "$B/mcview --compare $D/a.mcz $D/b.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'phases matched (marks)'
tmux_expect ' Compare '
tmux_screen | grep -q '^   1 ' || tmux_fail "no ranked line"
tmux_screen | grep -q 'SLOWER' && tmux_fail "a run against its copy: SLOWER"
n=$(tmux_screen | grep -c ' same *$')
[ "$n" -ge 10 ] || tmux_fail "only $n phases 'same'"
# seconds of the window ("win 30.0s", "win 850ms")
win() { tmux_screen | sed -n 2p | awk '{ v = $2; f = v ~ /ms$/ ? 1e-3 : 1; sub(/m?s$/, "", v); print v * f }'; }
tmux_keys Tab
tmux_wait_for 'win '
tmux_screen | grep -q '└ B' || tmux_fail "timeline: no run B rows"
full=$(win)
tmux_keys Tab
tmux_wait_for 'class   start'
tmux_keys Tab
tmux_settle
tmux_keys Tab
tmux_wait_for 'Roofline: '
tmux_keys Tab
tmux_wait_for 'phases matched (marks)'
# Enter: the timeline, zoomed to the first-ranked phase
tmux_keys Enter
tmux_wait_for 'win '
tmux_settle
awk -v w="$(win)" -v f="$full" 'BEGIN { exit !(w > 0 && w < f / 4) }' ||
	tmux_fail "Enter: window $(win) s of $full s: not zoomed to one phase"
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_stop

# one file: no Compare view
tmux_start_sh 120 30 "$B/mcview $D/a.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
tmux_expect_not 'Compare'
for k in 1 2 3 4; do tmux_keys Tab; tmux_settle; done
tmux_expect_not 'phases matched'
tmux_wait_for ' Timeline '
tmux_keys q
tmux_wait_for 'AFTER rc=0'
echo PASS
