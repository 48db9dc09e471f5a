#!/usr/bin/env bash
# rec-mpi.sh: one recorder per rank under a real mpirun (Open MPI): -o with
# %h and %r gives one file per rank, the rank is in the metadata, only the
# node's first rank records node-wide streams (CPUs, network), every rank
# records its own command, and the files share the wall-clock axis.
set -u
. "$(dirname "$0")/rec-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
timeout 120 mpirun $ROOT --oversubscribe -n 2 "$MCREC" -q -i 50ms -o "$T/run.%h.%r.mcz" -- \
	"$WORK" --spin 20 --hold 0.3 >"$T/mpi.out" 2>&1 || fail "mpirun: $(tail -3 "$T/mpi.out")"
h=$(hostname | cut -d. -f1)
for r in 0 1; do
	[ -f "$T/run.$h.$r.mcz" ] || fail "no file for rank $r: $(ls "$T")"
	[ "$("$RR" "$T/run.$h.$r.mcz" meta rank)" = $r ] || fail "rank $r metadata"
	"$RR" "$T/run.$h.$r.mcz" streams | awk '{ print $2 }' | sort -u >"$T/s$r"
	grep -qx core.task_clock "$T/s$r" || fail "rank $r lacks its command's counters"
	tc=$("$RR" "$T/run.$h.$r.mcz" total core.task_clock)
	awk -v t="$tc" 'BEGIN { exit !(t > 0.005) }' || fail "rank $r task-clock $tc s"
done
grep -qx os.cpu.busy "$T/s0" && grep -qx net.rx_bytes "$T/s0" || fail "rank 0 lacks the node-wide streams"
grep -qx os.cpu.busy "$T/s1" && fail "rank 1 records node-wide streams too"
grep -qx net.rx_bytes "$T/s1" && fail "rank 1 records the network too"
w0=$("$RR" "$T/run.$h.0.mcz" info | awk '$1 == "wall_epoch_ns" { print $2 }')
w1=$("$RR" "$T/run.$h.1.mcz" info | awk '$1 == "wall_epoch_ns" { print $2 }')
d=$(( (w0 - w1) / 1000000 ))
between "${d#-}" 0 2000 || fail "ranks started ${d} ms apart on the wall clock"
ok "2 ranks: one file each, node-wide streams on rank 0 only, starts ${d#-} ms apart"
