#!/usr/bin/env bash
# bench-topo.sh: the topology view's chart drawn into a 200 x 60 terminal
# (layout, then sunburst or icicle raster with labels; medians of REPS runs,
# tests/bench/topo-draw.c) for machines of 2 to 1024 PUs, beside lstopo
# drawing the same topology as text (lstopo-no-graphics --of ascii, whole
# process, median of the same number of runs).  The viewer's bar: any redraw
# <= 16 ms at 200 x 60.  BENCH_QUICK=1: fewer runs.
set -u
B=${MCZ_BUILD:-build}
prog=$B/bench/topo-draw
[ -x "$prog" ] || { echo "missing $prog (make units)"; exit 1; }
R=30
[ "${BENCH_QUICK:-}" = 1 ] && R=7
have_lstopo=0
command -v lstopo-no-graphics >/dev/null && have_lstopo=1

# median wall ms of R runs of a command
lstopo_ms() {
	local i t0 t1
	for ((i = 0; i < R; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'
}

printf '%-34s %7s %5s %9s %11s %10s %12s\n' topology objects PUs layout_ms sunburst_ms icicle_ms lstopo_ascii
for desc in "" "pack:2 numa:2 core:8 pu:2" "pack:4 numa:2 l3:2 core:8 pu:2" \
	"pack:8 numa:2 l3:4 core:8 pu:2" tests/data/topo/gpu-node.xml; do
	read -r n pus lay sun ici < <("$prog" chart "$desc" "$R") || { echo "topo-draw failed on '$desc'"; exit 1; }
	ref=-
	if [ $have_lstopo = 1 ]; then
		if [ -z "$desc" ]; then
			ref=$(lstopo_ms lstopo-no-graphics --of ascii)
		else
			ref=$(lstopo_ms lstopo-no-graphics --of ascii -i "$desc")
		fi
	fi
	printf '%-34s %7d %5d %9.3f %11.3f %10.3f %12s\n' "${desc:-this machine}" "$n" "$pus" "$lay" \
		"$sun" "$ici" "$ref"
done
echo "(ms, medians of $R; lstopo: the whole process, loading the topology and writing the text)"

# The whole view (values of every metric, layout, chart, panel, legend) on a
# recording of per-PU counters (3 streams per PU, 6000 rows at 10 ms).
echo
printf '%-34s %7s %5s %7s %9s %13s %12s %12s %12s %12s\n' "view on a recording of" objects PUs streams \
	first_ms same_range_ms new_range_ms settled_ms settled_cpu exact_ms
for desc in "pack:2 numa:2 core:8 pu:2" "pack:4 numa:2 l3:2 core:8 pu:2" "pack:8 numa:2 l3:4 core:8 pu:2"; do
	read -r n pus ns first same moved mcpu settled exact < <("$prog" view "$desc" 6000 "$((R > 9 ? 9 : R))") ||
		{ echo "topo-view failed on '$desc'"; exit 1; }
	printf '%-34s %7d %5d %7d %9.2f %13.2f %12.2f %12.2f %12.2f %12.2f\n' "$desc" "$n" "$pus" "$ns" \
		"$first" "$same" "$moved" "$settled" "$mcpu" "$exact"
done
echo "(ms, medians; first: init + first draw; same range: after a key moving the selection (the"
echo " panel reads its other metrics for the new subtree); new range: the frame after the window"
echo " moved, as mcview draws it within an 8 ms decode budget (the last range's colours stay, marked"
echo " 'updating...', until every stream is read); settled: from the move to the last frame, and"
echo " its CPU time; exact: a move drawn without budget, every colouring stream read in one frame"
echo " (libmcz decodes the chunks at the window's edges once for each pass of 128 streams))"
