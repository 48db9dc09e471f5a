#!/usr/bin/env bash
# open-messages.sh: what a user is told when a recording opens badly or
# cannot keep its phases — found by a first-user pass:
#  - a file of an older dev build (every CRC good, metadata in an older
#    layout: fixtures/old-dev-build.mcz) said "damaged: showing what it
#    holds (0 rows, 3985 of 3985 bytes readable)"; it now says that nothing
#    is readable and why (mcview), and mcz info says the same;
#  - a read-only recording opened by a user who may not write it said
#    "phases not cached: FILE is read-only" on every open; now nothing;
#  - mcz dump --from 5 --to 2 printed an empty table with exit 0 (mcview
#    --window refuses the same range); mcz on a directory said "is a
#    directory: a directory, not a recording" (now "is a directory, not a
#    recording");
#  - mcview --bogus printed getopt's line and the whole usage;
#  - mcz import of a plain file said "No such file or directory".
# mcz-test: parallel (messages only)
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-build}
B=$(cd "$B" && pwd)
FX=$PWD/tests/integration/fixtures
T=$(mktemp -d /tmp/mcz-open-msg.XXXXXX)
trap 'rm -rf "$T"' EXIT
export LC_ALL=C.UTF-8
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# an older dev build's file
"$B"/mcview --snapshot 100x12 "$FX/old-dev-build.mcz" >"$T/old" 2>&1 || fail "mcview old: $(cat "$T/old")"
grep -q "old-dev-build.mcz holds nothing readable: bad payload in the block at offset 20" "$T/old" ||
	fail "old dev build: $(tail -1 "$T/old")"
grep -q "showing what it holds" "$T/old" && fail "old dev build still says 'showing what it holds'"
"$B"/mcz info "$FX/old-dev-build.mcz" >"$T/info" 2>&1
grep -q "^index      MISSING or damaged, and nothing readable" "$T/info" ||
	fail "mcz info old: $(grep index "$T/info")"

# a truncated recording still says what it shows
"$B"/tests/tools/gen-recording -o "$T/run.mcz" --streams 4 --rows 3000 --phases --seed 3 ||
	{ echo "FAIL: gen-recording"; exit 1; }
size=$(stat -c %s "$T/run.mcz")
head -c $((size * 2 / 3)) "$T/run.mcz" >"$T/cut.mcz"
"$B"/mcview --snapshot 100x12 "$T/cut.mcz" >"$T/cut" 2>&1 || fail "mcview cut: $(cat "$T/cut")"
grep -q "warning: cut.mcz is damaged: showing what it holds ([1-9][0-9]* rows" "$T/cut" ||
	fail "truncated: $(tail -1 "$T/cut")"

# a recording whose recorder was killed (or still running): every block
# whole, no index — "incomplete", not "damaged"
"$B"/mcrec -q -i 20ms --chunk 200ms -o "$T/live.mcz" -- sleep 30 &
rec=$!
for _ in $(seq 50); do
	[ "$(stat -c %s "$T/live.mcz" 2>/dev/null || echo 0)" -gt 4096 ] && break
	sleep 0.1
done
sleep 0.5
child=$(pgrep -P "$rec")
kill -9 "$rec"
wait "$rec" 2>/dev/null
[ -n "$child" ] && kill "$child" 2>/dev/null
"$B"/mcview --snapshot 120x12 "$T/live.mcz" >"$T/live" 2>&1 || fail "mcview live: $(cat "$T/live")"
grep -q "live.mcz is incomplete (still recording, or its recorder was killed): showing its [1-9][0-9]* rows" \
	"$T/live" || fail "killed recorder: $(tail -1 "$T/live")"

# read-only for the user: no line about the phase cache
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	chmod 444 "$T/run.mcz"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$B"/mcview --snapshot 100x12 --view phases "$T/run.mcz" >"$T/ro" 2>&1 ||
		fail "mcview as nobody: $(cat "$T/ro")"
	grep -q "[0-9] phases, " "$T/ro" || fail "read-only: no phase table: $(head -3 "$T/ro")"
	grep -q "not cached" "$T/ro" && fail "read-only: $(grep 'not cached' "$T/ro")"
	# as the owner, the cache folder keeps them: the second open says cached
	cp "$T/run.mcz" "$T/rw.mcz" && chmod 644 "$T/rw.mcz"
	"$B"/mcview --snapshot 100x12 --view phases "$T/rw.mcz" >/dev/null 2>&1
	"$B"/mcview --snapshot 100x12 --view phases "$T/rw.mcz" >"$T/rw" 2>&1
	grep -q ", cached)" "$T/rw" || fail "writable: phases not cached: $(sed -n 2p "$T/rw")"
else
	echo "note: not root, the read-only check is left out"
fi

# mcz: an empty --from/--to range, a directory
"$B"/mcz dump "$T/run.mcz" --from 5 --to 2 >"$T/d" 2>"$T/e"
rc=$?
[ $rc = 2 ] || fail "dump --from 5 --to 2: exit $rc"
grep -qx "mcz dump: --from 5 is not before --to 2" "$T/e" || fail "dump range: $(cat "$T/e")"
[ -s "$T/d" ] && fail "dump range printed a table"
"$B"/mcz dump "$T/run.mcz" --csv --json >"$T/d" 2>"$T/e"
rc=$?
[ $rc = 2 ] && [ "$(cat "$T/e")" = "mcz dump: --csv and --json: choose one (see mcz dump --help)" ] ||
	fail "dump --csv --json: exit $rc, $(cat "$T/e")"
"$B"/mcz check "$T" 2>"$T/e"
[ $? = 1 ] || fail "check DIR: exit not 1"
grep -qx "mcz check: $T: is a directory, not a recording" "$T/e" || fail "check DIR: $(cat "$T/e")"

# mcz import of a file that is no PCP archive: not "No such file or directory"
echo hello >"$T/text.mcz"
"$B"/mcz import "$T/text.mcz" -o "$T/x.mcz" 2>"$T/e"
rc=$?
[ $rc = 1 ] || fail "import text: exit $rc"
[ "$(cat "$T/e")" = "mcz import: $T/text.mcz: not a PCP archive (no $T/text.mcz.meta beside it)" ] ||
	fail "import text: $(cat "$T/e")"

# mcview: a bad option is one line, as mcrec says it (was getopt's line
# with the full program path, then the whole usage)
"$B"/mcview --bogus "$T/run.mcz" >"$T/o" 2>"$T/e"
rc=$?
[ $rc = 2 ] || fail "mcview --bogus: exit $rc"
[ "$(cat "$T/e")" = "mcview: unknown option '--bogus' (see --help)" ] || fail "mcview --bogus: $(cat "$T/e")"
"$B"/mcview "$T/run.mcz" --snapshot >"$T/o" 2>"$T/e"
[ "$(cat "$T/e")" = "mcview: option '--snapshot' needs a value (see --help)" ] ||
	fail "mcview --snapshot without value: $(cat "$T/e")"

[ $bad -eq 0 ] && echo "open messages: ok"
exit $bad
