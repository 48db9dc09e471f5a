#!/usr/bin/env bash
# bench-rec-overhead.sh: wall time of the phased sample doing a fixed amount
# of work (--steps), alone and under mcrec at 100 ms and 10 ms, beside
# perf stat -I at the same intervals; runs interleaved (one of each per
# round), medians reported.  BENCH_QUICK=1: fewer rounds.  REC_OVH_ROUNDS
# and REC_OVH_STEPS override.  The bar: <= 1 % at 10 ms, <= 0.2 % at 100 ms.
set -u
B=${MCZ_BIN:-build}
R=${REC_OVH_ROUNDS:-5}
[ "${BENCH_QUICK:-}" = 1 ] && R=${REC_OVH_ROUNDS:-3}
STEPS=${REC_OVH_STEPS:-30}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=("$B/samples/phased" -q --steps "$STEPS")
have_perf=0
command -v perf >/dev/null && have_perf=1
configs=(none mcrec100 mcrec10)
[ $have_perf = 1 ] && configs+=(perf100 perf10)
run() {
	case $1 in
	none) "${W[@]}" ;;
	mcrec100) "$B/mcrec" -q -i 100ms -o "$T/o.mcz" -- "${W[@]}" ;;
	mcrec10) "$B/mcrec" -q -i 10ms -o "$T/o.mcz" -- "${W[@]}" ;;
	perf100) perf stat -I 100 -o "$T/p.txt" -- "${W[@]}" ;;
	perf10) perf stat -I 10 -o "$T/p.txt" -- "${W[@]}" ;;
	esac
}
for r in $(seq "$R"); do
	for c in "${configs[@]}"; do
		t0=$(date +%s%N)
		run "$c" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo "$(((t1 - t0) / 1000)) " >>"$T/$c"
		case $c in mcrec*)
			# mcrec's own CPU time (its threads, not the command's), in us
			"$B/tests/tools/rec-read" "$T/o.mcz" meta recorder_cpu_s |
				awk -v w=$(((t1 - t0) / 1000)) '{ printf "%.0f\n", $1 * 1e6 }' >>"$T/$c.cpu"
			"$B/tests/tools/rec-read" "$T/o.mcz" meta tick_read_us >>"$T/$c.tick" ;;
		esac
	done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
base=$(median "$T/none")
echo "wall time of 'phased --steps $STEPS', $R interleaved rounds, medians (the machine is shared: noise is large)"
echo "recorder_cpu: CPU time of mcrec's own threads, as a share of the run's wall time (immune to the noise)"
echo "tick_us: wall time of one tick's reads inside the run (includes preemption on a loaded machine)"
printf '%-22s %12s %10s %12s %14s %9s\n' config median_s overhead spread_s recorder_cpu tick_us
for c in "${configs[@]}"; do
	m=$(median "$T/$c")
	spread=$(sort -n "$T/$c" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", (hi - lo) / 1e6 }')
	cpu=- tick=-
	[ -f "$T/$c.cpu" ] && cpu=$(awk -v m="$m" -v cpu="$(median "$T/$c.cpu")" 'BEGIN { printf "%.3f%%", cpu / m * 100 }')
	[ -f "$T/$c.tick" ] && tick=$(median "$T/$c.tick")
	awk -v c="$c" -v m="$m" -v b="$base" -v s="$spread" -v cpu="$cpu" -v tick="$tick" 'BEGIN {
		name = c; sub(/mcrec/, "mcrec -i ", name); sub(/perf/, "perf stat -I ", name)
		if (c != "none") name = name " ms"; else name = "alone"
		printf "%-22s %12.3f %9.2f%% %12s %14s %9s\n", name, m / 1e6, (m - b) / b * 100, s, cpu, tick }'
done
