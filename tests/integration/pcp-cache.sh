#!/usr/bin/env bash
# pcp-cache.sh: mcview keeps what it converted from a PCP archive in the
# user's cache folder ($XDG_CACHE_HOME/mcz/pcp-*.mcz) and opens it again
# from there (format/pcp/pcp-cache.c; SPEC-PCP.md "The viewer's cache").
#  1. First open: one entry made; the screen is the one drawn from the
#     conversion.  Second open: the same screen, from the same entry (its
#     inode kept, its time of use moved on: it was read, not made again).
#     The entry's recording (after its head) holds the values `mcz import`
#     stores, row for row (mcz dump --csv): converted quickly for viewing,
#     not differently.
#  2. The archive grows (a longer extract under the same name), then is
#     replaced by another archive: each time the entry is made again (a new
#     inode) and the screen is the new archive's, as drawn without a cache.
#  3. Two mcview opening one archive at once, with an empty cache: both
#     draw the right screen; one whole entry is left, used by a third.
#  4. A damaged entry (a byte changed in its recording, or cut short) is not
#     trusted: the right screen, the entry made again.
#  5. A read-only cache folder, and a full one (a 64 KiB tmpfs): the screen
#     as always, and one note on its last line saying the entry was not kept.
#  6. --cache-size: a bound smaller than two entries keeps the one used last;
#     --cache-size 0 keeps nothing.
#  7. The cache touches only what it made (issue 43, finding 9): beside its
#     entries, a user's pcp-run1.mcz, a recording named as an entry, a
#     pcp-*.mcz.* two hours old and a symlink named as an entry survive
#     --cache-size's clean-up, while its own old temporary goes; a cache
#     folder that is a symbolic link (to a data folder) is not followed:
#     the view as always, one note, nothing written or removed there; a
#     byte of the archive changed past its first 64 bytes with the mtime
#     set back: the entry is not trusted (made again, the new screen).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
A=/var/lib/pcp/testsuite/archives
[ -f "$A/20180102.meta" ] || { echo "skip: pcp-testsuite archives not installed"; exit 77; }
command -v pmlogextract >/dev/null || { echo "skip: pmlogextract (pcp) not installed"; exit 77; }
V=$B/mcview
C=$XDG_CACHE_HOME/mcz
mounts=()
trap 'for m in "${mounts[@]}"; do umount "$m"; done; rm -rf "$T"' EXIT

snap() { "$V" -q --snapshot 120x30 "$@"; }
entries() { ls "$C" 2>/dev/null | grep -c '^pcp-.*\.mcz$'; }
inode() { stat -c %i "$C"/pcp-*.mcz; }
# same SCREEN WANT: the screens alike but for the head line (the file's name)
same() { cmp -s <(tail -n +2 "$1") <(tail -n +2 "$2"); }

# the archives, copied so that they can grow and be replaced
mkdir -p "$T/a"
pmlogextract -T '@ Mon Jan  1 13:40:00 2018' "$A/20180102" "$T/short" || fail "pmlogextract"
cp "$A"/20180102.* "$T/"
for f in "$T"/short.*; do cp "$f" "$T/a/x.${f##*/short.}"; done
MCZ_NO_CACHE=1 snap "$T/short" >"$T/want-short" || fail "snapshot without cache"
MCZ_NO_CACHE=1 snap "$T/20180102" >"$T/want-long" || fail "snapshot without cache"
MCZ_NO_CACHE=1 snap "$A/pcp-zeroconf" >"$T/want-zc" || fail "snapshot without cache"
cmp -s "$T/want-short" "$T/want-long" && fail "the two archives draw the same screen"
[ -e "$C" ] && [ "$(entries)" != 0 ] && fail "MCZ_NO_CACHE=1 made an entry"

# 1. made, then used
snap "$T/a/x" >"$T/s1" || fail "first open"
same "$T/s1" "$T/want-short" || fail "first open: not the archive's screen"
[ "$(entries)" = 1 ] || fail "first open: $(entries) entries, want 1"
ino=$(inode)
touch -d '2001-01-01' "$C"/pcp-*.mcz
snap "$T/a/x" >"$T/s2" || fail "second open"
same "$T/s2" "$T/want-short" || fail "second open: not the archive's screen"
[ "$(inode)" = "$ino" ] || fail "second open: the entry was made again"
[ "$(stat -c %Y "$C"/pcp-*.mcz)" -gt 1000000000 ] || fail "second open: the entry was not used"
[ "$(stat -c %Y "$C"/pcp-*.mcz)" -gt $(($(date +%s) - 600)) ] || fail "second open: the entry's time of use not moved on"

# the recording in the entry: after its head (length at bytes 8..11)
e=$(ls "$C"/pcp-*.mcz)
h=$(od -An -tu4 -j8 -N4 "$e" | tr -d ' ')
tail -c +$((h + 1)) "$e" >"$T/entry.mcz"
"$B/mcz" check "$T/entry.mcz" >/dev/null || fail "the entry's recording does not pass mcz check"
"$B/mcz" import -q "$T/a/x" -o "$T/imp.mcz" || fail "mcz import"
"$B/mcz" dump --csv "$T/entry.mcz" >"$T/entry.csv" || fail "dump of the entry"
"$B/mcz" dump --csv "$T/imp.mcz" >"$T/imp.csv" || fail "dump of the import"
[ "$(wc -l <"$T/imp.csv")" -gt 20 ] || fail "the import dumps $(wc -l <"$T/imp.csv") lines"
cmp -s "$T/entry.csv" "$T/imp.csv" || fail "the entry's values differ from mcz import's"

# 2. the archive grows, then is replaced
for f in "$T"/20180102.*; do cp "$f" "$T/a/x.${f##*/20180102.}"; done
snap "$T/a/x" >"$T/s3" || fail "grown archive"
same "$T/s3" "$T/want-long" || fail "grown archive: the old screen (cache not made again)"
[ "$(entries)" = 1 ] || fail "grown archive: $(entries) entries, want 1 (the old one replaced)"
[ "$(inode)" != "$ino" ] || fail "grown archive: the entry was not made again"
ino=$(inode)
snap "$T/a/x" >"$T/o" && same "$T/o" "$T/want-long" || fail "grown archive, second open"
[ "$(inode)" = "$ino" ] || fail "grown archive, second open: made again"
rm -f "$T"/a/x.*
xz -dc "$A/pcp-zeroconf.0.xz" >"$T/a/x.0"
cp "$A/pcp-zeroconf.index" "$T/a/x.index"
cp "$A/pcp-zeroconf.meta" "$T/a/x.meta"
snap "$T/a/x" >"$T/s4" || fail "replaced archive"
same "$T/s4" "$T/want-zc" || fail "replaced archive: not the new archive's screen"
[ "$(inode)" != "$ino" ] || fail "replaced archive: the entry was not made again"

# 3. two at once on an empty cache
rm -rf "$C"
snap "$T/20180102" >"$T/c1" &
p1=$!
snap "$T/20180102" >"$T/c2" &
p2=$!
wait $p1 || fail "concurrent open 1"
wait $p2 || fail "concurrent open 2"
same "$T/c1" "$T/want-long" || fail "concurrent open 1: wrong screen"
same "$T/c2" "$T/want-long" || fail "concurrent open 2: wrong screen"
[ "$(entries)" = 1 ] || fail "concurrent opens: $(entries) entries, want 1"
ls "$C" | grep -q '\.mcz\.' && fail "concurrent opens: a temporary file left: $(ls "$C")"
ino=$(inode)
snap "$T/20180102" >"$T/o" && same "$T/o" "$T/want-long" || fail "after concurrent opens: wrong screen"
[ "$(inode)" = "$ino" ] || fail "after concurrent opens: the entry was not whole (made again)"

# 4. damaged entries
e=$(ls "$C"/pcp-*.mcz)
size=$(stat -c %s "$e")
printf '\xff' | dd of="$e" bs=1 seek=$((size - 5000)) conv=notrunc status=none
snap "$T/20180102" >"$T/o" && same "$T/o" "$T/want-long" || fail "a byte changed: wrong screen"
[ "$(inode)" != "$ino" ] || fail "a byte changed: the entry was trusted"
ino=$(inode)
truncate -s $((size / 2)) "$C"/pcp-*.mcz
snap "$T/20180102" >"$T/o" && same "$T/o" "$T/want-long" || fail "cut short: wrong screen"
[ "$(inode)" != "$ino" ] || fail "cut short: the entry was trusted"
[ "$(stat -c %s "$C"/pcp-*.mcz)" = "$size" ] || fail "cut short: the entry not made whole again"

# 5. a read-only and a full cache folder: one note, the view as always
if [ "$(id -u)" = 0 ]; then
	for kind in ro full; do
		mkdir -p "$T/$kind"
		mount -t tmpfs -o size=64k tmpfs "$T/$kind" 2>"$T/mnt.err" ||
			{ echo "cannot mount tmpfs: $(cat "$T/mnt.err")"; exit 77; }
		mounts+=("$T/$kind")
		mkdir -m 0700 "$T/$kind/mcz"
		[ $kind = ro ] && mount -o remount,ro "$T/$kind"
		XDG_CACHE_HOME=$T/$kind snap "$T/20180102" >"$T/n-$kind" || fail "$kind cache: no screen"
		head -n -1 "$T/n-$kind" | cmp -s - <(head -n -1 "$T/want-long") ||
			fail "$kind cache: the screen differs"
		want="note: not kept in the cache: .*$([ $kind = ro ] && echo 'Read-only file system' || echo 'No space left on device')"
		tail -1 "$T/n-$kind" | grep -q "$want" || fail "$kind cache: no note: $(tail -1 "$T/n-$kind")"
		[ "$(grep -c 'cache' "$T/n-$kind")" = 1 ] || fail "$kind cache: more than one note"
		[ -z "$(ls "$T/$kind/mcz")" ] || fail "$kind cache: left $(ls "$T/$kind/mcz")"
	done
else
	echo "not root: the read-only and full cache folders (tmpfs) not tried"
fi

# 6. the bound: two entries do not fit in the size of one; the one used last stays
rm -rf "$C"
snap "$T/20180102" >/dev/null
one=$(stat -c %s "$C"/pcp-*.mcz)
long=$(ls "$C"/pcp-*.mcz)
sleep 0.05
"$V" -q --cache-size "$one" --snapshot 120x30 "$T/short" >"$T/b1" || fail "bounded"
same "$T/b1" "$T/want-short" || fail "bounded: wrong screen"
[ "$(entries)" = 1 ] || fail "bounded: $(entries) entries, want 1"
[ -e "$long" ] && fail "bounded: the entry used least recently was kept"
rm -rf "$C"
"$V" -q --cache-size 0 --snapshot 120x30 "$T/short" >"$T/o" && same "$T/o" "$T/want-short" || fail "--cache-size 0: wrong screen"
[ "$(entries)" = 0 ] || fail "--cache-size 0: an entry was made"
"$V" --cache-size 1X --snapshot 120x30 "$T/short" >/dev/null 2>"$T/err" && fail "--cache-size 1X accepted"
grep -q "cache-size" "$T/err" || fail "--cache-size 1X: $(cat "$T/err")"

# 7. only its own
rm -rf "$C"
snap "$T/20180102" >/dev/null
"$B/tests/tools/gen-recording" -o "$T/user.mcz" --streams 2 --rows 50 >/dev/null || fail "gen-recording"
cp "$T/user.mcz" "$C/pcp-run1.mcz"
cp "$T/user.mcz" "$C/pcp-0123456789abcdef.mcz"
cp "$T/user.mcz" "$C/pcp-run1.mcz.backup"
touch -d '2 hours ago' "$C/pcp-run1.mcz.backup" "$C/pcp-run1.mcz" "$C/pcp-0123456789abcdef.mcz"
echo precious >"$T/victim"
ln -s "$T/victim" "$C/pcp-fedcba9876543210.mcz"
e=$(ls "$C"/pcp-????????????????.mcz | grep -v -e 0123456789abcdef -e fedcba9876543210)
cp "$e" "$C/${e##*/}.Ab12Cd"
touch -d '2 hours ago' "$C/${e##*/}.Ab12Cd" "$e"
"$V" -q --cache-size "$(stat -c %s "$e")" --snapshot 120x30 "$T/short" >"$T/o" && same "$T/o" "$T/want-short" || fail "clean-up: wrong screen"
for f in pcp-run1.mcz pcp-0123456789abcdef.mcz pcp-run1.mcz.backup; do
	cmp -s "$C/$f" "$T/user.mcz" || fail "clean-up removed or changed a file it did not make: $f"
done
[ -L "$C/pcp-fedcba9876543210.mcz" ] && [ "$(cat "$T/victim")" = precious ] || fail "clean-up: the symlink or its target"
[ -e "$C/${e##*/}.Ab12Cd" ] && fail "clean-up: its own old temporary kept"
[ -e "$e" ] && fail "clean-up: its own entry kept past the bound"
mkdir -p "$T/data" "$T/lc"
cp "$T/user.mcz" "$T/data/pcp-run1.mcz"
ln -s "$T/data" "$T/lc/mcz"
ls -l "$T/data" >"$T/data.before"
XDG_CACHE_HOME=$T/lc "$V" -q --cache-size 200K --snapshot 120x30 "$T/short" >"$T/o" || fail "symlinked cache: no screen"
head -n -1 "$T/o" | cmp -s - <(head -n -1 "$T/want-short") || fail "symlinked cache: the screen differs"
tail -1 "$T/o" | grep -q "not kept in the cache: a symbolic link, not followed" || fail "symlinked cache: no note: $(tail -1 "$T/o")"
ls -l "$T/data" | cmp -s - "$T/data.before" || fail "symlinked cache: the data folder changed: $(ls "$T/data")"
cmp -s "$T/data/pcp-run1.mcz" "$T/user.mcz" || fail "symlinked cache: the user's file changed"
# a byte past the head changed, the mtime set back
rm -rf "$C"
cp "$T"/short.* "$T/a/"
rm -f "$T"/a/x.*
snap "$T/a/short" >/dev/null
ino=$(inode)
cp "$T/a/short.0" "$T/short0.was"
printf '\x07' | dd of="$T/a/short.0" bs=1 seek=184 conv=notrunc status=none
touch -r "$T/short0.was" "$T/a/short.0"
MCZ_NO_CACHE=1 snap "$T/a/short" >"$T/want-b" || fail "changed archive: no screen without the cache"
snap "$T/a/short" >"$T/o" || fail "changed archive: no screen"
[ "$(inode)" != "$ino" ] || fail "changed archive (byte 184, mtime set back): the entry was trusted"
same "$T/o" "$T/want-b" || fail "changed archive: not the changed archive's screen"
echo "pcp-cache: ok"
