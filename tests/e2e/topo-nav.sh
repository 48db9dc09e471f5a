#!/usr/bin/env bash
# topo-nav.sh: the topology view of a real mcrec recording, in a real
# terminal (tmux): it opens on the machine, the arrow keys walk the tree
# (child, sibling, parent), Enter zooms into a subtree and Backspace out, n
# colours it over a phase (Backspace: the whole run again), m
# changes the colouring metric, L switches to the icicle and back, a narrow
# terminal gets the icicle by itself, and q leaves the terminal as it was.
# A file without topology, and a PCP archive, say so instead of drawing nothing.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] && [ -x "$B/mcrec" ] || tmux_fail "no $B/mcview or $B/mcrec (make first)"
D=$(mktemp -d /tmp/mcz-e2e-topo.XXXXXX)
trap 'tmux_stop; rm -rf "$D"' EXIT
# two packages whatever the machine, so there is somewhere to go
N=$(nproc)
MCREC_TOPOLOGY="pack:2 l3:1 core:$((N > 1 ? N / 2 : 1)) pu:1" \
	"$B/mcrec" -q -i 20ms -o "$D/run.mcz" -- sh -c 'sleep 0.4; timeout 0.8 sh -c "while :; do :; done";
		sleep 0.4; timeout 0.8 sh -c "while :; do :; done"; exit 0' ||
	tmux_fail "mcrec failed"

tmux_start_sh 120 40 "a=\$(stty -g); $B/mcview --view topology $D/run.mcz; rc=\$?;
	[ \"\$a\" = \"\$(stty -g)\" ] && echo TTY-SAME; echo AFTER rc=\$rc; sleep 60"
tmux_wait_for 'Topology  core.task_clock'
tmux_expect 'over whole run  span: leaves'
tmux_expect 'low ' # the legend
# the panel's title (right of the chart, line 3 of the screen) is the selection
panel() { tmux_screen | sed -n 3p | cut -c 75-; }
expect_panel() {
	local i
	for ((i = 0; i < 40; i++)); do
		panel | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	tmux_fail "panel title is '$(panel)', not '$1'"
}
expect_panel 'Machine ('
tmux_keys Down # Machine > NUMA#0 > Package#0, #1
expect_panel 'NUMA#0'
tmux_keys j
expect_panel 'Package#0'
tmux_keys Right
expect_panel 'Package#1'
tmux_keys l # wraps around the ring
expect_panel 'Package#0'
tmux_keys Left Down
expect_panel 'L3#1'
tmux_keys Up
expect_panel 'Package#1'
tmux_keys Down
expect_panel 'L3#1'
# Enter: L3#1 becomes the centre; Backspace three times: the machine again
tmux_keys Enter
tmux_wait_for 'zoom: L3#1'
tmux_expect_not 'Package#0'
tmux_keys BSpace BSpace BSpace
tmux_settle
tmux_expect_not 'zoom:'
# n: the next phase (the app's, for every view) recolours the chart over it;
# Backspace at the machine goes back to the window
tmux_keys n
tmux_wait_for 'over phase '
tmux_keys BSpace
tmux_wait_for 'over whole run'
# m: the next metric, in the header
tmux_keys m
tmux_wait_for 'Topology  core.context_switches'
# a narrow terminal: the icicle by itself (the centre as a full-width band
# under the header), the panel under the chart
band() { tmux_screen | sed -n 3p | grep -c '⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿'; }
[ "$(band)" = 0 ] || tmux_fail "the sunburst starts with a full band"
tmux_resize 44 30
tmux_settle
[ "$(band)" = 1 ] || tmux_fail "44 columns: not an icicle"
tmux_resize 120 40
tmux_settle
[ "$(band)" = 0 ] || tmux_fail "120 columns: not a sunburst"
# L: the icicle by choice, and back
tmux_keys L
tmux_settle
[ "$(band)" = 1 ] || tmux_fail "L: no icicle"
tmux_keys L
tmux_settle
[ "$(band)" = 0 ] || tmux_fail "L again: still an icicle"
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_expect 'TTY-SAME'
tmux_cmd kill-session -t t

# A file without topology (mcrec could not load one: it says so and records
# unbound streams): the view says so too.
MCREC_TOPOLOGY="bogus:2" "$B/mcrec" -o "$D/plain.mcz" -- true 2>"$D/rec.err" ||
	tmux_fail "mcrec failed"
grep -q 'no topology' "$D/rec.err" || tmux_fail "mcrec did not say it has no topology"
tmux_start 100 30 "$B/mcview" --view topology "$D/plain.mcz"
tmux_wait_for 'No topology in'
tmux_expect 'recorded without one'
tmux_keys q
[ "$(tmux_wait_exit)" = 0 ] || tmux_fail "mcview did not exit 0"
tmux_cmd kill-session -t t

# A PCP archive (the pcp-testsuite's): no topology either, and it says why.
A=/var/lib/pcp/testsuite/archives/19970807.09.54
[ -f "$A.meta" ] || tmux_fail "$A is missing: scripts/install-deps.sh installs pcp-testsuite"
tmux_start 100 30 "$B/mcview" --view topology "$A"
tmux_wait_for 'No topology in' 10
tmux_wait_whole
tmux_expect 'it is a PCP archive'
tmux_keys q
[ "$(tmux_wait_exit)" = 0 ] || tmux_fail "mcview did not exit 0 on the archive"
echo ok
