#!/usr/bin/env bash
# view-bad-input.sh: mcview and bad input, in a real terminal.
# A file that is not mcz, of a newer version, missing, unreadable or a
# folder; a terminal too small; no terminal; bad options: one clear line on
# stderr, a non-zero exit, and the terminal left as it was (no screen
# drawn).  A damaged (truncated) file opens with what it holds and a
# warning in the status line.
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
V=$PWD/$B/mcview
[ -x "$V" ] || V=$B/mcview
[ -x "$V" ] || tmux_fail "no mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-bad.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
chmod 755 "$D"
"$B/tests/tools/gen-recording" -o "$D/run.mcz" --streams 8 --rows 2000 --phases ||
	tmux_fail "gen-recording failed"
echo "just some text, not a recording" >"$D/notes.txt"
cp "$D/run.mcz" "$D/newer.mcz"
printf '\002\000\000' | dd of="$D/newer.mcz" bs=1 seek=8 conv=notrunc status=none # major 2, minor 0
head -c $(($(stat -c %s "$D/run.mcz") * 7 / 10)) "$D/run.mcz" >"$D/cut.mcz"
: >"$D/empty.mcz"
cp "$D/run.mcz" "$D/secret.mcz"
chmod 600 "$D/secret.mcz"

# one_line EXPECTED_TEXT ARGS...: exactly one line on stderr containing the
# text, nothing on stdout, a non-zero exit.
one_line() {
	local want=$1 rc
	shift
	"$V" "$@" >"$D/out" 2>"$D/err" </dev/null
	rc=$?
	[ $rc -ne 0 ] || tmux_fail "mcview $*: exit 0"
	[ "$(wc -l <"$D/err")" = 1 ] || tmux_fail "mcview $*: stderr is not one line: $(cat "$D/err")"
	grep -qF -- "$want" "$D/err" || tmux_fail "mcview $*: '$(cat "$D/err")' lacks '$want'"
	[ ! -s "$D/out" ] || tmux_fail "mcview $*: printed on stdout"
	echo "ok: mcview $* -> exit $rc: $(cat "$D/err")"
}
one_line "not an mcz file" --snapshot 80x24 "$D/notes.txt"
one_line "version 2." --snapshot 80x24 "$D/newer.mcz"
one_line "No such file" --snapshot 80x24 "$D/nothere.mcz"
one_line "$D" --snapshot 80x24 "$D"
one_line "empty" --snapshot 80x24 "$D/empty.mcz"
one_line "too small" --snapshot 30x10 "$D/run.mcz"
one_line "WxH" --snapshot big "$D/run.mcz"
one_line "no theme named" --theme nosuch --snapshot 80x24 "$D/run.mcz"
one_line "not a time" --at soon --snapshot 80x24 "$D/run.mcz"
one_line "no view named 'nosuch' (views: timeline, phases, topology, roofline, compare, ranks, flame)" --view nosuch --snapshot 80x24 "$D/run.mcz"
one_line "no recording given" --snapshot 80x24
one_line "not a terminal" "$D/run.mcz"
if command -v runuser >/dev/null && [ "$(id -u)" = 0 ]; then
	runuser -u nobody -- "$V" --snapshot 80x24 "$D/secret.mcz" >/dev/null 2>"$D/err"
	rc=$?
	[ $rc -ne 0 ] && grep -qF "Permission denied" "$D/err" && [ "$(wc -l <"$D/err")" = 1 ] ||
		tmux_fail "unreadable file: exit $rc, $(cat "$D/err")"
	echo "ok: unreadable file (as nobody) -> $(cat "$D/err")"
elif [ "$(id -u)" != 0 ]; then
	chmod 000 "$D/secret.mcz"
	one_line "Permission denied" --snapshot 80x24 "$D/secret.mcz"
fi

# In a terminal: the error line, and the shell's screen untouched.
tmux_start_sh 100 20 "echo BEFORE; a=\$(stty -g); $V $D/notes.txt; rc=\$?;
	[ \"\$a\" = \"\$(stty -g)\" ] && echo TTY-SAME; echo AFTER rc=\$rc; sleep 60"
tmux_wait_for 'AFTER rc='
tmux_expect BEFORE
tmux_expect "mcview: $D/notes.txt: not an mcz file"
tmux_expect 'TTY-SAME'
tmux_expect 'AFTER rc=1'
[ "$(tmux_screen | grep -c .)" = 4 ] || tmux_fail "more than the 4 expected lines on the screen"
tmux_stop

# A terminal under 40x12: one line, before any screen is drawn.
tmux_start_sh 30 10 "echo BEFORE; $V $D/run.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'AFTER rc='
tmux_expect 'BEFORE'
tmux_expect 'AFTER rc=1'
tmux_screen | tr -d '\n' | grep -qF 'terminal too small: 30x10' || tmux_fail "no 'too small' line"
tmux_stop

# A damaged file opens, with the warning in the status line.
tmux_start 100 24 "$V" "$D/cut.mcz"
tmux_wait_for 'Timeline'
tmux_expect 'warning: cut.mcz is damaged'
tmux_keys q
[ "$(tmux_wait_exit)" = 0 ] || tmux_fail "mcview on a damaged file did not exit 0"
echo "view-bad-input: ok"
