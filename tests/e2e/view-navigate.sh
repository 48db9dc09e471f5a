#!/usr/bin/env bash
# view-navigate.sh: mcview in a real terminal (tmux): zoom, pan, cursor,
# reset, help, filter, expand, resize down to 40x12 and below, and quit
# leaving the terminal as it was (screen restored, tty modes unchanged).
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-nav.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
"$B/tests/tools/gen-recording" -o "$D/run.mcz" --streams 16 --rows 3000 --phases ||
	tmux_fail "gen-recording failed"

tmux_start_sh 120 40 "echo BEFORE; a=\$(stty -g); $B/mcview $D/run.mcz; rc=\$?;
	[ \"\$a\" = \"\$(stty -g)\" ] && echo TTY-SAME; echo AFTER rc=\$rc; sleep 60"
tmux_wait_for 'Timeline'
tmux_expect 'win 30.0s'

# The cursor time: first word of the read-out line (line 39 of 40).
cursor_s() { tmux_screen | sed -n 39p | awk '{ sub(/s$/, "", $1); print $1 }'; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
c0=$(cursor_s)
near "$c0" 15 0.01 || tmux_fail "cursor starts at $c0, not mid-run"

# zoom in twice around the cursor: the window is 7.5 s, the cursor stays
tmux_keys +
tmux_wait_for 'win 15.0s'
tmux_keys =
tmux_wait_for 'win 7.50s'
near "$(cursor_s)" "$c0" 0.006 || tmux_fail "zoom moved the cursor to $(cursor_s)"
# pan right by 1/8 of the window: the cursor moves with it, 0.9375 s
tmux_keys Right
tmux_settle
near "$(cursor_s)" "$(awk -v c="$c0" 'BEGIN { print c + 0.9375 }')" 0.006 ||
	tmux_fail "pan right: cursor at $(cursor_s)"
tmux_keys h
tmux_settle
near "$(cursor_s)" "$c0" 0.006 || tmux_fail "pan left: cursor at $(cursor_s)"
# the cursor moves by columns (about 7.5 s / 85 columns each)
tmux_keys . .
tmux_settle
near "$(cursor_s)" "$(awk -v c="$c0" 'BEGIN { print c + 0.176 }')" 0.03 ||
	tmux_fail "cursor keys: cursor at $(cursor_s)"
# zoom out, then back to the whole run
tmux_keys -
tmux_wait_for 'win 15.0s'
tmux_keys 0
tmux_wait_for 'win 30.0s'

# help, closed by any key
tmux_keys '?'
tmux_wait_for 'mcview keys'
tmux_expect 'zoom in/out around the cursor'
tmux_keys x
tmux_settle
tmux_expect_not 'mcview keys'

# filter: rows follow as the pattern is typed; Enter keeps it
tmux_keys / g p u
tmux_wait_for 'filter: /gpu_'
tmux_keys Enter
tmux_settle
tmux_expect 'gpu.power'
tmux_expect '/gpu'
tmux_expect_not 'core.cycles'
# Enter on a group opens it
tmux_keys Enter
tmux_wait_for '▾gpu.power (2)'
tmux_expect '  #'
# clear the filter
tmux_keys / BSpace BSpace BSpace Enter
tmux_settle
tmux_expect 'core.cycles (2)'

# resize: the smallest size, too small, and back
tmux_resize 40 12
tmux_settle
tmux_expect 'Timeline'
[ "$(tmux_screen | awk '{ if (length($0) > 40) n++ } END { print n + 0 }')" = 0 ] ||
	tmux_fail "lines wider than 40 columns"
tmux_resize 30 10
tmux_wait_for 'terminal too small'
tmux_resize 120 40
tmux_wait_for 'Timeline'
tmux_expect 'win 30.0s'

# quit: the shell's screen is back, the tty modes are unchanged
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_expect BEFORE
tmux_expect TTY-SAME
tmux_expect_not 'Timeline'
echo "view-navigate: ok"
