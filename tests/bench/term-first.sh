#!/usr/bin/env bash
# term-first.sh MCVIEW ARCHIVE: mcview's first screen on a terminal (tmux,
# 120x40, its own server), as a user sees it: prints two times in ms from
# the start of mcview, "FIRST WHOLE": the tab bar drawn, and the whole
# archive in place (no "reading the whole" on the status line: at once when
# the archive was read whole before the first screen).  The screen is looked
# at every 10 ms.  Used by bench-pcp.sh; XDG_CACHE_HOME as the caller sets it.
set -u
mcview=$1 ar=$2
sock=mcz-bench-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null' EXIT
now() { date +%s%N; }
s=$(now)
tmux -L "$sock" new-session -d -x 120 -y 40 "MCVIEW_FIRST_MS=${MCVIEW_FIRST_MS:-} $mcview --phases off '$ar'; sleep 60"
first= whole=
for _ in $(seq 6000); do
	scr=$(tmux -L "$sock" capture-pane -p 2>/dev/null)
	t=$(( ($(now) - s) / 1000000 ))
	if [ -z "$first" ] && grep -q ' mcview .*Timeline' <<<"$scr"; then first=$t; fi
	if [ -n "$first" ] && ! grep -q 'reading the whole' <<<"$scr"; then whole=$t; break; fi
	sleep 0.01
done
tmux -L "$sock" send-keys q
echo "${first:-0} ${whole:-0}"
