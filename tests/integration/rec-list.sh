#!/usr/bin/env bash
# rec-list.sh: `mcrec --list` for the sources whose streams are named with
# -e (papi, pcp), that record marks and the application's work counts
# (mark: app.flops and app.bytes, others with -e mark:NAME), or that have no
# default streams for the groups asked (perf under -g power): each says how its
# streams are chosen instead of "available, 0 streams", which read as
# "nothing to record here"; with -e, the named metric's streams are listed
# and the hint follows as "more:".  The pcp part needs a real pmcd.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp

"$MCREC" --list >"$T/list" 2>&1 || src_fail "--list exit $?: $(tail -3 "$T/list")"
grep -q 'available, 0 streams' "$T/list" && src_fail "--list says '0 streams': $(grep '0 streams' "$T/list")"
grep -q "^  mark .*available, 2 streams" "$T/list" ||
	src_fail "mark line: $(grep '^  mark' "$T/list")"
grep -q "^    more: marks sent by the command ('mcmark TEXT' or mcmark.h); work counts app.flops, app.bytes, and app.NAME with -e mark:NAME" "$T/list" ||
	src_fail "mark hint: $(grep -A6 '^  mark' "$T/list")"
if grep -q '^  papi .* available' "$T/list"; then
	grep -q "^  papi .*available: streams chosen with -e papi:EVENT ('papi_avail -a'" "$T/list" ||
		src_fail "papi line: $(grep '^  papi' "$T/list")"
fi
echo "ok: mark and papi say how their streams are chosen"

# a source that is ready but records nothing by default for the groups asked
# (perf under -g power) says how to choose its streams, not "0 streams"
"$MCREC" --list -g power >"$T/list" 2>&1 || src_fail "--list -g power exit $?: $(tail -3 "$T/list")"
grep -q 'available, 0 streams' "$T/list" && src_fail "-g power says '0 streams': $(grep '0 streams' "$T/list")"
grep -q '^  perf .*unavailable' "$T/list" ||
	grep -q '^  perf     core,mem   available, streams chosen with -e perf:EVENT$' "$T/list" ||
	src_fail "perf line under -g power: $(grep '^  perf' "$T/list")"
echo "ok: a ready source without default streams says they are chosen with -e"

src_need_pmcd
"$MCREC" --list >"$T/list" 2>&1 || src_fail "--list exit $?"
hint="streams chosen with -e pcp:METRIC or pcp@HOST:METRIC (pminfo lists pmcd's metrics)"
# no default pcp streams here (the local sources cover core/net/os): the
# hint on the source's line; with some (a GPU or power PMDA): after them
grep -qF "available: $hint" "$T/list" ||
	{ grep -q '^  pcp .*available, [1-9][0-9]* stream' "$T/list" && grep -qF "    more: $hint" "$T/list"; } ||
	src_fail "pcp lines: $(sed -n '/^  pcp/,/^  [a-z]/p' "$T/list")"

"$MCREC" --list -e pcp:kernel.all.load >"$T/list" 2>&1 || src_fail "--list -e pcp:kernel.all.load exit $?"
grep -q '^  pcp .*available, 3 streams$' "$T/list" || src_fail "pcp line: $(grep '^  pcp' "$T/list")"
# a dimensionless metric's unit is "-", not a blank that shifts the columns;
# pcp's groups column says "all" (it serves every group) within its width
grep -q '^  pcp      all        available' "$T/list" || src_fail "pcp groups: $(grep '^  pcp' "$T/list")"
grep -q '^    kernel.all.load  *- *x3 1 minute..15 minute *pcp:kernel.all.load' "$T/list" ||
	src_fail "kernel.all.load not listed: $(cat "$T/list")"
grep -qF "    more: $hint" "$T/list" || src_fail "no 'more:' line: $(cat "$T/list")"
echo "ok: pcp says how its streams are chosen, and lists the named ones"
