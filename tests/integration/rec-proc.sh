#!/usr/bin/env bash
# rec-proc.sh: the proc source on a process tree of known size: app.rss
# reaches the memory the command keeps touched, app.procs counts a child
# process, app.io.wchar counts what a short-lived grandchild wrote (its I/O
# moves into its parent's when it is reaped), os.cpu.busy is a percentage;
# and the tree again through the /proc scan that kernels without the
# children files need (MCREC_PROC_SCAN=1).
# mcz-test: parallel (sizes and counts of its own process tree)
set -u
. "$(dirname "$0")/rec-common.inc"
MB=200
"$MCREC" -q -i 50ms -g os -o "$T/p.mcz" -- sh -c "
	dd if=/dev/zero of='$T/f' bs=1M count=32 2>/dev/null
	'$WORK' --pages $((MB * 256)) --keep --hold 1.5 &
	wait" || fail "mcrec exit $?"
"$RR" "$T/p.mcz" streams | awk '{ print $2, $3, $5 }' | sort -u | head -20
rss=$("$RR" "$T/p.mcz" total app.rss)
procs=$("$RR" "$T/p.mcz" total app.procs)
wchar=$("$RR" "$T/p.mcz" total app.io.wchar)
busy=$("$RR" "$T/p.mcz" series os.cpu.busy | awk '$2 > m { m = $2 } END { print m + 0 }')
echo "app.rss max $rss B, app.procs max $procs, app.io.wchar $wchar B, os.cpu.busy max (sum of CPUs) $busy %"
# Under ASan (make check SAN=1, build-san) the workload is an ASan binary:
# its allocator and shadow make its RSS anything from 1.2 to 2.5 times what
# it touches, so the RSS bound is checked on the plain build only.
rss_ok() { [[ $B == *-san ]] || between "$1" $((MB * 1048576)) $((MB * 1048576 * 3 / 2)); }
rss_ok "$rss" || fail "app.rss $rss B for $MB MiB touched"
between "$procs" 2 10 || fail "app.procs $procs (sh and rec-work at least)"
between "$wchar" $((32 * 1048576)) $((40 * 1048576)) || fail "app.io.wchar $wchar for dd's 32 MiB"
ncpu=$(nproc)
between "$busy" 1 $((ncpu * 100)) || fail "os.cpu.busy $busy"
ok "proc source"

# The same tree through the fallback for kernels without
# /proc/PID/task/TID/children: a scan of every /proc/PID/stat.
MCREC_PROC_SCAN=1 "$MCREC" -q -i 50ms -g os -o "$T/s.mcz" -- sh -c "
	'$WORK' --pages $((MB * 256)) --keep --hold 1.5 &
	wait" || fail "mcrec (scan) exit $?"
rss=$("$RR" "$T/s.mcz" total app.rss)
procs=$("$RR" "$T/s.mcz" total app.procs)
echo "scan: app.rss max $rss B, app.procs max $procs"
rss_ok "$rss" || fail "scan: app.rss $rss B for $MB MiB touched"
between "$procs" 2 10 || fail "scan: app.procs $procs"
ok "proc source, /proc scan fallback"
