#!/usr/bin/env bash
# src-pcp-import.sh: mcrec's live pcp source and `mcz import` of a pmlogger
# archive map a PCP metric the same way (one function, pcp_metric_kind_of).
# pmlogger logs a few metrics of the real pmcd for a second; mcrec records
# the same metrics from that pmcd; every (metric, instance) stream must have
# the same kind, stored type, unit, scale and note in both files (the live
# note adds "; pmcd local:").  The metrics cover an instant Kbyte gauge, a
# float, a discrete u32, per-CPU millisecond counters, a byte counter, a
# 32-bit counter (unwrapped) and a frequency in "/ microsec" (Hz).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd
src_tmp
command -v pmlogger >/dev/null || { echo "pmlogger is not installed (pcp package)"; exit 77; }

metrics="mem.util.used kernel.all.load hinv.ncpu kernel.percpu.cpu.user network.interface.in.bytes
swap.pagesin hinv.cpu.clock kernel.all.pswitch"
for m in $metrics; do
	pminfo -h local: "$m" >/dev/null 2>&1 || src_fail "pmcd has no $m (the linux PMDA should)"
done
{
	echo 'log mandatory on 200 msec {'
	for m in $metrics; do echo "	$m"; done
	echo '}'
} >"$T/cfg"
pmlogger -h local: -c "$T/cfg" -s 5 -l "$T/pmlogger.log" "$T/arch" ||
	src_fail "pmlogger failed: $(tail -3 "$T/pmlogger.log")"
"$B/mcz" import -q "$T/arch" -o "$T/imp.mcz" || src_fail "mcz import exit $?"

ev=$(for m in $metrics; do printf 'pcp:%s,' "$m"; done)
"$MCREC" -q -i 100ms -o "$T/live.mcz" -e "${ev%,}" -- sleep 0.5 || src_fail "mcrec exit $?"

# same streams, same mapping; pmlogger's own pmcd.* metrics left aside
"$READ" "$T/imp.mcz" kinds | grep -v '^pmcd\.' | sort >"$T/imp.txt"
# (the recording's own app.* work counters, from the mark source, left aside too)
"$READ" "$T/live.mcz" kinds | grep -v '^app\.' | sed 's/; pmcd local:$//' | sort >"$T/live.txt"
[ "$(wc -l <"$T/imp.txt")" -ge 10 ] || src_fail "import has few streams: $(cat "$T/imp.txt")"
diff "$T/imp.txt" "$T/live.txt" >"$T/diff" || src_fail "live and imported streams differ:
$(cat "$T/diff")"
grep -q '^swap.pagesin||counter|u64|count|1|pcp: count, counter, U32 (unwrapped' "$T/live.txt" ||
	src_fail "swap.pagesin: $(grep swap.pagesin "$T/live.txt")"
grep -q '^hinv.cpu.clock|cpu0|gauge|f64|Hz|1000000|' "$T/live.txt" ||
	src_fail "hinv.cpu.clock: $(grep hinv.cpu.clock "$T/live.txt")"
grep -q '^mem.util.used||gauge|u64|B|1024|pcp: Kbyte, instant, U64$' "$T/live.txt" ||
	src_fail "mem.util.used: $(grep mem.util.used "$T/live.txt")"
echo "ok: $(wc -l <"$T/live.txt") streams map the same live and imported"
