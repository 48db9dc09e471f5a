#!/usr/bin/env bash
# make-corpus.sh: regenerate the seed files of tests/fuzz/corpus-reader/
# (small valid recordings and damaged copies of them).  Files named crash-* and found-*
# (inputs found by the fuzzer, merged with -merge=1) are kept as they are.
#   tests/fuzz/make-corpus.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
G=$B/tests/tools/gen-recording
C=tests/fuzz/corpus-reader
mkdir -p "$C"
"$G" -o $C/counters.mcz --streams 3 --rows 50 --counters --chunk-rows 16 --phases
"$G" -o $C/mixed.mcz --streams 10 --rows 30 --chunk-rows 8 --phases
"$G" -o $C/empty.mcz --streams 0 --rows 0
"$G" -o $C/one-row.mcz --streams 2 --rows 1
# a recording killed while its chunk was gathered: chunks, then PART blocks
"$G" -o $C/parts-killed.mcz --streams 5 --rows 70 --counters --chunk-rows 32 --sync-rows 5 --killed --phases
"$G" -o $C/parts-mixed-killed.mcz --streams 6 --rows 45 --chunk-rows 20 --sync-rows 7 --killed
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
PY
