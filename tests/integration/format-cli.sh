#!/usr/bin/env bash
# format-cli.sh: the `mcz` command as a user meets it: info, check (clean,
# truncated, repaired), dump (text, CSV, JSON, stream globs, time windows),
# and bad input of every kind (missing file, directory, empty file, text
# file, wrong magic, newer major version, bad arguments): one clear line on
# stderr and a non-zero exit, never a crash.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
MCZ=$B/mcz
GEN=$B/tests/tools/gen-recording
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_err STATUS PATTERN -- command...: exit status STATUS, exactly one
# line on stderr, matching PATTERN.
expect_err() {
	local want=$1 pat=$2; shift 3
	"$@" >"$T/out" 2>"$T/err"
	local rc=$? lines
	lines=$(wc -l <"$T/err")
	[ "$rc" -eq "$want" ] || fail "$* exited $rc, wanted $want ($(cat "$T/err"))"
	[ "$lines" -eq 1 ] || fail "$* printed $lines lines on stderr: $(cat "$T/err")"
	grep -Eq -- "$pat" "$T/err" || fail "$*: stderr '$(cat "$T/err")' lacks /$pat/"
}

"$GEN" -o "$T/run.mcz" --streams 6 --rows 3000 --interval-ms 10 --phases --chunk-rows 256 ||
	{ echo "gen-recording failed"; exit 1; }

# ---- info
"$MCZ" info "$T/run.mcz" >"$T/info" || fail "info exited $?"
grep -q '^host *gen-node' "$T/info" || fail "info lacks the host"
grep -q '3000 rows in 12 chunks' "$T/info" || fail "info lacks rows/chunks: $(grep recorded "$T/info")"
grep -q 'core.instructions *cpu0 *counter u64 *instructions *perf' "$T/info" ||
	fail "info lacks the stream table"
grep -Eq 'bytes/value' "$T/info" || fail "info lacks bytes per value"
grep -q '^index *ok' "$T/info" || fail "info: index not ok"

# ---- check clean
out=$("$MCZ" check "$T/run.mcz") || fail "check of a clean file exited $?"
[[ $out == *"ok:"*"12 chunks, 3000 rows"* ]] || fail "check: $out"

# ---- dump
n=$("$MCZ" dump "$T/run.mcz" --csv | wc -l)
[ "$n" -eq 3001 ] || fail "dump --csv gave $n lines, wanted 3001"
hdr=$("$MCZ" dump "$T/run.mcz" --csv --streams 'core.instructions[cpu0],gpu.*' | head -1)
[ "$hdr" = "time_s,core.instructions[cpu0],gpu.power" ] || fail "dump header: $hdr"
# --from/--to: 10 ms rows with < 0.1 ms jitter: [0.995 s, 1.495 s) holds rows 100..149
n=$("$MCZ" dump "$T/run.mcz" --csv --streams 'core.cycles' --from 0.995 --to 1495ms | wc -l)
[ "$n" -eq 51 ] || fail "dump --from 0.995 --to 1495ms gave $((n - 1)) rows, wanted 50"
n2=$("$MCZ" dump "$T/run.mcz" --csv --streams 'core.cycles' --from 995000us --to 1.495s | wc -l)
[ "$n2" -eq "$n" ] || fail "time suffixes disagree: $n2 vs $n"
# counters dump as raw cumulative values: increasing
"$MCZ" dump "$T/run.mcz" --csv --streams 'core.instructions[cpu0]' | tail -n +2 |
	awk -F, 'NR > 1 && $2 < prev { bad = 1 } { prev = $2 } END { exit bad }' ||
	fail "counter values are not cumulative"
"$MCZ" dump "$T/run.mcz" --json --streams 'core.*' --to 45ms >"$T/j" || fail "dump --json exited $?"
python3 -c "import json,sys; d=json.load(open('$T/j')); assert len(d['rows'])==5, d; assert len(d['streams'])==3" ||
	fail "dump --json is not the expected JSON"

# ---- truncated file: info opens it, check says what is left, repair
size=$(stat -c %s "$T/run.mcz")
head -c $((size * 2 / 3)) "$T/run.mcz" >"$T/cut.mcz"
"$MCZ" info "$T/cut.mcz" >"$T/info2" || fail "info of a truncated file exited $?"
grep -q 'MISSING' "$T/info2" || fail "info does not say the index is missing"
"$MCZ" check "$T/cut.mcz" >"$T/chk"
[ $? -eq 1 ] || fail "check of a truncated file should exit 1"
grep -q 'DAMAGED' "$T/chk" || fail "check does not say DAMAGED: $(cat "$T/chk")"
rows=$(sed -n 's/.*readable: [0-9]* chunks, \([0-9]*\) rows.*/\1/p' "$T/chk")
[ -n "$rows" ] && [ "$rows" -gt 0 ] && [ "$rows" -lt 3000 ] && [ $((rows % 256)) -eq 0 ] ||
	fail "check: readable rows '$rows'"
# the readable prefix alone (every block good, no index): what a recording
# looks like while mcrec writes it, so INCOMPLETE, not DAMAGED
good=$(sed -n 's/.*(up to byte \([0-9]*\)).*/\1/p' "$T/chk")
[ -n "$good" ] || fail "check: no 'up to byte N': $(cat "$T/chk")"
head -c "$good" "$T/run.mcz" >"$T/prefix.mcz"
"$MCZ" check "$T/prefix.mcz" >"$T/chk2"
[ $? -eq 3 ] || fail "check of an unfinished file should exit 3 (incomplete, not damaged)"
grep -q 'INCOMPLETE: .*still being recorded' "$T/chk2" && ! grep -q DAMAGED "$T/chk2" ||
	fail "check of an unfinished file: $(cat "$T/chk2")"
grep -q "readable: [0-9]* chunks, $rows rows" "$T/chk2" || fail "unfinished file: rows: $(cat "$T/chk2")"
"$MCZ" check "$T/cut.mcz" --repair "$T/fixed.mcz" >/dev/null || fail "repair exited $?"
"$MCZ" check "$T/fixed.mcz" >/dev/null || fail "the repaired file is not clean"
a=$("$MCZ" dump "$T/fixed.mcz" --csv | md5sum)
b=$("$MCZ" dump "$T/run.mcz" --csv | head -n $((rows + 1)) | md5sum)
[ "$a" = "$b" ] || fail "repaired file's values differ from the original's"

# ---- bad input: one clear line, non-zero exit
expect_err 1 'missing.mcz: .*No such file' -- "$MCZ" info "$T/missing.mcz"
expect_err 1 'is a directory' -- "$MCZ" info "$T"
: >"$T/empty.mcz"
expect_err 1 'empty file' -- "$MCZ" info "$T/empty.mcz"
expect_err 1 'empty file' -- "$MCZ" check "$T/empty.mcz"
echo "time,value" >"$T/text.mcz"
expect_err 1 'not an mcz file' -- "$MCZ" dump "$T/text.mcz"
head -c 4096 /dev/urandom >"$T/random.mcz"
expect_err 1 'not an mcz file' -- "$MCZ" check "$T/random.mcz"
python3 - "$T/run.mcz" "$T/v2.mcz" <<'PY'
import sys, zlib, struct
d = bytearray(open(sys.argv[1], 'rb').read())
d[8:12] = struct.pack('<HH', 2, 0)
d[16:20] = struct.pack('<I', zlib.crc32(bytes(d[:16])))
open(sys.argv[2], 'wb').write(d)
PY
expect_err 1 'version 2\.0; this mcz reads 1\.x' -- "$MCZ" info "$T/v2.mcz"
expect_err 2 'unknown command' -- "$MCZ" frobnicate
expect_err 2 'bad time' -- "$MCZ" dump "$T/run.mcz" --from 1parsec
expect_err 1 'no stream matches' -- "$MCZ" dump "$T/run.mcz" --streams 'nope.*'
"$MCZ" >/dev/null 2>&1; [ $? -eq 2 ] || fail "mcz without arguments should exit 2"
"$MCZ" --help | grep -q 'usage: mcz COMMAND' || fail "mcz --help"
"$MCZ" help dump | grep -q 'usage: mcz dump' || fail "mcz help dump"
"$MCZ" info --help | grep -q 'usage: mcz info' || fail "mcz info --help"

[ $fails -eq 0 ] && echo "format-cli: all checks passed"
[ $fails -eq 0 ]
