# lib-tmux.sh: drive a program in a real terminal (tmux) from a shell test.
#
#   . "$(dirname "$0")/lib-tmux.sh"
#   tmux_start 100 30 "$MCZ_BIN/mcview" run.mcz   # W H command...
#   tmux_wait_for 'Timeline'                      # poll the screen for text
#   tmux_keys + + Right                           # tmux send-keys names
#   tmux_screen > screen.txt                      # the screen as text
#   tmux_resize 60 20
#   tmux_keys q; tmux_wait_exit                   # exit status of the command
#
# Each test gets its own tmux server (socket under $TMUX_TMPDIR) that is
# killed on exit, so tests never touch a user's tmux and can run side by
# side.  The command runs under bash with TERM=tmux-256color and a UTF-8
# locale; tmux_wait_exit gives its exit status.  tmux resets a dead pane's
# screen, so to check what a program left on the terminal, run it inside a
# snippet that stays alive: tmux_start_sh 80 24 'prog; echo rc=$?; sleep 60'.
# tmux_fail prints the screen to help whoever reads the log.
#
# Also: tmux_stop (end the session; another may be started), tmux_cleanup
# (for a test's own EXIT trap), tmux_skip REASON (exit 77), tmux_fail MESSAGE (exit 1),
# tmux_expect TEXT / tmux_expect_not TEXT (checks on the current screen),
# tmux_window_s (mcview's timeline window, in seconds).

command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }

TMUX_SOCK=mcz-e2e-$$-$RANDOM
TMUX_CONF=$(mktemp /tmp/mcz-tmux-conf.XXXXXX)
cat >"$TMUX_CONF" <<'CONF'
set -g default-terminal tmux-256color
set -g remain-on-exit on
set -g status off
set -g history-limit 100
set -sg escape-time 0
CONF
unset TMUX

tmux_cmd() { tmux -L "$TMUX_SOCK" -f "$TMUX_CONF" "$@"; }

# tmux_stop: end the session (a test may start another one after it).
# The next session gets a new socket: the old server may still be exiting.
tmux_stop() {
	tmux_cmd kill-server >/dev/null 2>&1
	TMUX_SOCK=mcz-e2e-$$-$RANDOM
}
# tmux_cleanup: at exit (a test that sets its own EXIT trap calls it there).
tmux_cleanup() {
	tmux_stop
	rm -f "$TMUX_CONF" "$TMUX_CONF.cmd" "$TMUX_CONF.status"
}
trap tmux_cleanup EXIT

tmux_skip() { echo "$*"; exit 77; }

tmux_screen() { tmux_cmd capture-pane -p -t t; }

tmux_fail() {
	echo "FAIL: $*"
	echo "---- screen ----"
	tmux_screen 2>/dev/null
	echo "----------------"
	exit 1
}

# tmux_start W H COMMAND [ARGS...]: run one command.
tmux_start() {
	local w=$1 h=$2
	shift 2
	: >"$TMUX_CONF.cmd"
	printf ' %q' "$@" >>"$TMUX_CONF.cmd"
	printf '\necho $? >%q\n' "$TMUX_CONF.status" >>"$TMUX_CONF.cmd"
	tmux_run "$w" "$h"
}

# tmux_start_sh W H 'shell text': run a bash snippet instead of one command.
tmux_start_sh() {
	printf '%s\n' "$3" >"$TMUX_CONF.cmd"
	tmux_run "$1" "$2"
}

# The command goes through a script file, so no quoting depends on which
# shell tmux uses to start it.
tmux_run() {
	rm -f "$TMUX_CONF.status"
	tmux_cmd new-session -d -s t -x "$1" -y "$2" \
		"env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash $TMUX_CONF.cmd" ||
		tmux_fail "cannot start tmux"
}

tmux_keys() { tmux_cmd send-keys -t t "$@"; }

tmux_resize() { tmux_cmd resize-window -t t -x "$1" -y "$2"; }

# tmux_wait_for TEXT [SECONDS]: until the screen contains TEXT (fixed string).
tmux_wait_for() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		tmux_screen | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	tmux_fail "waited ${2:-5}s for '$1'"
}

# tmux_settle: wait until the screen stops changing (after keys or a
# resize): unchanged over 0.3 s, at most 6 s.  On a loaded machine a
# program may take a while to start redrawing.
tmux_settle() {
	local a b i same=0
	a=$(tmux_screen)
	for ((i = 0; i < 60 && same < 3; i++)); do
		sleep 0.1
		b=$(tmux_screen)
		if [ "$a" = "$b" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		a=$b
	done
}

# tmux_wait_gone TEXT [SECONDS]: until the screen no longer contains TEXT
# (mcview's "detecting phases...": the first screen comes before the phases).
tmux_wait_gone() {
	local i n=$(( ${2:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		tmux_screen | grep -qF -- "$1" || return 0
		sleep 0.05
	done
	tmux_fail "waited ${2:-10}s for '$1' to go"
}

# tmux_wait_whole: a PCP archive shown from its start (mcview(1),
# MCVIEW_FIRST_MS) until the whole is in place: keys then act on the whole.
tmux_wait_whole() { tmux_wait_gone 'reading the whole of' "${1:-120}"; }

tmux_expect() { tmux_screen | grep -qF -- "$1" || tmux_fail "screen lacks '$1'"; }
tmux_expect_not() { ! tmux_screen | grep -qF -- "$1" || tmux_fail "screen shows '$1'"; }
# mcview's timeline window width in seconds, from line 2 ("win 3.00s", "win 950ms").
tmux_window_s() {
	tmux_screen | sed -n 2p | awk '{ v = $2; if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 }
		else sub(/s$/, "", v); print v }'
}

# tmux_wait_exit [SECONDS]: wait for the command of tmux_start to end;
# prints its exit status (128+N when killed by signal N).  The script that
# runs the command writes the status to a file: tmux itself sometimes marks
# a pane dead without its status.
tmux_wait_exit() {
	local i n=$(( ${1:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		if [ -s "$TMUX_CONF.status" ]; then
			cat "$TMUX_CONF.status"
			return 0
		fi
		sleep 0.05
	done
	tmux_fail "the command did not end within ${1:-10}s"
}

# si_to_num "2.66 G": the number an SI-prefixed figure stands for (2.66e9);
# the unit after the prefix is ignored ("2.66 Gcyc/s" works too).
si_to_num() {
	awk -v s="$1" 'BEGIN {
		split(s, a, " "); v = a[1]; p = substr(a[2], 1, 1)
		m["n"] = 1e-9; m["u"] = 1e-6; m["m"] = 1e-3; m["k"] = 1e3; m["M"] = 1e6
		m["G"] = 1e9; m["T"] = 1e12; m["P"] = 1e15; m["E"] = 1e18
		if (p in m && length(a[2]) > 1) v *= m[p]
		printf "%.9g\n", v }'
}

# Run directly (tests/run.sh does), this file tests itself: a command in a
# session, keys, the screen, a resize, the exit status, a second session.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	tmux_start 50 8 bash -c 'read -r line; echo "got:$line"; read -r; exit 7'
	tmux_keys hello Enter
	tmux_wait_for 'got:hello'
	tmux_resize 30 6
	[ "$(tmux_cmd display -p -t t '#{pane_width}x#{pane_height}')" = 30x6 ] ||
		tmux_fail "resize to 30x6 gave $(tmux_cmd display -p -t t '#{pane_width}x#{pane_height}')"
	tmux_keys Enter
	st=$(tmux_wait_exit)
	[ "$st" = 7 ] || tmux_fail "exit status $st, not 7"
	tmux_stop
	tmux_start_sh 40 5 'printf "%s\n" "$(( 6 * 7 ))"; sleep 30'
	tmux_wait_for 42
	[ "$(si_to_num '2.50 Gcyc/s')" = 2.5e+09 ] || tmux_fail "si_to_num 2.50 G"
	[ "$(si_to_num '950 mW')" = 0.95 ] || tmux_fail "si_to_num 950 m"
	echo "lib-tmux: self-test ok"
fi
