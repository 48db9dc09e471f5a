#!/usr/bin/env bash
# demo.sh: `make demo` — record the phased sample with mcrec and open it in
# mcview.  On a terminal mcview opens interactively (q quits); elsewhere (CI,
# a pipe) one rendered screen is printed instead (mcview --snapshot).
#
#   scripts/demo.sh                 record build/demo.mcz, then view it
#   DEMO_SIZE=160x50 scripts/demo.sh    snapshot size when not on a terminal
#   MCZ_BUILD=build-san scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B=${MCZ_BUILD:-build}
out=$B/demo.mcz
size=${DEMO_SIZE:-120x40}

if [ ! -x "$B/mcview" ]; then
	echo "demo: $B/mcview is missing; run make first" >&2
	exit 1
fi
rm -f "$out"
if [ -x "$B/mcrec" ] && [ -x "$B/samples/phased" ]; then
	echo "demo: recording the phased sample (about 10 s): $B/mcrec -o $out -i 20ms -- $B/samples/phased"
	"$B/mcrec" -o "$out" -i 20ms -- "$B/samples/phased"
else
	# Until the recorder is built: a synthetic phased recording.
	make -s "$B/tests/tools/gen-recording"
	echo "demo: mcrec not built; writing a synthetic recording instead"
	"$B/tests/tools/gen-recording" -o "$out" --streams 16 --rows 3000 --phases
fi
if [ -t 0 ] && [ -t 1 ]; then
	exec "$B/mcview" "$out"
fi
"$B/mcview" --snapshot "$size" "$out"
echo "demo: not a terminal, so this is one screen; on a terminal: $B/mcview $out"
