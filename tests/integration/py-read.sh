#!/usr/bin/env bash
# py-read.sh: Python's `import mcz` (python/mcz, ctypes over the build's
# libmcz.so.1 and libmczpcp.so.1) reads what the mcz programs print
# (py-read.py holds the checks):
#   - a real recording (mcrec of samples/phased: perf counters, proc and net
#     gauges with gaps, marks, a code profile): to_pandas() = `mcz dump
#     --csv` read by pandas, value for value, NaN where the dump is empty;
#     read() of every stream over a window = the dump's rows in it (--from
#     --to); the code profile = `mcz dump --code --csv`; report() = `mcview
#     --report=json`; the marks `mcz info` counts; the time bounds mcz dump
#     refuses (past int64 ns, NaN, t0 not before t1) raise its line;
#   - threads: 4 reading one recording (16 streams x 10^5 rows of
#     gen-recording) get what one does; to_pandas(t0, t1) peaks no higher
#     than to_pandas() (its RSS; not under ASan, whose allocator keeps what
#     is freed);
#   - a job file (`mcz merge` of two ranks' recordings, rank and size given
#     as a launcher gives them): its members with rank and host, each =
#     `mcz dump JOB:NAME`;
#   - PCP archives of pcp-testsuite: streams with units and semantics,
#     values = `mcz dump` of `mcz import` of the archive (20180102: two
#     streams of one key, its instance number used again); one whose data
#     volume is cut: mcz.Error, or with strict=False a warning, says the line
#     `mcz import` warns with;
#   - damaged files (a byte flipped in a chunk, a file cut short, its magic
#     broken): mcz.Error says the line `mcz check` says; with strict=False,
#     the streams' block damaged: a warning says it;
#   - libmcz.so.1 exports mcz.h's functions and nothing else (nm -D),
#     libmczpcp.so.1 its opening API only.
# Under `make check SAN=1` the build's libraries carry ASan: python is run
# with the sanitizer's runtime preloaded (it must come first), leaks not
# counted (python's own allocations at exit are not ours to free).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/rec-common.inc"
MCZ=$B/mcz
MCVIEW=$B/mcview
A=/var/lib/pcp/testsuite/archives
HERE=$(cd "$(dirname "$0")" && pwd)
PYDIR=$(cd "$HERE/../../python" && pwd)

# a python3 with Debian's numpy and pandas (a pyenv python3 first on the
# PATH may have neither)
PY=
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null && "$p" -c 'import numpy, pandas' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "skip: no python3 with numpy and pandas (python3-numpy, python3-pandas: scripts/install-deps.sh)"; exit 77; }
[ -f "$B/libmcz.so.1" ] && [ -f "$B/libmczpcp.so.1" ] || fail "$B/libmcz.so.1 or libmczpcp.so.1 not built (make shlib)"
export MCZ_LIB=$B/libmcz.so.1 PYTHONPATH=$PYDIR PYTHONDONTWRITEBYTECODE=1
if readelf -d "$MCZ_LIB" | grep -q 'NEEDED.*libasan'; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$asan" ] || fail "libmcz.so.1 carries ASan, and its runtime is not found ($asan)"
	pyenv=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)
	echo "ASan build: python runs with LD_PRELOAD=$asan"
	san=1
else
	pyenv=() san=
fi
py() { env "${pyenv[@]}" "$PY" "$HERE/py-read.py" "$@"; }

# what the libraries export (not the header's static inline helpers)
want=$(grep -v '^static inline' "$HERE/../../format/mcz.h" |
	sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(mcz_[a-z0-9_]*\)(.*/\1/p' | sort)
got=$(nm -D --defined-only "$MCZ_LIB" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort)
[ "$got" = "$want" ] || fail "libmcz.so.1 exports other than mcz.h's functions: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -5)"
gotp=$(nm -D --defined-only "$B/libmczpcp.so.1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort | tr '\n' ' ')
[ "$gotp" = "pcp_import pcp_import_claims pcp_open_any " ] || fail "libmczpcp.so.1 exports: $gotp"
soname=$(readelf -d "$MCZ_LIB" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libmcz.so.1 ] || fail "soname $soname"
ok "libmcz.so.1 (soname $soname) exports the $(wc -l <<<"$want") functions of mcz.h and nothing else; libmczpcp.so.1: $gotp"

# a real recording, in chunks of 1 s
"$MCREC" -q -i 20ms --chunk 1s -o "$T/r.mcz" -- "$PHASED" --scale 0.3 >"$T/rec.out" 2>&1 || fail "mcrec: $(tail -3 "$T/rec.out")"
"$MCZ" dump --csv "$T/r.mcz" >"$T/r.csv" || fail "mcz dump"
py frame "$T/r.mcz" "$T/r.csv" || exit 1
"$MCZ" dump --csv --from 0.5 --to 1.5 "$T/r.mcz" >"$T/w.csv" || fail "mcz dump --from --to"
py window "$T/r.mcz" "$T/w.csv" 0.5 1.5 || exit 1
"$MCZ" dump --code --csv "$T/r.mcz" >"$T/code.csv" || fail "mcz dump --code"
"$MCVIEW" -q --report=json "$T/r.mcz" >"$T/rep.json" || fail "mcview --report=json"
marks=$("$MCZ" info "$T/r.mcz" | awk '$1 == "marks" { print $2 }')
py extras "$T/r.mcz" "$T/code.csv" "$T/rep.json" "$marks" || exit 1
# bounds as mcz dump refuses them (written as python prints the floats)
cases=()
for c in "1e+30 -" "0 1e+30" "nan -" "2.5 1.5"; do
	set -- $c
	args=(--from "$1")
	[ "$2" != - ] && args+=(--to "$2")
	line=$("$MCZ" dump --csv "${args[@]}" "$T/r.mcz" 2>&1 >/dev/null) && fail "mcz dump ${args[*]}: accepted"
	line=${line#mcz dump: } line=${line/--from/t0} line=${line/--to/t1}
	cases+=("$line" "$1" "$2")
done
py bounds "$T/r.mcz" "${cases[@]}" || exit 1

# threads and memory: a recording large enough for reads to overlap
"$B/tests/tools/gen-recording" -o "$T/g.mcz" --streams 16 --rows 100000 >"$T/gen.out" 2>&1 ||
	fail "gen-recording: $(tail -3 "$T/gen.out")"
py threads "$T/g.mcz" || exit 1
if [ -z "$san" ]; then
	py memory "$T/g.mcz" || exit 1
else
	echo "ok: to_pandas(t0, t1)'s memory not measured under ASan"
fi

# a job file: two ranks as a launcher (PMI_RANK, PMI_SIZE) starts them
mkdir -p "$T/j"
for r in 0 1; do
	PMI_RANK=$r PMI_SIZE=2 "$MCREC" -q -i 20ms -o "$T/j/run.%r.mcz" -- "$B/samples/imbalance" \
		--steps 10 --barrier "$T/bar" >"$T/j$r.out" 2>&1 &
done
wait || true
"$MCZ" merge -q "$T"/j/run.*.mcz -o "$T/job.mcz" || fail "mcz merge: $(cat "$T"/j*.out)"
for r in 0 1; do
	"$MCZ" dump --csv "$T/job.mcz:run.$r.mcz" >"$T/j/run.$r.mcz.csv" || fail "mcz dump of member $r"
done
py job "$T/job.mcz" "$T/j" || exit 1

# PCP archives
if [ -f "$A/ok-mv-foo.meta" ]; then
	for a in ok-mv-foo 20190628.04.03 20180102; do
		"$MCZ" import -q -o "$T/$a.mcz" "$A/$a" >/dev/null || fail "mcz import $a"
		# 20180102's pmcd.agent.status[sample] twice (an instance number
		# used again), pmcd.pid with gaps: its pmcd.* (of 8369 streams)
		g=() sel=()
		[ $a = 20180102 ] && g=('pmcd.*') sel=(--streams 'pmcd.*')
		"$MCZ" dump --csv "${sel[@]}" "$T/$a.mcz" >"$T/$a.csv" || fail "mcz dump $a"
		py pcp "$A/$a" "$T/$a.csv" "${g[@]}" || exit 1
	done
else
	fail "pcp-testsuite archives not installed: $A (scripts/install-deps.sh)"
fi
# its data volume cut at 2 MB of 7: libpcp stops at the record cut
mkdir -p "$T/cutpcp"
cp "$A/20180102.meta" "$A/20180102.index" "$T/cutpcp/"
head -c 2000000 "$A/20180102.0" >"$T/cutpcp/20180102.0"
"$MCZ" import -o "$T/cutpcp.mcz" "$T/cutpcp/20180102" >/dev/null 2>"$T/cutpcp.err"
line=$(sed -n 's/^mcz import: warning: //p' "$T/cutpcp.err")
[ -n "$line" ] || fail "mcz import of a cut archive: no warning ($(cat "$T/cutpcp.err"))"
rows=$("$MCZ" dump --csv "$T/cutpcp.mcz" | tail -n +2 | wc -l)
py pcpcut "$T/cutpcp/20180102" "$line" "$rows" || exit 1

# damaged files: the line mcz check prints (a byte flipped 40 bytes into the
# second chunk: found when a read reaches it; cut, or not mcz: at open)
cp "$T/r.mcz" "$T/d.mcz"
off=$("$RR" "$T/r.mcz" chunks | awk 'NR == 2 { print $2 }')
[ -n "$off" ] || fail "no second chunk in: $("$RR" "$T/r.mcz" chunks)"
b=$(od -An -tu1 -j $((off + 40)) -N1 "$T/d.mcz" | tr -d ' ')
printf "$(printf '\\%03o' $(((b + 1) % 256)))" | dd of="$T/d.mcz" bs=1 seek=$((off + 40)) conv=notrunc status=none
# cut inside a block: 2/3 of the way, or a byte before where that falls
# on a block's end (a file as a killed recorder leaves it, which reads)
cut=$(($(stat -c %s "$T/r.mcz") * 2 / 3))
head -c $cut "$T/r.mcz" >"$T/cut.mcz"
"$MCZ" check "$T/cut.mcz" | grep -q 'no index or trailer at the end' &&
	head -c $((cut - 1)) "$T/r.mcz" >"$T/cut.mcz"
{ printf 'XCZ'; tail -c +4 "$T/r.mcz"; } >"$T/magic.mcz"
for f in d cut magic; do
	"$MCZ" check "$T/$f.mcz" >"$T/$f.chk" 2>&1 && fail "mcz check $f.mcz: clean: $(cat "$T/$f.chk")"
	line=$(head -n 1 "$T/$f.chk" | sed 's/^mcz check: //')
	py error "$T/$f.mcz" "$line" || exit 1
done
# the first block of stream descriptors (STREAMS 3, COLSTREAMS 11, BUNDLE
# 13) with a byte of its payload flipped: no streams are read
"$PY" - "$T/r.mcz" "$T/sb.mcz" <<'EOF' || fail "no block of streams in r.mcz"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 20  # the file header's end (SPEC.md 3), then blocks of len + 20 bytes (4)
while off + 16 <= len(b):
    ty, n = struct.unpack_from("<4xH2xI", b, off)
    if ty in (3, 11, 13):
        b[off + 16 + n // 2] ^= 0xff
        open(sys.argv[2], "wb").write(b)
        sys.exit(0)
    off += n + 20
sys.exit(1)
EOF
"$MCZ" check "$T/sb.mcz" >"$T/sb.chk" 2>&1 && fail "mcz check sb.mcz: clean"
py warns "$T/sb.mcz" "$(head -n 1 "$T/sb.chk" | sed 's/^mcz check: //')" || exit 1
