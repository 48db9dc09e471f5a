#!/usr/bin/env bash
# rec-enospc.sh: a full disk ends the recording with one clear message, the
# file stays readable, the command keeps running and its status is mcrec's.
set -u
. "$(dirname "$0")/rec-common.inc"
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
mkdir -p "$T/full"
mount -t tmpfs -o size=2m tmpfs "$T/full" 2>"$T/mnt.err" || { echo "cannot mount tmpfs: $(cat "$T/mnt.err")"; exit 77; }
cleanup_hooks+=("umount '$T/full'")
avail=$(df -k --output=avail "$T/full" | tail -1)
dd if=/dev/zero of="$T/full/pad" bs=1k count=$((avail - 12)) 2>/dev/null
"$MCREC" -i 1ms -o "$T/full/r.mcz" -- sh -c "sleep 5; echo alive > '$T/child-done'; exit 5" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 5 ] || fail "exit status $rc, expected the command's 5"
[ -f "$T/child-done" ] || fail "the command did not run to its end"
[ "$(grep -c 'disk full' "$T/err")" = 1 ] || fail "expected one 'disk full' line"
"$RR" "$T/full/r.mcz" info >"$T/info" || fail "the file does not open"
rows=$(awk '$1 == "rows" { print $2 }' "$T/info")
[ "$rows" -gt 0 ] || fail "no rows readable"
ok "disk full: $rows rows readable, command finished with 5"
