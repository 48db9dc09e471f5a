#!/usr/bin/env bash
# make-corpus.sh: regenerate the seed files of tests/fuzz/corpus-reader/
# (small valid recordings and damaged copies of them) and of
# tests/fuzz/corpus-resume/ (closed files to continue).  Files named crash-*
# and found-* (inputs found by the fuzzer, merged with -merge=1) are kept as
# they are.  Needs `make all units` (gen-recording, mcz, replay-resume).
#   tests/fuzz/make-corpus.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
G=$B/tests/tools/gen-recording
C=tests/fuzz/corpus-reader
mkdir -p "$C"
# the seeds of 1.0 to 1.3, as those writers made them
export MCZ_FORMAT=1.3
"$G" -o $C/counters.mcz --streams 3 --rows 50 --counters --chunk-rows 16 --phases
"$G" -o $C/mixed.mcz --streams 10 --rows 30 --chunk-rows 8 --phases
"$G" -o $C/empty.mcz --streams 0 --rows 0
"$G" -o $C/one-row.mcz --streams 2 --rows 1
# a recording killed while its chunk was gathered: chunks, then PART blocks
"$G" -o $C/parts-killed.mcz --streams 5 --rows 70 --counters --chunk-rows 32 --sync-rows 5 --killed --phases
"$G" -o $C/parts-mixed-killed.mcz --streams 6 --rows 45 --chunk-rows 20 --sync-rows 7 --killed
# wide, short (1.3): GCHUNK blocks (narrow columns sharing zstd frames),
# COLSTREAMS descriptors, an index without short chunks' summaries
"$G" -o $C/wide.mcz --streams 400 --rows 12 --chunk-rows 6
"$G" -o $C/wide-counters.mcz --streams 240 --rows 10 --chunk-rows 5 --counters --phases
"$G" -o $C/wide-many.mcz --streams 1500 --rows 4 --chunk-rows 2
# COLSTREAMS descriptors: a small PCP archive imported (when pcp-testsuite is installed)
A=/var/lib/pcp/testsuite/archives/20041125
[ -f $A.meta ] && $B/mcz import -q $A -o $C/wide-pcp.mcz >/dev/null
# 1.4: BUNDLE blocks (against the built-in dictionary), indexes without
# sections and with the head as is, TIME_LAG time columns, GCHUNK blocks
# with a compressed directory and transposed runs
export MCZ_FORMAT=1.4
"$G" -o $C/bundle-wide.mcz --streams 400 --rows 12 --chunk-rows 6
"$G" -o $C/bundle-counters.mcz --streams 300 --rows 5 --counters
A=/var/lib/pcp/testsuite/archives
[ -f $A/19970807.09.54.meta ] && $B/mcz import -q $A/19970807.09.54 -o $C/bundle-pcp.mcz >/dev/null
# 1.5: a REQUIRES block before the GCHUNK whose runs are transposed by
# metric (gen-recording's per-CPU streams are interleaved, CPU by CPU; the
# first chunk saves less than 1 KiB that way, and is transposed as in 1.4)
unset MCZ_FORMAT
"$G" -o $C/bymetric-wide.mcz --streams 600 --rows 16 --chunk-rows 8
# a job file (1.4, MEMBER blocks): three recordings, one killed
T=$(mktemp -d)
cp $C/counters.mcz $C/one-row.mcz $C/parts-killed.mcz "$T/"
$B/mcz merge -q "$T/counters.mcz" "$T/one-row.mcz" "$T/parts-killed.mcz" -o $C/job.mcz
rm -rf "$T"
python3 - "$C" <<'PY'
import sys, zlib, struct
C = sys.argv[1]
d = open(C + '/mixed.mcz', 'rb').read()
open(C + '/mixed-no-trailer.mcz', 'wb').write(d[:-24])
open(C + '/mixed-half.mcz', 'wb').write(d[:len(d) // 2])
b = bytearray(d); b[len(d) // 3] ^= 0x10; open(C + '/mixed-flip.mcz', 'wb').write(bytes(b))
b = bytearray(d); b[-40] ^= 0x01; open(C + '/mixed-flip-index.mcz', 'wb').write(bytes(b))
b = bytearray(d); b[8] = 2; b[16:20] = struct.pack('<I', zlib.crc32(bytes(b[:16])))
open(C + '/newer-major.mcz', 'wb').write(bytes(b))
# an unknown, non-critical block right after the header (the index is then stale)
p = b'future'
blk = b'mczB' + struct.pack('<HHI', 200, 0, len(p))
blk += struct.pack('<I', zlib.crc32(blk)) + p + struct.pack('<I', zlib.crc32(p))
open(C + '/unknown-block.mcz', 'wb').write(d[:20] + blk + d[20:])
open(C + '/text.mcz', 'wb').write(b'hello, this is not an mcz file\n')
# wide.mcz damaged: a byte of a GCHUNK's last run (payload CRC made good
# again, so the run's frame itself is bad), cut in half, index gone
w = open(C + '/wide.mcz', 'rb').read()
off = 20
while off + 16 <= len(w) and w[off:off + 4] == b'mczB':
    t, fl, ln = struct.unpack_from('<HHI', w, off + 4)
    if t == 10:
        b = bytearray(w); at = off + 16 + ln - 7; b[at] ^= 0x21
        b[off + 16 + ln:off + 20 + ln] = struct.pack('<I', zlib.crc32(bytes(b[off + 16:off + 16 + ln])))
        open(C + '/wide-bad-run.mcz', 'wb').write(bytes(b))
        break
    off += 20 + ln
open(C + '/wide-half.mcz', 'wb').write(w[:len(w) // 2])
# the job file: a byte of its second member flipped (the MEMBER block's CRC
# made good again, so the member itself is damaged), cut in its last member
j = open(C + '/job.mcz', 'rb').read()
off, k = 20, 0
while off + 16 <= len(j) and j[off:off + 4] == b'mczB':
    t, fl, ln = struct.unpack_from('<HHI', j, off + 4)
    if t == 12:
        k += 1
        if k == 2:
            b = bytearray(j); b[off + 16 + ln // 2] ^= 0x08
            b[off + 16 + ln:off + 20 + ln] = struct.pack('<I', zlib.crc32(bytes(b[off + 16:off + 16 + ln])))
            open(C + '/job-bad-member.mcz', 'wb').write(bytes(b))
        if k == 3:
            open(C + '/job-cut.mcz', 'wb').write(j[:off + 16 + ln // 2])
    off += 20 + ln
open(C + '/wide-no-trailer.mcz', 'wb').write(w[:-24])
# 1.4 damaged: a byte in the middle of each block of the wide file's
# first BUNDLE and GCHUNK (payload CRC made good again), the index gone
w = open(C + '/bundle-wide.mcz', 'rb').read()
off = 20
while off + 16 <= len(w) and w[off:off + 4] == b'mczB':
    t, fl, ln = struct.unpack_from('<HHI', w, off + 4)
    if t in (10, 13):
        b = bytearray(w); at = off + 16 + ln // 2; b[at] ^= 0x44
        b[off + 16 + ln:off + 20 + ln] = struct.pack('<I', zlib.crc32(bytes(b[off + 16:off + 16 + ln])))
        open(C + ('/bundle-bad-gchunk.mcz' if t == 10 else '/bundle-bad.mcz'), 'wb').write(bytes(b))
    off += 20 + ln
open(C + '/bundle-no-trailer.mcz', 'wb').write(w[:-24])
# 1.5 damaged: REQUIRES of minor 6 (refused by version), a byte in the
# middle of the GCHUNK after it (runs by metric; payload CRC made good
# again), no trailer
w = open(C + '/bymetric-wide.mcz', 'rb').read()
off, req = 20, False
while off + 16 <= len(w) and w[off:off + 4] == b'mczB':
    t, fl, ln = struct.unpack_from('<HHI', w, off + 4)
    if t == 14:
        req = True
        b = bytearray(w); b[off + 16] = 6
        b[off + 16 + ln:off + 20 + ln] = struct.pack('<I', zlib.crc32(bytes(b[off + 16:off + 16 + ln])))
        open(C + '/bymetric-needs-1.6.mcz', 'wb').write(bytes(b))
    if t == 10 and req:
        b = bytearray(w); at = off + 16 + ln // 2; b[at] ^= 0x44
        b[off + 16 + ln:off + 20 + ln] = struct.pack('<I', zlib.crc32(bytes(b[off + 16:off + 16 + ln])))
        open(C + '/bymetric-bad-gchunk.mcz', 'wb').write(bytes(b))
        break
    off += 20 + ln
open(C + '/bymetric-no-trailer.mcz', 'wb').write(w[:-24])
PY
# corpus-resume: closed files of this writer's version (1.5: resume refuses
# any other), and one continued already (an old trailer and index between
# its blocks), made by the target itself through its replay driver
unset MCZ_FORMAT
R=tests/fuzz/corpus-resume
mkdir -p $R
"$G" -o $R/counters.mcz --streams 3 --rows 50 --counters
"$G" -o $R/mixed.mcz --streams 10 --rows 30 --chunk-rows 8 --phases
"$G" -o $R/one-row.mcz --streams 2 --rows 1
"$G" -o $R/empty.mcz --streams 0 --rows 0
"$G" -o $R/wide.mcz --streams 400 --rows 12 --chunk-rows 6
A=/var/lib/pcp/testsuite/archives/20041125
[ -f $A.meta ] && $B/mcz import -q $A -o $R/pcp.mcz >/dev/null
MCZ_FUZZ_RESUMED=$R/counters-resumed.mcz $B/tests/replay-resume $R/counters.mcz >/dev/null
