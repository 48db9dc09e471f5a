#!/usr/bin/env bash
# pcp-first-screen.sh: a large PCP archive on the terminal (tmux) with an
# empty cache shows its start first (what was read in MCVIEW_FIRST_MS), the
# status line saying how much, while a process of mcview's reads the whole
# archive into the cache; then the whole is put in place: the screen is the
# archive's whole screen (as --snapshot draws it), a key pressed meanwhile
# (the sort) still holds, and the cache has the entry.  While the whole is
# read, the status line says how far, and what has been read so far is
# shown (the span shown grows).  Quitting while the whole is read leaves no
# process, no temporary file and no cache entry.
# Without a cache (MCZ_NO_CACHE) or with MCVIEW_FIRST_MS=0 the archive is
# read whole before the first screen, as before.
# mcz-test: parallel
set -u
export LC_ALL=C.UTF-8
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
[ -f "$A/20180416.10.00.index" ] || tmux_skip "pcp-testsuite archives not installed"
D=$(mktemp -d /tmp/mcz-e2e-first.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
mkdir -p "$D/tmp"
run() { # MCVIEW_FIRST_MS ARCHIVE [env...]: mcview on the terminal, empty cache
	local ms=$1 ar=$2
	shift 2
	rm -rf "$D/cache" && mkdir -p "$D/cache"
	tmux_start_sh 120 40 "export TMPDIR=$D/tmp XDG_CACHE_HOME=$D/cache MCVIEW_FIRST_MS=$ms $*
$B/mcview --phases off $A/$ar; echo AFTER rc=\$?; sleep 60"
}
# the processes converting for an mcview of this test (its TMPDIR in their
# environment: a child of mcview has it too)
converting() {
	local n=0 p
	for p in $(pgrep -x mcview); do
		grep -qz "TMPDIR=$D/tmp" "/proc/$p/environ" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}

# 1. the start, then the whole (20180102: 717 rows, read in about 0.15 s)
"$B/mcview" --phases off --snapshot 120x40 "$A/20180102" | sed 's/ *$//' >"$D/whole.txt" ||
	tmux_fail "snapshot of the whole archive"
"$B/mcview" --phases off --snapshot 120x40 --keys s "$A/20180102" | sed 's/ *$//' >"$D/by-name.txt" ||
	tmux_fail "snapshot of the whole archive, by name"
run 5 20180102
tmux_wait_for 'Timeline' 60
st=$(tmux_screen | grep -m1 'reading the whole of 20180102') ||
	tmux_fail "no 'reading the whole' on the first screen (first_ms 5)"
[[ $st =~ the\ first\ ([0-9hms ]+)\ of\ ([0-9hms ]+)\ shown ]] || tmux_fail "status: $st"
echo "ok: first screen: $st"
[ "${BASH_REMATCH[1]}" != "${BASH_REMATCH[2]}" ] || tmux_fail "the start is the whole: $st"
tmux_keys s # by name, while the whole is read
tmux_wait_for 'the whole archive is read' 60
tmux_wait_for 'sort:name' 10
tmux_settle
[ -n "$(ls "$D/cache/mcz/"pcp-*.mcz 2>/dev/null)" ] || tmux_fail "no cache entry after the whole was read"
[ "$(converting)" = 1 ] || tmux_fail "$(converting) mcview processes: the converter was not reaped"
# the whole archive's screen: every line but the status line as --snapshot
tmux_screen | head -39 | sed 's/ *$//' >"$D/tui.txt"
head -39 "$D/by-name.txt" | diff - "$D/tui.txt" >"$D/diff" ||
	tmux_fail "the whole, put in place, is not the archive's screen: $(head -20 "$D/diff")"
echo "ok: the whole put in place: the screen of --snapshot; the sort pressed meanwhile kept"
tmux_keys q
tmux_wait_for 'AFTER rc=0' 20
tmux_stop

# 2. quit while the whole is read (20180416.10.00: 3,316 rows, seconds)
run 50 20180416.10.00
tmux_wait_for 'reading the whole of 20180416.10.00' 60
[ "$(converting)" = 2 ] || tmux_fail "expected mcview and its converter, saw $(converting)"
# how far the converter has read, on the status line, growing
pct() { tmux_screen | sed -n 's/.*reading the whole of 20180416\.10\.00: \([0-9]*\)%.*/\1/p' | head -1; }
p1= p2=
for ((i = 0; i < 200; i++)); do
	p1=$(pct)
	[ -n "$p1" ] && break
	sleep 0.05
done
[ -n "$p1" ] || tmux_fail "no percentage read on the status line: $(tmux_screen | tail -1)"
for ((i = 0; i < 200; i++)); do
	p2=$(pct)
	[ -n "$p2" ] && [ "$p2" -gt "$p1" ] && break
	sleep 0.05
done
[ -n "$p2" ] && [ "$p2" -gt "$p1" ] || tmux_fail "the percentage read did not grow: $p1% then ${p2:-none}"
echo "ok: while the whole is read, the status line says how far: $p1% then $p2%"
# what has been read so far is shown as it is read, not only the start:
# the span shown grows before the whole is in place
span() { tmux_screen | sed -n 's/.*reading the whole of 20180416\.10\.00: .*the first \([0-9hms ]*\) of .*/\1/p' | head -1; }
s1=$(span) s2=
for ((i = 0; i < 400; i++)); do
	s2=$(span)
	[ -n "$s2" ] && [ "$s2" != "$s1" ] && break
	sleep 0.05
done
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s2" != "$s1" ] ||
	tmux_fail "the span shown did not grow while the whole was read: '$s1' then '${s2:-none}'"
tmux_expect_not 'is incomplete'
echo "ok: while the whole is read, what is read is shown: the first $s1, then the first $s2"
tmux_keys q
tmux_wait_for 'AFTER rc=0' 20
[ "$(converting)" = 0 ] || tmux_fail "a converter outlived mcview"
[ -z "$(ls -A "$D/tmp")" ] || tmux_fail "left in TMPDIR: $(ls "$D/tmp")"
[ -z "$(ls -A "$D/cache/mcz" 2>/dev/null)" ] || tmux_fail "left in the cache: $(ls "$D/cache/mcz")"
echo "ok: quit while reading: no process, no temporary file, no cache entry left"
tmux_stop

# 3. no cache, or MCVIEW_FIRST_MS=0: the whole before the first screen
for how in "MCZ_NO_CACHE=1" "MCVIEW_FIRST_MS=0"; do
	run 5 20180102 "$how"
	tmux_wait_for 'Timeline' 60
	tmux_settle
	tmux_expect_not 'reading the whole'
	tmux_screen | head -39 | sed 's/ *$//' | diff <(head -39 "$D/whole.txt") - >/dev/null ||
		tmux_fail "$how: the first screen is not the whole archive's"
	tmux_keys q
	tmux_wait_for 'AFTER rc=0' 20
	tmux_stop
	echo "ok: $how: the whole archive on the first screen"
done
echo "pcp-first-screen: ok"
