#!/usr/bin/env bash
# bench-pcp-all.sh: storage over every archive of pcp-testsuite (not a
# sample): each archive's files compressed with `xz -9` (the usual way
# archives are kept; .xz files as shipped are decompressed first) beside
# the `.mcz` that `mcz import` makes of it, all metadata counted on both
# sides.  One line per archive, then the median and the worst of mcz/xz and
# how many are above 1.0 (the bar: none above 1.0, median <= 0.6).
# Archives that libpcp itself cannot read (the testsuite keeps some broken
# on purpose) are counted apart, with the reason mcz import gives.
# BENCH_QUICK=1: every 8th archive.
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -d "$A" ] || { echo "skip: pcp-testsuite archives not installed"; exit 0; }
T=$(mktemp -d /tmp/mcz-bench-pcp-all.XXXXXX)
trap 'rm -rf "$T"' EXIT
step=1
[ -n "${BENCH_QUICK:-}" ] && step=8

names=$(ls "$A" | sed -n 's/\.meta\(\.xz\)\{0,1\}$//p' | sort -u | awk -v s=$step '(NR - 1) % s == 0')
printf '%-36s %10s %10s %10s %7s\n' archive raw_B xz9_B mcz_B mcz/xz
: >"$T/ratios"
bad=0
for name in $names; do
	raw=0 xz=0
	for f in "$A/$name".meta* "$A/$name".index* "$A/$name".[0-9]*; do
		[ -f "$f" ] || continue
		case $f in
		*.xz) xz -dc "$f" >"$T/f" ;;
		*) cp "$f" "$T/f" ;;
		esac
		raw=$((raw + $(stat -c %s "$T/f")))
		xz=$((xz + $(xz -9 -c "$T/f" | wc -c)))
	done
	if ! msg=$("$B/mcz" import -q "$A/$name" -o "$T/x.mcz" 2>&1); then
		printf '%-36s %10d %10d %10s %7s  (%s)\n' "$name" "$raw" "$xz" - - "$(head -1 <<<"$msg" | cut -c1-60)"
		bad=$((bad + 1))
		continue
	fi
	mcz=$(stat -c %s "$T/x.mcz")
	awk -v n="$name" -v raw="$raw" -v xz="$xz" -v m="$mcz" 'BEGIN {
		printf "%-36s %10d %10d %10d %7.2f\n", n, raw, xz, m, m / xz }'
	awk -v xz="$xz" -v m="$mcz" -v n="$name" 'BEGIN { printf "%.4f %s\n", m / xz, n }' >>"$T/ratios"
done
sort -n "$T/ratios" | awk -v bad=$bad '
	{ r[NR] = $1; n[NR] = $2; if ($1 > 1.0) above++ }
	END {
		if (!NR) { print "no archive imported"; exit }
		med = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
		printf "%d archives imported (%d libpcp cannot read): mcz/xz median %.2f, best %.2f (%s), worst %.2f (%s), above 1.0: %d\n",
			NR, bad, med, r[1], n[1], r[NR], n[NR], above + 0
	}'
