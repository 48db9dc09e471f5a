#!/usr/bin/env bash
# rec-kill9.sh: SIGKILL of mcrec mid-run leaves a file that opens with all
# chunks but the last (--chunk 1s: a chunk every second of data); killed
# before its first chunk (default --chunk 5s), the file still holds the
# metadata and stream descriptors.
set -u
. "$(dirname "$0")/rec-common.inc"
# record_killed FILE SECONDS MCREC-OPTIONS...: SIGKILL mcrec after SECONDS,
# then end the command it left behind.
record_killed() {
	local out=$1 after=$2
	shift 2
	"$MCREC" -q -i 10ms "$@" -o "$out" -- "$WORK" --hold 6 &
	local m=$!
	sleep "$after"
	local c
	c=$(pgrep -P $m)
	kill -9 $m
	wait $m 2>/dev/null
	[ -n "$c" ] && kill "$c" 2>/dev/null
}
record_killed "$T/k.mcz" 3 --chunk 1s
"$RR" "$T/k.mcz" info >"$T/info" || fail "the killed recording does not open"
cat "$T/info"
grep -q '^recovered 1' "$T/info" || fail "expected a recovered file (no index)"
rows=$(awk '$1 == "rows" { print $2 }' "$T/info")
tl=$(awk '$1 == "t_last" { print $2 }' "$T/info")
# killed at ~3 s: everything but the last ~1 s chunk must be there
between "$rows" 150 320 || fail "$rows rows recovered from ~3 s at 10 ms"
between "$tl" 1500000000 3200000000 || fail "last sample at $tl ns"
if [ -x "$B/mcz" ]; then
	"$B/mcz" check "$T/k.mcz"
	echo "(mcz check exit $?)"
fi

# killed inside the first (default 5 s) chunk: no rows, but what was recorded
record_killed "$T/k0.mcz" 1
"$RR" "$T/k0.mcz" info >"$T/info0" || fail "the recording killed in its first chunk does not open"
streams0=$(awk '$1 == "streams" { print $2 }' "$T/info0")
rows0=$(awk '$1 == "rows" { print $2 }' "$T/info0")
[ "${rows0:-x}" = 0 ] || fail "killed after 1 s with 5 s chunks: expected 0 rows, got $rows0"
[ "${streams0:-0}" -gt 0 ] || fail "killed in the first chunk: no stream descriptors in the file"
ok "killed recording opens: $rows rows up to $tl ns; killed in its first chunk: $streams0 streams described"
