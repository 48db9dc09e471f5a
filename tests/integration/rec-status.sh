#!/usr/bin/env bash
# rec-status.sh: the command's exit status is mcrec's (128+N for signal N),
# recorded in the file (metadata exit/exit_status and a final mark);
# SIGTERM sent to mcrec reaches the command and the file is finalised,
# with the signal, its time and its sender noted (a mark at once, the
# metadata ended_by at the end: "ended by SIGTERM at 1.0 s from bash (pid
# N)"); a recorder's own mark, which ends no region.
set -u
. "$(dirname "$0")/rec-common.inc"
"$MCREC" -q -o "$T/a.mcz" -- sh -c 'exit 3'
[ $? = 3 ] || fail "exit 3 not passed through"
[ "$("$RR" "$T/a.mcz" meta exit_status)" = 3 ] || fail "exit_status metadata"

"$MCREC" -q -o "$T/b.mcz" -- sh -c 'kill -SEGV $$'
[ $? = 139 ] || fail "SIGSEGV: expected 139"
[ "$("$RR" "$T/b.mcz" meta exit)" = "killed by SIGSEGV" ] || fail "exit metadata: $("$RR" "$T/b.mcz" meta exit)"
"$RR" "$T/b.mcz" marks | grep -q 'point .* killed by SIGSEGV' || fail "no exit mark"

"$MCREC" -q -i 20ms -o "$T/c.mcz" -- sleep 30 &
m=$!
sleep 1
kill -TERM $m
wait $m
rc=$?
[ $rc = 143 ] || fail "SIGTERM: mcrec exited $rc, expected 143"
"$RR" "$T/c.mcz" info | grep -q '^recovered 0' || fail "file not finalised after SIGTERM"
[ "$("$RR" "$T/c.mcz" meta exit)" = "killed by SIGTERM" ] || fail "SIGTERM not recorded"
ended=$("$RR" "$T/c.mcz" meta ended_by)
[[ $ended =~ ^ended\ by\ SIGTERM\ at\ (0\.9|1\.[0-5])\ s\ from\ [a-z]+\ \(pid\ $$\)$ ]] ||
	fail "ended_by: '$ended' (sent by this shell, pid $$, at 1 s)"
"$RR" "$T/c.mcz" marks | grep -q "point .* ended by SIGTERM at " || fail "no mark of the signal: $("$RR" "$T/c.mcz" marks)"
ok "exit statuses 3, 139, 143 recorded"

# -a: the whole machine, not only the command: task-clock over all CPUs.
"$MCREC" -q -a -i 100ms -e perf:task-clock -o "$T/d.mcz" -- sleep 1 || fail "-a: exit $?"
tc=$("$RR" "$T/d.mcz" total core.task_clock)
n=$(nproc)
echo "-a: task-clock $tc s over $n CPUs during 1 s"
between "$tc" $(awk -v n=$n 'BEGIN { print 0.9 * n }') $(awk -v n=$n 'BEGIN { print 1.3 * n }') || fail "-a task-clock $tc s"
ok "-a counts every CPU"
