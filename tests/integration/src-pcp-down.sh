#!/usr/bin/env bash
# src-pcp-down.sh: a pmcd that is down (a private pmcd of the test's own,
# started and then stopped) and a pmcd host that does not resolve
# each give one clear line on stderr, and the other sources keep recording:
# the file holds the perf and proc streams, mcrec exits with the command's
# status.  An unknown metric on a live pmcd, in contrast, is the user's
# mistake and stops mcrec with one line.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp

check_down() { # label, expected text, mcrec args...
	local label=$1 want=$2
	shift 2
	"$MCREC" -i 50ms -o "$T/$label.mcz" "$@" -- sh -c 'sleep 0.3; exit 3' 2>"$T/$label.err"
	local rc=$?
	[ $rc -eq 3 ] || src_fail "$label: mcrec exited $rc, not the command's 3: $(cat "$T/$label.err")"
	grep -v '^mcrec: [^ ]*\.mcz: ' "$T/$label.err" | tr '\r' '\n' | grep -v '^ *$' >"$T/$label.lines"
	[ "$(wc -l <"$T/$label.lines")" -eq 1 ] || src_fail "$label: not one line: $(cat "$T/$label.lines")"
	grep -q "pcp.*$want" "$T/$label.lines" || src_fail "$label: the line does not say '$want': $(cat "$T/$label.lines")"
	echo "$label: $(cat "$T/$label.lines")"
	"$READ" "$T/$label.mcz" streams >"$T/$label.streams" || src_fail "$label: file unreadable"
	grep -q ' perf s counter ' "$T/$label.streams" || src_fail "$label: no perf streams recorded"
	grep -q ' proc ' "$T/$label.streams" || src_fail "$label: no proc streams recorded"
	! grep -q ' pcp ' "$T/$label.streams" || src_fail "$label: pcp streams from nowhere"
	[ "$("$READ" "$T/$label.mcz" info | awk '/^rows/ {print $2}')" -ge 3 ] || src_fail "$label: too few rows"
}

src_pmcd_private_start
pminfo -h "localhost:$PPORT" -f pmcd.numagents | grep -q 'value 1' || src_fail "private pmcd does not answer"
src_pmcd_private_stop
check_down refused "Connection refused" -g os -e "perf:task-clock,pcp@localhost:$PPORT:pmcd.numagents"
check_down noresolve "does not resolve" -g os --pcp-host no-such-host.invalid -e perf:task-clock,pcp:kernel.all.load

# the same with the user's own mistake: an unknown metric stops mcrec
src_need_pmcd
"$MCREC" -q -o "$T/bad.mcz" -e pcp:no.such.metric -- true 2>"$T/bad.err"
rc=$?
[ $rc -ne 0 ] || src_fail "unknown metric accepted"
[ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "unknown PCP metric 'no.such.metric'" "$T/bad.err" ||
	src_fail "unknown metric: $(cat "$T/bad.err")"
echo "unknown metric: $(cat "$T/bad.err")"

# under mpirun, a rank that is not the node's first leaves node-wide pmcd
# metrics to local rank 0, quietly, even when they were named
OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_RANK=1 "$MCREC" -i 50ms -o "$T/rank1.mcz" \
	-e pcp:kernel.all.load,perf:task-clock -- sleep 0.2 2>"$T/rank1.err" || src_fail "rank 1: mcrec failed: $(cat "$T/rank1.err")"
! grep -q pcp "$T/rank1.err" || src_fail "rank 1 talks about pcp: $(cat "$T/rank1.err")"
"$READ" "$T/rank1.mcz" streams >"$T/rank1.streams"
! grep -q ' pcp ' "$T/rank1.streams" && grep -q ' perf ' "$T/rank1.streams" ||
	src_fail "rank 1 recorded: $(cat "$T/rank1.streams")"
echo "local rank 1: pcp left to rank 0, perf recorded"
