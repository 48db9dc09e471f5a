#!/usr/bin/env bash
# bench-code.sh: the code source (issue 16), beside perf in the same run.
#
# 1. Overhead: the run time of a fixed amount of work (samples/phased:
#    triad, gemm and chase, STEPS repetitions each), timed by bash's `time`
#    around the command inside the recording, alone, under `mcrec -g code`
#    and under `perf record -e cpu-clock:u` at the same rate (1 kHz, and
#    10 kHz), runs interleaved, medians; the bar is 1 % of the command's run
#    time at the default rate.  On a shared machine wall times wander by
#    several %: the command's CPU time (user + system) is steadier.  The wall time of the whole run (start-up,
#    mcrec's symbolization and file at the end, perf's data file) is beside
#    it, and mcrec's own figure for symbolization (code_symbolize_s).
# 2. Symbolization: 10^6 samples at 100 000 distinct addresses of a binary
#    with debug info (mcview, -O2 -g) through the code source's libdwfl
#    path, beside addr2line one process per address (tests/bench/bench-code-sym.c);
#    the bar is 1 s.
# 3. Agreement: per phase of tests/tools/code-phases.c (-O2 -g; compute,
#    stream, idle, stream, compute), the top function and its share from
#    mcz and from perf record + perf script over the same program; the bar
#    is 5 points.
#
# 4. --call-graph dwarf: `mcrec -g code --call-graph dwarf` beside `perf
#    record -e cpu-clock:u -c 1000000 --call-graph dwarf` (8 KiB of stack
#    per sample both; -c, not -F 1000, for the same samples: on cpu-clock
#    -F 1000 takes 4 % fewer), on phased (as in 1) and, where Debian's
#    LAMMPS is installed, lmp on a 12^3 LJ melt (a distribution's build,
#    no frame pointers, stacks 8 deep); `mcrec --call-graph fp` for what
#    dwarf costs more (fp's chains are wrong on such code).  The command's
#    CPU time and its slowdown, the recorder's own CPU (the tree's,
#    tests/tools/cpu-of, less the command's), the file's bytes per sample;
#    medians of interleaved rounds, the ratio mcrec/perf last (the bar:
#    <= 1.0 on each); the same at 10 kHz, where the costs per sample show
#    above the noise.  perf script's CPU to unwind its file afterwards is
#    beside it: mcrec has done that already.
#
# BENCH_QUICK=1: fewer rounds.  CODE_ROUNDS, CODE_STEPS, CODE_PHASE_S override;
# CODE_ONLY=4: only table 4.
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-build}
R=${CODE_ROUNDS:-5}
[ "${BENCH_QUICK:-}" = 1 ] && R=${CODE_ROUNDS:-3}
STEPS=${CODE_STEPS:-40}
PH=${CODE_PHASE_S:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=(bash -c 'TIMEFORMAT="%R %U %S"; time "$@"' timed "$B/samples/phased" -q --phases
	"triad*$STEPS,gemm*$STEPS,chase*$STEPS")
have_perf=0
command -v perf >/dev/null && perf record -q -e cpu-clock:u -o "$T/p.data" -- true 2>/dev/null && have_perf=1
configs=(none mcrec1k mcrec10k)
[ $have_perf = 1 ] && configs+=(perf1k perf10k)
run() {
	case $1 in
	none) "${W[@]}" ;;
	mcrec1k) "$B/mcrec" -q -f -g code -o "$T/o.mcz" -- "${W[@]}" ;;
	mcrec10k) "$B/mcrec" -q -f -g code --code-hz 10000 -o "$T/o.mcz" -- "${W[@]}" ;;
	perf1k) perf record -q -e cpu-clock:u -c 1000000 -o "$T/p.data" -- "${W[@]}" ;;
	perf10k) perf record -q -e cpu-clock:u -c 100000 -o "$T/p.data" -- "${W[@]}" ;;
	esac >/dev/null 2>"$T/err"
	local t
	t=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$T/err" | tail -1)
	echo "${t%% *}" >>"$T/$1.in"
	echo "$t" | awk '{ print $2 + $3 }' >>"$T/$1.cpu"
}
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# pct A B: A over B, in % more
pct() { awk -v a="$1" -v b="$2" 'BEGIN { print 100 * (a - b) / b }'; }
# 4. as a function, so that CODE_ONLY=4 runs it alone
dwarf_rows() {
	echo "4. --call-graph dwarf (8 KiB stacks), mcrec vs perf record, $R interleaved rounds, medians"
	CPUOF=$B/tests/tools/cpu-of
	ratio() { # workload, mcrec's config, perf's, label: slowdown, own CPU, bytes
		local cb
		cb=$(median "$T/$1.none.cpu")
		awk -v a="$(median "$T/$1.$2.cpu")" -v p="$(median "$T/$1.$3.cpu")" -v b="$cb" \
			-v oa="$(median "$T/$1.$2.own")" -v op="$(median "$T/$1.$3.own")" \
			-v ba="$(median "$T/$1.$2.bps")" -v bp="$(median "$T/$1.$3.bps")" -v l="$4" 'BEGIN {
			sa = a - b; sp = p - b; if (sa < 0) sa = 0
			printf "%-36s %9s %8s  %10s %8s %12s (bar: <= 1.0 each)\n", l, "",
				(sp > 0 ? sprintf("%.2fx", sa / sp) : "-"), sprintf("%.2fx", oa / op), "",
				sprintf("%.4fx", ba / bp) }'
	}
	if [ $have_perf = 1 ] && [ -x "$CPUOF" ] && perf record -q -e cpu-clock:u --call-graph dwarf -o "$T/p.data" -- true 2>/dev/null; then
		works=(phased)
		. tests/integration/lammps-common.inc
		if command -v lmp >/dev/null; then
			lammps_melt 12 100 600 >"$T/in.melt"
			works+=(lmp)
		fi
		wrun() { # workload config
			local w c=$2
			case $1 in
			phased) w=("${W[@]}") ;;
			lmp) w=(bash -c 'TIMEFORMAT="%R %U %S"; cd "$1" && time lmp -in in.melt -log none -screen none' timed "$T") ;;
			esac
			rm -f "$T/cpu"
			case $c in
			none) "$CPUOF" "$T/cpu" "${w[@]}" ;;
			fp) "$CPUOF" "$T/cpu" "$B/mcrec" -q -f -g code --call-graph fp -o "$T/d.mcz" -- "${w[@]}" ;;
			mcrec) "$CPUOF" "$T/cpu" "$B/mcrec" -q -f -g code --call-graph dwarf -o "$T/d.mcz" -- "${w[@]}" ;;
			perf) "$CPUOF" "$T/cpu" perf record -q -e cpu-clock:u -c 1000000 --call-graph dwarf -o "$T/p.data" -- "${w[@]}" ;;
			mcrec10k) "$CPUOF" "$T/cpu" "$B/mcrec" -q -f -g code --code-hz 10000 --call-graph dwarf -o "$T/d.mcz" -- "${w[@]}" ;;
			perf10k) "$CPUOF" "$T/cpu" perf record -q -e cpu-clock:u -c 100000 --call-graph dwarf -o "$T/p.data" -- "${w[@]}" ;;
			esac >/dev/null 2>"$T/err"
			local t k=$1.$c
			t=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$T/err" | tail -1)
			echo "$t" | awk '{ print $2 + $3 }' >>"$T/$k.cpu"
			awk -v c="$(echo "$t" | awk '{ print $2 + $3 }')" '{ print $1 / 1e6 - c }' "$T/cpu" >>"$T/$k.own"
			case $c in
			fp | mcrec*)
				n=$("$B/mcz" info "$T/d.mcz" | awk '$2 == "code_samples" { print $4 }')
				echo "$(stat -c %s "$T/d.mcz") $n" | awk '{ print $1 / $2 }' >>"$T/$k.bps"
				echo "$n" >>"$T/$k.n" ;;
			perf*)
				n=$(perf report -i "$T/p.data" --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
				echo "$(stat -c %s "$T/p.data") $n" | awk '{ print $1 / $2 }' >>"$T/$k.bps"
				echo "$n" >>"$T/$k.n"
				[ $c = perf ] || return 0 # perf script once, at 1 kHz
				rm -f "$T/cpu"
				"$CPUOF" "$T/cpu" perf script -i "$T/p.data" -F ip,sym >/dev/null 2>&1
				awk '{ print $1 / 1e6 }' "$T/cpu" >>"$T/$k.script" ;;
			esac
		}
		for ((r = 0; r < R; r++)); do
			for w in "${works[@]}"; do
				for c in none fp mcrec perf mcrec10k perf10k; do
					wrun "$w" "$c"
				done
			done
		done
		printf '%-36s %9s %9s %10s %8s %12s %8s %10s\n' run "cmd CPU s" slowdown "own CPU s" "own %" "bytes/sample" samples "unwind s"
		for w in "${works[@]}"; do
			cb=$(median "$T/$w.none.cpu")
			for c in none fp mcrec perf mcrec10k perf10k; do
				k=$w.$c
				mc=$(median "$T/$k.cpu")
				own=$(median "$T/$k.own")
				bps=- n=- sc=-
				[ -f "$T/$k.bps" ] && bps=$(median "$T/$k.bps") && n=$(median "$T/$k.n")
				[ -f "$T/$k.script" ] && sc=$(median "$T/$k.script")
				case $c in mcrec*) sc="(done)" ;; esac
				case $c in
				none) l="$w alone" ;;
				fp) l="$w: mcrec --call-graph fp" ;;
				mcrec) l="$w: mcrec --call-graph dwarf" ;;
				perf) l="$w: perf record --call-graph dwarf" ;;
				mcrec10k) l="$w: mcrec dwarf --code-hz 10000" ;;
				perf10k) l="$w: perf record dwarf -c 100us" ;;
				esac
				printf '%-36s %9.3f %8.2f%% %10.3f %7.2f%% %12s %8s %10s\n' "$l" "$mc" \
					"$(pct "$mc" "$cb")" "$own" \
					"$(awk -v a="$own" -v b="$mc" 'BEGIN { print 100 * a / b }')" \
					"$(awk -v x="$bps" 'BEGIN { if (x == "-") print "-"; else printf "%.0f", x }')" "$n" "$sc"
			done
			ratio "$w" mcrec perf "  mcrec/perf, 1 kHz"
			ratio "$w" mcrec10k perf10k "  mcrec/perf, 10 kHz"
		done
	else
		echo "perf record --call-graph dwarf not usable here (or no $CPUOF: make units)"
	fi
}
if [ "${CODE_ONLY:-}" = 4 ]; then
	dwarf_rows
	exit
fi
for ((r = 0; r < R; r++)); do
	for c in "${configs[@]}"; do
		a=$(date +%s.%N)
		run "$c"
		b=$(date +%s.%N)
		echo "$a $b" | awk '{ printf "%.4f\n", $2 - $1 }' >>"$T/$c.t"
		case $c in mcrec*) "$B/mcz" info "$T/o.mcz" | awk '$2 == "code_symbolize_s" { print $4 }' >>"$T/$c.sym" ;; esac
	done
done
base=$(median "$T/none.t")
inbase=$(median "$T/none.in")
cpubase=$(median "$T/none.cpu")
echo "1. overhead: phased triad/gemm/chase x$STEPS, $R interleaved rounds, medians"
printf '%-36s %10s %9s %9s %9s %9s %9s %12s\n' "run" "command s" "overhead" "cmd CPU s" "overhead" \
	"wall s" "overhead" "symbolize s"
for c in "${configs[@]}"; do
	m=$(median "$T/$c.t")
	mi=$(median "$T/$c.in")
	mc=$(median "$T/$c.cpu")
	sym=-
	[ -f "$T/$c.sym" ] && sym=$(median "$T/$c.sym")
	case $c in
	none) l="alone" ;;
	mcrec1k) l="mcrec -g code (1 kHz, default)" ;;
	mcrec10k) l="mcrec -g code --code-hz 10000" ;;
	perf1k) l="perf record -e cpu-clock:u -c 1ms" ;;
	perf10k) l="perf record -e cpu-clock:u -c 100us" ;;
	esac
	printf '%-36s %10.3f %8.2f%% %9.3f %8.2f%% %9.3f %8.2f%% %12s\n' "$l" "$mi" \
		"$(pct "$mi" "$inbase")" "$mc" \
		"$(pct "$mc" "$cpubase")" "$m" \
		"$(pct "$m" "$base")" "$sym"
done
echo

echo "2. symbolization (bar: 10^6 samples, 10^5 addresses in <= 1 s)"
if [ -x "$B/bench/bench-code-sym" ]; then
	"$B/bench/bench-code-sym" "$B/mcview" 1000000 100000 $([ "${BENCH_QUICK:-}" = 1 ] && echo 20 || echo 100)
else
	echo "no $B/bench/bench-code-sym (make $B/bench/bench-code-sym)"
fi
echo

echo "3. top function per phase, mcz vs perf (bar: 5 points)"
cc -O2 -g -o "$T/work" tests/tools/code-phases.c || exit 1
"$B/mcrec" -q -f -g code -o "$T/c.mcz" -- "$T/work" "$PH" 2>"$T/c.err" || exit 1
"$B/mcz" dump "$T/c.mcz" --code --csv >"$T/c.csv"
epoch=$("$B/mcz" info "$T/c.mcz" | awk '$2 == "wall_epoch_ns" { print $4 }')
if [ $have_perf = 1 ]; then
	perf record -q -e cpu-clock:u -c 1000000 -k mono -o "$T/p.data" -- "$T/work" "$PH" >/dev/null 2>"$T/p.err"
	perf script -i "$T/p.data" -F time,ip,sym,srcline >"$T/p.txt" 2>/dev/null
	python3 tests/integration/code-phases.py "$T/c.err" "$epoch" "$T/c.csv" "$T/p.err" "$T/p.txt" >"$T/cmp"
else
	python3 tests/integration/code-phases.py "$T/c.err" "$epoch" "$T/c.csv" >"$T/cmp"
fi
printf '%-8s %-16s %7s %7s   %-16s %7s %7s %7s\n' phase "mcz top" share samples "perf top" share samples "diff"
while read -r name _ f sh n _ pf psh pn; do
	d=-
	[ -n "${psh:-}" ] && d=$(awk -v a="$sh" -v b="$psh" 'BEGIN { d = 100 * (a - b); printf "%+.1f pt", d }')
	printf '%-8s %-16s %7s %7s   %-16s %7s %7s %7s\n' "$name" "$f" "$sh" "$n" "${pf:--}" "${psh:--}" "${pn:--}" "$d"
done <"$T/cmp"
echo
dwarf_rows
