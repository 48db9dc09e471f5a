#!/usr/bin/env bash
# damaged-files.sh: what survives damage, as a user meets it (issue: damaged
# files and faults).  On a real recording (mcrec, 1 s chunks) with one byte
# flipped inside its second chunk:
#   - mcz check says DAMAGED (exit 1) and counts the rows still readable;
#   - mcz dump --csv prints every one of those rows, then names the damaged
#     span on stderr and exits 1;
#   - mcz info says what it verified (index, not the chunks);
#   - mcview --snapshot draws the intact rows, says "damaged" in its status
#     line and marks the span on the time axis; --report warns on stderr;
#   - viewing writes nothing into the file (its size and bytes unchanged),
#     damaged or not: the phase cache is in the user's cache folder.
# And: a second mcrec -o of the same name keeps the first as NAME.old
# (perf's convention); --force overwrites without keeping it.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
MCVIEW=$B/mcview

"$MCREC" -q -i 20ms --chunk 1s -o "$T/r.mcz" -- "$WORK" --hold 5 || fail "mcrec failed"
"$MCZ" check "$T/r.mcz" >"$T/chk0" || fail "the fresh recording does not check: $(cat "$T/chk0")"
all=$(sed -n 's/.* \([0-9]*\) rows, .*/\1/p' "$T/chk0")
# the third chunk's block offset, from the index as rec-read lists it
off=$("$RR" "$T/r.mcz" chunks | awk 'NR == 3 { print $2 }')
[ -n "$off" ] || fail "no third chunk in: $("$RR" "$T/r.mcz" chunks)"
cp "$T/r.mcz" "$T/d.mcz"
# flip a byte 40 bytes into the chunk's payload
b=$(od -An -tu1 -j $((off + 40)) -N1 "$T/d.mcz" | tr -d ' ')
printf "$(printf '\\%03o' $(((b + 1) % 256)))" | dd of="$T/d.mcz" bs=1 seek=$((off + 40)) conv=notrunc status=none
sum0=$(md5sum <"$T/d.mcz")

"$MCZ" check "$T/d.mcz" >"$T/chk"
[ $? = 1 ] && grep -q DAMAGED "$T/chk" || fail "mcz check: $(cat "$T/chk")"
good=$(sed -n 's/.*readable: [0-9]* chunks, \([0-9]*\) rows.*/\1/p' "$T/chk")
echo "recording: $all rows; after the flip mcz check reads $good"
[ "$good" -gt 0 ] && [ "$good" -lt "$all" ] || fail "readable rows $good of $all"

"$MCZ" dump --csv "$T/d.mcz" >"$T/csv" 2>"$T/err"
rc=$?
rows=$(($(wc -l <"$T/csv") - 1))
echo "mcz dump: $rows rows, exit $rc: $(cat "$T/err")"
[ $rc = 1 ] || fail "mcz dump of a damaged file exited $rc"
[ "$rows" = "$good" ] || fail "mcz dump printed $rows rows, mcz check reads $good"
grep -q 'damaged chunk: rows from [0-9.]* s to [0-9.]* s not printed' "$T/err" || fail "dump's note: $(cat "$T/err")"

"$MCZ" info "$T/d.mcz" >"$T/info" || fail "mcz info"
grep -q '^index      ok (chunks not checked' "$T/info" || fail "mcz info: $(grep ^index "$T/info")"

"$MCVIEW" --snapshot 120x30 "$T/d.mcz" >"$T/snap" || fail "mcview --snapshot exited $?"
tail -n 1 "$T/snap" | grep -qE 'warning: d.mcz: 1 damaged chunk|warning: d.mcz is damaged' || fail "status line: $(tail -n 1 "$T/snap")"
sed -n 2p "$T/snap" | grep -q '×' || fail "no damaged span on the time axis: $(sed -n 2p "$T/snap")"
# intact rows drawn: a row's sparkline has braille dots outside the span
drawn=$(sed -n '4,30p' "$T/snap" | grep -c '⣀')
[ "$drawn" -ge 3 ] || fail "intact rows not drawn: $(cat "$T/snap")"
"$MCVIEW" --report "$T/d.mcz" >/dev/null 2>"$T/rerr" || fail "--report exited $?"
grep -q 'damaged chunk' "$T/rerr" || fail "--report says nothing of the damage: $(cat "$T/rerr")"
[ "$(md5sum <"$T/d.mcz")" = "$sum0" ] || fail "viewing changed the damaged file"
# a good file is not written into either: its phases go to the cache folder
export XDG_CACHE_HOME=$T/cache
g0=$(md5sum <"$T/r.mcz")
"$MCVIEW" --report "$T/r.mcz" >/dev/null || fail "--report of the good file"
[ "$(md5sum <"$T/r.mcz")" = "$g0" ] || fail "viewing changed the good file"
ls "$T/cache/mcz" | grep -q '^phases-' || fail "no phase cache in $T/cache/mcz"
"$MCZ" check "$T/r.mcz" >/dev/null || fail "the good file fails mcz check after viewing"

# -o of an existing recording: kept as .old; --force overwrites
"$MCREC" -i 50ms -o "$T/same.mcz" -- true 2>/dev/null || fail "first mcrec"
"$MCREC" -i 50ms -o "$T/same.mcz" -- sleep 0.2 2>"$T/e2" || fail "second mcrec"
grep -q "kept the earlier $T/same.mcz as $T/same.mcz.old" "$T/e2" || fail "second mcrec said: $(cat "$T/e2")"
"$MCZ" info "$T/same.mcz.old" | grep -q '^command    true' || fail "the .old file is not the first recording"
"$MCZ" info "$T/same.mcz" | grep -q '^command    sleep 0.2' || fail "the new file is not the second recording"
rm "$T/same.mcz.old"
"$MCREC" -q --force -i 50ms -o "$T/same.mcz" -- true || fail "mcrec --force"
[ ! -e "$T/same.mcz.old" ] || fail "--force kept an .old file"
"$MCZ" info "$T/same.mcz" | grep -q '^command    true' || fail "--force did not overwrite"
echo "damaged-files: all checks passed"
