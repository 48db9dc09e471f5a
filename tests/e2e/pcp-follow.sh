#!/usr/bin/env bash
# pcp-follow.sh: mcview on a PCP archive a real pmlogger is writing (the
# local pmcd, the default pmlogconf configuration, every second), in a real
# terminal (tmux): the archive is followed as it grows, as a recording in
# progress is; the window widens with it, the status line says so, and the
# time axis reaches what pmlogger wrote.  The archive is read behind the
# screen (mcview(1), MCVIEW_FIRST_MS) into a private cache, and each time
# it grew only its new records are, the cache entry continued; quitting
# leaves no process and no temporary file.
# mcz-test: parallel
set -u
export LC_ALL=C.UTF-8
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
. tests/integration/src-common.inc
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
command -v pmlogger >/dev/null && command -v pmlogconf >/dev/null ||
	tmux_skip "pmlogger is not installed (pcp package)"
src_need_pmcd
D=$(mktemp -d /tmp/mcz-e2e-follow.XXXXXX)
plog=
trap '[ -n "$plog" ] && kill $plog 2>/dev/null; tmux_cleanup; rm -rf "$D"' EXIT
mkdir -p "$D/tmp" "$D/cache"
pmlogconf -h local: "$D/cfg" >"$D/pmlogconf.log" 2>&1 || tmux_fail "pmlogconf: $(tail -2 "$D/pmlogconf.log")"
pmlogger -h local: -c "$D/cfg" -t 1 -T 40s -l "$D/pmlogger.log" "$D/arch" &
plog=$!
for _ in $(seq 100); do [ -s "$D/arch.index" ] && break; sleep 0.1; done
sleep 4 # a few samples
[ -s "$D/arch.0" ] || tmux_fail "pmlogger wrote nothing: $(tail -3 "$D/pmlogger.log")"

tmux_start_sh 120 40 "export TMPDIR=$D/tmp XDG_CACHE_HOME=$D/cache
$B/mcview --phases off $D/arch; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline' 60
tmux_wait_whole
w0=$(tmux_window_s)
echo "first screen: win ${w0} s"
# the archive grows: read again, shown wider (pmlogger writes every second)
tmux_wait_for 'following the archive: it grew' 30
tmux_wait_gone 'reading it again' 30
sleep 6
tmux_wait_for 'following the archive: it grew, its new records are in' 30
w1=$(tmux_window_s)
echo "later: win ${w1} s"
awk -v a="$w0" -v b="$w1" 'BEGIN { exit !(b >= a + 4) }' ||
	tmux_fail "the window did not grow with the archive: ${w0} s, then ${w1} s"
# the axis reaches what pmlogger has written, within two of its samples and
# the few seconds between looks
kill $plog 2>/dev/null
wait $plog 2>/dev/null
plog=
sleep 8 # the last look
tmux_settle
w2=$(tmux_window_s)
"$B/mcz" import -q "$D/arch" -o "$D/all.mcz" || tmux_fail "mcz import of the archive"
span=$("$B/mcz" info "$D/all.mcz" | sed -n 's/^recorded .*Z, \([0-9.]*\) s .*/\1/p')
[ -n "$span" ] || tmux_fail "no span in mcz info"
echo "pmlogger stopped: win ${w2} s; the archive spans ${span} s"
awk -v w="$w2" -v s="$span" 'BEGIN { exit !(w >= s - 2.5 && w <= s + 2.5) }' ||
	tmux_fail "the window (${w2} s) is not the whole archive (${span} s)"
tmux_keys q
tmux_wait_for 'AFTER rc=0' 20
# each look that found more records continued the cache entry, rather than
# converting the archive again: new blocks, a new index and trailer after
# the old ones (pcp_import_extend), so the entry holds several trailers
e=$(ls "$D"/cache/mcz/pcp-*.mcz)
trailers=$(grep -a -o 'mczTRAIL' "$e" | wc -l)
[ "$trailers" -ge 2 ] || tmux_fail "the cache entry was made again at each look ($trailers trailer)"
echo "cache entry: $trailers trailers (continued $((trailers - 1)) times)"
[ -z "$(ls -A "$D/tmp")" ] || tmux_fail "left in TMPDIR: $(ls "$D/tmp")"
n=0
for p in $(pgrep -x mcview); do
	grep -qz "TMPDIR=$D/tmp" "/proc/$p/environ" 2>/dev/null && n=$((n + 1))
done
[ "$n" = 0 ] || tmux_fail "$n mcview processes outlived mcview"
echo "pcp-follow: ok (win ${w0} s, then ${w1} s, then the archive's ${w2} s)"
