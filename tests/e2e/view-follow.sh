#!/usr/bin/env bash
# view-follow.sh: mcview follows a recording in progress (as `less +F`), in a
# real terminal (tmux) beside a real mcrec recording the phased sample:
#   - the tab bar says "LIVE following" and the window grows by the time
#     that passes (within a second: new data is readable <= 1 s after it
#     is sampled);
#   - zoomed in away from the end, it says "LIVE paused" and the window
#     stays put while the file grows; F goes back to the end and follows;
#   - once mcrec finalises the file, "LIVE" goes and the whole run is there.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
for p in mcview mcrec mcz samples/phased; do
	[ -x "$B/$p" ] || tmux_fail "no $B/$p (make first)"
done
D=$(mktemp -d /tmp/mcz-e2e-follow.XXXXXX)
rec=
trap '[ -n "$rec" ] && kill "$rec" 2>/dev/null; tmux_cleanup; rm -rf "$D"' EXIT

"$B/mcrec" -q -i 100ms -o "$D/live.mcz" -- "$B/samples/phased" -q \
	--phases triad:2,gemm:2,idle:2,triad:2,gemm:2 >"$D/rec.out" 2>&1 &
rec=$!
# rows readable while it records (the recorder makes each second findable)
for _ in $(seq 50); do
	n=$("$B/mcz" dump --csv "$D/live.mcz" 2>/dev/null | wc -l)
	[ "${n:-0}" -gt 5 ] && break
	sleep 0.1
done
[ "${n:-0}" -gt 5 ] || tmux_fail "no rows readable 5 s into the recording ($n lines)"

tmux_start 120 30 "$B/mcview" "$D/live.mcz"
tmux_wait_for 'LIVE following'

now() { date +%s.%N; }
w1=$(tmux_window_s) t1=$(now)
sleep 3
w2=$(tmux_window_s) t2=$(now)
echo "following: window ${w1}s, then ${w2}s after $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }') s"
awk -v w1="$w1" -v w2="$w2" -v t1="$t1" -v t2="$t2" \
	'BEGIN { g = w2 - w1; e = t2 - t1; exit !(g >= e - 1.0 && g <= e + 1.0) }' ||
	tmux_fail "the window grew from ${w1}s to ${w2}s in $(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }') s"

# zoomed in (around the cursor, mid-window): paused, the window stays
tmux_keys + +
tmux_wait_for 'LIVE paused'
w3=$(tmux_window_s)
sleep 2
w4=$(tmux_window_s)
tmux_expect 'LIVE paused'
[ "$w3" = "$w4" ] || tmux_fail "a paused window moved: ${w3}s -> ${w4}s"
# F: back to the end, following again
tmux_keys F
tmux_wait_for 'LIVE following'

# the recording ends: mcrec finalises the file, LIVE goes, the run is whole
wait "$rec"
rc=$? rec=
[ $rc -eq 0 ] || tmux_fail "mcrec exited $rc: $(cat "$D/rec.out")"
for _ in $(seq 100); do
	tmux_screen | grep -q 'LIVE' || break
	sleep 0.1
done
tmux_expect_not 'LIVE'
total=$("$B/mcz" info "$D/live.mcz" | sed -n 's/^recorded .*, \([0-9.]*\) s (.*/\1/p')
tmux_keys 0
tmux_settle
w5=$(tmux_window_s)
echo "finished: ${total}s recorded, window after 0: ${w5}s"
awk -v a="$w5" -v b="$total" 'BEGIN { d = a - b; exit !(d < 0.2 && d > -0.2) }' ||
	tmux_fail "after the end the whole run is ${w5}s on screen, ${total}s in the file"
tmux_keys q
tmux_wait_exit >/dev/null
echo "ok"
