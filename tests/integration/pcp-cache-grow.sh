#!/usr/bin/env bash
# pcp-cache-grow.sh: an archive a real pmlogger is writing (the local
# pmcd, the default pmlogconf configuration, every second) is opened, grows,
# and is opened again: mcview's cache entry is continued with the new
# records, not made again (format/pcp/pcp-cache.c pcp_cache_grown,
# pcp-convert.c pcp_convert_resume, mcz_writer_resume; SPEC-PCP.md "The
# viewer's cache").
#  1. First open while pmlogger writes: one entry.
#  2. pmlogger ends (more records, the same files longer); open again:
#     - the first entry's recording is the first bytes of the new one (the
#       rows already converted were kept, and a new index and trailer
#       follow them);
#     - the new one passes mcz check, and holds row for row the values
#       `mcz import` stores of the whole archive (mcz dump --csv);
#     - the screen is the one drawn without a cache.
#  3. Another pmlogger writes an archive of the same name over it (another
#     label, the same file names): the entry is made again, not continued.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
. "$(dirname "$0")/src-common.inc"
command -v pmlogger >/dev/null && command -v pmlogconf >/dev/null ||
	{ echo "skip: pmlogger is not installed (pcp package)"; exit 77; }
src_need_pmcd
V=$B/mcview
C=$XDG_CACHE_HOME/mcz
plog=
trap '[ -n "$plog" ] && kill $plog 2>/dev/null; rm -rf "$T"' EXIT

snap() { "$V" -q --snapshot 120x30 "$@"; }
# same SCREEN WANT: the screens alike but for the head line (the file's name)
same() { cmp -s <(tail -n +2 "$1") <(tail -n +2 "$2"); }
# the recording in the entry, after its head (its length at bytes 8..11)
recording() {
	local e h
	e=$(ls "$C"/pcp-*.mcz)
	h=$(od -An -tu4 -j8 -N4 "$e" | tr -d ' ')
	tail -c +$((h + 1)) "$e"
}
logger() { # NAME SECONDS: a pmlogger writing NAME for SECONDS, every second
	pmlogger -h local: -c "$T/cfg" -t 1 -T "$2s" -l "$T/pmlogger.log" "$T/$1" &
	plog=$!
	for _ in $(seq 100); do [ -s "$T/$1.index" ] && break; sleep 0.1; done
}
finish() { wait $plog 2>/dev/null; plog=; }

pmlogconf -h local: "$T/cfg" >"$T/pmlogconf.log" 2>&1 || fail "pmlogconf: $(tail -2 "$T/pmlogconf.log")"

# 1. opened while pmlogger writes
logger arch 14
sleep 5
[ -s "$T/arch.0" ] || fail "pmlogger wrote nothing: $(tail -3 "$T/pmlogger.log")"
snap "$T/arch" >"$T/s1" || fail "first open"
[ "$(ls "$C" | grep -c '^pcp-.*\.mcz$')" = 1 ] || fail "first open: not one entry: $(ls "$C")"
recording >"$T/r1.mcz"
rows1=$("$B/mcz" info "$T/r1.mcz" | sed -n 's/.* \([0-9]*\) rows in .*/\1/p')

# 2. grown: continued
finish
snap "$T/arch" >"$T/s2" || fail "second open"
recording >"$T/r2.mcz"
n1=$(stat -c %s "$T/r1.mcz")
[ "$(stat -c %s "$T/r2.mcz")" -gt "$n1" ] || fail "the entry did not grow"
cmp -s -n "$n1" "$T/r1.mcz" "$T/r2.mcz" ||
	fail "the entry was made again: the first one's bytes are not its start"
"$B/mcz" check "$T/r2.mcz" >"$T/check" || fail "the continued entry fails mcz check: $(cat "$T/check")"
"$B/mcz" import -q "$T/arch" -o "$T/imp.mcz" || fail "mcz import"
"$B/mcz" dump --csv "$T/r2.mcz" >"$T/r2.csv" || fail "dump of the entry"
"$B/mcz" dump --csv "$T/imp.mcz" >"$T/imp.csv" || fail "dump of the import"
rows2=$(($(wc -l <"$T/imp.csv") - 1))
[ "$rows2" -gt "$((rows1 + 5))" ] || fail "the archive did not grow: $rows1 rows, then $rows2"
cmp -s "$T/r2.csv" "$T/imp.csv" || fail "the continued entry's values differ from mcz import's"
MCZ_NO_CACHE=1 snap "$T/arch" >"$T/want2" || fail "snapshot without cache"
same "$T/s2" "$T/want2" || fail "second open: not the whole archive's screen"
same "$T/s1" "$T/s2" && fail "second open: the first screen again"

# 3. replaced by another pmlogger's archive of the same name: made again
rm -f "$T"/arch.*
logger arch 4
finish
snap "$T/arch" >"$T/s3" || fail "replaced archive"
recording >"$T/r3.mcz"
cmp -s -n 200 "$T/r2.mcz" "$T/r3.mcz" && fail "replaced archive: the old entry was continued"
MCZ_NO_CACHE=1 snap "$T/arch" >"$T/want3" || fail "snapshot without cache"
same "$T/s3" "$T/want3" || fail "replaced archive: not the new archive's screen"
echo "pcp-cache-grow: ok ($rows1 rows, continued to $rows2; replaced: made again)"
