#!/usr/bin/env bash
# src-pcp-import.sh: mcrec's live pcp source and `mcz import` of a pmlogger
# archive map a PCP metric the same way (one function, pcp_metric_kind_of).
# pmlogger logs a few metrics of the real pmcd for a second; mcrec records
# the same metrics from that pmcd; every (metric, instance) stream must have
# the same kind, stored type, unit, scale and note in both files (the live
# note adds "; pmcd local:").  The metrics cover an instant Kbyte gauge, a
# float, a discrete u32, per-CPU millisecond counters, a byte counter, a
# 32-bit counter (unwrapped) and a frequency in "/ microsec" (Hz).
# And both bind each stream to the same kind of topology object, by one
# rule (pcp_topo_of): per-CPU instances to the PU of that OS index (and
# flagged per-CPU), a NUMA node's (mem.numa.*) to that node, a network
# interface's to its NIC by name, the rest to the machine.  mcrec's objects
# are hwloc's, the importer makes its own: compared by type, OS index and
# the name as far as the importer can know it (hwloc's "NUMA#0 (23 GiB)"
# is "NUMA#0" to it); NICs by interface name (hwloc's order is not the
# archive's); an interface hwloc lists no device for (lo, a virtual one)
# is the machine's, and the importer makes a NIC only for one the archive
# says is a device (network.interface.virtual 0, logged here too).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd
src_tmp
command -v pmlogger >/dev/null || { echo "pmlogger is not installed (pcp package)"; exit 77; }

metrics="mem.util.used kernel.all.load hinv.ncpu kernel.percpu.cpu.user network.interface.in.bytes
swap.pagesin hinv.cpu.clock kernel.all.pswitch network.interface.virtual"
for m in $metrics; do
	pminfo -h local: "$m" >/dev/null 2>&1 || src_fail "pmcd has no $m (the linux PMDA should)"
done
# per NUMA node, where the kernel has NUMA statistics
pminfo -h local: mem.numa.alloc.hit >/dev/null 2>&1 && metrics="$metrics mem.numa.alloc.hit"
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

# the topology objects: type, OS index, name (hwloc's to its first space),
# a NIC by its interface's name; per-CPU flag
where() {
	"$READ" "$1" topo | grep -v '^pmcd\.\|^app\.' | awk -F'|' '{
		if ($3 == "machine") w = "machine"
		else if ($3 == "nic") {
			n = split($5, tok, /[ (),]+/); w = "nic " $5
			for (i = 1; i <= n; i++) if (tok[i] == $2) w = "nic " $2
		} else { split($5, nm, " "); w = $3 " " $4 " " nm[1] }
		print $1 "|" $2 "|" w "|percpu " $6 }' | sort
}
where "$T/imp.mcz" >"$T/imp.topo"
where "$T/live.mcz" >"$T/live.topo"
diff "$T/imp.topo" "$T/live.topo" >"$T/diff" || src_fail "live and imported streams sit on other topology objects:
$(cat "$T/diff")"
for k in "kernel.percpu.cpu.user|cpu0|pu 0 PU#0|percpu 1" "network.interface.in.bytes|lo|machine|percpu 0" \
	"kernel.all.load|1 minute|machine|percpu 0"; do
	grep -qF "$k" "$T/live.topo" || src_fail "no stream at $k: $(cat "$T/live.topo")"
done
if grep -q '^mem.numa.alloc.hit' "$T/live.topo"; then
	grep -q '^mem.numa.alloc.hit|node0|numa 0 NUMA#0|' "$T/live.topo" ||
		src_fail "mem.numa.alloc.hit: $(grep mem.numa "$T/live.topo")"
fi
nics=$(grep -c '|nic ' "$T/live.topo")
echo "ok: $(wc -l <"$T/live.topo") streams on the same topology objects live and imported" \
	"($(grep -c '|pu ' "$T/live.topo") on PUs, $(grep -c '|numa ' "$T/live.topo") on NUMA nodes, $nics on NICs)"
