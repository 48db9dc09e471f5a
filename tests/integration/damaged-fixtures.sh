#!/usr/bin/env bash
# damaged-fixtures.sh: small recordings kept under tests/integration/fixtures/
# damaged/, each damaged in one way, and what every program must say of
# them, row for row.  rec.mcz is a real 1 s recording (mcrec -i 20ms --chunk
# 250ms, a mark "solve"): 13 blocks, 5 chunks, 54 rows; the others are its
# copies:
#   flip.mcz       one byte of the second chunk's payload flipped (offset 1719)
#   truncated.mcz  cut at byte 2675, inside the fourth chunk (block at 2475)
#   cut-index.mcz  cut at byte 3894, inside the INDEX block (at 3494)
#   live.mcz       a recorder killed (SIGKILL) at 1.4 s: PART blocks only
# mcview --snapshot and --keys run on copies (the phase cache would be
# appended to the good file).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
F=$(cd "$(dirname "$0")" && pwd)/fixtures/damaged
T=$(mktemp -d /tmp/mcz-fixtures.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$F"/*.mcz "$T/"
cd "$T"
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# run NAME CMD...: stdout in NAME.out, stderr in NAME.err, status in rc
run() { local n=$1; shift; "$@" >"$n.out" 2>"$n.err"; rc=$?; }
expect_rc() { [ "$rc" = "$1" ] || fail "$2: exit $rc, expected $1: $(head -3 "$3.out" "$3.err")"; }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -5 "$1")"; }
rows() { tail -n +2 "$1" | wc -l; }

# the intact recording: the reference rows
run rec-check "$B/mcz" check rec.mcz; expect_rc 0 "check rec" rec-check
has rec-check.out "rec.mcz: ok: 13 blocks, 5 chunks, 54 rows"
run rec-dump "$B/mcz" dump --csv rec.mcz; expect_rc 0 "dump rec" rec-dump
[ "$(rows rec-dump.out)" = 54 ] || fail "rec.mcz dumps $(rows rec-dump.out) rows"

# flipped byte: index intact, one chunk's CRC fails
run flip-check "$B/mcz" check flip.mcz; expect_rc 1 "check flip" flip-check
has flip-check.out "DAMAGED: CRC mismatch in the block at offset 1553"
has flip-check.out "readable: 4 chunks, 51 rows"
has flip-check.out "index: ok"
run flip-info "$B/mcz" info flip.mcz; expect_rc 0 "info flip" flip-info
has flip-info.out "54 rows in 5 chunks"
has flip-info.out "index      ok (chunks not checked: mcz check verifies every CRC)"
run flip-dump "$B/mcz" dump --csv flip.mcz; expect_rc 1 "dump flip" flip-dump
has flip-dump.err "1 damaged chunk: rows from 0.283 s to 0.323 s not printed, every other row was"
# every row printed is the intact file's; the three missing are the chunk's
diff rec-dump.out flip-dump.out >flip.diff
[ "$(grep -c '^<' flip.diff)" = 3 ] && [ "$(grep -c '^>' flip.diff)" = 0 ] ||
	fail "flip.mcz rows differ from rec.mcz's beyond the damaged chunk: $(head flip.diff)"
[ "$(grep '^<' flip.diff | cut -d, -f1 | cut -c3- | tr '\n' ' ')" = "0.283262166 0.303238401 0.323273107 " ] ||
	fail "the rows missing are not the damaged chunk's: $(grep '^<' flip.diff | cut -c1-14)"
run flip-view "$B/mcview" --snapshot 100x30 flip.mcz; expect_rc 0 "mcview flip" flip-view
[ "$(tail -n 1 flip-view.out | sed 's/ *$//')" = "warning: flip.mcz: 1 damaged chunk not shown (x on the time axis); see mcz check" ] ||
	fail "flip status line: $(tail -n 1 flip-view.out)"
sed -n 2p flip-view.out | grep -q '×' || fail "no damaged span on the time axis: $(sed -n 2p flip-view.out)"
cmp flip.mcz "$F/flip.mcz" || fail "mcview wrote into the damaged flip.mcz"
ok "flipped byte: check 1 (4 chunks, 51 rows), info 0, dump 1 with every other row, mcview warns and marks the span"

# truncated inside a chunk: the first three chunks, 31 rows
run trunc-check "$B/mcz" check truncated.mcz; expect_rc 1 "check truncated" trunc-check
has trunc-check.out "DAMAGED: file ends inside the block at offset 2475"
has trunc-check.out "readable: 3 chunks, 31 rows"
run trunc-info "$B/mcz" info truncated.mcz; expect_rc 0 "info truncated" trunc-info
has trunc-info.out "MISSING or damaged: opened by scanning; 2475 bytes of 2675 readable"
run trunc-dump "$B/mcz" dump --csv truncated.mcz; expect_rc 1 "dump truncated" trunc-dump
has trunc-dump.err "damaged after byte 2475 of 2675: every readable row was printed"
head -n 32 rec-dump.out | cmp - trunc-dump.out || fail "truncated.mcz rows are not rec.mcz's first 31"
run trunc-view "$B/mcview" --snapshot 100x30 truncated.mcz; expect_rc 0 "mcview truncated" trunc-view
has trunc-view.out "warning: truncated.mcz is damaged: showing what it holds (31 rows, 2475 of 2675 bytes readable)"
cmp truncated.mcz "$F/truncated.mcz" || fail "mcview wrote into truncated.mcz"
ok "truncated: check 1 (3 chunks, 31 rows), dump 1 with the first 31 rows, mcview warns"

# index cut: every chunk readable by scanning, the cut index is damage
run cut-check "$B/mcz" check cut-index.mcz; expect_rc 1 "check cut-index" cut-check
has cut-check.out "DAMAGED: file ends inside the block at offset 3494"
has cut-check.out "readable: 5 chunks, 54 rows"
has cut-check.out "index: missing or damaged (rebuilt by scanning)"
run cut-dump "$B/mcz" dump --csv cut-index.mcz; expect_rc 1 "dump cut-index" cut-dump
cmp rec-dump.out cut-dump.out || fail "cut-index.mcz does not dump rec.mcz's 54 rows"
run cut-view "$B/mcview" --snapshot 100x30 cut-index.mcz; expect_rc 0 "mcview cut-index" cut-view
has cut-view.out "warning: cut-index.mcz is damaged: showing what it holds (54 rows, 3494 of 3894 bytes readable)"
run cut-report "$B/mcview" --report cut-index.mcz; expect_rc 0 "mcview --report cut-index" cut-report
has cut-report.err "mcview: warning: cut-index.mcz is damaged"
cmp cut-index.mcz "$F/cut-index.mcz" || fail "mcview --report wrote into cut-index.mcz"
ok "cut index: check 1, all 54 rows by scanning (dump 1: the index is lost), mcview warns, writes nothing"

# PART-only file of a killed recorder: INCOMPLETE, not damaged
run live-check "$B/mcz" check live.mcz; expect_rc 3 "check live" live-check
has live-check.out "INCOMPLETE: no index or trailer at the end"
has live-check.out "readable: 2 chunks, 56 rows, 6 good blocks, every byte of 2.1 KiB"
run live-info "$B/mcz" info live.mcz; expect_rc 0 "info live" live-info
has live-info.out "index      none yet (still being recorded, or its recorder was killed)"
has live-info.out "56 rows in 2 chunks"
run live-dump "$B/mcz" dump --csv live.mcz; expect_rc 0 "dump live" live-dump
[ "$(rows live-dump.out)" = 56 ] || fail "live.mcz dumps $(rows live-dump.out) rows"
[ -s live-dump.err ] && fail "dump of a live file warns: $(cat live-dump.err)"
run live-view "$B/mcview" --snapshot 100x30 live.mcz; expect_rc 0 "mcview live" live-view
has live-view.out "live.mcz is incomplete (still recording, or its recorder was killed): showing its 56 rows"
cmp live.mcz "$F/live.mcz" || fail "mcview wrote into the live file"
ok "PART-only: check 3 (56 rows), dump 0 with 56 rows, mcview says incomplete"

# the view fuzz target's findings, opened for real: a specific outcome each.
# regress-time-col-overflow.mcz: one readable row at 47.4 us and marks far
# off it; a column of such a time overflowed int (UBSan, model.c)
FZ=$(dirname "$F")/../../fuzz/corpus-view
run fz-check "$B/mcz" check "$FZ/regress-time-col-overflow.mcz"; expect_rc 1 "check fuzz finding" fz-check
has fz-check.out "readable: 1 chunks, 1 rows"
run fz-view "$B/mcview" --snapshot 140x24 --keys +,Right,n,Tab,Tab "$FZ/regress-time-col-overflow.mcz"
expect_rc 0 "mcview regress-time-col-overflow" fz-view
[ "$(wc -l <fz-view.out)" = 24 ] || fail "regress-time-col-overflow: $(wc -l <fz-view.out) lines drawn"
[ "$(tail -n 1 fz-view.out | sed 's/ *$//')" = "warning: regress-time-col-overflow.mcz is damaged: showing what it holds (1 rows, 6071 of 6186 bytes readable)" ] ||
	fail "regress-time-col-overflow status line: $(tail -n 1 fz-view.out)"
ok "fuzz finding regress-time-col-overflow: 1 row drawn with its damage said, exit 0"
# regress-spark-level-overflow.mcz (CRCs made right by fuzz-view): 18 rows
# whose values span far more than a double's range of levels; a sparkline
# level of one overflowed int (UBSan, spark.c)
run fz2-check "$B/mcz" check "$FZ/regress-spark-level-overflow.mcz"; expect_rc 1 "check fuzz finding 2" fz2-check
has fz2-check.out "readable: 3 chunks, 18 rows"
for v in timeline phases topology; do
	run fz2-view "$B/mcview" --snapshot 140x24 --view $v --keys +,Right,n,Enter "$FZ/regress-spark-level-overflow.mcz"
	expect_rc 0 "mcview --view $v regress-spark-level-overflow" fz2-view
	[ "$(wc -l <fz2-view.out)" = 24 ] || fail "regress-spark-level-overflow ($v): $(wc -l <fz2-view.out) lines drawn"
	[ "$(tail -n 1 fz2-view.out | sed 's/ *$//')" = "warning: regress-spark-level-overflow.mcz is damaged: showing what it holds (18 rows, 6115 of 6565 bytes readable)" ] ||
		fail "regress-spark-level-overflow status line ($v): $(tail -n 1 fz2-view.out)"
done
ok "fuzz finding regress-spark-level-overflow: 18 rows drawn in every view with the damage said, exit 0"
