#!/usr/bin/env bash
# phase-golden.sh: golden text renders of the phases (mcview --snapshot) on a
# known recording (gen-recording --phases, seed 7: 12 phases of 4 kinds):
# the table, sorted and narrow in ASCII, the band over the timeline after
# n n, the help of the phases view, and the marks as phases.  After an
# intended change of the drawing, UPDATE_GOLDEN=1 rewrites the files in
# tests/integration/golden-phases/; review them with git diff.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-build}
G=tests/integration/golden-phases
T=$(mktemp -d /tmp/mcz-phase-golden.XXXXXX)
trap 'rm -rf "$T"' EXIT
export MCVIEW_PHASE_CACHE=0 LC_ALL=C.UTF-8
"$B"/tests/tools/gen-recording -o "$T/run.mcz" --streams 16 --rows 3000 --phases --seed 7 ||
	{ echo "FAIL: gen-recording"; exit 1; }
bad=0
shot() { # name mcview-args...
	local name=$1
	shift
	(cd "$T" && "$B"/mcview "$@" run.mcz) >"$T/$name.txt" 2>&1 ||
		{ echo "FAIL: mcview $*: $(cat "$T/$name.txt")"; bad=1; return; }
	if [ -n "${UPDATE_GOLDEN:-}" ] && [ "$UPDATE_GOLDEN" != 0 ]; then
		cp "$T/$name.txt" "$G/$name.txt"
	fi
	if ! diff -u "$G/$name.txt" "$T/$name.txt"; then
		echo "FAIL: $name differs from $G/$name.txt (UPDATE_GOLDEN=1 rewrites it)"
		bad=1
	fi
}
B=$(cd "$B" && pwd)
shot phases-130x20 --snapshot 130x20 --view phases
shot phases-80x16-ascii-sorted --snapshot 80x16 --ascii --view phases --keys s,Down
shot phases-timeline-band --snapshot 120x16 --keys n,n
shot phases-help --snapshot 100x24 --view phases --keys '?'
shot phases-marks --snapshot 130x20 --view phases --phases marks
[ $bad -eq 0 ] && echo "phase goldens: ok"
exit $bad
