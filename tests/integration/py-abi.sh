#!/usr/bin/env bash
# py-abi.sh: python/mcz/_lib.py's ctypes structures and constants are laid
# out as the compiler lays out format/mcz.h's and format/pcp/pcp.h's: every
# mirrored structure's sizeof and each member's offset and size, the error
# codes and the enums' values (tests/tools/abi-layout prints the compiler's,
# py-abi.py compares them, and the members with the headers' declarations).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ABI=$B/tests/tools/abi-layout
[ -x "$ABI" ] || fail "$ABI not built (make units)"
[ -f "$B/libmcz.so.1" ] || fail "$B/libmcz.so.1 not built (make shlib)"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
# _lib.py loads the library when imported: the build's; under SAN=1 with
# the sanitizer's runtime preloaded, as py-read.sh runs python
if readelf -d "$B/libmcz.so.1" | grep -q 'NEEDED.*libasan'; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
MCZ_LIB=$B/libmcz.so.1 PYTHONDONTWRITEBYTECODE=1 python3 "$HERE/py-abi.py" "$ABI" \
	"$ROOT/python/mcz/_lib.py" "$ROOT/format/mcz.h" "$ROOT/format/pcp/pcp.h"
