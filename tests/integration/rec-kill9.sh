#!/usr/bin/env bash
# rec-kill9.sh: SIGKILL of mcrec mid-run loses at most the last second: the
# rows of the chunk being gathered reach the file every 0.5 s as PART blocks
# (format/SPEC.md 6.4), with the default 5 s chunks.  Killed at 7 s of a
# 100 ms recording (one chunk, then 2 s gathered), at 3 s of a 10 ms one,
# and at 1 s (no chunk yet): the file opens with rows up to 1 s before the
# kill, and `mcz check` says INCOMPLETE (exit 3), not DAMAGED.  The command
# does not outlive mcrec: it is gone within 1 s of the SIGKILL.  The 7 s
# kill runs beside the other two (the command holds, it does not compute).
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
now() { date +%s.%N; }
# record_killed FILE SECONDS MCREC-OPTIONS...: SIGKILL mcrec after SECONDS,
# then end the command it left behind; $killed_at: seconds from mcrec's
# start to the kill.
record_killed() {
	local out=$1 after=$2
	shift 2
	local t0
	t0=$(now)
	"$MCREC" -q "$@" -o "$out" -- "$WORK" --hold 12 &
	local m=$!
	sleep "$after"
	local c
	c=$(pgrep -P $m)
	kill -9 $m
	killed_at=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
	wait $m 2>/dev/null
	# the command does not outlive its recorder: gone within 1 s (SIGTERM
	# through PR_SET_PDEATHSIG)
	[ -n "$c" ] || fail "no command under mcrec to watch"
	# running: not gone, and not a zombie (its new parent may reap it late)
	running() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" ] &&
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
	local i
	for i in $(seq 20); do
		running "$c" || break
		sleep 0.05
	done
	if running "$c"; then
		kill "$c" 2>/dev/null
		fail "the command (pid $c) outlived its killed recorder by more than 1 s"
	fi
	echo "the command was gone $((i * 50)) ms after mcrec's SIGKILL"
}
# check_killed FILE MIN_ROWS: rows up to at most 1 s before the kill
check_killed() {
	local f=$1 min=$2
	"$RR" "$f" info >"$f.info" || fail "$f: the killed recording does not open"
	grep -q '^recovered 1' "$f.info" || fail "$f: expected a recovered file (no index)"
	rows=$(awk '$1 == "rows" { print $2 }' "$f.info")
	tl=$(awk '$1 == "t_last" { printf "%.3f", $2 / 1e9 }' "$f.info")
	lost=$(awk -v k="$killed_at" -v t="$tl" 'BEGIN { printf "%.3f", k - t }')
	echo "$f: killed at $killed_at s, $rows rows, last at $tl s: $lost s lost"
	[ "$rows" -ge "$min" ] || fail "$f: $rows rows, expected at least $min"
	between "$lost" 0 1.0 || fail "$f: killed at $killed_at s, last row at $tl s: lost $lost s (> 1 s)"
	"$MCZ" dump --csv "$f" >"$f.csv" || fail "$f: mcz dump fails"
	[ $(($(wc -l <"$f.csv") - 1)) = "$rows" ] || fail "$f: mcz dump shows $(($(wc -l <"$f.csv") - 1)) rows, not $rows"
	"$MCZ" check "$f" >"$f.check"
	[ $? = 3 ] && grep -q INCOMPLETE "$f.check" || fail "$f: mcz check: $(cat "$f.check")"
}

(
	record_killed "$T/k7.mcz" 7 -i 100ms
	check_killed "$T/k7.mcz" 60
	span=$(awk -F, 'NR == 2 { a = $1 } NR > 1 { b = $1 } END { printf "%.3f", b - a }' "$T/k7.mcz.csv")
	between "$span" 6 7.5 || fail "killed at 7 s: $span s of rows kept, expected >= 6 s"
	echo "$rows rows, $span s" >"$T/k7.said"
) >"$T/k7.out" 2>&1 &
k7pid=$!

record_killed "$T/k3.mcz" 3 -i 10ms
check_killed "$T/k3.mcz" 200
k3="$rows rows up to $tl s"

# killed inside the first chunk, after 1 s: the rows so far, and what was
# recorded (descriptors)
record_killed "$T/k1.mcz" 1 -i 10ms
check_killed "$T/k1.mcz" 20
streams=$(awk '$1 == "streams" { print $2 }' "$T/k1.mcz.info")
[ "${streams:-0}" -gt 0 ] || fail "killed in the first chunk: no stream descriptors in the file"
wait $k7pid; k7rc=$?
cat "$T/k7.out"
[ $k7rc = 0 ] || fail "killed at 7 s (above)"
k7=$(cat "$T/k7.said")
ok "SIGKILL at 7 s (100 ms): $k7; at 3 s (10 ms): $k3; at 1 s: $rows rows, $streams streams"
