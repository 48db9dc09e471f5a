#!/usr/bin/env bash
# bench-rec-overhead.sh: what mcrec costs the command it records.
#
# 1. Wall time of the phased sample doing a fixed amount of work (--steps),
#    alone and under mcrec at 100 ms and 10 ms, beside perf stat -I at the
#    same intervals; runs interleaved (one of each per round), medians.  The
#    bar: <= 1 % at 10 ms, <= 0.2 % at 100 ms.
# 2. Where mcrec's own time goes in those runs (medians, from the metadata
#    mcrec writes): start-up on its clock (mcrec_run to the command's exec),
#    the sampling thread's CPU per tick, the writer thread's CPU, the rest
#    (hwloc, helper threads, process start), all of it as a share of wall.
# 3. The fixed costs seen from outside: from starting mcrec to the command's
#    exec, and from the command's exit to mcrec's exit, with a command that
#    prints the time when it starts and ends, minus the same without mcrec
#    (and beside perf stat), REC_OVH_FIXED runs each, medians.
# 4. The bar of issue 33: a 10 s sleep recorded by mcrec with its default
#    sources at 100 ms and at 10 ms, beside perf stat -I at the same
#    intervals with task-clock, context-switches, page-faults and
#    cpu-migrations: the CPU time of each (tests/tools/cpu-of: the whole
#    tree's, from wait4's rusage) minus the sleep's alone, as a share of the
#    10 s; rounds alternating, medians of 5.  The table: interval, perf stat
#    -I, mcrec, mcrec/perf (the bar: <= 1.0 at both), then mcrec's parts from
#    the metadata it writes (medians, as a share of the 10 s): the sampling
#    thread, the writer thread, the rest (start-up and finalisation: process
#    start, helper threads, the code profile's symbolization), and startup_ms.
# The per-tick cost of each source is tests/bench/bench-sources.sh's table.
#
# BENCH_QUICK=1: fewer rounds.  REC_OVH_ROUNDS, REC_OVH_STEPS, REC_OVH_FIXED,
# REC_OVH_SLEEP (seconds, default 10), REC_OVH_SLEEP_ROUNDS (default 5)
# override; REC_OVH_ONLY=4 runs table 4 alone.  REC_OVH_OTHER=/path/to/another/mcrec adds its rows to tables 1
# and 3 in the same interleaved runs (before/after comparisons).
set -u
B=${MCZ_BIN:-build}
R=${REC_OVH_ROUNDS:-5}
[ "${BENCH_QUICK:-}" = 1 ] && R=${REC_OVH_ROUNDS:-3}
STEPS=${REC_OVH_STEPS:-30}
NFIX=${REC_OVH_FIXED:-15}
OTHER=${REC_OVH_OTHER:-}
RR=$B/tests/tools/rec-read
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=("$B/samples/phased" -q --steps "$STEPS")
have_perf=0
command -v perf >/dev/null && have_perf=1
configs=(none mcrec100 mcrec10)
[ -n "$OTHER" ] && configs+=(other100 other10)
[ $have_perf = 1 ] && configs+=(perf100 perf10)
# run CONFIG COMMAND...: the command alone, under mcrec or perf stat -I
run() {
	local c=$1
	shift
	case $c in
	none) "$@" ;;
	mcrec100) "$B/mcrec" -q -i 100ms -o "$T/o.mcz" -- "$@" ;;
	mcrec10) "$B/mcrec" -q -i 10ms -o "$T/o.mcz" -- "$@" ;;
	other100) "$OTHER" -q -i 100ms -o "$T/o.mcz" -- "$@" ;;
	other10) "$OTHER" -q -i 10ms -o "$T/o.mcz" -- "$@" ;;
	perf100) perf stat -I 100 -o "$T/p.txt" -- "$@" ;;
	perf10) perf stat -I 10 -o "$T/p.txt" -- "$@" ;;
	esac
}
meta() { "$RR" "$T/o.mcz" meta "$1" 2>/dev/null || echo -; }
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
label() {
	case $1 in
	none) echo alone ;;
	mcrec*) echo "mcrec -i ${1#mcrec} ms" ;;
	other*) echo "other mcrec -i ${1#other} ms" ;;
	perf*) echo "perf stat -I ${1#perf} ms" ;;
	esac
}
# mcrec's costs in this run, from its metadata: startup_ms, us per tick of
# the sampling thread, writer and the rest of mcrec's CPU in % of wall
costs() { # config wall_us
	local cpu s wr up rows
	cpu=$(meta recorder_cpu_s) s=$(meta sampler_cpu_s) wr=$(meta writer_cpu_s)
	up=$(meta startup_ms) rows=$("$RR" "$T/o.mcz" info | awk '$1 == "rows" { print $2 }')
	awk -v w="$2" -v cpu="$cpu" 'BEGIN { if (cpu != "-") printf "%.0f\n", cpu * 1e6 }' >>"$T/$1.cpu"
	[ "$s" = - ] && return
	echo "$up" >>"$T/$1.up"
	awk -v s="$s" -v n="$rows" 'BEGIN { printf "%.2f\n", n ? s * 1e6 / n : 0 }' >>"$T/$1.tick"
	awk -v x="$wr" -v w="$2" 'BEGIN { printf "%.4f\n", x * 1e6 / w * 100 }' >>"$T/$1.writer"
	awk -v x="$cpu" -v s="$s" -v wr="$wr" -v w="$2" 'BEGIN { printf "%.4f\n", (x - s - wr) * 1e6 / w * 100 }' >>"$T/$1.rest"
	awk -v x="$s" -v w="$2" 'BEGIN { printf "%.4f\n", x * 1e6 / w * 100 }' >>"$T/$1.sampler"
}

if [ "${REC_OVH_ONLY:-}" != 4 ]; then
for r in $(seq "$R"); do
	for c in "${configs[@]}"; do
		t0=$(date +%s%N)
		run "$c" "${W[@]}" >/dev/null 2>&1
		t1=$(date +%s%N)
		wall=$(((t1 - t0) / 1000))
		echo "$wall" >>"$T/$c"
		case $c in mcrec* | other*) costs "$c" "$wall" ;; esac
	done
done
base=$(median "$T/none")
echo "1. wall time of 'phased --steps $STEPS', $R interleaved rounds, medians (the machine is shared: noise is large)"
echo "   recorder_cpu: CPU time of all of mcrec's threads, as a share of the run's wall time (immune to the noise)"
printf '%-26s %10s %10s %10s %13s\n' config median_s overhead spread_s recorder_cpu
for c in "${configs[@]}"; do
	m=$(median "$T/$c")
	spread=$(sort -n "$T/$c" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", (hi - lo) / 1e6 }')
	cpu=-
	[ -s "$T/$c.cpu" ] && cpu=$(awk -v m="$m" -v cpu="$(median "$T/$c.cpu")" 'BEGIN { printf "%.3f%%", cpu / m * 100 }')
	awk -v n="$(label "$c")" -v m="$m" -v b="$base" -v s="$spread" -v cpu="$cpu" 'BEGIN {
		printf "%-26s %10.3f %9.2f%% %10s %13s\n", n, m / 1e6, (m - b) / b * 100, s, cpu }'
done
echo
echo "2. where mcrec's time goes in those runs (medians): startup_ms = mcrec_run to the command's exec;"
echo "   sampler = the sampling thread's CPU (us per tick, % of wall); writer = the writer thread (hwloc"
echo "   topology, file header, encoding, I/O); rest = the other threads and the process (proc helper,"
echo "   start-up, finalisation)"
printf '%-26s %10s %10s %10s %10s %10s\n' config startup_ms tick_us sampler writer rest
for c in "${configs[@]}"; do
	[ -s "$T/$c.tick" ] || continue
	printf '%-26s %10s %10s %9s%% %9s%% %9s%%\n' "$(label "$c")" "$(median "$T/$c.up")" "$(median "$T/$c.tick")" \
		"$(median "$T/$c.sampler")" "$(median "$T/$c.writer")" "$(median "$T/$c.rest")"
done
echo

# 3. fixed costs from outside: the command prints the time when it starts
# and when it ends (date +%s%N, 0.3 s apart, so that mcrec's deferred work
# -- hwloc, the file's header -- is done by then, as in any real run); the
# shell's clock before and after ($EPOCHREALTIME, no fork)
fixed=(none mcrec100)
[ -n "$OTHER" ] && fixed+=(other100)
[ $have_perf = 1 ] && fixed+=(perf100)
for r in $(seq "$NFIX"); do
	for c in "${fixed[@]}"; do
		a=${EPOCHREALTIME/./}
		out=$(run "$c" sh -c 'date +%s%N; sleep 0.3; date +%s%N' 2>/dev/null)
		z=${EPOCHREALTIME/./}
		read -r d1 d2 <<<"$(echo $out)"
		echo $((${d1:0:16} - a)) >>"$T/fix-$c.start" # ns -> us
		echo $((z - ${d2:0:16})) >>"$T/fix-$c.end"
	done
done
s0=$(median "$T/fix-none.start") e0=$(median "$T/fix-none.end")
echo "3. fixed costs, ms: start = launching it to the command's exec, end = the command's exit to its own;"
echo "   each minus the same without it (sh and date alone: start $(awk -v x="$s0" 'BEGIN { printf "%.2f", x / 1e3 }') ms, end $(awk -v x="$e0" 'BEGIN { printf "%.2f", x / 1e3 }') ms); $NFIX runs, medians"
printf '%-26s %10s %10s\n' config start_ms end_ms
for c in "${fixed[@]}"; do
	[ "$c" = none ] && continue
	awk -v n="$(label "$c")" -v s="$(median "$T/fix-$c.start")" -v e="$(median "$T/fix-$c.end")" -v s0="$s0" -v e0="$e0" \
		'BEGIN { printf "%-26s %10.2f %10.2f\n", n, (s - s0) / 1e3, (e - e0) / 1e3 }'
done

echo

fi

# 4. a 10 s sleep: the recorder's CPU beside perf stat's, measured alike
SL=${REC_OVH_SLEEP:-10}
NSL=${REC_OVH_SLEEP_ROUNDS:-5}
[ "${BENCH_QUICK:-}" = 1 ] && NSL=${REC_OVH_SLEEP_ROUNDS:-1}
CPUOF=$B/tests/tools/cpu-of
ivs=(100 10)
slp=(none)
for iv in "${ivs[@]}"; do
	[ $have_perf = 1 ] && slp+=("perf$iv")
	slp+=("mcrec$iv")
	[ -n "$OTHER" ] && slp+=("other$iv")
done
# parts of one mcrec run, from its metadata, in ms
parts() { # config
	local f=$T/sl.mcz
	for k in sampler_cpu_s writer_cpu_s recorder_cpu_s; do
		v=$("$RR" "$f" meta $k 2>/dev/null) || return
		awk -v v="$v" 'BEGIN { printf "%.3f\n", v * 1e3 }' >>"$T/sl-$1.$k"
	done
	"$RR" "$f" meta startup_ms >>"$T/sl-$1.startup_ms" 2>/dev/null
}
for r in $(seq "$NSL"); do
	for c in "${slp[@]}"; do
		case $c in
		none) set -- ;;
		mcrec*) set -- "$B/mcrec" -q -i "${c#mcrec}ms" -o "$T/sl.mcz" -f -- ;;
		other*) set -- "$OTHER" -q -i "${c#other}ms" -o "$T/sl.mcz" -f -- ;;
		perf*) set -- perf stat -I "${c#perf}" -e task-clock,context-switches,page-faults,cpu-migrations -o "$T/p.txt" -- ;;
		esac
		"$CPUOF" "$T/sl-$c" "$@" sleep "$SL" >/dev/null 2>&1
		case $c in mcrec* | other*) parts "$c" ;; esac
	done
done
z=$(median "$T/sl-none")
echo "4. the bar of issue 33: a ${SL} s sleep, CPU time of the recorder and its command (wait4's rusage, the"
echo "   whole tree) minus the sleep's alone ($(awk -v z="$z" 'BEGIN { printf "%.2f", z / 1e3 }') ms), as a share of ${SL} s; $NSL alternating rounds, medians;"
echo "   perf stat -I with task-clock, context-switches, page-faults, cpu-migrations; mcrec with its default sources"
printf '%-10s %14s %14s %12s\n' interval "perf stat -I" mcrec mcrec/perf
share() { awk -v m="$1" -v z="$z" -v sl="$SL" 'BEGIN { printf "%.3f %%", (m - z) / 1e3 / (sl * 1e3) * 100 }'; }
for iv in "${ivs[@]}"; do
	m=$(median "$T/sl-mcrec$iv") p=-
	[ -s "$T/sl-perf$iv" ] && p=$(median "$T/sl-perf$iv")
	printf '%-10s %14s %14s %12s\n' "$iv ms" "$([ "$p" = - ] && echo - || share "$p")" "$(share "$m")" \
		"$([ "$p" = - ] && echo - || awk -v m="$m" -v p="$p" -v z="$z" 'BEGIN { printf "%.2f", (m - z) / (p - z) }')"
	[ -s "$T/sl-other$iv.recorder_cpu_s" ] && printf '%-10s %14s %14s %12s\n' "  other" "" "$(share "$(median "$T/sl-other$iv")")" \
		"$([ "$p" = - ] && echo - || awk -v m="$(median "$T/sl-other$iv")" -v p="$p" -v z="$z" 'BEGIN { printf "%.2f", (m - z) / (p - z) }')"
done
echo
echo "   mcrec's parts (its metadata, medians, % of ${SL} s): sampler = the sampling thread while the command ran;"
echo "   writer = the writer thread (topology, header, encoding, I/O); rest = the other threads and the process's"
echo "   start-up and end (helper threads, the code profile's symbolization); startup_ms = mcrec's start to the exec"
printf '%-16s %10s %10s %10s %10s %11s\n' config sampler writer rest all startup_ms
for c in "${slp[@]}"; do
	case $c in mcrec* | other*) ;; *) continue ;; esac
	[ -s "$T/sl-$c.recorder_cpu_s" ] || continue
	s=$(median "$T/sl-$c.sampler_cpu_s") w=$(median "$T/sl-$c.writer_cpu_s") a=$(median "$T/sl-$c.recorder_cpu_s")
	awk -v n="$(label "$c")" -v s="$s" -v w="$w" -v a="$a" -v sl="$SL" -v up="$(median "$T/sl-$c.startup_ms")" 'BEGIN {
		d = sl * 10; printf "%-16s %9.3f%% %9.3f%% %9.3f%% %9.3f%% %11s\n", n, s / d, w / d, (a - s - w) / d, a / d, up }'
done
