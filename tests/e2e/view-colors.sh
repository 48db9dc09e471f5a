#!/usr/bin/env bash
# view-colors.sh: what mcview sends to a real terminal (tmux capture-pane -e):
# 256 colours from the default theme on a 256-colour terminal, the colour
# the theme file names (colorblind: series0 #56b4e9 -> xterm 74), no colour
# at all with NO_COLOR or --no-color (bold/reverse/dim only), and only ASCII
# with --ascii.
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-colors.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
"$B/tests/tools/gen-recording" -o "$D/run.mcz" --streams 8 --rows 1000 --phases ||
	tmux_fail "gen-recording failed"

# screen_of ARGS...: start mcview with ARGS, print the screen with escapes.
screen_of() {
	tmux_start 100 24 "$@"
	tmux_wait_for 'Timeline'
	tmux_settle
	tmux_cmd capture-pane -p -e -t t >"$D/screen"
	tmux_keys q
	[ "$(tmux_wait_exit)" = 0 ] || tmux_fail "mcview $* did not exit 0"
	tmux_stop
}
screen_of "$B/mcview" "$D/run.mcz"
grep -q $'\e\\[38;5;[0-9]*m' "$D/screen" || tmux_fail "no 256-colour foreground by default"
# default theme: title = #e8ecf4 on #2a3140 -> 255 on 236
grep -q $'\e\\[38;5;255m\e\\[48;5;236m mcview' "$D/screen" || tmux_fail "title not in the theme's colours"

screen_of "$B/mcview" --theme colorblind "$D/run.mcz"
grep -q $'\e\\[38;5;74m' "$D/screen" || tmux_fail "colorblind series0 (#56b4e9 = 74) not used"

screen_of env NO_COLOR=1 "$B/mcview" "$D/run.mcz"
! grep -q $'\e\\[[0-9;]*[34]8;5' "$D/screen" || tmux_fail "colours despite NO_COLOR"
grep -q $'\e\\[[0-9;]*7m' "$D/screen" || tmux_fail "no reverse video for the title with NO_COLOR"
screen_of "$B/mcview" --no-color "$D/run.mcz"
! grep -q $'\e\\[[0-9;]*[34]8;5' "$D/screen" || tmux_fail "colours despite --no-color"

screen_of "$B/mcview" --ascii "$D/run.mcz"
! LC_ALL=C grep -q '[^ -~]' <(sed $'s/\e\\[[0-9;]*m//g' "$D/screen") || tmux_fail "non-ASCII with --ascii"
screen_of env LANG=C LC_ALL=C "$B/mcview" "$D/run.mcz"
! LC_ALL=C grep -q '[^ -~]' <(sed $'s/\e\\[[0-9;]*m//g' "$D/screen") || tmux_fail "non-ASCII in the C locale"
echo "view-colors: ok"
