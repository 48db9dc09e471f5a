#!/usr/bin/env bash
# code-names.sh: functions named as `perf report` names them.  A C++ class
# template in a namespace (tests/tools/code-cxx.cc: qmc::Walker<double>,
# hot members drift and branch, branch a GCC `.isra.0` clone, checked with
# nm) is named `qmc::Walker<double>::drift` / `::branch` in the report
# (brief), the JSON (full signature and brief) and `mcz dump --code`: built
# with -g (DWARF's linkage names), after `strip -g` (the symbol table,
# clone folded), and after `strip --strip-all` with a real debuginfod
# server on loopback serving its debug file.  Without a server's answer
# (a port that accepts and never answers) mcrec ends within its bound
# (DEBUGINFOD_TIMEOUT, 5 s) with a note and the code named by its object,
# one row ("cxx-a (no symbols)"), and the report says how to get names.
# LAMMPS from Debian (lmp, a tiny LJ melt) is named LAMMPS_NS::..., as
# perf report names it (--sort sym) on the same input.  No tool is linked
# with libstdc++: its demangler is loaded when a name needs it.
# mcz-test: parallel (names only; its one time bound, the silent server's 25 s
# against a 5 s timeout, holds beside another test)
# mcz-test: first
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc
. tests/integration/lammps-common.inc
MCZ=$B/mcz
MCVIEW=$B/mcview
PH=${CXX_PHASE_S:-0.4}
export MCVIEW_PHASE_CACHE=0
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH=$T/dcache
command -v g++ >/dev/null || { echo "skip: no g++"; exit 77; }
# the demangler is libstdc++'s, dlopened at the first mangled name: no tool
# relocates libstdc++ at start (0.6 to 1 ms of mcz's 4), the names below
# are demangled all the same
for b in mcz mcview mcrec; do
	! readelf -d "$B/$b" | grep -q 'NEEDED.*libstdc++' || fail "$b is linked with libstdc++"
done

g++ -O2 -g -o "$T/cxx" tests/tools/code-cxx.cc || fail "g++"
nm "$T/cxx" | grep -q '_ZNK3qmc6WalkerIdE6branchEl\.isra\.0' || fail "no .isra clone of branch: $(nm "$T/cxx" | grep Walker)"
cp "$T/cxx" "$T/cxx-s" && strip -g "$T/cxx-s"
mkdir -p "$T/dbg" && objcopy --only-keep-debug "$T/cxx" "$T/dbg/cxx.debug"
cp "$T/cxx" "$T/cxx-a" && strip --strip-all "$T/cxx-a"

# record NAME BINARY: the report names both members, in text, JSON and dump
named() {
	local n=$1
	"$MCVIEW" --report "$T/$n.mcz" >"$T/$n.txt" || fail "$n: mcview --report"
	"$MCVIEW" --report=json "$T/$n.mcz" >"$T/$n.json" || fail "$n: --report=json"
	"$MCZ" dump "$T/$n.mcz" --code >"$T/$n.dump" || fail "$n: mcz dump --code"
	for f in drift branch; do
		grep -q "qmc::Walker<double>::$f [0-9]*%" "$T/$n.txt" || fail "$n: report lacks qmc::Walker<double>::$f: $(cat "$T/$n.txt")"
		grep -q " qmc::Walker<double>::$f " "$T/$n.dump" || fail "$n: dump lacks $f"
	done
	python3 - "$T/$n.json" <<'PY' || fail "$n: JSON names"
import json, sys
rep = json.load(open(sys.argv[1]))
names = {c['function']: c['brief'] for p in rep['phases'] for c in p['code']}
print(sorted(names.items())[:4])
want = {'qmc::Walker<double>::drift(double)': 'qmc::Walker<double>::drift',
        'qmc::Walker<double>::branch(long) const': 'qmc::Walker<double>::branch'}
assert all(names.get(k) == v for k, v in want.items()), names
assert not any('isra' in k or '_Z' in k for k in names), names
PY
	ok "$n: named qmc::Walker<double>::drift and ::branch"
}

"$MCREC" -o "$T/g.mcz" -- "$T/cxx" "$PH" >/dev/null 2>"$T/g.err" || fail "mcrec -g: $(tail -3 "$T/g.err")"
grep -q "code: [0-9]* samples" "$T/g.err" || { echo "skip: no code profile here: $(grep code "$T/g.err")"; exit 77; }
named g
"$MCREC" -o "$T/s.mcz" -- "$T/cxx-s" "$PH" >/dev/null 2>"$T/s.err" || fail "mcrec strip -g"
named s

# a debuginfod server on loopback, on a free port, over the debug file
command -v debuginfod >/dev/null || { echo "skip: no debuginfod (apt install debuginfod)"; exit 77; }
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
P=$(port)
debuginfod -p "$P" -d "$T/dfd.sqlite" -F "$T/dbg" -t 0 >"$T/dfd.log" 2>&1 &
DPID=$!
cleanup_hooks+=("kill $DPID 2>/dev/null")
bid=$(readelf -n "$T/cxx-a" | awk '/Build ID/ { print $3 }')
for i in $(seq 50); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/buildid/$bid/debuginfo")" = 200 ] && break
	sleep 0.2
done
[ "$i" -lt 50 ] || fail "debuginfod does not serve $bid: $(tail -3 "$T/dfd.log")"
# without a server: one row for the object, and how to get names
"$MCREC" -o "$T/n.mcz" -- "$T/cxx-a" "$PH" >/dev/null 2>"$T/n.err" || fail "mcrec strip-all"
"$MCVIEW" --report "$T/n.mcz" >"$T/n.txt"
grep -q 'cxx-a (no symbols) 100%' "$T/n.txt" || fail "no symbols: not one row: $(cat "$T/n.txt")"
grep -q '^# code: no symbols for cxx-a (100 %): install the debug package.*DEBUGINFOD_URLS' "$T/n.txt" ||
	fail "no hint: $(cat "$T/n.txt")"
ok "stripped: one row 'cxx-a (no symbols)', the hint"
s0=$(date +%s.%N)
DEBUGINFOD_URLS=http://127.0.0.1:$P "$MCREC" -o "$T/a.mcz" -- "$T/cxx-a" "$PH" >/dev/null 2>"$T/a.err" || fail "mcrec debuginfod"
grep -q "DEBUGINFOD_URLS: 1 debug file fetched" "$T/a.err" || fail "mcrec does not say: $(grep code: "$T/a.err")"
named a
echo "debuginfod: $(grep -o 'symbolized in [0-9.]* s (DEBUGINFOD_URLS[^)]*)' "$T/a.err")"
kill "$DPID"

# a server that accepts and never answers: bounded, a note
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
c = []
while True: c.append(s.accept()[0])' >"$T/silent.port" &
SPID=$!
cleanup_hooks+=("kill $SPID 2>/dev/null")
# the port is known once the server listens: a fixed sleep was too short
# beside the sanitizer builds, and an empty port made the URL fail at once
for i in $(seq 100); do
	[ -s "$T/silent.port" ] && break
	sleep 0.1
done
SP=$(cat "$T/silent.port")
[ -n "$SP" ] || fail "silent server: no port after 10 s"
rm -rf "$DEBUGINFOD_CACHE_PATH"
t0=$(date +%s)
DEBUGINFOD_URLS=http://127.0.0.1:$SP "$MCREC" -o "$T/q.mcz" -- "$T/cxx-a" "$PH" >/dev/null 2>"$T/q.err" || fail "mcrec silent server"
dt=$(( $(date +%s) - t0 ))
[ "$dt" -le 25 ] || fail "silent server: mcrec took $dt s"
grep -q 'debuginfod: no answer within 5 s' "$T/q.err" || fail "silent server: no note: $(grep code: "$T/q.err")"
"$MCVIEW" --report "$T/q.mcz" >"$T/q.txt"
# 99 % or 100 %: the dynamic loader's few samples at the start (libstdc++
# relocated: 2 to 9 of the run's 900, by the clean clone's make check) are
# named, the rest is the stripped binary's
grep -Eq 'cxx-a \(no symbols\) (99|100)%' "$T/q.txt" && grep -q '^# code: .*debuginfod: no answer within 5 s' "$T/q.txt" ||
	fail "silent server: report: $(cat "$T/q.txt")"
ok "silent debuginfod server: mcrec in $dt s, $(grep -o 'symbolized in [0-9.]* s' "$T/q.err"), a note, named by object"

# LAMMPS from Debian: demangled names
if command -v lmp >/dev/null; then
	lammps_melt 12 100 600 >"$T/in.melt"
	rec=$(realpath "$MCREC")
	(cd "$T" && OMP_NUM_THREADS=1 "$rec" -o "$T/lmp.mcz" -- lmp -in in.melt -log none >/dev/null 2>"$T/lmp.err") ||
		fail "mcrec lmp: $(tail -3 "$T/lmp.err")"
	"$MCVIEW" --report "$T/lmp.mcz" >"$T/lmp.txt"
	grep -q 'LAMMPS_NS::[A-Za-z_:]*' "$T/lmp.txt" || fail "lmp: no LAMMPS_NS:: names: $(cat "$T/lmp.txt")"
	grep -q '_ZN9LAMMPS' "$T/lmp.txt" && fail "lmp: mangled names left"
	ok "lammps: $(grep -o 'LAMMPS_NS::[A-Za-z_:]* [0-9]*%' "$T/lmp.txt" | head -2 | tr '\n' ' ')"
	# the same names as perf report's (--sort sym) on the same input:
	# every C++ function of 2 % and more of a phase is in perf's list, and
	# perf's hottest is one of ours
	if (cd "$T" && OMP_NUM_THREADS=1 perf record -q -e cpu-clock:u -o "$T/perf.data" -- lmp -in in.melt -log none \
		>/dev/null 2>&1) && perf report -i "$T/perf.data" --stdio --sort sym 2>/dev/null >"$T/perf.txt"; then
		"$MCVIEW" --report=json "$T/lmp.mcz" >"$T/lmp.json"
		python3 - "$T/lmp.json" "$T/perf.txt" <<'PY' || fail "lmp: names differ from perf report's"
import json, re, sys
rep = json.load(open(sys.argv[1]))
perf = {}
for line in open(sys.argv[2]):
    m = re.match(r'\s*([0-9.]+)%\s+\[\.\]\s+(.*\S)', line)
    if m:
        perf[m.group(2)] = float(m.group(1))
ours = {}
for p in rep['phases']:
    for c in p['code']:
        ours[c['brief']] = max(ours.get(c['brief'], 0), 100 * c['share'])
# a phase's share is not the run's (the start-up phase is the dynamic
# linker's, whose small functions one run samples and another not): the
# C++ names are compared, and the run's hottest function
bad = [n for n, s in ours.items() if s >= 2 and '::' in n and n not in perf]
for n, s in sorted(ours.items(), key=lambda x: -x[1])[:4]:
    print(f"  {n}: mcz {s:.1f} % of a phase, perf report {perf.get(n, 0):.2f} % of the run")
top = max(perf, key=perf.get)
if top not in ours or bad:
    print(f"perf's top {top}; ours not in perf's list: {bad}")
    sys.exit(1)
PY
		ok "lammps: names as perf report's"
	else
		echo "note: perf record -e cpu-clock:u fails here: names not compared with perf report"
	fi
else
	echo "note: no lmp (apt install lammps): LAMMPS part not run"
fi
echo "PASS"
