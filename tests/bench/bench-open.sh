#!/usr/bin/env bash
# bench-open.sh: open + zoomed-out summary of a 10^9-value recording
# (256 streams x 4e6 rows of per-core counters, tests/tools/gen-recording),
# beside the same buckets computed from the samples.  The file (about 2 GB)
# is generated once and cached as $MCZ_BENCH_DIR/open-1e9.mcz (default
# /tmp/mcz-bench); it is regenerated when this build cannot open it.
# BENCH_QUICK=1 uses a 10^8-value file instead (256 x 4e5).
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-$PWD/build}
D=${MCZ_BENCH_DIR:-/tmp/mcz-bench}
rows=4000000 name=open-1e9.mcz
[ -n "${BENCH_QUICK:-}" ] && rows=400000 name=open-1e8.mcz
mkdir -p "$D"
f=$D/$name
if ! "$B/mcz" info "$f" 2>/dev/null | grep -q '^index *ok'; then
	echo "generating $f (256 streams x $rows rows; minutes)..."
	"$B/tests/tools/gen-recording" -o "$f.tmp" --streams 256 --rows "$rows" --counters --phases &&
		mv "$f.tmp" "$f" || { echo "bench-open: generation failed"; exit 1; }
fi
"$B/mcz" info "$f" | sed -n 's/^values */file: /p'
"$B/bench/bench-open" "$f" 7
