#!/usr/bin/env bash
# bench-pcp-grow.sh: today's pmlogger archive opened again after it grew.
# A real pmlogger (the local pmcd, the default pmlogconf configuration,
# every 100 ms) writes for GROW_S seconds (default 60); mcview opens the
# archive half way (its conversion kept in the cache), and again once
# pmlogger has ended:
#   again   — `mcview --phases off --snapshot` with the half-way entry in the
#             cache: the entry continued with the second half's records
#             (pcp_import_extend), drawn, exit;
#   remade  — the same with an empty cache: the whole archive converted;
#   pminfo  — `pminfo -f -a` (every metric's values at the archive's start),
#   pmdumplog — `pmdumplog -a` (every record) of the grown archive;
# medians of N runs taken in turn (the half-way entry put back each time).
set -u
B=${MCZ_BIN:-build}
command -v pmlogger >/dev/null && pminfo -f kernel.all.load >/dev/null 2>&1 ||
	{ echo "skip: no pmlogger, or no pmcd answering"; exit 0; }
T=$(mktemp -d /tmp/mcz-bench-grow.XXXXXX)
plog=
trap '[ -n "$plog" ] && kill $plog 2>/dev/null; rm -rf "$T"' EXIT
S=${GROW_S:-60}
N=5
[ -n "${BENCH_QUICK:-}" ] && N=1 S=20
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
snap() { XDG_CACHE_HOME=$T/cache "$B/mcview" -q --phases off --snapshot 120x40 "$T/arch"; }

pmlogconf -h local: "$T/cfg" >/dev/null 2>&1 || { echo "skip: pmlogconf failed"; exit 0; }
pmlogger -h local: -c "$T/cfg" -t 100msec -T "${S}s" -l "$T/pmlogger.log" "$T/arch" &
plog=$!
sleep $((S / 2))
snap >/dev/null || { echo "mcview failed half way"; exit 1; }
half=$(du -k "$T/arch.0" | cut -f1)
mkdir -p "$T/keep"
cp "$T"/cache/mcz/pcp-*.mcz "$T/keep/"
wait $plog
plog=
ag=() rm=() pi=() pd=()
for i in $(seq $N); do
	rm -rf "$T/cache/mcz"
	mkdir -p "$T/cache/mcz"
	cp "$T"/keep/pcp-*.mcz "$T/cache/mcz/"
	ag+=("$(secs snap)")
	rm -rf "$T/cache"
	rm+=("$(secs snap)")
	pi+=("$(secs pminfo -f -a "$T/arch")")
	pd+=("$(secs pmdumplog -a "$T/arch")")
done
whole=$(du -k "$T/arch.0" | cut -f1)
ag=$(printf '%s\n' "${ag[@]}" | median)
rm=$(printf '%s\n' "${rm[@]}" | median)
pi=$(printf '%s\n' "${pi[@]}" | median)
pd=$(printf '%s\n' "${pd[@]}" | median)
printf '%-9s %9s %9s %9s %9s %12s %9s %9s\n' seconds half_KB whole_KB again_ms remade_ms pmdumplog_ms \
	pminfo_ms again/pi
awk -v s="$S" -v h="$half" -v w="$whole" -v a="$ag" -v r="$rm" -v pd="$pd" -v pi="$pi" 'BEGIN {
	printf "%-9d %9d %9d %9d %9d %12d %9d %8.1fx\n", s, h, w, a, r, pd, pi, (pi > 0 ? a / pi : 0) }'
echo "(again: the half-way cache entry continued with the rest, drawn; remade: an empty cache,"
echo " the whole converted; medians of $N runs taken in turn; pmlogger every 100 ms, default pmlogconf)"
