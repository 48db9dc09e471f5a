#!/usr/bin/env bash
# bench-py.sh: 10^8 values into Python: `import mcz` (python/mcz over
# libmcz.so.1) beside pandas.read_csv of `mcz dump --csv`, the only way out
# before it.  The recording: 100 streams x 10^6 rows of counters, float and
# integer gauges (tests/tools/gen-recording), generated once and cached as
# $MCZ_BENCH_DIR/py-1e8.mcz (default /tmp/mcz-bench); its dump is written
# for the run and removed.  Rows, each the median of 3 runs (wall clock, in
# a fresh python each, its start and `import pandas` counted on both sides,
# the file in the page cache):
#   to_pandas()          the DataFrame, one column per stream
#   read() x 100         every stream as numpy (times, values)
#   read() x 100, 4 threads  the same by 4 threads on one Recording
#                        (ThreadPoolExecutor(4).map(rec.read, ids))
#   read_csv             pandas.read_csv of the dump (C parser, its default
#                        float conversion: faster than round_trip, not exact)
#   mcz dump --csv       writing the dump (what read_csv needs first; the
#                        program's whole run)
# and for the middle half of the rows (t0, t1 = 1/4 and 3/4 of the run):
#   to_pandas(t0, t1)    the DataFrame of that window
#   read_csv             of `mcz dump --csv --from t0 --to t1` (its reference)
# Beside each, the peak RSS of the read (above what the process held
# before it: python, pandas, the open recording) and the size of what it
# gives (the frame's memory_usage, or the arrays' bytes).
# The bars: to_pandas() at least 10x faster than read_csv; a window needing
# no more memory beside its frame than the whole does beside its own (the
# readers' caches and the file's mapped pages are the same for both, so at
# a small size they weigh more against a smaller frame).
# BENCH_QUICK=1: 100 streams x 10^5 rows (10^7 values), one run each.
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-$PWD/build}
D=${MCZ_BENCH_DIR:-/tmp/mcz-bench}
rows=1000000 name=py-1e8.mcz runs=3
[ -n "${BENCH_QUICK:-}" ] && rows=100000 name=py-1e7.mcz runs=1
PY=
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null && "$p" -c 'import numpy, pandas' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "skip: no python3 with numpy and pandas (scripts/install-deps.sh)"; exit 0; }
[ -f "$B/libmcz.so.1" ] || { echo "bench-py: $B/libmcz.so.1 not built (make shlib)"; exit 1; }
mkdir -p "$D"
f=$D/$name
if ! "$B/mcz" info "$f" 2>/dev/null | grep -q '^index *ok'; then
	echo "generating $f (100 streams x $rows rows)..."
	"$B/tests/tools/gen-recording" -o "$f.tmp" --streams 100 --rows "$rows" --phases &&
		mv "$f.tmp" "$f" || { echo "bench-py: generation failed"; exit 1; }
fi
T=$(mktemp -d /tmp/mcz-bench-py.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$B/mcz" info "$f" | sed -n 's/^values */file: /p'
export MCZ_LIB=$B/libmcz.so.1 PYTHONPATH=$PWD/python PYTHONDONTWRITEBYTECODE=1

# runs WHAT FILE [T0 T1]: the median of $runs runs of py.py (a fresh python
# each): "seconds values peak_bytes size_bytes", of the run of median time
runs() {
	local i
	: >"$T/runs"
	for ((i = 0; i < runs; i++)); do
		"$PY" "$T/py.py" "$@" >>"$T/runs" || return 1
	done
	sort -g "$T/runs" | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }'
}
cat >"$T/py.py" <<'PY'
import resource, sys, time, mcz, pandas as pd
from concurrent.futures import ThreadPoolExecutor
what, path = sys.argv[1:3]
t0, t1 = (float(x) for x in sys.argv[3:5]) if len(sys.argv) > 3 else (None, None)
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # noqa: E731
t = time.perf_counter()
if what == "csv":
    m0 = rss()
    f = pd.read_csv(path, index_col=0)
    n, peak, size = f.size, rss() - m0, f.memory_usage().sum()
else:
    with mcz.open(path) as r:
        m0 = rss()
        if what == "to_pandas":
            f = r.to_pandas(t0=t0, t1=t1)
            n, size = f.size, f.memory_usage().sum()
        else:
            ids = [s.id for s in r.streams]
            if what == "read":
                got = [r.read(i) for i in ids]
            else:
                with ThreadPoolExecutor(4) as pool:
                    got = list(pool.map(r.read, ids))
            n, size = sum(len(v) for _, v in got), sum(t.nbytes + v.nbytes for t, v in got)
        peak = rss() - m0
print("%.3f %d %d %d" % (time.perf_counter() - t, n, peak, size))
PY
cat "$f" >/dev/null
o=$(runs to_pandas "$f") || exit 1
read -r tp n mp sp <<<"$o"
o=$(runs read "$f") || exit 1
read -r tr nr mr sr <<<"$o"
[ "$nr" = "$n" ] || { echo "bench-py: read() gave $nr values, to_pandas $n"; exit 1; }
o=$(runs threads "$f") || exit 1
read -r t4 n4 m4 s4 <<<"$o"
[ "$n4" = "$n" ] || { echo "bench-py: read() in 4 threads gave $n4 values, to_pandas $n"; exit 1; }
# the middle half: the bounds as python prints them, for mcz dump too
read -r w0 w1 <<<"$("$PY" -c 'import sys, mcz; d = mcz.open(sys.argv[1]).duration; print(repr(d / 4), repr(d * 3 / 4))' "$f")"
o=$(runs to_pandas "$f" "$w0" "$w1") || exit 1
read -r tw nw mw sw <<<"$o"
td=() tdw=()
for ((i = 0; i < runs; i++)); do
	a=$(date +%s.%N)
	"$B/mcz" dump --csv "$f" >"$T/d.csv" || exit 1
	td+=("$(awk -v a="$a" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
done
td=$(printf '%s\n' "${td[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
csvb=$(stat -c %s "$T/d.csv")
o=$(runs csv "$T/d.csv") || exit 1
read -r tc nc mc sc <<<"$o"
[ "$nc" = "$n" ] || { echo "bench-py: read_csv gave $nc values, to_pandas $n"; exit 1; }
rm -f "$T/d.csv"
"$B/mcz" dump --csv --from "$w0" --to "$w1" "$f" >"$T/w.csv" || exit 1
csvw=$(stat -c %s "$T/w.csv")
o=$(runs csv "$T/w.csv") || exit 1
read -r tcw ncw mcw scw <<<"$o"
[ "$ncw" = "$nw" ] || { echo "bench-py: read_csv of the window gave $ncw values, to_pandas(t0, t1) $nw"; exit 1; }
printf '%-40s %9s %10s %12s %9s %9s %6s\n' "reading $n values into python" "seconds" "values/s" \
	"vs read_csv" "peak MiB" "size MiB" "peak/size"
# row LABEL SECONDS VALUES READ_CSV_SECONDS PEAK SIZE
row() {
	awk -v l="$1" -v t="$2" -v n="$3" -v c="$4" -v m="$5" -v s="$6" 'BEGIN {
		printf "%-40s %9.3f %10.3g %11.1fx %9.0f %9.0f %8.2fx\n", l, t, n / t, c / t,
			m / 1048576, s / 1048576, m / s }'
}
row "mcz to_pandas()" "$tp" "$n" "$tc" "$mp" "$sp"
row "mcz read() of every stream" "$tr" "$n" "$tc" "$mr" "$sr"
row "mcz read() of every stream, 4 threads" "$t4" "$n" "$tc" "$m4" "$s4"
row "pandas.read_csv (the dump, $((csvb / 1048576)) MiB)" "$tc" "$n" "$tc" "$mc" "$sc"
awk -v l="mcz dump --csv (written first)" -v t="$td" -v n="$n" -v c="$tc" 'BEGIN {
	printf "%-40s %9.3f %10.3g %11.1fx\n", l, t, n / t, c / t }'
echo "the middle half of the rows: t0 $w0 s, t1 $w1 s, $nw values"
row "mcz to_pandas(t0, t1)" "$tw" "$nw" "$tcw" "$mw" "$sw"
row "pandas.read_csv (its dump, $((csvw / 1048576)) MiB)" "$tcw" "$nw" "$tcw" "$mcw" "$scw"
awk -v p="$tp" -v c="$tc" 'BEGIN { r = c / p; printf "to_pandas() is %.1fx faster than read_csv (bar: 10x): %s\n", r, r >= 10 ? "met" : "NOT MET" }'
awk -v w="$mw" -v sw="$sw" -v p="$mp" -v sp="$sp" 'BEGIN { a = (w - sw) / 1048576; b = (p - sp) / 1048576
	printf "to_pandas(t0, t1) needs %.0f MiB beside its frame, to_pandas() %.0f MiB (bar: no more): %s\n",
		a, b, a <= b + sp / 1048576 * 0.05 ? "met" : "NOT MET" }'
