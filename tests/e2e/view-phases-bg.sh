#!/usr/bin/env bash
# view-phases-bg.sh: phases found on a thread of their own (viewer/app/
# phase-bg.c) on a wide recording (30,000 streams, where finding and
# describing the phases takes about a second): mcview's first screen says
# "detecting phases... (keys work meanwhile)", a key is answered at once
# while they are found (the window zooms), then the phases row fills and
# the status line clears; the phases are those `mcview --report` finds (the
# same count), n steps to the first; q ends mcview at once even while the
# thread still works.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-bg.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
"$B/tests/tools/gen-recording" -o "$D/wide.mcz" --streams 30000 --rows 48 --phases --chunk-rows 16 >/dev/null ||
	tmux_fail "gen-recording"
# the report writes its phase cache into wide.mcz: mcview gets copies without
cp "$D/wide.mcz" "$D/fresh.mcz"
cp "$D/wide.mcz" "$D/x.mcz"
n=$("$B/mcview" --report=json "$D/wide.mcz" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["phases"]))') ||
	tmux_fail "report"
[ "$n" -ge 2 ] || tmux_fail "the recording has $n phases"

tmux_start_sh 140 40 "$B/mcview $D/fresh.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'detecting phases... (keys work meanwhile)' 30
w0=$(tmux_screen | sed -n 2p | awk '{ print $2 }')
tmux_keys +
tmux_wait_for 'win ' 5
for i in $(seq 1 20); do
	w1=$(tmux_screen | sed -n 2p | awk '{ print $2 }')
	[ "$w1" != "$w0" ] && break
	sleep 0.1
done
[ "$w1" != "$w0" ] || tmux_fail "+ not answered while phases are detected (window $w0)"
echo "ok: + answered while the phases are found (window $w0 -> $w1)"
tmux_wait_gone 'detecting phases' 30
tmux_keys Tab
tmux_settle
tmux_expect "$n phases, "
echo "ok: the phases arrive ($n, as the report finds) and the Phases view lists them"
tmux_keys q
tmux_wait_for 'AFTER rc=0' 10
tmux_stop

# q while the thread works: mcview ends at once
tmux_start_sh 140 40 "$B/mcview $D/x.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'detecting phases... (keys work meanwhile)' 30
tmux_keys q
tmux_wait_for 'AFTER rc=0' 3
tmux_stop
echo "ok: q while the phases are found ends mcview at once"
echo "pass"
