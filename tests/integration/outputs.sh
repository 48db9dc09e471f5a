#!/usr/bin/env bash
# outputs.sh: what mcz and mcview write is what its format says.
#   - `mcz dump --csv` is RFC 4180: a name holding a comma and a quote is
#     one quoted field, the header has as many fields as every row, and
#     the names are the file's (to_pandas()'s), not escaped for a terminal;
#     on pcp-testsuite's 20041125, whose interrupt instances hold
#     "uhci_hcd, eth0", 580 fields in the header and in every row.
#   - JSON (`mcview --report=json`, `mcz dump --json`) is valid UTF-8: a mark
#     and an instance holding the byte 0x9b come out as \u009b, and Python's
#     json module reads them.
#   - a block left out for damage (a MARKS block whose CRC fails) is never
#     silent: mcz info, dump, export and mcview --report name it, exit 1.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"

"$B"/tests/tools/gen-recording -o "$T/q.mcz" --rows 300 --phases --mark-text 'x,"q ' >/dev/null ||
	fail "gen-recording"
"$B"/mcz dump --csv "$T/q.mcz" >"$T/q.csv" || fail "mcz dump --csv"
python3 - "$T/q.csv" <<'PY' || fail "CSV of names with a comma and a quote (above)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
bad = [i for i, r in enumerate(rows[1:]) if len(r) != len(h)]
assert not bad, "rows %s have %d fields, the header %d" % (bad[:3], len(rows[bad[0] + 1]), len(h))
assert any(c.endswith('[x,"q cpu0]') for c in h), h[:4]
print("ok: %d fields in the header and in each of %d rows" % (len(h), len(rows) - 1))
PY

A=/var/lib/pcp/testsuite/archives/20041125
if [ -f "$A.0" ]; then
	"$B"/mcz import -q "$A" -o "$T/a.mcz" 2>/dev/null || fail "mcz import $A"
	"$B"/mcz dump --csv "$T/a.mcz" >"$T/a.csv" || fail "mcz dump --csv of 20041125"
	python3 - "$T/a.csv" <<'PY' || fail "CSV of 20041125 (above)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert {len(r) for r in rows} == {len(rows[0])}, {len(r) for r in rows}
assert any(", eth0]" in c for c in rows[0]), "no instance with a comma"
print("ok: 20041125: %d fields in every line" % len(rows[0]))
PY
else
	echo "note: no pcp-testsuite (apt install pcp-testsuite): 20041125 not checked"
fi

"$B"/tests/tools/gen-recording -o "$T/u.mcz" --rows 2000 --phases --mark-text $'\x9b' >/dev/null ||
	fail "gen-recording"
"$B"/mcview --report=json "$T/u.mcz" >"$T/u.json" || fail "mcview --report=json"
"$B"/mcz dump --json --to 50ms "$T/u.mcz" >"$T/d.json" || fail "mcz dump --json"
python3 - "$T/u.json" "$T/d.json" <<'PY' || fail "JSON of a 0x9b byte (above)"
import json, sys
rep = json.load(open(sys.argv[1], encoding="utf-8"))
text = json.dumps(rep)
assert "\\u009b" in text, "the mark's 0x9b is not in the report"
d = json.load(open(sys.argv[2], encoding="utf-8"))
assert any(s["instance"].startswith("\x9b") for s in d["streams"]), d["streams"][:2]
print("ok: JSON is UTF-8, 0x9b as \\u009b")
PY
# damage is never silent: one byte flipped in the second MARKS block of a
# closed recording (its CRC then fails): info, dump, export and the report
# name the block left out and exit 1; mcview does not call the file
# incomplete
"$B"/tests/tools/gen-recording -o "$T/m.mcz" --rows 3000 --phases >/dev/null || fail "gen-recording"
python3 - "$T/m.mcz" "$T/mb.mcz" <<'PY' || fail "no second MARKS block"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o, seen = 20, 0
while o + 16 <= len(b) and b[o:o + 4] == b"mczB":
    t, l = struct.unpack_from("<H", b, o + 4)[0], struct.unpack_from("<I", b, o + 8)[0]
    if t == 5:
        seen += 1
        if seen == 2:
            b[o + 16 + l // 2] ^= 0x40
            break
    o += 20 + l
assert seen == 2
open(sys.argv[2], "wb").write(b)
PY
mkdir -p "$T/ex"
for cmd in "mcz info" "mcz dump --csv" "mcz export --pcp $T/ex/m" "mcview --report"; do
	$B/$cmd "$T/mb.mcz" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 1 ] || fail "$cmd of a file with a damaged block: exit $rc"
	grep -q 'DAMAGED: 1 block left out (the first: CRC mismatch\|is damaged: 1 block left out' "$T/err" ||
		fail "$cmd: $(cat "$T/err")"
	grep -q 'incomplete' "$T/err" && fail "$cmd calls the damaged file incomplete"
done
"$B"/mcz info "$T/mb.mcz" 2>/dev/null | grep -q 'every byte readable' && fail "mcz info: every byte readable"
for cmd in "mcz info" "mcz dump --csv" "mcview --report"; do
	$B/$cmd "$T/m.mcz" >/dev/null 2>"$T/err" || fail "$cmd of the whole file: $(cat "$T/err")"
done
echo "ok: CSV is RFC 4180 with the file's names; JSON is valid UTF-8; a damaged block is named, exit 1"
