#!/usr/bin/env bash
# view-concurrent.sh: readers never write.  Eight `mcview --report` at once
# on one recording (four phase penalties, text and JSON), 30 rounds: the
# recording is byte for byte what it was (sha256), `mcz check` says ok,
# and every report is whole — the same as that option's report made alone
# before (the title's ", cached" aside).  Two reports at once used to
# append their phase caches into the file together and leave it DAMAGED.
# Also: a damaged cache file is not trusted, and a cache folder read-only,
# absent, or with a FIFO in a cache file's place costs the cache only (no
# message, the same report, no blocking).  (A phase cache inside a file of
# an earlier version: tests/unit/analysis/test-phase-cache.c.)
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"

"$B"/tests/tools/gen-recording -o "$T/run.mcz" --streams 16 --rows 3000 --interval-ms 10 \
	--phases >/dev/null || fail "gen-recording"
sum0=$(sha256sum <"$T/run.mcz")
opts=("--report" "--report=json" "--report --phase-penalty 3" "--report=json --phase-penalty 3"
	"--report --phase-penalty 30" "--report=json --phase-penalty 30"
	"--report --phase-penalty 1e5" "--report=json --phase-penalty 1e5")
# each option's report alone, without any cache
for i in "${!opts[@]}"; do
	# shellcheck disable=SC2086
	MCVIEW_PHASE_CACHE=0 "$B"/mcview ${opts[$i]} "$T/run.mcz" >"$T/want.$i" 2>"$T/err" ||
		fail "mcview ${opts[$i]}: $(cat "$T/err")"
	[ -s "$T/want.$i" ] || fail "mcview ${opts[$i]}: empty report"
done
[ "$(sha256sum <"$T/run.mcz")" = "$sum0" ] || fail "a report alone changed the file"

for round in $(seq 1 30); do
	[ $((round % 10)) = 1 ] && rm -rf "$T/cache" # some rounds from nothing, the others cached
	pids=()
	for i in "${!opts[@]}"; do
		# shellcheck disable=SC2086
		"$B"/mcview ${opts[$i]} "$T/run.mcz" >"$T/got.$i" 2>"$T/err.$i" &
		pids+=($!)
	done
	for i in "${!opts[@]}"; do
		wait "${pids[$i]}" || fail "round $round: mcview ${opts[$i]} exited $?: $(cat "$T/err.$i")"
		[ -s "$T/err.$i" ] && fail "round $round: mcview ${opts[$i]} said: $(cat "$T/err.$i")"
		diff <(sed 's/, cached)/)/' "$T/got.$i") "$T/want.$i" >"$T/diff" ||
			fail "round $round: mcview ${opts[$i]}: report not whole: $(head -5 "$T/diff")"
	done
	[ "$(sha256sum <"$T/run.mcz")" = "$sum0" ] || fail "round $round: the recording changed"
done
"$B"/mcz check "$T/run.mcz" | grep -q ': ok:' || fail "mcz check: $("$B"/mcz check "$T/run.mcz")"
n=$(ls "$T/cache/mcz" | grep -c '^phases-')
[ "$n" = 4 ] || fail "$n phase caches, not one per penalty: $(ls "$T/cache/mcz")"
ls "$T/cache/mcz" | grep -v '^phases-[0-9a-f]*$' && fail "temporary files left in the cache folder"
echo "ok: 30 rounds of 8 reports at once: file unchanged, every report whole, 4 caches"

# the second report reads the cache; a damaged cache file is not trusted
"$B"/mcview --report "$T/run.mcz" | head -1 | grep -q ', cached)' || fail "not read from the cache"
for f in "$T"/cache/mcz/phases-*; do printf 'garbage' | dd of="$f" bs=1 seek=30 conv=notrunc 2>/dev/null; done
"$B"/mcview --report "$T/run.mcz" >"$T/dmg" 2>"$T/err" || fail "a damaged cache: $(cat "$T/err")"
head -1 "$T/dmg" | grep -q ', cached)' && fail "a damaged cache file was trusted"
diff "$T/dmg" "$T/want.0" || fail "report with a damaged cache differs"
echo "ok: a damaged cache file is detected again"

# a cache folder that cannot be written: the same report, not a word
if [ "$(id -u)" != 0 ]; then
	rm -rf "$T/cache" && mkdir -p "$T/cache/mcz" && chmod 500 "$T/cache/mcz"
	"$B"/mcview --report "$T/run.mcz" >"$T/ro" 2>"$T/err" || fail "read-only cache folder: exit $?"
	[ -s "$T/err" ] && fail "read-only cache folder said: $(cat "$T/err")"
	diff "$T/ro" "$T/want.0" || fail "read-only cache folder: another report"
	chmod 700 "$T/cache/mcz"
fi
# a file where the cache folder should be (root writes through chmod 500)
rm -rf "$T/cache" && mkdir -p "$T/cache" && echo x >"$T/cache/mcz"
"$B"/mcview --report "$T/run.mcz" >"$T/nodir" 2>"$T/err" || fail "cache folder a file: exit $?"
[ -s "$T/err" ] && fail "cache folder a file said: $(cat "$T/err")"
diff "$T/nodir" "$T/want.0" || fail "cache folder a file: another report"
[ "$(cat "$T/cache/mcz")" = x ] || fail "the file in the cache folder's place was changed"
# no home at all, and a FIFO in a cache file's place
env -u HOME -u XDG_CACHE_HOME "$B"/mcview --report "$T/run.mcz" >"$T/nohome" 2>"$T/err" ||
	fail "no HOME: exit $?"
[ -s "$T/err" ] && fail "no HOME said: $(cat "$T/err")"
diff "$T/nohome" "$T/want.0" || fail "no HOME: another report"
rm -rf "$T/cache" && mkdir -p "$T/cache/mcz"
"$B"/mcview --report "$T/run.mcz" >/dev/null || fail "first report"
for f in "$T"/cache/mcz/phases-*; do rm -f "$f" && mkfifo "$f"; done
timeout 10 "$B"/mcview --report "$T/run.mcz" >"$T/fifo" 2>"$T/err"
rc=$?
[ $rc = 124 ] && fail "mcview blocked on a FIFO in the cache folder"
[ $rc = 0 ] && diff "$T/fifo" "$T/want.0" >/dev/null || fail "FIFO as cache: exit $rc $(cat "$T/err")"
echo "ok: a cache folder read-only, absent or with a FIFO costs the cache only"

[ "$(sha256sum <"$T/run.mcz")" = "$sum0" ] || fail "the recording changed at the end"
echo "ok: readers never write"
