#!/usr/bin/env bash
# src-pcp-stall.sh: a pmcd that stops answering (SIGSTOP: connected but
# silent, like an overloaded or hung daemon) must not stall the recording.
# The sampling clock keeps its interval (no gap between rows longer than
# 3 intervals), perf records every row, the pmcd metric is missing while
# pmcd is stopped and present again after SIGCONT.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp
src_pmcd_private_start

cat >"$T/work.sh" <<'W'
sleep 0.5
kill -STOP "$1"
sleep 1.2
kill -CONT "$1"
sleep 1
W
"$MCREC" -q -i 50ms -e "perf:task-clock,pcp@localhost:$PPORT:pmcd.numagents" -o "$T/r.mcz" \
	-- sh "$T/work.sh" "$PPID_PMCD" || src_fail "mcrec exited $?"
kill -CONT "$PPID_PMCD" 2>/dev/null

rows=$("$READ" "$T/r.mcz" info | awk '/^rows/ {print $2}')
gap=$("$READ" "$T/r.mcz" times | awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { print g + 0 }')
n=$("$VALUES" "$T/r.mcz" pcp:pmcd.numagents | awk '{ print $7 }')
t1=$("$VALUES" "$T/r.mcz" pcp:pmcd.numagents | awk '{ print $(NF-1) }')
last=$("$READ" "$T/r.mcz" info | awk '/^t_last/ {print $2}')
pn=$("$VALUES" "$T/r.mcz" perf:core.task_clock | awk '{ print $7; exit }')
echo "rows $rows, longest gap $((gap / 1000000)) ms; pmcd metric in $n rows, perf in $pn"
[ "$gap" -le 150000000 ] || src_fail "the clock stalled: $((gap / 1000000)) ms between two rows"
[ "$rows" -ge 45 ] || src_fail "only $rows rows in 2.7 s at 50 ms"
[ "$pn" -eq "$rows" ] || src_fail "perf missed rows"
[ "$n" -le $((rows - 15)) ] || src_fail "pmcd metric present in $n of $rows rows although pmcd was stopped 1.2 s"
[ "$n" -ge 15 ] || src_fail "pmcd metric present only $n times"
[ $((last - t1)) -le 300000000 ] || src_fail "pmcd metric not back at the end"
