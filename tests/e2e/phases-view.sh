#!/usr/bin/env bash
# phases-view.sh: the phases in a real terminal (tmux): the phase band over
# the timeline, n/p from the timeline, Tab to the phases table, sorting,
# selection, Enter zooming the timeline to the phase, and a clean quit.
# The recording (gen-recording --phases) has 12 phases of 4 kinds.
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-phases.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
"$B/tests/tools/gen-recording" -o "$D/run.mcz" --streams 16 --rows 3000 --phases ||
	tmux_fail "gen-recording failed"

tmux_start_sh 130 30 "$B/mcview $D/run.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
tmux_wait_gone 'detecting phases' # the first screen comes before them
# the band: one letter per phase, A B C D repeated, beside the marks
tmux_screen | grep '^phases ' | grep -q 'A.*B.*C.*D.*A.*B.*C.*D.*A.*B.*C.*D' ||
	tmux_fail "no phase band A B C D x3 over the timeline"

# The read-out line (29 of 30) starts with the cursor time.
cursor() { tmux_screen | sed -n 29p | awk '{ print $1 }'; }
[ "$(cursor)" = "15.00s" ] || tmux_fail "cursor starts at $(cursor)"
# n from 15 s (inside the second memory phase, 13.375-15.285 s): the next
# phase starts at 15.285 s, the one after at 17.155 s; p goes back
tmux_keys n
tmux_settle
[ "$(cursor)" = "15.29s" ] || tmux_fail "n: cursor at $(cursor), not 15.29s"
tmux_keys n
tmux_settle
[ "$(cursor)" = "17.16s" ] || tmux_fail "n n: cursor at $(cursor), not 17.16s"
tmux_keys p
tmux_settle
[ "$(cursor)" = "15.29s" ] || tmux_fail "p: cursor at $(cursor), not 15.29s"

# the table
tmux_keys Tab
tmux_wait_for '12 phases, 4 classes (auto: 7 streams, penalty 1'
tmux_expect 'class   start'
tmux_expect 'memory-bound: 190 GB/s'
tmux_expect 'network: 18.0 GB/s rx'
[ "$(tmux_screen | grep -c '^[ABCD]  ')" -eq 12 ] || tmux_fail "not 12 phase lines"
# sort by duration: the longest phase (the third memory phase, 4.230 s) first
tmux_keys s
tmux_wait_for 'duration▾'
tmux_screen | grep -m1 '^[ABCD]  ' | grep -q '^B      21.715s   4.230s' ||
	tmux_fail "sorted by duration: first line is $(tmux_screen | grep -m1 '^[ABCD]  ')"
# s cycles through the columns back to start order
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	tmux_screen | grep -q 'start▾' && break
	tmux_keys s
	tmux_settle
done
tmux_expect 'start▾'
# Home selects the first phase, Down the second (2.655-4.435 s)
tmux_keys Home Down
tmux_settle
# Enter: the timeline, zoomed to that phase (1.78 s and 5 % either side)
tmux_keys Enter
tmux_wait_for 'win 1.96s'
tmux_expect 'Timeline'
[ "$(cursor)" = "2.655s" ] || tmux_fail "Enter: cursor at $(cursor), not at the phase start"

tmux_keys q
tmux_wait_for 'AFTER rc=0'
echo "phases view: ok"
