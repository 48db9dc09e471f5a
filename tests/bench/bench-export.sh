#!/usr/bin/env bash
# bench-export.sh: `mcz export --pcp` (format/pcp/pcp-export.c, through
# libpcp_import) beside `pmlogextract` (PCP's own archive rewriter: reads an
# archive through libpcp and writes it again; this PCP has no pmlogcp) on
# archives of the same data: each pcp-testsuite archive is imported once
# (mcz import), then the .mcz exported, and pmlogextract copies the original
# archive; a synthetic recording (gen-recording: 64 counters, 50 000 rows)
# is exported, and pmlogextract copies that export.  Medians of N runs
# (N=3; 1 with BENCH_QUICK=1), milliseconds of wall time; values: the
# numbers written; ratio: export / pmlogextract.
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
command -v pmlogextract >/dev/null || { echo "skip: pmlogextract (pcp) not installed"; exit 0; }
T=$(mktemp -d /tmp/mcz-bench-export.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=3
[ -n "${BENCH_QUICK:-}" ] && N=1
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# ms of one run of "$@" (run in $T/o, emptied first: both write new archives)
ms() { local s e; rm -rf "$T/o"; mkdir -p "$T/o"; s=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "failed: $*" >&2; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
times() { for _ in $(seq "$N"); do ms "$@"; done | median; }

printf '%-22s %10s %10s %15s %6s\n' archive values export_ms pmlogextract_ms ratio
row() { # name mcz-file pcp-archive
	local v e p
	v=$("$B/mcz" export --pcp "$T/v/x$RANDOM" "$2" | sed -n 's/.* records, \([0-9]*\) values.*/\1/p')
	e=$(times "$B/mcz" export -q --pcp "$T/o/x" "$2")
	p=$(times pmlogextract "$3" "$T/o/x")
	printf '%-22s %10s %10s %15s %6s\n' "$1" "$v" "$e" "$p" "$(awk -v a="$e" -v b="$p" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
}
mkdir -p "$T/v"
if [ -f "$A/count-mark.meta" ]; then
	for name in count-mark 20041125 small 20180416.10.00; do
		"$B/mcz" import -q "$A/$name" -o "$T/$name.mcz" || { echo "$name: import failed"; exit 1; }
		row "$name" "$T/$name.mcz" "$A/$name"
	done
else
	echo "(pcp-testsuite archives not installed: their rows left out)"
fi
"$B/tests/tools/gen-recording" -o "$T/gen.mcz" --streams 64 --rows 50000 --counters >/dev/null ||
	{ echo "gen-recording failed"; exit 1; }
"$B/mcz" export -q --pcp "$T/gen" "$T/gen.mcz" || { echo "export of the synthetic recording failed"; exit 1; }
row "gen 64x50000" "$T/gen.mcz" "$T/gen"
