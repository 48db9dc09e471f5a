#!/usr/bin/env bash
# bench-pcp-all.sh: `mcz import` beside `pmdumplog -a` on every archive of
# pcp-testsuite (bench-pcp.sh has the named ones in detail), run in turn,
# medians of 3 runs (1 with BENCH_QUICK=1).  One line per class of archive
# by pmdumplog's time: how many, how many mcz imports at least as fast, the
# median and the worst ratio (pmdumplog / import: above 1, mcz is faster)
# and the median time each takes.  The first line is the floor both share:
# each program started and stopped (`mcz --version`, `pmdumplog --version`).
# Archives where pmdumplog takes over 5 s are left to bench-pcp.sh.
# BENCH_PCP_ALL_LIST=FILE: one line per archive there (name, ms, ms, ratio).
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -f "$A/count-mark.meta" ] || { echo "skip: pcp-testsuite archives not installed"; exit 0; }
T=$(mktemp -d /tmp/mcz-bench-pcp-all.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=3
[ -n "${BENCH_QUICK:-}" ] && N=1
export PCP_DERIVED_CONFIG= # the same for both: mcz import sets it so itself

# ms of one run, to 0.1 ms
ms() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 100000)) | sed 's/.$/.&/; s/^\./0./'
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for i in 1 2 3 4 5 6 7 8 9; do
	ms pmdumplog --version >>"$T/pv"
	ms "$B/mcz" --version >>"$T/mv"
done
printf '%-26s %8s %8s\n' "start and stop only" "$(median <"$T/pv") ms" "$(median <"$T/mv") ms"

for meta in "$A"/*.meta "$A"/*.meta.xz; do
	[ -f "$meta" ] || continue
	name=${meta##*/}
	name=${name%.xz}
	name=${name%.meta}
	p=$(ms pmdumplog -a "$A/$name")
	awk -v p="$p" 'BEGIN {exit !(p > 5000)}' && continue
	"$B/mcz" import -q -o "$T/x.mcz" "$A/$name" >/dev/null 2>&1 || continue
	: >"$T/p" && : >"$T/m"
	for ((i = 0; i < N; i++)); do
		ms pmdumplog -a "$A/$name" >>"$T/p"
		ms "$B/mcz" import -q -o "$T/x.mcz" "$A/$name" >>"$T/m"
	done
	echo "$name $(median <"$T/p") $(median <"$T/m")"
done | awk '{printf "%s %s %s %.3f\n", $1, $2, $3, $2 / ($3 > 0 ? $3 : 0.1)}' >"$T/all"
[ -n "${BENCH_PCP_ALL_LIST:-}" ] && cp "$T/all" "$BENCH_PCP_ALL_LIST"

printf '%-26s %8s %8s %7s %7s %7s  %s\n' "pmdumplog -a takes" archives "mcz >=" median worst "pmdumplog/import ms" "(worst)"
for c in "0 10 under 10 ms" "10 50 10 to 50 ms" "50 250 50 to 250 ms" "250 1e9 250 ms and more"; do
	set -- $c
	lo=$1 hi=$2
	shift 2
	awk -v lo="$lo" -v hi="$hi" '$2 >= lo && $2 < hi' "$T/all" | sort -k4 -g >"$T/c"
	n=$(wc -l <"$T/c")
	[ "$n" -gt 0 ] || continue
	fast=$(awk '$4 >= 1' "$T/c" | wc -l)
	mr=$(awk '{print $4}' "$T/c" | median)
	mp=$(awk '{print $2}' "$T/c" | median)
	mm=$(awk '{print $3}' "$T/c" | median)
	worst=$(head -n 1 "$T/c")
	printf '%-26s %8d %8d %6.2fx %6.2fx  %6s / %-6s  (%s)\n' "$*" "$n" "$fast" "$mr" \
		"$(echo "$worst" | awk '{print $4}')" "$mp" "$mm" "$(echo "$worst" | awk '{print $1}')"
done
