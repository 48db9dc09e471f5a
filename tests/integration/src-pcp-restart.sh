#!/usr/bin/env bash
# src-pcp-restart.sh: a pmcd that goes away during the recording and comes
# back.  The test's own pmcd is stopped 0.5 s into the run and restarted
# 1 s later: its metric is missing meanwhile (not zero, not stale), the
# other sources record every row, and after the restart the pcp source
# reconnects (PMCD_RECONNECT_TIMEOUT=1 shortens libpcp's back-off) and the
# metric is present again until the end.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp
src_pmcd_private_start
export PMCD_RECONNECT_TIMEOUT=1

cat >"$T/work.sh" <<'W'
sleep 0.5
kill "$1"
sleep 1
touch "$2/restart"
while [ -e "$2/restart" ]; do sleep 0.05; done
sleep 3
W
"$MCREC" -q -i 100ms -g os -e "perf:task-clock,pcp@localhost:$PPORT:pmcd.numagents" -o "$T/r.mcz" \
	-- sh "$T/work.sh" "$PPID_PMCD" "$T" &
rec=$!
for _ in $(seq 100); do [ -e "$T/restart" ] && break; sleep 0.05; done
[ -e "$T/restart" ] || src_fail "the command never asked for the restart"
wait "$PPID_PMCD" 2>/dev/null
PPID_PMCD=
src_pmcd_private_start
rm -f "$T/restart"
wait $rec || src_fail "mcrec exited $?"

rows=$("$READ" "$T/r.mcz" info | awk '/^rows/ {print $2}')
read -r n t0 t1 <<<"$("$VALUES" "$T/r.mcz" pcp:pmcd.numagents | awk '{ print $7, $(NF-2), $(NF-1) }')"
last=$("$READ" "$T/r.mcz" info | awk '/^t_last/ {print $2}')
pn=$("$VALUES" "$T/r.mcz" perf:core.task_clock | awk '{ print $7; exit }')
echo "rows $rows; pmcd.numagents present in $n; perf present in $pn"
[ "$pn" -eq "$rows" ] || src_fail "perf lost samples while pmcd was away"
[ "$n" -lt $((rows - 8)) ] || src_fail "pmcd.numagents present in $n of $rows rows: the outage did not show"
[ "$n" -ge 10 ] || src_fail "pmcd.numagents present only $n times: no reconnection"
[ $((last - t1)) -le 300000000 ] || src_fail "pmcd.numagents not present at the end (last at $t1, end $last)"
"$VALUES" "$T/r.mcz" pcp:pmcd.numagents | awk '{ exit !($(NF-4) == 1 && $(NF-3) == 1) }' ||
	src_fail "pmcd.numagents values wrong"
