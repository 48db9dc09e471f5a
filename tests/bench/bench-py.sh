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
#   read_csv             pandas.read_csv of the dump (C parser, its default
#                        float conversion: faster than round_trip, not exact)
#   mcz dump --csv       writing the dump (what read_csv needs first; the
#                        program's whole run)
# The bar: to_pandas() at least 10x faster than read_csv.
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

# runs WHAT FILE: the median of $runs runs of py.py (a fresh python each),
# seconds; the values read in $T/n
runs() {
	local i
	for ((i = 0; i < runs; i++)); do
		"$PY" "$T/py.py" "$1" "$2" >"$T/out" || return 1
		read -r n_ t_ <"$T/out"
		echo "$n_" >"$T/n"
		echo "$t_"
	done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
cat >"$T/py.py" <<'PY'
import sys, time, mcz, pandas as pd
what, path = sys.argv[1:3]
t = time.perf_counter()
if what == "to_pandas":
    with mcz.open(path) as r:
        n = r.to_pandas().size
elif what == "read":
    with mcz.open(path) as r:
        n = sum(len(r.read(s.id)[1]) for s in r.streams)
else:
    n = pd.read_csv(path, index_col=0).size
print(n, "%.3f" % (time.perf_counter() - t))
PY
cat "$f" >/dev/null
tp=$(runs to_pandas "$f") || exit 1
n=$(cat "$T/n")
tr=$(runs read "$f") || exit 1
[ "$(cat "$T/n")" = "$n" ] || { echo "bench-py: read() gave $(cat "$T/n") values, to_pandas $n"; exit 1; }
td=()
for ((i = 0; i < runs; i++)); do
	a=$(date +%s.%N)
	"$B/mcz" dump --csv "$f" >"$T/d.csv" || exit 1
	td+=("$(awk -v a="$a" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
done
td=$(printf '%s\n' "${td[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
csvb=$(stat -c %s "$T/d.csv")
tc=$(runs csv "$T/d.csv") || exit 1
[ "$(cat "$T/n")" = "$n" ] || { echo "bench-py: read_csv gave $(cat "$T/n") values, to_pandas $n"; exit 1; }
printf '%-34s %12s %10s %14s\n' "reading $n values into python" "seconds" "values/s" "vs read_csv"
row() { awk -v l="$1" -v t="$2" -v n="$n" -v c="$tc" 'BEGIN { printf "%-34s %12.3f %10.3g %13.1fx\n", l, t, n / t, c / t }'; }
row "mcz to_pandas()" "$tp"
row "mcz read() of every stream" "$tr"
row "pandas.read_csv (the dump, $((csvb / 1048576)) MiB)" "$tc"
row "mcz dump --csv (written first)" "$td"
awk -v p="$tp" -v c="$tc" 'BEGIN { r = c / p; printf "to_pandas() is %.1fx faster than read_csv (bar: 10x): %s\n", r, r >= 10 ? "met" : "NOT MET" }'
