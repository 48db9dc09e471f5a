#!/usr/bin/env bash
# pcp-values.sh: PCP archives from pcp-testsuite imported with `mcz import`
# hold exactly the values pmdumplog prints (pcp-compare.py checks every one:
# metric, instance, time and value), across compressed (.xz) volumes and
# metadata, multi-volume archives, very old v2 archives (1995-1997), v3
# archives, 32-bit counter wraps, instance changes, <mark> records, damaged
# and truncated archives; opening by volume, .meta, .index and folio gives
# the same recording; archives libpcp rejects get one clear line and exit 1.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
BAD=/var/lib/pcp/testsuite/badarchives
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$A/count-mark.meta" ] || { echo "skip: pcp-testsuite archives not installed (scripts/install-deps.sh)"; exit 77; }
command -v pmdumplog >/dev/null || { echo "skip: pmdumplog (pcp) not installed"; exit 77; }
T=$(mktemp -d /tmp/mcz-pcp-values.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# name: what it covers
ARCHIVES=(
	"$A/count-mark"              # 10548 records, a <mark>
	"$A/20190628.04.03"          # .xz volumes (2) and .meta.xz
	"$A/multi-xz/20150508.11.44" # .xz volume
	"$A/small"                   # .xz volume, 71k lines
	"$A/value-test"              # .xz volume, every value type
	"$A/ok-mv-foo"               # 3 volumes
	"$A/ok-mv-bar"               # 4 volumes
	"$A/ok-mv-interp"            # 3 volumes
	"$A/ok-noti-interp"          # no temporal index
	"$A/951127.23.01_v2"         # 1995
	"$A/960624.08.17_v2"         # 1996
	"$A/19970807.09.54"          # 1997
	"$A/ace_v2"
	"$A/omnibus_v3"              # v3 archive (ns timestamps)
	"$A/omnibus-nomark_v3"
	"$A/wrap"                    # 32-bit counters wrapping
	"$A/uwrap"
	"$A/gap2"                    # records missing
	"$A/changeinst"              # instances coming and going
	"$A/dyninsts"
	"$A/markmerge"               # several <mark>s
	"$A/nfsclient_32"
	"$A/20041125"
	"$A/eventrec"                # event metrics (skipped) beside numbers
	"$A/numa"
	"$A/20101004-trunc"          # truncated
	"$BAD/ok-truncbin"           # truncated volume: read stops, warned
	"$BAD/badlog-1"              # corrupt record
	"$BAD/archive-20150417.131733"
	"$BAD/badmeta-1"             # a metric without descriptor
	"$BAD/badlabel-0"
)
# one ARCHIVE K: imported and compared; what went wrong in $T/fail.K
one() {
	local a=$1 k=$2
	{ [ -e "$a.meta" ] || [ -e "$a.meta.xz" ]; } || { echo "$a: not installed" >"$T/fail.$k"; return; }
	# an archive cut short (a record broken) exits 1 with its warning, as
	# pmdumplog does, and keeps what was read: compared as the others
	"$B/mcz" import -q "$a" -o "$T/x$k.mcz" 2>"$T/err$k" ||
		{ [ $? = 1 ] && grep -q '^mcz import: warning: .*: read stopped after ' "$T/err$k" &&
			[ -s "$T/x$k.mcz" ]; } ||
		{ echo "import $a: $(cat "$T/err$k")" >"$T/fail.$k"; return; }
	[ "$(wc -l <"$T/err$k")" -le 1 ] || { echo "$a: more than one line on stderr" >"$T/fail.$k"; return; }
	python3 "$HERE/pcp-compare.py" "$a" "$T/x$k.mcz" "$B/mcz" >"$T/out$k" 2>&1 ||
		echo "$a: values differ: $(tail -n 3 "$T/out$k")" >"$T/fail.$k"
	rm -f "$T/x$k.mcz"
}
# two at a time (an import and its comparison use one core each)
n=0
for a in "${ARCHIVES[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	one "$a" $n &
	n=$((n + 1))
done
wait
for k in $(seq 0 $((n - 1))); do
	[ -e "$T/fail.$k" ] && fail "$(cat "$T/fail.$k")"
	cat "$T/out$k"
done
[ $n -ge 20 ] || fail "only $n archives compared"

# damaged archives: the warning names the damage, what was read is kept,
# exit 1 as pmdumplog's
"$B/mcz" import -q "$BAD/ok-truncbin" -o "$T/x.mcz" 2>"$T/err"
[ $? = 1 ] || fail "ok-truncbin: rows lost, and exit 0"
[ -s "$T/x.mcz" ] || fail "ok-truncbin: what was read is not kept"
grep -q "warning: .*ok-truncbin: read stopped after 20" "$T/err" || fail "no truncation warning: $(cat "$T/err")"

# on a terminal a progress line names the archive (script(1) gives a pty)
if command -v script >/dev/null; then
	script -qc "$B/mcz import $A/20180127.08.40 -o $T/p.mcz" /dev/null >"$T/tty.txt" 2>&1
	grep -q "importing 20180127.08.40: .*records" "$T/tty.txt" || fail "no progress line on a tty"
	"$B/mcz" import "$A/20180127.08.40" -o "$T/p.mcz" 2>"$T/notty.txt" >/dev/null
	[ ! -s "$T/notty.txt" ] || fail "progress line without a tty: $(cat "$T/notty.txt")"
fi

# the same archive by base, volume, .meta, .index and compressed names
"$B/mcz" dump "$T/x.mcz" >/dev/null || fail "dump"
ref() { "$B/mcz" import -q "$1" -o "$T/r.mcz" && "$B/mcz" dump --json "$T/r.mcz"; }
ref "$A/ok-mv-foo" >"$T/base.json" || fail "import ok-mv-foo"
for alt in "$A/ok-mv-foo.0" "$A/ok-mv-foo.2" "$A/ok-mv-foo.meta" "$A/ok-mv-foo.index"; do
	ref "$alt" | cmp -s - "$T/base.json" || fail "$alt opens differently from its base name"
done
ref "$A/20190628.04.03" >"$T/base.json" || fail "import 20190628.04.03"
for alt in "$A/20190628.04.03.1.xz" "$A/20190628.04.03.meta.xz"; do
	ref "$alt" | cmp -s - "$T/base.json" || fail "$alt opens differently from its base name"
done
# a folio: every archive it lists (here one, pcp-atop)
ref "$A/pcp-atop" >"$T/base.json" || fail "import pcp-atop"
ref "$A/pcp-atop.folio" | cmp -s - "$T/base.json" || fail "folio differs from its archive"
# a folio of two hosts: both imported, merged on time, instances prefixed by host
printf 'PCPFolio\nVersion: 1\nArchive:\tbozo-vm\t%s\nArchive:\tother\t%s\n' \
	"$A/count-mark" "$A/ok-mv-foo" >"$T/two.folio"
"$B/mcz" import -q "$T/two.folio" -o "$T/two.mcz" || fail "two-host folio"
"$B/mcz" info "$T/two.mcz" | grep -q "kernel.all.pswitch *bozo-vm " || fail "two-host folio: no bozo-vm stream"
"$B/mcz" info "$T/two.mcz" | grep -q "sample.colour *[^ ]*:red" || fail "two-host folio: no host:red stream"
# the stream table's columns line up however long a PCP name is
"$B/mcz" info "$T/two.mcz" | awk '/^ +ID  NAME/ { w = length($0); next }
	w && /^ +[0-9]+  / && length($0) != w { print "misaligned: " $0; bad = 1 } END { exit bad || !w }' ||
	fail "mcz info: stream table not aligned"
# --metrics keeps only matching metrics, and their values still match pmdumplog
"$B/mcz" import -q --metrics 'kernel.all.*,mem' "$A/20041125" -o "$T/m.mcz" || fail "--metrics"
python3 "$HERE/pcp-compare.py" "$A/20041125" "$T/m.mcz" "$B/mcz" >"$T/cmp" 2>&1 &&
	fail "--metrics: the comparison should miss the metrics left out"
grep -q "mismatches" "$T/cmp" || fail "--metrics: compare did not run: $(cat "$T/cmp")"
"$B/mcz" dump --json "$T/m.mcz" | python3 -c '
import json, sys
s = json.load(sys.stdin)["streams"]
names = {x["name"] for x in s}
bad = [n for n in names if not (n.startswith("kernel.all.") or n.startswith("mem."))]
assert names and not bad, (sorted(names)[:5], bad[:5])
assert any(n.startswith("mem.") for n in names) and any(n.startswith("kernel.all.") for n in names)
' || fail "--metrics kept other metrics"

out=$("$B/mcz" import -q --metrics 'nosuch.*' "$A/20041125" -o "$T/none.mcz" 2>&1) && fail "--metrics matching nothing: exit 0"
[[ $out == *"no metric matches --metrics 'nosuch.*'"* ]] || fail "--metrics matching nothing: $out"
[ ! -e "$T/none.mcz" ] || fail "--metrics matching nothing: output left"
# an earlier file of that name is not the import's to remove (issue 43, finding 2)
cp "$T/m.mcz" "$T/m.want"
"$B/mcz" import -q --metrics 'nosuch.*' "$A/20041125" -o "$T/m.mcz" 2>/dev/null && fail "--metrics matching nothing: exit 0"
cmp -s "$T/m.mcz" "$T/m.want" || fail "--metrics matching nothing: the earlier file not kept as it was"
[ "$(ls "$T" | grep -c '^m\.mcz')" = 1 ] || fail "--metrics matching nothing: a temporary left: $(ls "$T")"

# rejected by libpcp: one line naming the archive and libpcp's reason, exit 1
for b in badlabel-1 badlen-4 badlen-9 badmeta-3 empty ace bug err_v1; do
	a=$BAD/$b
	pmdumplog -l "$a" >/dev/null 2>&1 && fail "$b: pmdumplog accepts it, not a rejection case"
	"$B/mcz" import -q "$a" -o "$T/bad.mcz" >"$T/out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$b: exit $rc"
	[ "$(wc -l <"$T/out")" -eq 1 ] || fail "$b: not one line: $(cat "$T/out")"
	grep -q "^mcz import: $a: .*\(Illegal label\|Empty archive\|Corrupted record\)" "$T/out" ||
		fail "$b: unclear message: $(cat "$T/out")"
	[ ! -e "$T/bad.mcz" ] || fail "$b: output left behind"
	echo "rejected: $(cat "$T/out")"
done
for b in "$A/nosuch" "/etc/passwd" "$T"; do
	"$B/mcz" import -q "$b" -o "$T/bad.mcz" >"$T/out" 2>&1 && fail "$b: accepted"
	[ "$(wc -l <"$T/out")" -eq 1 ] || fail "$b: not one line: $(cat "$T/out")"
	echo "rejected: $(cat "$T/out")"
done
echo "pass: $n archives compared value by value with pmdumplog"
