#!/usr/bin/env bash
# bench-roofline.sh: mcrec --calibrate against independent measurements in
# the same run — STREAM triad (tests/bench/stream-triad.c: McCalpin's
# kernel and counting, unpinned threads, best of 10) and an FMA loop in
# inline assembly (tests/bench/fma-peak.c: 12 ymm chains, AVX2), and
# likwid-bench (stream, peakflops_avx_fma) when it is installed.  The bar
# (issue 17): calibrated bandwidth within 10 % of the STREAM triad, peak
# FLOP/s within 10 % of the FMA loop.  Each side is run twice, interleaved,
# and its best kept, so that another program on the machine hurts both
# alike.  The figures are only as good as the machine is quiet.
set -u
B=${MCZ_BUILD:-build}
for p in "$B/mcrec" "$B/bench/stream-triad" "$B/bench/fma-peak"; do
	[ -x "$p" ] || { echo "missing $p (make units)"; exit 1; }
done
T=$(mktemp -d /tmp/mcz-bench-roof.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache
ncpu=$(nproc)
best() { sort -g | tail -1; }
val() { awk -v k="$1" '$1 == k { print $3 }' "$2"; }

for round in 1 2; do
	"$B"/mcrec --calibrate -q || { echo "mcrec --calibrate failed"; exit 1; }
	c=$(ls "$XDG_CACHE_HOME"/mcz/ceilings-*)
	val roof.bw_triad_Bps "$c" >>"$T/cal_bw"
	val roof.flops "$c" >>"$T/cal_fl"
	val roof.flops_1core "$c" >>"$T/cal_fl1"
	"$B"/bench/stream-triad "$ncpu" $((32 << 20)) | awk '{ print $2 }' >>"$T/ind_bw"
	"$B"/bench/fma-peak "$ncpu" | awk '{ print $2 }' >>"$T/ind_fl"
	"$B"/bench/fma-peak 1 | awk '{ print $2 }' >>"$T/ind_fl1"
	if command -v likwid-bench >/dev/null; then
		likwid-bench -t stream -w N:768MB:"$ncpu" 2>/dev/null | awk '/^MByte\/s:/ { print $2 * 1e6 }' >>"$T/lk_bw"
		likwid-bench -t peakflops_avx_fma -w N:32kB:"$ncpu" 2>/dev/null | awk '/^MFlops\/s:/ { print $2 * 1e6 }' >>"$T/lk_fl"
		likwid-bench -t peakflops_avx_fma -w N:32kB:1 2>/dev/null | awk '/^MFlops\/s:/ { print $2 * 1e6 }' >>"$T/lk_fl1"
	fi
done

simd=$(awk '$1 == "roof.simd" { print $3 }' "$XDG_CACHE_HOME"/mcz/ceilings-*)
echo "host: $(awk '$1 == "roof.host_key" { print $3 }' "$XDG_CACHE_HOME"/mcz/ceilings-*), widest SIMD $simd; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %14s %14s %7s %6s %14s\n' figure "mcrec --calib" independent ratio "<=10%" likwid-bench
row() { # name, cal file, independent file, likwid file, unit (values in base units; awk
	# does the arithmetic: bc does not read 1.2e+10)
	awk -v name="$1" -v unit="$5" -v c="$(best <"$T/$2")" -v i="$(best <"$T/$3")" \
		-v l="$( [ -s "$T/$4" ] && best <"$T/$4")" -v raw="$(tr '\n' ' ' <"$T/$2") / $(tr '\n' ' ' <"$T/$3")" 'BEGIN {
		r = i > 0 ? c / i : 0
		lk = l != "" ? sprintf("%.3g %s", l / 1e9, unit) : "-"
		printf "%-28s %14s %14s %7.3f %6s %14s   (rounds: %s)\n", name, sprintf("%.3g %s", c / 1e9, unit),
			sprintf("%.3g %s", i / 1e9, unit), r, (r >= 0.9 && r <= 1.1) ? "yes" : "NO", lk, raw }'
}
row "memory triad, all CPUs" cal_bw ind_bw lk_bw "GB/s"
row "FMA peak, all CPUs" cal_fl ind_fl lk_fl "GF/s"
row "FMA peak, one core" cal_fl1 ind_fl1 lk_fl1 "GF/s"
[ "$simd" = avx2 ] || echo "(the independent FMA loop is AVX2: on an $simd machine the peak rows compare different widths)"
