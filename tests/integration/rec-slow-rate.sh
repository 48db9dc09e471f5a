#!/usr/bin/env bash
# rec-slow-rate.sh: a stream read at a slower rate than the rows keeps exact
# values.  The same real workload (a loopback transfer of known size between
# file writes of known size, the last one just before the command exits) is
# recorded at -i 10ms twice: with the slow sources (net, proc) read at every
# tick (--slow-interval 1ms), and at their default rate (500 ms).  In the
# slow recording, their streams are present only in the rows they were read
# at (no value repeated into the rows between), the file states their
# interval (metadata interval_ns.net, mcz info's EVERY), and the counters'
# deltas sum to the same totals as at every tick: the bytes written (files
# and socket) exactly, the loopback bytes received within 1 % of
# /proc/net/dev's delta around the run (other processes share lo).
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
SIZE=$((64 * 1024 * 1024))
FILEB=$((3 * 1024 * 1024)) # two dd runs of 1 MiB and 2 MiB
lo_rx() { awk -F'[: ]+' '$2 == "lo" { print $3 }' /proc/net/dev; }
cat >"$T/work.sh" <<EOF
dd if=/dev/zero of="$T/f" bs=64k count=16 status=none &&
sleep 0.7 &&
"$WORK" --loopback $SIZE --hold 0.7 &&
dd if=/dev/zero of="$T/f" bs=64k count=32 status=none
EOF
for rate in every slow; do
	case $rate in
	every) opt=(--slow-interval 1ms) ;;
	slow) opt=() ;;
	esac
	before=$(lo_rx)
	"$MCREC" -q -i 10ms "${opt[@]}" -g all -e net:lo -o "$T/$rate.mcz" -- sh "$T/work.sh" ||
		fail "$rate: mcrec exited with $?"
	echo $(($(lo_rx) - before)) >"$T/$rate.lo"
done

rows() { "$RR" "$T/$1.mcz" info | awk '$1 == "rows" { print $2 }'; }
# rows holding a value of stream $2 (CSV: an empty cell is a missing value)
present() { "$MCZ" dump "$T/$1.mcz" --csv --streams "$2" | awk -F, 'NR > 1 && $2 != ""' | wc -l; }
sum() { "$RR" "$T/$1.mcz" series "$2" | awk '{ s += $2 } END { printf "%.0f", s }'; }

# the rates, as the file states them
[ "$("$RR" "$T/slow.mcz" meta interval_ns.net)" = 500000000 ] || fail "slow: interval_ns.net not 500 ms"
[ "$("$RR" "$T/slow.mcz" meta interval_ns.proc)" = 500000000 ] || fail "slow: interval_ns.proc not 500 ms"
"$RR" "$T/every.mcz" meta interval_ns.net >/dev/null 2>&1 && fail "every: interval_ns.net stated"
"$MCZ" info "$T/slow.mcz" | grep -q "net.rx_bytes .* 500ms$" || fail "mcz info: net.rx_bytes not every 500ms"
"$MCZ" info "$T/slow.mcz" | grep -q "core.task_clock .* 10ms$" || fail "mcz info: core.task_clock not every 10ms"
ok "intervals stated: net, proc 500 ms; perf 10 ms"

# presence: every row at every tick; in the slow file, the first and last
# rows and one in 50 between (a value repeated would fill them all)
for s in 'net.rx_bytes[lo]' app.io.wchar os.ctxt_switches; do
	ne=$(present every "$s") re=$(rows every)
	ns=$(present slow "$s") rs=$(rows slow)
	echo "$s: present in $ne of $re rows at every tick, $ns of $rs at 500 ms"
	between "$ne" $((re - 2)) "$re" || fail "$s: every tick: $ne of $re rows"
	between "$ns" 2 $((rs / 50 + 3)) || fail "$s: 500 ms: $ns of $rs rows"
done
perf_rows=$(present slow 'core.task_clock[cpu0]')
between "$perf_rows" $(($(rows slow) - 2)) "$(rows slow)" || fail "perf read at every tick: $perf_rows rows"
ok "slow streams absent from the rows they were not read at"

# exact values: the same totals at both rates
for rate in every slow; do
	w=$(sum $rate app.io.wchar) t=$("$RR" "$T/$rate.mcz" total app.io.wchar)
	n=$(sum $rate net.rx_bytes) lo=$(cat "$T/$rate.lo")
	echo "$rate: app.io.wchar deltas $w (last value $t), net.rx_bytes[lo] deltas $n, /proc/net/dev $lo"
	[ "$w" = "$t" ] || fail "$rate: app.io.wchar deltas sum to $w, its last value is $t"
	[ "$w" = $((FILEB + SIZE)) ] || fail "$rate: app.io.wchar $w, written: $((FILEB + SIZE))"
	between "$n" "$SIZE" $((SIZE * 2)) || fail "$rate: net.rx_bytes[lo] $n for a $SIZE B transfer"
	within "$n" "$lo" 0.01 || fail "$rate: net.rx_bytes[lo] $n vs /proc/net/dev delta $lo (> 1 %)"
done
[ "$(sum every app.io.wchar)" = "$(sum slow app.io.wchar)" ] ||
	fail "app.io.wchar: $(sum every app.io.wchar) at every tick, $(sum slow app.io.wchar) at 500 ms"
ok "a stream read every 500 ms sums to the same totals as read at every tick"
