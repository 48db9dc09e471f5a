#!/usr/bin/env bash
# export-pcp.sh: `mcz export --pcp` (format/pcp/pcp-export.c) of a real
# recording (mcrec of the phased sample: perf counters, proc and net
# streams, marks) read by the PCP tools:
#   - pmdumplog prints every value `mcz dump` gives, at the same time
#     (pcp-compare.py: every value, counters as raw cumulative values), and
#     a few columns of `mcz dump --csv` (a counter, an integer and a float
#     gauge) value for value against `pmdumplog -a`;
#   - pminfo -d -a: the units and semantics of those streams (nanosec
#     counter, byte instant, dimensionless double, byte counters per
#     interface), labels (host, command; mcz_unit where PCP only counts);
#   - pmrep replays it: its rates of core.task_clock (ns/s) add up to the
#     counter's increase over the run (within 5 %);
#   - with a real redis-server on loopback, pmseries --load and a pmseries
#     query give back the last values of app.rss;
#   - round trip: mcz import of the archive holds the original's streams,
#     units, values, times (to the microsecond) and marks (export-compare.py);
#   - a job file (mpirun, 3 ranks, merged): one archive, the ranks as
#     instances (rankR:cpuN), each rank's values back after import (a rank
#     given twice: rank1 and rank1#2); a job on
#     2 hosts (gen-job --per-host): one archive per host, NAME-HOST;
#   - names PCP does not allow (issue 43, finding 12): app.my-count beside
#     app.my_count (mcmark counts sent by a script): two metrics, not two
#     instances; the change said on stderr (a count, then one line each,
#     also with -q); the label mcz_name on the metric (pminfo -l); mcz
#     import gives both names back as the recording had them;
#   - bad input: an archive of that name there already, a folder given as
#     the name, a folder that cannot be made, a damaged recording (exported
#     as far as it reads, the loss named, exit 1), not a recording, usage.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
HERE=$(cd "$(dirname "$0")" && pwd)
for p in pmdumplog pminfo python3; do
	command -v $p >/dev/null || { echo "skip: $p not installed (scripts/install-deps.sh)"; exit 77; }
done
# pmrep runs on Debian's python3 (python3-pcp), whatever python3 is first on PATH
PMREP_PATH=/usr/bin:$PATH

"$MCREC" -q -i 50ms --chunk 1s -o "$T/r.mcz" -- "$PHASED" --phases triad:0.8,gemm:0.8,idle:0.4 \
	>"$T/phased.out" || fail "mcrec exit $?"
"$MCZ" export --pcp "$T/out/run" "$T/r.mcz" >"$T/x.out" 2>"$T/x.err" || fail "export: $(cat "$T/x.err")"
for s in 0 meta index; do [ -s "$T/out/run.$s" ] || fail "no run.$s: $(ls "$T/out")"; done
grep -q "r.mcz -> $T/out/run: [0-9]* metrics, [0-9]* records, [0-9]* values, [0-9]* marks" "$T/x.out" ||
	fail "summary: $(cat "$T/x.out")"
ok "exported: $(cat "$T/x.out")"

# every value pmdumplog prints is the recording's, at its time, and no other
python3 "$HERE/pcp-compare.py" "$T/out/run" "$T/r.mcz" "$MCZ" >"$T/cmp" 2>&1 ||
	fail "pmdumplog against mcz dump: $(cat "$T/cmp")"
ok "pmdumplog: $(sed 's/  */ /g' "$T/cmp")"

# a few columns of mcz dump --csv, value for value, in pmdumplog -a
cols='core.task_clock[cpu0],app.rss,os.cpu.busy[cpu0],net.rx_bytes[lo]'
"$MCZ" dump --csv --streams "$cols" "$T/r.mcz" >"$T/d.csv" || fail "dump --csv"
pmdumplog -a "$T/out/run" >"$T/dumplog" 2>&1 || fail "pmdumplog -a: $(tail -2 "$T/dumplog")"
python3 - "$T/d.csv" "$T/dumplog" <<'PY' || fail "mcz dump --csv and pmdumplog -a differ"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
want = {h: [r[i] for r in body if r[i] != ""] for i, h in enumerate(head) if i}
got = {h: [] for h in want}
metric = None
for line in open(sys.argv[2]):
    m = re.match(r"^\s+\d+\.\d+\.\d+ \((\S+)\):(?: value (.*))?$", line)
    if m:
        metric = m.group(1)
        if m.group(2) is not None and metric in got:
            got[metric].append(m.group(2))
        continue
    m = re.match(r'^\s+inst \[\d+ or "(.*)"\] value (.*)$', line)
    if m and metric:
        k = "%s[%s]" % (metric, m.group(1))
        if k in got:
            got[k].append(m.group(2))
for k in want:
    a, b = want[k], got[k]
    # pmdumplog prints a double with %.16g: the stored one printed so must match
    same = lambda x, y: x == y or "%.16g" % float(x) == y
    if not a or len(a) != len(b) or not all(same(x, y) for x, y in zip(a, b)):
        print("FAIL: %s: dump %d values %s, pmdumplog %d %s" % (k, len(a), a[:4], len(b), b[:4]))
        sys.exit(1)
print("ok: %s: the same %s values in dump --csv and pmdumplog -a" %
      (", ".join(want), "/".join(str(len(v)) for v in want.values())))
PY

# units, semantics and labels
pminfo -d -a "$T/out/run" core.task_clock app.rss os.cpu.busy net.rx_bytes mcz.mark >"$T/desc" ||
	fail "pminfo -d"
desc() { awk -v m="$1" '$0 == m { f = 1; next } f && NF == 0 { exit } f' "$T/desc" | tr -s ' ' | tr '\n' ' '; }
for want in "core.task_clock|64-bit unsigned int InDom: 245.|Semantics: counter Units: nanosec" \
	"app.rss|64-bit unsigned int InDom: PM_INDOM_NULL|Semantics: instant Units: byte" \
	"os.cpu.busy|Data Type: double InDom: 245.|Semantics: instant Units: none" \
	"net.rx_bytes|64-bit unsigned int InDom: 245.|Semantics: counter Units: byte" \
	"mcz.mark|Data Type: string|Semantics: instant"; do
	IFS='|' read -r m a b <<<"$want"
	d=$(desc "$m")
	case $d in *"$a"*"$b"*) ;; *) fail "pminfo -d $m: '$d' (expected $a ... $b)" ;; esac
done
ok "pminfo -d: task_clock a nanosec counter, app.rss byte instant, os.cpu.busy a double, net.rx_bytes byte counters, mcz.mark a string"
pminfo -f -a "$T/out/run" net.rx_bytes | grep -q 'inst \[[0-9]* or "lo"\]' || fail "net.rx_bytes has no instance lo"
pminfo -f -a "$T/out/run" core.task_clock | grep -q 'inst \[0 or "cpu0"\]' || fail "core.task_clock: cpu0 is not instance 0"
host=$("$RR" "$T/r.mcz" meta host)
pminfo -l -a "$T/out/run" core.context_switches >"$T/labels" || fail "pminfo -l"
grep -q "\"host\":\"$host\"" "$T/labels" && grep -q '"command":"[^"]*phased' "$T/labels" &&
	grep -q '"mcz_unit":"switches"' "$T/labels" || fail "labels: $(cat "$T/labels")"
pmdumplog -L "$T/out/run" | grep -q "Performance metrics from host $host" || fail "archive host: $(pmdumplog -L "$T/out/run")"
pmdumplog "$T/out/run" mcz.mark | grep -q 'value "begin triad"' || fail "no mark 'begin triad' in mcz.mark"
ok "labels host, command, mcz_unit; the archive's host $host; marks in mcz.mark"

# pmrep: rates from the counter, which add up to its increase
if PATH=$PMREP_PATH pmrep -a "$T/out/run" -t 0.1s -o csv -P 3 core.task_clock >"$T/rep" 2>"$T/rep.err"; then
	rep=$(awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) s += $i } END { printf "%.0f", s * 0.1 }' "$T/rep")
	tot=$("$MCZ" dump --csv --streams 'core.task_clock' "$T/r.mcz" | awk -F, '
		NR > 1 { for (i = 2; i <= NF; i++) if ($i != "") { if (!(i in first)) first[i] = $i; last[i] = $i } }
		END { for (i in last) s += last[i] - first[i]; printf "%.0f", s }')
	[ "$(wc -l <"$T/rep")" -gt 20 ] || fail "pmrep printed $(wc -l <"$T/rep") lines"
	within "$rep" "$tot" 0.05 || fail "pmrep's rates add up to $rep ns, the counters rose by $tot ns"
	ok "pmrep: $(($(wc -l <"$T/rep") - 1)) rows of core.task_clock in ns/s, adding up to $rep ns (the counters: $tot ns)"
else
	fail "pmrep: $(tail -2 "$T/rep.err")"
fi

# pmseries with a real Redis on loopback
if command -v redis-server >/dev/null && command -v pmseries >/dev/null; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$T/redis"
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$T/redis" \
		--daemonize yes --pidfile "$T/redis/pid" --logfile "$T/redis/log" >/dev/null ||
		fail "redis-server: $(tail -2 "$T/redis/log")"
	cleanup_hooks+=('[ -s "$T/redis/pid" ] && kill "$(cat "$T/redis/pid")" 2>/dev/null')
	redis() { # COMMAND: its first reply line
		local reply
		exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
		printf '%s\r\n' "$1" >&3 && read -r -t 5 reply <&3
		exec 3>&-
		echo "${reply%$'\r'}"
	}
	for _ in $(seq 100); do # answering (the pid file comes first)
		[ "$(redis PING 2>/dev/null)" = +PONG ] && break
		sleep 0.05
	done
	# pmseries --load may exit before it has sent every record, without its
	# "processed N archive records" line (9 loads of 30 here, most of them
	# right after Redis started; the same archive whole the next time; a
	# second load of a source it knows says nothing): Redis emptied
	# (FLUSHALL) and the archive loaded again, up to 5 times
	for n in 1 2 3 4 5; do
		sleep 0.5 # (loads right after Redis starts were the ones cut short)
		[ "$n" = 1 ] || [ "$(redis FLUSHALL)" = +OK ] || fail "Redis FLUSHALL: no +OK"
		pmseries -h 127.0.0.1 -p "$port" --load "{source.path: \"$T/out/run\"}" >"$T/load" 2>&1 ||
			fail "pmseries --load: exit $?: $(cat "$T/load"); redis: $(tail -3 "$T/redis/log")"
		grep -q "processed [0-9]* archive records" "$T/load" && break
	done
	grep -q "processed [0-9]* archive records" "$T/load" || fail "pmseries --load never ended in 5 loads"
	want=$("$MCZ" dump --csv --streams app.rss "$T/r.mcz" | awk -F, 'NR > 1 && $2 != "" { print $2 }' | tr '\n' ' ')
	pmseries -h 127.0.0.1 -p "$port" 'app.rss[samples:100000]' >"$T/series" 2>&1 ||
		fail "pmseries query: $(cat "$T/series")"
	got=$(awk '/^ *\[/ { print $NF }' "$T/series" | tac | tr '\n' ' ')
	[ "$(wc -w <<<"$want")" -ge 4 ] && [ "$got" = "$want" ] || fail "pmseries app.rss: '$got', mcz dump: '$want'"
	ok "pmseries --load ($n load$([ "$n" = 1 ] || echo s)) and a query: app.rss's $(wc -w <<<"$got") values as mcz dump gives them"
else
	echo "skip: redis-server or pmseries not installed: pmseries part left out (scripts/install-deps.sh)"
fi

# round trip: mcz import of the archive
"$MCZ" import -q "$T/out/run" -o "$T/back.mcz" 2>"$T/imp.err" || fail "import: $(cat "$T/imp.err")"
python3 "$HERE/export-compare.py" "$T/r.mcz" "$T/back.mcz" "$B" >"$T/rt" || fail "$(cat "$T/rt")"
ok "round trip: $(cat "$T/rt")"

# a job file: ranks as instances of one archive (one host)
if command -v mpirun >/dev/null; then
	ROOT=
	[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
	mkdir -p "$T/a"
	timeout 60 mpirun $ROOT --oversubscribe -n 3 "$MCREC" -q -i 50ms -o "$T/a/run.%r.mcz" -- \
		"$B/samples/imbalance" --steps 10 --slow 1:2:1.5 --barrier "$T/bar" >"$T/a.out" 2>&1 ||
		fail "mpirun: $(tail -3 "$T/a.out")"
	"$MCZ" merge -q "$T"/a/run.*.mcz -o "$T/job.mcz" || fail "merge"
	"$MCZ" export -q --pcp "$T/jout/job" "$T/job.mcz" 2>"$T/j.err" || fail "export of the job: $(cat "$T/j.err")"
	[ "$(ls "$T/jout")" = "$(printf 'job.0\njob.index\njob.meta')" ] || fail "job archives: $(ls "$T/jout")"
	insts() { pmdumplog "$1" "$2" | grep -o 'or "[^"]*"' | sort -u | tr '\n' ' '; }
	[ "$(insts "$T/jout/job" app.rss)" = 'or "rank0" or "rank1" or "rank2" ' ] ||
		fail "app.rss: instances $(insts "$T/jout/job" app.rss)"
	insts "$T/jout/job" core.task_clock | grep -q 'or "rank2:cpu[0-9]*"' ||
		fail "core.task_clock: instances $(insts "$T/jout/job" core.task_clock)"
	"$MCZ" import -q "$T/jout/job" -o "$T/jback.mcz" || fail "import of the job archive"
	for r in 0 1 2; do
		python3 "$HERE/export-compare.py" "$T/a/run.$r.mcz" "$T/jback.mcz" "$B" "rank$r" >"$T/jrt" ||
			fail "rank $r: $(cat "$T/jrt")"
	done
	nm=$(("$("$RR" "$T/a/run.0.mcz" marks | wc -l)" + "$("$RR" "$T/a/run.1.mcz" marks | wc -l)" +
		"$("$RR" "$T/a/run.2.mcz" marks | wc -l)"))
	[ "$("$RR" "$T/jback.mcz" marks | wc -l)" = "$nm" ] || fail "job marks: $nm in the ranks, $("$RR" "$T/jback.mcz" marks | wc -l) back"
	ok "job file of 3 ranks: one archive, instances rank0..rank2[:cpuN], every rank's values and its $nm marks back"
	# a rank given twice (merge keeps both): named apart, rank1#2
	cp "$T/a/run.1.mcz" "$T/a/again.1.mcz"
	"$MCZ" merge -q "$T/a/run.1.mcz" "$T/a/again.1.mcz" -o "$T/twice.mcz" || fail "merge of a rank twice"
	"$MCZ" export -q --pcp "$T/tout/job" "$T/twice.mcz" 2>"$T/t.err" || fail "export of a rank twice: $(cat "$T/t.err")"
	[ "$(insts "$T/tout/job" mcz.mark)" = 'or "rank1" or "rank1#2" ' ] ||
		fail "a rank twice: mcz.mark's instances $(insts "$T/tout/job" mcz.mark)"
else
	echo "skip: mpirun not installed: the mpirun job left out"
fi
# a job on two hosts: an archive per host
"$B/tests/tools/gen-job" -d "$T/g" --ranks 4 --per-host 2 --phases 2 --phase-s 0.3 >/dev/null || fail "gen-job"
"$MCZ" merge -q "$T"/g/*.mcz -o "$T/gjob.mcz" || fail "merge of gen-job"
"$MCZ" export --pcp "$T/gout/job" "$T/gjob.mcz" >"$T/g.out" 2>&1 || fail "export: $(cat "$T/g.out")"
n=$(ls "$T/gout" | grep -c '^job-.*\.meta$')
[ "$n" = 2 ] || fail "2 hosts, $n archives: $(ls "$T/gout")"
for m in "$T"/gout/job-*.meta; do
	a=${m%.meta}
	h=$(pmdumplog -L "$a" | sed -n 's/^Performance metrics from host //p')
	[ "$a" = "$T/gout/job-$h" ] || fail "$a holds host $h"
	pmdumplog "$a" core.task_clock | grep -q 'or "rank[0-9]*:cpu' || fail "$a: no rank instances"
done
ok "a job on 2 hosts: $(ls "$T/gout" | grep '\.meta$' | tr '\n' ' ')"

# bad input: one line, exit 1 (2 for usage)
bad() { # expected-status pattern args...
	local want=$1 pat=$2
	shift 2
	"$MCZ" export "$@" >"$T/bad.out" 2>"$T/bad.err"
	local st=$?
	[ "$st" = "$want" ] || fail "export $*: exit $st (expected $want): $(cat "$T/bad.err")"
	[ "$(wc -l <"$T/bad.err")" = 1 ] || fail "export $*: not one line: $(cat "$T/bad.err")"
	grep -q -- "$pat" "$T/bad.err" || fail "export $*: '$(cat "$T/bad.err")' (expected $pat)"
}
bad 1 "a PCP archive of that name is there already" --pcp "$T/out/run" "$T/r.mcz"
bad 1 "is a folder" --pcp "$T/out" "$T/r.mcz"
: >"$T/plain"
bad 1 "cannot make the folder" --pcp "$T/plain/sub/run" "$T/r.mcz"
echo "just text" >"$T/text"
bad 1 "not an mcz file" --pcp "$T/o2/x" "$T/text"
bad 2 "say what to write" "$T/r.mcz"
bad 2 "unknown option" --pcp "$T/o3/x" --csv "$T/r.mcz"
[ ! -e "$T/o2/x.meta" ] || fail "an archive was written for a file that is not a recording"
# a damaged chunk: the rest exported, the loss named
cp "$T/r.mcz" "$T/dam.mcz"
off=$("$RR" "$T/dam.mcz" chunks | awk 'NR == 1 { print $2 + 40 }')
printf '\xff\xff\xff\xff' | dd of="$T/dam.mcz" bs=1 seek="$off" conv=notrunc status=none
bad 1 "damaged chunk.*not exported.*every other row was exported" --pcp "$T/dout/run" "$T/dam.mcz"
n=$(pmdumplog "$T/dout/run" core.task_clock 2>/dev/null | grep -c 'value')
[ "$n" -gt 0 ] || fail "no core.task_clock value exported of the damaged recording"
ok "bad input: one line each; a damaged chunk: $(sed "s|$T/||g" "$T/bad.err")"

# names PCP does not allow: said, kept as labels, given back by mcz import
cat >"$T/cnt.py" <<'EOF'
import os, socket, time
s = socket.socket(fileno=int(os.environ["MCMARK_FD"]))
for i in range(4):
    for a, n in ((5, b"my-count"), (7, b"my_count")):
        s.send(b"C %d %d %d %s" % (time.clock_gettime_ns(time.CLOCK_MONOTONIC), os.getpid(), a, n))
    time.sleep(0.05)
EOF
"$MCREC" -q -i 20ms -e mark:my-count -e mark:my_count -o "$T/names.mcz" -- python3 "$T/cnt.py" ||
	fail "mcrec of the counts"
"$MCZ" export -q --pcp "$T/nout/run" "$T/names.mcz" >"$T/n.out" 2>"$T/n.err" || fail "export: $(cat "$T/n.err")"
[ "$(head -1 "$T/n.err")" = "mcz export: 1 name changed for PCP (the original kept as label mcz_name or mcz_instance, read back by mcz import):" ] ||
	fail "the renames not said: $(cat "$T/n.err")"
[ "$(sed -n 2p "$T/n.err")" = "mcz export:   app.my-count -> app.my_count_2" ] || fail "the rename not listed: $(cat "$T/n.err")"
[ "$(wc -l <"$T/n.err")" = 2 ] || fail "more said than the renames: $(cat "$T/n.err")"
pminfo -l -a "$T/nout/run" app.my_count_2 | grep -q '"mcz_name":"app.my-count"' ||
	fail "no label mcz_name: $(pminfo -l -a "$T/nout/run" app.my_count_2)"
pminfo -f -a "$T/nout/run" app.my_count | grep -q 'inst' && fail "app.my_count has instances (the two names as one metric)"
"$MCZ" import -q "$T/nout/run" -o "$T/names-back.mcz" || fail "import of the renamed names"
"$MCZ" dump --csv --streams 'app.my*' "$T/names.mcz" | tail -1 | cut -d, -f2- >"$T/n.want"
"$MCZ" dump --csv --streams 'app.my*' "$T/names-back.mcz" | tail -1 | cut -d, -f2- >"$T/n.got"
"$MCZ" info "$T/names-back.mcz" | awk '$2 ~ /^app\.my/ { print $2 "[" $3 "]" }' >"$T/n.names"
[ "$(cat "$T/n.names")" = "$(printf 'app.my-count[-]\napp.my_count[-]')" ] || fail "import: not the original names: $("$MCZ" info "$T/names-back.mcz" | grep app.my)"
cmp -s "$T/n.want" "$T/n.got" || fail "import: the values of the two counts differ: $(cat "$T/n.want") / $(cat "$T/n.got")"
ok "names PCP does not allow: said, labelled mcz_name, given back by mcz import"
