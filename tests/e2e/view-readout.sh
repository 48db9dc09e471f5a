#!/usr/bin/env bash
# view-readout.sh: the values mcview shows at the cursor, in a real terminal,
# equal the file's values read with libmcz alone (tests/tools/view-probe):
# for several cursor positions and several streams (a counter shown as a
# rate, gauges), the read-out "LABEL = VALUE @ TIME" is compared with the
# probe's value of the sample at TIME, to the 3 digits shown.  First on a
# generated recording, then on a real one: the phased sample under mcrec.
# mcz-test: parallel (values only: the view against the file it shows)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
D=$(mktemp -d /tmp/mcz-e2e-readout.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
F=$D/run.mcz
"$B/tests/tools/gen-recording" -o "$F" --streams 16 --rows 3000 --phases ||
	tmux_fail "gen-recording failed"

H=30
checked=0
# check_readout: parse the read-out line and compare with the probe.
check_readout() {
	local line label val t want
	line=$(tmux_screen | sed -n "$((H - 1))p")
	[[ $line =~ \ \ ([^ ]+)\ =\ ([^@]+)\ @\ ([0-9.]+)s ]] ||
		tmux_fail "no single-stream read-out in: $line"
	label=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]} t=${BASH_REMATCH[3]}
	val=${val% }
	want=$("$B/tests/tools/view-probe" "$F" "$label" "$t") || tmux_fail "probe $label $t"
	want=${want#* }
	awk -v g="$(si_to_num "$val")" -v w="$want" 'BEGIN {
		d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w
		exit !(d <= 0.006 * a || d < 1e-9) }' ||
		tmux_fail "$label at ${t}s: screen $val, file $want"
	echo "ok: $label at ${t}s: $val (file: $want)"
	checked=$((checked + 1))
}

tmux_start 120 $H "$B/mcview" --at 7.3 "$F"
tmux_wait_for 'Timeline'
# open the core.cycles group: its members are single streams (counters)
tmux_keys / c y c l e s Enter Enter j
tmux_wait_for 'core.cycles[cpu0] ='
check_readout
tmux_keys + +
tmux_settle
check_readout
for k in . . . . , Right Right l PPage; do
	tmux_keys "$k"
	tmux_settle
	check_readout
done
tmux_keys j
tmux_wait_for 'core.cycles[cpu1] ='
check_readout
# gauges: GPU power and the resident set size
tmux_keys / BSpace BSpace BSpace BSpace BSpace BSpace g p u Enter Enter j
tmux_wait_for 'gpu.power#'
check_readout
tmux_keys + + . . .
tmux_settle
check_readout
tmux_keys / BSpace BSpace BSpace r s s Enter Enter j
tmux_wait_for 'proc.rss#'
check_readout
tmux_keys End
tmux_settle
check_readout
tmux_keys q
st=$(tmux_wait_exit)
[ "$st" = 0 ] || tmux_fail "mcview did not exit with 0 ($st)"
[ $checked -ge 16 ] || tmux_fail "only $checked read-outs checked"
tmux_stop

# The phased sample recorded by mcrec (every 20 ms, phases of 0.45 s).
[ -x "$B/mcrec" ] && [ -x "$B/samples/phased" ] || tmux_fail "mcrec or samples/phased not built"
F=$D/phased.mcz
"$B/mcrec" -q -o "$F" -i 20ms -- "$B/samples/phased" --scale 0.3 >/dev/null ||
	tmux_fail "mcrec failed"
tmux_start 120 $H "$B/mcview" --at 1.2 "$F"
tmux_wait_for 'Timeline'
tmux_keys / t a s k _ c l o c k Enter Enter j
tmux_wait_for 'core.task_clock[cpu0] ='
check_readout
for k in . . + + Right , , j . .; do
	tmux_keys "$k"
	tmux_settle
	check_readout
done
for name in os.mem.used app.rss os.ctxt_switches; do
	tmux_keys / C-u
	tmux_keys -l "$name"
	tmux_keys Enter
	tmux_wait_for "$name ="
	check_readout
	tmux_keys . . .
	tmux_settle
	check_readout
done
tmux_keys q
st=$(tmux_wait_exit)
[ "$st" = 0 ] || tmux_fail "mcview did not exit with 0 ($st)"
[ $checked -ge 31 ] || tmux_fail "only $checked read-outs checked"
echo "view-readout: $checked read-outs equal the file's values"
