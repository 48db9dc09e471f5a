#!/usr/bin/env bash
# bench-pcp.sh: PCP archives from pcp-testsuite, imported with `mcz import`:
#   size  — the archive's files uncompressed (raw), each compressed with
#           `xz -9` (the usual way archives are kept), and the imported .mcz,
#           also per stored value; chunk_B/v counts only the .mcz's sample
#           chunks (the rest is stream descriptors, one per metric and
#           instance, and the index);
#   speed — `mcz import` beside `pmdumplog -a` of the same archive (both read
#           every record through libpcp), run in turn, medians of 5 runs (N=3
#           where pmdumplog takes > 2 s, 1 over 20 s or with BENCH_QUICK=1);
#   screen — mcview's first screen of an archive on a terminal (tmux, by
#           term-first.sh: from mcview's start to its tab bar on the screen,
#           an empty cache: the archive's start when it takes longer than
#           MCVIEW_FIRST_MS to read, then when the whole is in place), and
#           `mcview --snapshot` (opened, converted whole for viewing, drawn,
#           exit; with --phases off, as on a terminal, where detection runs
#           after the first screen) with an empty cache, and the second open
#           (the conversion from $XDG_CACHE_HOME/mcz); then the second open
#           with phases detected before the screen (a plain --snapshot);
#           beside `pminfo -f -a` (every metric's values at the archive's
#           start) and `pmdumplog -a` (every record); medians of N runs
#           taken in turn.  tmux itself: the `tmux` column, mcview on an
#           empty recording.
#           BENCH_PCP_SCREEN=1: this table only; BENCH_PCP_EXTRA="ARCHIVE ...":
#           more archives in both tables by path (a large pmlogger archive of this
#           host: pmlogconf -h local: cfg; pmlogger -c cfg -t 100msec -T 110s).
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -f "$A/count-mark.meta" ] || { echo "skip: pcp-testsuite archives not installed"; exit 0; }
T=$(mktemp -d /tmp/mcz-bench-pcp.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=3
[ -n "${BENCH_QUICK:-}" ] && N=1

declare -A PMDUMP # archive -> pmdumplog -a ms (the first table's)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }

SIZES="count-mark 20041125 small 20180127.08.40 20180102 pcp-zeroconf 20201109 20180416.10.00 ${BENCH_PCP_EXTRA:-}"
[ -n "${BENCH_PCP_SCREEN:-}" ] && SIZES=
[ -n "$SIZES" ] && printf '%-16s %9s %6s %7s %10s %10s %10s %7s %7s %7s %9s %10s %10s %6s\n' archive values rows \
	streams raw_B xz9_B mcz_B raw_B/v xz_B/v mcz_B/v chunk_B/v pmdumplog_ms import_ms ratio
for name in $SIZES; do
	case $name in /*) ar=$name name=${name##*/} ;; *) ar=$A/$name ;; esac
	raw=0 xz=0
	for f in "$ar".meta* "$ar".index* "$ar".[0-9]*; do
		[ -f "$f" ] || continue
		case $f in
		*.xz) xz -dc "$f" >"$T/f" ;;
		*) cp "$f" "$T/f" ;;
		esac
		raw=$((raw + $(stat -c %s "$T/f")))
		xz=$((xz + $(xz -9 -c "$T/f" | wc -c)))
	done
	line=$("$B/mcz" import "$ar" -o "$T/x.mcz") || { echo "$name: import failed"; exit 1; }
	values=$(sed -n 's/.* rows, \([0-9]*\) values.*/\1/p' <<<"$line")
	rows=$(sed -n 's/.* streams, \([0-9]*\) rows.*/\1/p' <<<"$line")
	streams=$(sed -n 's/.* metrics, \([0-9]*\) streams.*/\1/p' <<<"$line")
	mcz=$(stat -c %s "$T/x.mcz")
	chunk=$("$B/mcz" info "$T/x.mcz" | sed -n 's/.*chunks: \([0-9.]*\) bytes\/value.*/\1/p')
	# the two in turn, so that the machine's slower moments fall on both;
	# five of each where pmdumplog takes under 2 s
	n=$((N > 1 ? 5 : 1))
	pms=() ims=()
	for i in $(seq $n); do
		pms+=("$(secs pmdumplog -a "$ar")")
		ims+=("$(secs "$B/mcz" import -q "$ar" -o "$T/y.mcz")")
		[ "${pms[0]}" -gt 2000 ] && [ "$i" -ge "$N" ] && break
		[ "${pms[0]}" -gt 20000 ] && break
	done
	pm=$(printf '%s\n' "${pms[@]}" | median)
	im=$(printf '%s\n' "${ims[@]}" | median)
	PMDUMP[$name]=$pm
	awk -v n="$name" -v v="$values" -v r="$rows" -v raw="$raw" -v xz="$xz" -v m="$mcz" \
		-v pm="$pm" -v im="$im" -v s="$streams" -v c="$chunk" 'BEGIN {
		printf "%-16s %9d %6d %7d %10d %10d %10d %7.2f %7.2f %7.2f %9.3f %10d %10d %5.1fx\n",
			n, v, r, s, raw, xz, m, raw / v, xz / v, m / v, c, pm, im, (im > 0 ? pm / im : 0) }'
done
[ -n "$SIZES" ] && {
	echo "(values: numeric values stored; raw/xz: every file of the archive, xz -9 each;"
	echo " ratio: pmdumplog -a time / mcz import time, run in turn; medians of 5 runs, $N where"
	echo " pmdumplog takes over 2 s, one over 20 s)"
	echo
}
"$B/mcrec" -q -o "$T/empty.mcz" -- true >/dev/null 2>&1
tm=$(for i in $(seq $N); do "$(dirname "$0")/term-first.sh" "$B/mcview" "$T/empty.mcz" | cut -d' ' -f1; done | median)
printf '%-16s %7s %10s %12s %8s %8s %8s %9s %9s %9s %8s %8s %8s\n' archive streams pminfo_ms pmdumplog_ms \
	term_ms whole_ms tmux_ms first_ms again_ms phases_ms term/pi first/pi again/pi
for name in 20180102 pcp-zeroconf 20180416.10.00 ${BENCH_PCP_EXTRA:-}; do
	case $name in /*) ar=$name name=${name##*/} ;; *) ar=$A/$name ;; esac
	[ -n "${PMDUMP[$name]:-}" ] || PMDUMP[$name]=$(secs pmdumplog -a "$ar")
	streams=$("$B/mcz" import "$ar" -o "$T/s.mcz" | sed -n 's/.* metrics, \([0-9]*\) streams.*/\1/p')
	pi=() fs=() ag=() ph=() tf=() tw=()
	for i in $(seq $N); do
		pi+=("$(secs pminfo -f -a "$ar")")
		rm -rf "$T/cache"
		read -r a b < <(XDG_CACHE_HOME=$T/cache "$(dirname "$0")/term-first.sh" "$B/mcview" "$ar")
		tf+=("$a") tw+=("$b")
		rm -rf "$T/cache"
		fs+=("$(XDG_CACHE_HOME=$T/cache secs "$B/mcview" -q --phases off --snapshot 120x40 "$ar")")
		ag+=("$(XDG_CACHE_HOME=$T/cache secs "$B/mcview" -q --phases off --snapshot 120x40 "$ar")")
		ph+=("$(XDG_CACHE_HOME=$T/cache secs "$B/mcview" -q --snapshot 120x40 "$ar")")
	done
	pi=$(printf '%s\n' "${pi[@]}" | median)
	fs=$(printf '%s\n' "${fs[@]}" | median)
	ag=$(printf '%s\n' "${ag[@]}" | median)
	ph=$(printf '%s\n' "${ph[@]}" | median)
	tf=$(printf '%s\n' "${tf[@]}" | median)
	tw=$(printf '%s\n' "${tw[@]}" | median)
	awk -v n="$name" -v s="$streams" -v pi="$pi" -v pm="${PMDUMP[$name]}" -v fs="$fs" -v ag="$ag" \
		-v ph="$ph" -v tf="$tf" -v tw="$tw" -v tm="$tm" 'BEGIN {
		printf "%-16s %7d %10d %12d %8d %8d %8d %9d %9d %9d %7.1fx %7.1fx %7.1fx\n", n, s, pi, pm,
			tf, tw, tm, fs, ag, ph, (pi > 0 ? tf / pi : 0), (pi > 0 ? fs / pi : 0),
			(pi > 0 ? ag / pi : 0) }'
done
echo "(term: mcview on a terminal (tmux 120x40, --phases off), an empty cache, to its first"
echo " screen: the archive's start where it takes over MCVIEW_FIRST_MS (default 30) to read;"
echo " whole: to the whole archive in place; tmux: term for an empty recording, tmux's own part;"
echo " first: mcview --phases off --snapshot 120x40 (read whole, drawn), an empty cache; again:"
echo " the same, the conversion cached; phases: again with phases detected before the screen;"
echo " term/pi, first/pi, again/pi: against pminfo -f -a; medians of $N runs taken in turn)"
