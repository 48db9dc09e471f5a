#!/usr/bin/env bash
# pcp-damaged.sh: a real PCP archive (pcp-testsuite's 20180102: 717 records
# over 3.2 h, 8369 instances), damaged two ways, in the test's own folder.
#  1. .index cut to 100 bytes: the archive opens in full, read around the
#     index: `mcz import` gives the intact archive's rows and values, every
#     one, and its warning names the index; mcview's status line too.
#  2. .0 (the only volume) cut in half: it opens with what the first half
#     holds (the intact archive's first rows, value for value), and says
#     where the read stopped in mcview --snapshot's status line and, with
#     mcview --report, on stderr; mcz import warns the same and exits 1,
#     as pmdumplog does (the index cut: nothing lost, exit 0).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -f "$A/20180102.index" ] || { echo "skip: pcp-testsuite archive 20180102 not installed (scripts/install-deps.sh)"; exit 77; }
T=$(mktemp -d /tmp/mcz-pcp-damaged.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
mkdir "$T/intact" "$T/noidx" "$T/half"
for d in intact noidx half; do cp "$A"/20180102.0 "$A"/20180102.meta "$A"/20180102.index "$T/$d/"; done
truncate -s 100 "$T/noidx/20180102.index"
size=$(stat -c %s "$T/half/20180102.0")
truncate -s $((size / 2)) "$T/half/20180102.0"
cd "$T"

"$B/mcz" import -o intact.mcz intact/20180102 2>intact.err || fail "import intact: $(cat intact.err)"
[ -s intact.err ] && fail "the intact archive warns: $(cat intact.err)"
"$B/mcz" dump --csv intact.mcz >intact.csv || fail "dump intact"
[ "$(tail -n +2 intact.csv | wc -l)" = 717 ] || fail "intact archive: $(tail -n +2 intact.csv | wc -l) rows, expected 717"

# 1. the index cut to 100 bytes
"$B/mcz" import -o noidx.mcz noidx/20180102 2>noidx.err || fail "import with a cut index: $(cat noidx.err)"
cat noidx.err
grep -q "noidx/20180102: its .index is unusable (.*): read without it" noidx.err ||
	fail "the warning does not name the index: $(cat noidx.err)"
"$B/mcz" dump --csv noidx.mcz >noidx.csv || fail "dump noidx"
cmp intact.csv noidx.csv || fail "with its index cut the archive reads differently: $(diff intact.csv noidx.csv | head -c 300)"
"$B/mcview" --snapshot 160x30 noidx/20180102 >noidx.snap 2>noidx.verr || fail "mcview with a cut index: $(cat noidx.verr)"
tail -n 1 noidx.snap | grep -q "^warning: noidx/20180102: its .index is unusable" ||
	fail "mcview's status line: $(tail -n 1 noidx.snap)"
ok "index cut to 100 bytes: all 717 rows, every value as the intact archive's; the warning names the .index"

# 2. the volume cut in half
"$B/mcz" import -o half.mcz half/20180102 2>half.err
rc=$?
# rows were lost: exit 1 as pmdumplog's, what was read kept in the file
[ $rc = 1 ] || fail "import of a cut volume: exit $rc, not 1: $(cat half.err)"
pmdumplog -a half/20180102 >/dev/null 2>&1 && fail "pmdumplog reads the cut volume without an error"
cat half.err
grep -q "half/20180102: read stopped after 2018-01-01T[0-9:.]*Z: " half.err || fail "import of a cut volume: $(cat half.err)"
"$B/mcz" dump --csv half.mcz >half.csv || fail "dump half"
nh=$(tail -n +2 half.csv | wc -l)
[ "$nh" -gt 100 ] && [ "$nh" -lt 717 ] || fail "half a volume gives $nh rows (of 717)"
# every value of the half is the intact archive's, same stream, same time
# (streams are declared as first met, so the half's are the first of the
# intact archive's, column for column; names repeat: PCP reuses instance
# names, so columns are matched by position)
python3 - intact.csv half.csv <<'PY' || fail "the first half's values differ from the intact archive's"
import csv, sys
fr = list(csv.reader(open(sys.argv[1])))
hr = list(csv.reader(open(sys.argv[2])))
if fr[0][:len(hr[0])] != hr[0]:
    sys.exit("the half's streams are not the first of the intact archive's")
n = 0
for i, row in enumerate(hr[1:], 1):
    f = fr[i][:len(row)]
    if f != row:
        j = next(k for k in range(len(row)) if f[k] != row[k])
        sys.exit(f"row {i} ({row[0]} s), {hr[0][j]}: {row[j]!r} here, {f[j]!r} intact")
    n += sum(v != "" for v in row[1:])
print(f"{len(hr) - 1} rows, {n} values, all as the intact archive's first rows")
PY
# the stop time said is the last row's (wall epoch + t_last), within 1 s
stop=$(sed -n 's/.*read stopped after \([0-9T:.-]*\)Z.*/\1/p' half.err)
"$B/mcz" info half.mcz >half.info
ep=$(sed -n 's/^meta *wall_epoch_ns = //p' half.info)
tl=$(sed -n 's/.*(t = [0-9.]* \.\. \([0-9.]*\) s).*/\1/p' half.info)
python3 -c "
import datetime, sys
s = datetime.datetime.fromisoformat('$stop').replace(tzinfo=datetime.timezone.utc).timestamp()
last = $ep / 1e9 + $tl
sys.exit(0 if abs(s - last) < 1 else 1)" || fail "read stopped after $stop, last row at epoch $ep + $tl s"
"$B/mcview" --snapshot 160x30 half/20180102 >half.snap 2>half.verr || fail "mcview on a cut volume: $(cat half.verr)"
tail -n 1 half.snap | grep -q "^warning: half/20180102: read stopped after ${stop}Z: " ||
	fail "mcview's status line: $(tail -n 1 half.snap)"
"$B/mcview" --report half/20180102 >half.report 2>half.rerr || fail "mcview --report on a cut volume: $(cat half.rerr)"
grep -q "^mcview: warning: half/20180102: read stopped after ${stop}Z: " half.rerr ||
	fail "mcview --report says nothing on stderr: $(cat half.rerr)"
grep -q "^A " half.report || fail "no phase table: $(head -3 half.report)"
ok "volume cut in half: $nh of 717 rows, values as intact, stopped after $stop (the last row); warned by import, mcview's status line and --report"
