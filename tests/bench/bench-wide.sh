#!/usr/bin/env bash
# bench-wide.sh: wide, short data (issue 21, format 1.3):
#   - 10,000 streams x 16 rows (tests/tools/gen-recording: busy per-core
#     counters and gauges with independent uniform noise) in bytes per
#     value, whole file, beside the information the values carry (their
#     entropy, gen-recording --entropy: no lossless coder stores them in
#     less); the streams declared CPU by CPU, then metric by metric (as
#     mcrec declares them: --metric-major);
#   - 100,000 streams x 16 rows: open, read one stream whole and close
#     (bench-wide, median of 15; bar: <= 10 ms);
#   - every archive of pcp-testsuite imported: mcz size / xz -9 of the
#     archive's files, with the median and the worst (bar: none above 1.0,
#     median <= 0.6).  xz sizes are cached in $MCZ_BENCH_DIR/xz9 (default
#     /tmp/mcz-bench); BENCH_ARCHIVES="a b c" limits the list.
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-$PWD/build}
D=${MCZ_BENCH_DIR:-/tmp/mcz-bench}
A=/var/lib/pcp/testsuite/archives
T=$(mktemp -d /tmp/mcz-bench-wide.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$D/xz9"

for order in cpu metric; do
	e=$("$B/tests/tools/gen-recording" -o "$T/w10k.mcz" --streams 10000 --rows 16 --chunk-rows 16 --entropy \
		$([ $order = metric ] && echo --metric-major)) || exit 1
	n=$("$B/mcz" info "$T/w10k.mcz" | sed -n 's/^values *\([0-9]*\) stored.*/\1/p')
	c=$("$B/mcz" info "$T/w10k.mcz" | sed -n 's/^values .* chunks: \([0-9.]*\) bytes\/value.*/\1/p')
	m=$(stat -c %s "$T/w10k.mcz")
	awk -v n="$n" -v m="$m" -v c="$c" -v o="$order" -v e="$(echo "$e" | awk '{ print $2 }')" 'BEGIN {
		printf "10,000 streams x 16 rows, declared %s by %s: %d values, mcz %d B = %.2f B/value, all metadata counted (bar 2.0);\n",
			o == "cpu" ? "CPU" : "metric", o == "cpu" ? "CPU" : "metric", n, m, m / n
		printf "   the chunks alone %.2f B/value; the values carry %.2f B/value of entropy (their floor)\n", c, e }'
done

"$B/tests/tools/gen-recording" -o "$T/w100k.mcz" --streams 100000 --rows 16 --chunk-rows 16 >/dev/null || exit 1
"$B/bench/bench-wide" "$T/w100k.mcz" 15
rm -f "$T"/w100k.mcz "$T"/w10k*

[ -f "$A/count-mark.meta" ] || { echo "skip: pcp-testsuite archives not installed"; exit 0; }
list=${BENCH_ARCHIVES:-$(cd "$A" && ls *.meta *.meta.xz 2>/dev/null | sed 's/\.meta\(\.xz\)\{0,1\}$//' | sort -u)}
printf '%-40s %10s %10s %6s\n' archive xz9_B mcz_B ratio
for name in $list; do
	if [ ! -s "$D/xz9/$name" ]; then
		xz=0
		for f in "$A/$name".meta* "$A/$name".index* "$A/$name".[0-9]*; do
			[ -f "$f" ] || continue
			case $f in
			*.xz) xz -dc "$f" >"$T/f" ;;
			*) cp "$f" "$T/f" ;;
			esac
			xz=$((xz + $(xz -9 -c "$T/f" | wc -c)))
		done
		echo "$xz" >"$D/xz9/$name"
	fi
	xz=$(cat "$D/xz9/$name")
	if ! "$B/mcz" import -q "$A/$name" -o "$T/x.mcz" >/dev/null 2>&1; then
		printf '%-40s %10d %10s %6s\n' "$name" "$xz" - "(not imported)"
		continue
	fi
	printf '%-40s %10d %10d %6.2f\n' "$name" "$xz" "$(stat -c %s "$T/x.mcz")" \
		"$(awk -v m="$(stat -c %s "$T/x.mcz")" -v x="$xz" 'BEGIN { print m / x }')"
	rm -f "$T/x.mcz"
done | tee "$T/table"
awk '$4 ~ /^[0-9.]+$/ { r[n++] = $4; if ($4 > w) { w = $4; wn = $1 } }
	END { if (!n) exit; asort(r); printf "%d archives: median %.2f, worst %.2f (%s), above 1.0: %d\n",
		n, (n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2), w, wn, above }
	$4 ~ /^[0-9.]+$/ && $4 > 1.0 { above++ }' "$T/table"
