#!/usr/bin/env bash
# roofline-view.sh: the roofline view in a real terminal (tmux) at 80x24:
# reached with Tab, the roofs drawn and labelled with their values, the
# phases as class letters, the cursor's phase read out (intensity,
# GFLOP/s, % of attainable, bound, provenance), n moving to the next phase;
# a recording made before calibration opens with "no ceilings: run mcrec
# --calibrate"; q quits cleanly.  The recordings are real: the phased
# sample under mcrec, after mcrec --calibrate into a private cache.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-roof.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
export XDG_CACHE_HOME=$D/cache
"$B"/mcrec -q -o "$D/old.mcz" -- "$B"/samples/phased --phases triad:0.5,gemm:0.5 >/dev/null ||
	tmux_fail "recording without ceilings"
"$B"/mcrec --calibrate -q || tmux_fail "mcrec --calibrate"
"$B"/mcrec -q -o "$D/run.mcz" -- "$B"/samples/phased --phases triad:1.5,gemm:1.5,idle:1 >/dev/null ||
	tmux_fail "recording the phased sample"

tmux_start_sh 80 24 "$B/mcview --phases marks $D/run.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
# Tab walks the views: Phases, Topology, then Roofline
for i in 1 2 3; do
	tmux_keys Tab
	tmux_settle
	tmux_screen | grep -q '^Roofline: ' && break
done
tmux_wait_for 'Roofline: '
tmux_screen >"$D/screen.txt"
cat "$D/screen.txt"
tmux_expect 'ceilings'
tmux_expect 'GB/s'             # the bandwidth roof's label
tmux_expect 'GFLOP/s avx'      # the compute roof's label (avx2 or avx512)
tmux_expect 'flop/byte'        # the x axis
tmux_expect 'GFLOP/s'          # the y axis
tmux_expect 'flops: app.flops (mcmark_count); bytes: app.bytes (mcmark_count)'
# braille roofs and no line wider than the terminal
grep -q $'\u28' "$D/screen.txt" 2>/dev/null || grep -q '[⠀-⣿]' "$D/screen.txt" ||
	tmux_fail "no braille in the chart"
awk '{ if (length($0) > 80) bad = 1 } END { exit bad }' "$D/screen.txt" || tmux_fail "a line wider than 80"
# both phases placed: their class letters (as the report names them)
# inside the chart, right of the y axis (rows 3-19)
for k in triad gemm; do
	cls=$("$B"/mcview --report --phases marks "$D/run.mcz" | awk -v k=$k '$0 ~ " " k " " { print $1; exit }')
	[ -n "$cls" ] || tmux_fail "no $k phase in the report"
	sed -n 3,19p "$D/screen.txt" | cut -c8- | grep -q "$cls" || tmux_fail "$k ($cls) not in the chart"
done
# p back to the triad phase: read out as memory-bound at 0.0833 flop/byte
for i in 1 2 3 4; do
	tmux_screen | grep -q ': triad' && break
	tmux_keys p
	tmux_settle
done
tmux_expect ': triad'
tmux_expect 'memory-bound'
tmux_expect '0.0833 flop/byte'
tmux_expect '% of the attainable'
tmux_keys n
tmux_settle
tmux_expect ': gemm'
tmux_expect '6 flop/byte'
tmux_keys q
tmux_wait_for 'AFTER rc=0'
tmux_stop

# a recording made before calibration
tmux_start_sh 80 24 "$B/mcview --view roofline $D/old.mcz; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'no ceilings: run mcrec --calibrate'
tmux_keys q
tmux_wait_for 'AFTER rc=0'
echo "roofline-view: ok"
