#!/usr/bin/env bash
# rec-unpriv.sh: a user without privileges (the usual HPC case) records too.
# At kernel.perf_event_paranoid >= 2 perf counts only user space for such a
# user: mcrec falls back to that as perf stat does (":u"), says so in --list
# and in the descriptors, leaves out what only the kernel side counts
# (context switches), and its page faults agree with perf stat's run by the
# same user within 2 %.
set -u
. "$(dirname "$0")/rec-common.inc"
[ "$(id -u)" = 0 ] || { echo "needs root to become an unprivileged user (setpriv)"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv (util-linux) missing"; exit 77; }
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -ge 2 ] || { echo "kernel.perf_event_paranoid=$paranoid: users may count the kernel side here"; exit 77; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 777 "$T"
# The binaries must be reachable by nobody: a build tree under a private
# folder (a clone in a mktemp -d, a home of mode 0700) is not, so nobody
# runs copies of them (they link only system libraries).
cp "$MCREC" "$WORK" "$T"/ && chmod 755 "$T/mcrec" "$T/${WORK##*/}"
MCREC=$T/mcrec WORK=$T/${WORK##*/}
as_nobody "$MCREC" --list >"$T/list" 2>&1 || fail "--list as nobody: $(cat "$T/list")"
grep -q 'counting user space only' "$T/list" || fail "--list does not say it counts user space only"
grep -q 'perf:task-clock:u' "$T/list" || fail "--list lacks the :u events"
(cd "$T" && as_nobody "$MCREC" -q -o "$T/u.mcz" -- "$WORK" --pages 30000 --spin 20) || fail "mcrec as nobody: exit $?"
"$RR" "$T/u.mcz" streams >"$T/streams"
grep -q 'core.page_faults cpu0 perf faults counter .* perf:page-faults:u' "$T/streams" || fail "descriptor: $(grep page_faults "$T/streams")"
grep -q core.context_switches "$T/streams" && fail "context switches recorded though user-space counts of them are 0"
rec=$("$RR" "$T/u.mcz" total core.page_faults)
if command -v perf >/dev/null; then
	as_nobody perf stat -x, -e page-faults -o "$T/ps" -- "$WORK" --pages 30000 --spin 20
	ref=$(grep -v '^#' "$T/ps" | awk -F, '$3 ~ /page-faults/ { print $1 }')
	echo "page faults as nobody: mcrec $rec, perf stat $ref"
	within "$rec" "$ref" 0.02 || fail "mcrec $rec vs perf stat $ref page faults"
fi
ok "unprivileged recording (user space counts)"
