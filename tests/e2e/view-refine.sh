#!/usr/bin/env bash
# view-refine.sh: in a real terminal, mcview answers keys within a small
# frame budget and then sharpens the screen by itself: on a 256-stream
# recording with a 1 ms budget (MCVIEW_FRAME_BUDGET_MS), the first screen
# and a deep zoom (whose window needs every stream's samples decoded) are
# drawn in several frames; once settled, with no further key, the screen
# equals the exact one (--snapshot, which has no budget) for the same keys.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-refine.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
F=$D/run.mcz
"$B/tests/tools/gen-recording" -o "$F" --streams 256 --rows 40000 --counters --phases ||
	tmux_fail "gen-recording failed"
W=150 H=40

# refined: until the screen says no more frames are coming, then settled
refined() {
	local i
	for ((i = 0; i < 200; i++)); do
		tmux_screen | grep -qF 'refining...' || break
		sleep 0.05
	done
	tmux_settle
	tmux_expect_not 'refining...'
}

# same KEYS: the settled terminal equals the snapshot after KEYS
same() {
	local keys=$1 want got
	want=$("$B/mcview" --snapshot ${W}x$H ${keys:+--keys "$keys"} "$F" | sed 's/ *$//') ||
		tmux_fail "snapshot failed"
	got=$(tmux_screen | sed 's/ *$//')
	if [ "$want" != "$got" ]; then
		diff <(echo "$want") <(echo "$got") | head -20
		tmux_fail "settled screen differs from the exact snapshot after '${keys:-no keys}'"
	fi
	grep -qF 'reading...' <<<"$got" && tmux_fail "rows still reading after settling"
	echo "ok: settled screen = exact snapshot after '${keys:-no keys}'"
}

tmux_cmd set-environment -g MCVIEW_FRAME_BUDGET_MS 1 2>/dev/null
tmux_start_sh $W $H "MCVIEW_FRAME_BUDGET_MS=1 $(printf %q "$B/mcview") $(printf %q "$F")"
tmux_wait_for 'Timeline'
refined
same ""
# deep zoom: 8 x '+' halves the window each time, to under 3 chunks
tmux_keys + + + + + + + +
refined
same "+,+,+,+,+,+,+,+"
# pans that leave the decoded samples
tmux_keys NPage NPage
refined
same "+,+,+,+,+,+,+,+,PgDn,PgDn"
tmux_keys q
echo "ok: quit"
