#!/usr/bin/env bash
# rec-enospc.sh: a full disk ends the recording with one clear message, the
# file stays readable and loses at most the last second before the disk
# filled (rows reach the file every 0.5 s as PART blocks, while a chunk is
# 5 s; 8 KiB free and 15 s of 5 ms rows fill the disk mid-run: without PART
# blocks the chunk written at 10 s failed and 5 s were lost), the command
# keeps running and its status is mcrec's.
set -u
. "$(dirname "$0")/rec-common.inc"
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
mkdir -p "$T/full"
mount -t tmpfs -o size=2m tmpfs "$T/full" 2>"$T/mnt.err" || { echo "cannot mount tmpfs: $(cat "$T/mnt.err")"; exit 77; }
cleanup_hooks+=("umount '$T/full'")
avail=$(df -k --output=avail "$T/full" | tail -1)
dd if=/dev/zero of="$T/full/pad" bs=1k count=$((avail - 8)) 2>/dev/null
"$MCREC" -i 5ms -o "$T/full/r.mcz" -- sh -c "sleep 15; echo alive > '$T/child-done'; exit 5" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 5 ] || fail "exit status $rc, expected the command's 5"
[ -f "$T/child-done" ] || fail "the command did not run to its end"
[ "$(grep -c 'disk full' "$T/err")" = 1 ] || fail "expected one 'disk full' line"
"$RR" "$T/full/r.mcz" info >"$T/info" || fail "the file does not open"
rows=$(awk '$1 == "rows" { print $2 }' "$T/info")
tl=$(awk '$1 == "t_last" { printf "%.3f", $2 / 1e9 }' "$T/info")
stop=$(sed -n 's/.*disk full; recording stopped at \([0-9.]*\) s.*/\1/p' "$T/err")
samples=$(sed -n 's/.*: \([0-9]*\) samples x .*/\1/p' "$T/err")
# the disk may fill only when the last chunk is written, at close: the
# recording then ran to its end
[ -z "$stop" ] && grep -q 'disk full while closing' "$T/err" &&
	stop=$(sed -n 's/.* samples x .* streams in \([0-9.]*\) s,.*/\1/p' "$T/err")
[ -n "$stop" ] && [ -n "$samples" ] || fail "no stop time or sample count in mcrec's messages"
[ "$rows" -gt 0 ] || fail "no rows readable"
# lost: the time from the last row kept to the stop (printed to 0.1 s), and
# the samples taken but not in the file (200 at 5 ms = 1 s)
lost=$(awk -v s="$stop" -v t="$tl" 'BEGIN { printf "%.3f", s - t }')
between "$lost" -0.1 1.05 || fail "recording stopped at $stop s, last row kept at $tl s: $lost s lost"
[ $((samples - rows)) -le 200 ] || fail "$samples samples taken, $rows kept: more than 1 s lost"
ok "disk full at $stop s: $rows of $samples rows readable, up to $tl s ($lost s lost), command finished with 5"
