#!/usr/bin/env bash
# rec-view.sh: `mcrec --view -- command` in a real terminal (tmux): mcview
# follows the recording while the command runs, the command's output goes to
# FILE.out (not over the screen), the view stays after the command ends until
# q, and mcrec then exits with the command's status and says where the
# output is.
# mcz-test: parallel (it waits for the screen, times nothing)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcrec" ] && [ -x "$B/mcview" ] || tmux_fail "no $B/mcrec or $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-recview.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT

tmux_start_sh 120 30 "$B/mcrec --view -i 100ms -o $D/v.mcz -- sh -c 'echo OUT-LINE; echo ERR-LINE >&2; sleep 4; exit 3'; echo rc=\$?; sleep 60"
tmux_wait_for 'LIVE following'
w1=$(tmux_window_s)
tmux_expect_not 'OUT-LINE'
tmux_expect_not 'ERR-LINE'
sleep 2
w2=$(tmux_window_s)
echo "window ${w1}s, then ${w2}s two seconds later"
awk -v a="$w1" -v b="$w2" 'BEGIN { exit !(b - a >= 1.0) }' || tmux_fail "the window did not grow: ${w1}s -> ${w2}s"
# the command ends: the file is finalised, the view stays until q
for _ in $(seq 100); do
	tmux_screen | grep -q 'LIVE' || break
	sleep 0.1
done
tmux_expect_not 'LIVE'
tmux_expect 'Timeline'
tmux_keys q
tmux_wait_for 'rc=3'
tmux_expect "the command's output is in $D/v.mcz.out"
grep -qx OUT-LINE "$D/v.mcz.out" && grep -qx ERR-LINE "$D/v.mcz.out" ||
	tmux_fail "the command's output is not in v.mcz.out: $(cat "$D/v.mcz.out")"
"$B/mcz" check "$D/v.mcz" >/dev/null || tmux_fail "mcz check: $("$B/mcz" check "$D/v.mcz" 2>&1)"
echo ok
