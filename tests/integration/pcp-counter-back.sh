#!/usr/bin/env bash
# pcp-counter-back.sh: a PCP counter that goes backwards has no rate where
# it dropped (SPEC.md 7.3).  pcp-testsuite's pcp-atop logs
# network.tcp.currestab, a 64-bit counter, as 38, 37, 39, 37 (a gauge
# declared as a counter): pmval shows a rate of 2 where it rose and "!"
# where it fell.  mcview showed 2^64 - 2 a second there (19.3 E count/s),
# which set the row's scale and put it among the most active rows.  Checked
# on mcview's screen: no value of that size on any network.tcp row, and the
# counter no longer among the rows that change.
# mcz-test: parallel
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives/pcp-atop
[ -f "$A.meta" ] || { echo "skip: pcp-testsuite archives not installed (scripts/install-deps.sh)"; exit 77; }
command -v pmval >/dev/null || { echo "skip: pmval (pcp) not installed"; exit 77; }
T=$(mktemp -d /tmp/mcz-pcp-back.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export XDG_CACHE_HOME=$T/cache

# PCP's own reading of it: a rate where it rose, none where it fell
pmval -a "$A" network.tcp.currestab >"$T/pmval" 2>&1 || fail "pmval: $(tail -2 "$T/pmval")"
grep -Eq '^[0-9:.]+ +2\.000 *$' "$T/pmval" || fail "pmval has no rate of 2: $(cat "$T/pmval")"
grep -Eq '^[0-9:.]+ +! *$' "$T/pmval" || fail "pmval has no '!': $(cat "$T/pmval")"
echo "ok: pmval: $(grep -Ec '^[0-9:.]+ +2\.000' "$T/pmval") rate of 2/s, $(grep -Ec '^[0-9:.]+ +!' "$T/pmval") '!' (went backwards)"

"$B/mcview" --snapshot 160x16 --filter network.tcp "$A" >"$T/snap" 2>&1 || fail "mcview: $(tail -3 "$T/snap")"
grep -q 'network.tcp' "$T/snap" || fail "no network.tcp row: $(cat "$T/snap")"
# a rate of 2^64 - k a second prints with an E (10^18) prefix or more
if grep -E ' [0-9.]+ ?[EZY][a-zA-Z]*(/s|/)? *$' "$T/snap" >"$T/huge"; then
	fail "a rate of 2^64 - k a second: $(cat "$T/huge")"
fi
grep -q 'network.tcp.currestab' "$T/snap" && fail "currestab among the rows that change: $(grep currestab "$T/snap")"
echo "ok: mcview: $(grep -c '^network.tcp' "$T/snap") network.tcp rows, none of 2^64 - k a second, currestab folded with the constants"
