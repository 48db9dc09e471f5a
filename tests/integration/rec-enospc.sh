#!/usr/bin/env bash
# rec-enospc.sh: a full disk (a real, small tmpfs) while recording and while
# viewing.
#  1. The disk fills mid-run: one clear message, the command keeps running
#     and its status (5) is mcrec's; the file is closed or INCOMPLETE at a
#     block boundary (mcz check exits 0 or 3, never 1: a write cut part-way
#     is cut back to the last whole block); mcrec's closing line counts the
#     rows the file holds, and loses at most the last second (rows reach the
#     file every 0.5 s as PART blocks while a chunk is 5 s; 8 KiB free and
#     8 s of 5 ms rows fill the disk mid-run, at about 4.5 s).
#  2. The same with a command that succeeds: mcrec exits 3 (the recording
#     was cut short; mcrec.1 EXIT STATUS), not the command's 0.  1 and 2
#     run side by side, each on a tmpfs of its own (they sleep, and the
#     disk fills by the bytes written, not by the time taken).
#  3. Viewing a good file whose cache folder is on a full disk: the report
#     is printed, nothing said of the cache, the file byte for byte as it
#     was; with room, the phase cache is in the folder, the file still as
#     it was (readers never write into a recording).
# mcz-test: parallel (the disks fill by the bytes written, not by the time)
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
MCVIEW=$B/mcview
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
for d in full full0; do
	mkdir -p "$T/$d"
	mount -t tmpfs -o size=2m tmpfs "$T/$d" 2>"$T/mnt.err" || { echo "cannot mount tmpfs: $(cat "$T/mnt.err")"; exit 77; }
	cleanup_hooks+=("umount '$T/$d'")
done

# fill DIR FREE_KIB: leave that much room on the tmpfs at DIR
fill() {
	rm -f "$1/pad"
	local avail
	avail=$(df -k --output=avail "$1" | tail -1)
	dd if=/dev/zero of="$1/pad" bs=1k count=$((avail - $2)) 2>/dev/null
}

# record DIR STATUS SECONDS: one recording onto the tmpfs at DIR with 8 KiB
# free; its files are DIR.* beside it
record() {
	local d=$1 st=$2 secs=$3 f=$1/r$2.mcz o=$1
	rm -f "$d/"r*.mcz* "$o.child-done"
	fill "$d" 8
	"$MCREC" -i 5ms -o "$f" -- sh -c "sleep $secs; echo alive > '$o.child-done'; exit $st" 2>"$o.err"
	rc=$?
	cat "$o.err"
	[ -f "$o.child-done" ] || fail "the command did not run to its end"
	[ "$(grep -c 'disk full' "$o.err")" = 1 ] || fail "expected one 'disk full' line"
	"$MCZ" check "$f" >"$o.check" 2>&1
	crc=$?
	cat "$o.check"
	[ $crc = 0 ] || [ $crc = 3 ] || fail "mcz check exits $crc: the file is damaged (a block cut part-way)"
	grep -q 'DAMAGED' "$o.check" && fail "mcz check calls the file damaged"
	"$RR" "$f" info >"$o.info" || fail "the file does not open"
	rows=$(awk '$1 == "rows" { print $2 }' "$o.info")
	tl=$(awk '$1 == "t_last" { printf "%.3f", $2 / 1e9 }' "$o.info")
	checkrows=$(sed -n 's/.* \([0-9]*\) rows.*/\1/p' "$o.check" | head -1)
	stop=$(sed -n 's/.*disk full; recording stopped at \([0-9.]*\) s.*/\1/p' "$o.err")
	said=$(sed -n 's/.*: \([0-9]*\) samples x .*/\1/p' "$o.err")
	taken=$(sed -n 's/.* (of \([0-9]*\) taken: the rest could not be written).*/\1/p' "$o.err")
	# the disk may fill only when the last chunk is written, at close: the
	# recording then ran to its end
	[ -z "$stop" ] && grep -q 'disk full while closing' "$o.err" &&
		stop=$(sed -n 's/.* samples x .* streams.* in \([0-9.]*\) s,.*/\1/p' "$o.err")
	[ -n "$stop" ] && [ -n "$said" ] && [ -n "$taken" ] ||
		fail "no stop time, row count or samples taken in mcrec's messages"
	[ "$rows" -gt 0 ] || fail "no rows readable"
	# the closing line counts what the file holds, as a reader and mcz check do
	[ "$said" = "$rows" ] || fail "closing line says $said samples, the file holds $rows"
	[ "$checkrows" = "$rows" ] || fail "mcz check counts $checkrows rows, the reader $rows"
	[ "$taken" -gt "$rows" ] || fail "$taken taken, $rows kept: the closing line should not say so"
	# lost: the time from the last row kept to the stop (printed to 0.1 s),
	# and the samples taken but not in the file (200 at 5 ms = 1 s)
	lost=$(awk -v s="$stop" -v t="$tl" 'BEGIN { printf "%.3f", s - t }')
	between "$lost" -0.1 1.05 || fail "recording stopped at $stop s, last row kept at $tl s: $lost s lost"
	stopped_rows=$(awk -v s="$stop" 'BEGIN { printf "%d", s / 0.005 }')
	[ $((stopped_rows - rows)) -le 200 ] || fail "stopped at $stop s ($stopped_rows rows), $rows kept: more than 1 s lost"
}

# each in a subshell of its own, its output kept apart and printed in order
(
	record "$T/full" 5 8
	[ $rc = 5 ] || fail "exit status $rc, expected the command's 5"
	ok "disk full at $stop s: $rows rows in the file as the closing line says ($taken taken), up to $tl s ($lost s lost); mcz check exit $crc; command's 5 kept"
) >"$T/case1.out" 2>&1 &
c1=$!
(
	record "$T/full0" 0 8
	[ $rc = 3 ] || fail "exit status $rc: a recording cut short of a command that succeeded should exit 3"
	ok "command exited 0, recording cut at $stop s: mcrec exits 3; $rows rows as the closing line says ($taken taken); mcz check exit $crc"
) >"$T/case2.out" 2>&1 &
c2=$!
wait $c1; r1=$?
wait $c2; r2=$?
cat "$T/case1.out" "$T/case2.out"
[ $r1 = 0 ] && [ $r2 = 0 ] || fail "a full disk while recording (above)"

# 3. a good file, viewed with its cache folder on the full disk.
rm -f "$T/full/"r*.mcz*
cp "$(dirname "$0")/fixtures/good-4k.mcz" "$T/full/good.mcz"
cp "$T/full/good.mcz" "$T/good.orig"
[ $(($(stat -c %s "$T/good.orig") % 4096)) -gt 4032 ] || fail "good-4k.mcz no longer ends near a page end"
rm -f "$T/full/pad"
cat /dev/zero >"$T/full/pad" 2>/dev/null
mkdir -p "$T/full/cache/mcz" 2>/dev/null
export XDG_CACHE_HOME=$T/full/cache
MCVIEW_PHASE_CACHE=1 "$MCVIEW" --report "$T/full/good.mcz" >"$T/report" 2>"$T/verr"
vrc=$?
cat "$T/verr"
[ $vrc = 0 ] || fail "mcview --report exits $vrc on a good file on a full disk"
[ -s "$T/verr" ] && fail "a full cache folder was worth a message: $(cat "$T/verr")"
grep -q '^A  ' "$T/report" || fail "no phase table: $(head -3 "$T/report")"
cmp "$T/full/good.mcz" "$T/good.orig" || fail "the file changed on a full disk"
"$MCZ" check "$T/full/good.mcz" >"$T/check" || fail "mcz check: $(cat "$T/check")"
grep -q ': ok:' "$T/check" || fail "mcz check does not say ok: $(cat "$T/check")"
# and with room, the cache is written (the write was tried above)
rm -f "$T/full/pad" "$T/full/pad2"
"$MCVIEW" --report "$T/full/good.mcz" >/dev/null 2>&1 || fail "mcview --report with room"
ls "$T/full/cache/mcz" | grep -q '^phases-' ||
	fail "with room, no phase cache in the folder: the full-disk case tested nothing"
cmp "$T/full/good.mcz" "$T/good.orig" || fail "viewing with room changed the file"
ok "a good file viewed on a full disk: report printed, file unchanged, mcz check ok"
