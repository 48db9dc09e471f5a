#!/usr/bin/env bash
# job-merge.sh: `mcz merge` and job files (SPEC.md 5.9, format/cli/tool-merge.c):
#   - a real job (samples/imbalance under `mpirun --oversubscribe -n 4
#     mcrec`, rank 2 given 1.5x the work in "solve") merged into one file:
#     `mcview --report=json` on the job file gives the same job, phases and
#     figures as on the rank files (rank 2 named slowest in solve), and the
#     Ranks view's screen is the same; mcz info lists the ranks, mcz check
#     verifies every member, `mcz info JOB:NAME` and `mcz dump JOB:NAME`
#     read one member, mcz split gives every rank file back byte for byte;
#   - bad input: a file that is not a recording (one line, nothing
#     written), -o naming an input, a file given twice (taken once), two
#     files of the same name and rank (both kept, named apart, a note), a
#     rank missing, files of two jobs (a note; mcview shows two jobs), a
#     rank file cut by a crash (kept as it is, a note; mcz check exits 3 and
#     names it; the job still has its 4 ranks), a job file given to merge
#     (its members taken), a member damaged where its own header is (left
#     out, named in one line; the job shows the others), an earlier job
#     file kept as .old, dump of a job
#     file (one line naming how to dump a member).
set -u
. "$(dirname "$0")/rec-common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the JSON checks need it"; exit 77; }
MCZ=$B/mcz
MCVIEW=$B/mcview
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root

mkdir -p "$T/a"
timeout 120 mpirun $ROOT --oversubscribe -n 4 "$MCREC" -q -o "$T/a/run.%r.mcz" -- \
	"$B/samples/imbalance" --steps 40 --slow 2:2:1.5 --barrier "$T/bar" >"$T/a.out" 2>&1 ||
	fail "mpirun: $(tail -3 "$T/a.out")"
[ "$(ls "$T"/a/run.*.mcz | wc -l)" = 4 ] || fail "expected 4 rank files: $(ls "$T/a")"

"$MCZ" merge "$T"/a/run.*.mcz -o "$T/job.mcz" >"$T/m.out" 2>"$T/m.err" || fail "merge: $(cat "$T/m.err")"
grep -q "job.mcz: 4 recordings (ranks 0-3)" "$T/m.out" || fail "merge summary: $(cat "$T/m.out")"
[ ! -s "$T/m.err" ] || fail "notes on a whole job: $(cat "$T/m.err")"
sum=$(cat "$T"/a/run.*.mcz | wc -c)
size=$(stat -c %s "$T/job.mcz")
[ "$size" -gt "$sum" ] && [ "$size" -lt $((sum + 1024)) ] || fail "job file $size B for $sum B of rank files"
ok "merged 4 rank files ($sum B) into one job file of $size B"

"$MCVIEW" --report=json "$T"/a/run.*.mcz >"$T/files.json" || fail "report on the rank files"
"$MCVIEW" --report=json "$T/job.mcz" >"$T/job.json" || fail "report on the job file"
python3 - "$T/files.json" "$T/job.json" <<'PY' || fail "the job file's report differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ja, jb = a["jobs"], b["jobs"]
assert len(ja) == len(jb) == 1, (len(ja), len(jb))
ja, jb = ja[0], jb[0]
for k in ("ranks", "size", "job", "source"):
    assert ja[k] == jb[k], (k, ja[k], jb[k])
assert [p["label"] for p in ja["phases"]] == [p["label"] for p in jb["phases"]]
for p, q in zip(ja["phases"], jb["phases"]):
    for k in ("slowest_rank", "imbalance", "load_balance", "lost_s", "ranks", "mean_s", "max_s"):
        assert p[k] == q[k], (p["label"], k, p[k], q[k])
solve = [p for p in jb["phases"] if p["label"] == "solve"][0]
assert solve["slowest_rank"] == 2 and solve["imbalance"] > 1.2, solve
print("ok: report on the job file = report on the rank files: %d phases, solve's slowest rank %d, imbalance %.3f"
      % (len(jb["phases"]), solve["slowest_rank"], solve["imbalance"]))
PY
"$MCVIEW" --snapshot 160x40 --view ranks "$T"/a/run.*.mcz >"$T/files.scr" 2>&1 || fail "ranks snapshot, files"
"$MCVIEW" --snapshot 160x40 --view ranks "$T/job.mcz" >"$T/job.scr" 2>&1 || fail "ranks snapshot, job file"
grep -q "r2" "$T/job.scr" || fail "the Ranks view of the job file names no rank: $(head -5 "$T/job.scr")"
diff <(grep -v "run\.\|job\.mcz" "$T/files.scr") <(grep -v "run\.\|job\.mcz" "$T/job.scr") >"$T/scr.diff" ||
	fail "Ranks view differs between the rank files and the job file: $(head -20 "$T/scr.diff")"
ok "the Ranks view of the job file is the rank files' ($(grep -c . "$T/job.scr") lines)"

"$MCZ" info "$T/job.mcz" >"$T/info.txt" || fail "mcz info"
grep -q "a job file of 4 recordings" "$T/info.txt" || fail "info: $(head -2 "$T/info.txt")"
for r in 0 1 2 3; do
	grep -Eq "^  run\.$r\.mcz +$r " "$T/info.txt" || fail "info: no line for rank $r: $(cat "$T/info.txt")"
done
"$MCZ" check "$T/job.mcz" >"$T/check.txt" || fail "mcz check: $(cat "$T/check.txt")"
grep -q "ok: a job file of 4 recordings" "$T/check.txt" || fail "check: $(cat "$T/check.txt")"
"$MCZ" info "$T/job.mcz:run.2.mcz" | grep -q "^meta .*rank = 2" || fail "mcz info JOB:run.2.mcz"
"$MCZ" dump --csv "$T/job.mcz:run.2.mcz" >"$T/m2.csv" || fail "dump of a member"
"$MCZ" dump --csv "$T/a/run.2.mcz" >"$T/f2.csv" || fail "dump of the rank file"
cmp -s "$T/m2.csv" "$T/f2.csv" || fail "dump of the member differs from the rank file's"
ok "mcz info lists the 4 ranks, mcz check verifies each, a member dumps as its rank file ($(wc -l <"$T/m2.csv") lines)"
mkdir "$T/split"
"$MCZ" split "$T/job.mcz" -o "$T/split" >/dev/null || fail "split"
for f in "$T"/a/run.*.mcz; do
	cmp -s "$f" "$T/split/$(basename "$f")" || fail "split: $(basename "$f") differs"
done
"$MCZ" split "$T/job.mcz" -o "$T/split" 2>"$T/sp.err" && fail "split over existing files"
grep -q "exists (--force overwrites it)" "$T/sp.err" && grep -q "nothing written" "$T/sp.err" ||
	fail "split over existing files: $(cat "$T/sp.err")"
ok "mcz split gives the 4 rank files back byte for byte, and overwrites nothing"

# ---- bad input ---------------------------------------------------------------
"$MCZ" dump "$T/job.mcz" >/dev/null 2>"$T/d.err" && fail "dump of a job file exited 0"
[ "$(wc -l <"$T/d.err")" = 1 ] && grep -q "job file of 4 recordings: dump one as .*job.mcz:run.0.mcz" "$T/d.err" ||
	fail "dump of a job file: $(cat "$T/d.err")"
"$MCZ" merge "$T/a/run.0.mcz" /etc/hostname -o "$T/bad.mcz" 2>"$T/e.err" && fail "merge of a non-recording exited 0"
[ "$(wc -l <"$T/e.err")" = 1 ] && grep -q "/etc/hostname: not an mcz file" "$T/e.err" || fail "non-recording: $(cat "$T/e.err")"
[ ! -e "$T/bad.mcz" ] && [ -z "$(ls "$T" | grep 'bad.mcz')" ] || fail "a failed merge left a file: $(ls "$T")"
"$MCZ" merge "$T"/a/run.*.mcz -o "$T/a/run.1.mcz" 2>"$T/e.err" && fail "-o naming an input exited 0"
grep -q "is one of the files to merge" "$T/e.err" || fail "-o naming an input: $(cat "$T/e.err")"
"$MCZ" merge "$T"/a/run.*.mcz >/dev/null 2>"$T/e.err" && fail "merge without -o exited 0"
[ "$(wc -l <"$T/e.err")" = 1 ] && grep -q "no job file to write: give -o JOB.mcz (see mcz merge --help)" "$T/e.err" ||
	fail "no -o: $(cat "$T/e.err")"
ok "bad usage: one line each, exit non-zero, nothing written"

mkdir -p "$T/other"
cp "$T/a/run.1.mcz" "$T/other/run.1.mcz"
"$MCZ" merge "$T"/a/run.*.mcz "$T/a/run.1.mcz" "$T/other/run.1.mcz" -o "$T/dup.mcz" >/dev/null 2>"$T/dup.err" ||
	fail "merge with duplicates: $(cat "$T/dup.err")"
grep -q "run.1.mcz given twice: taken once" "$T/dup.err" || fail "same file twice: $(cat "$T/dup.err")"
grep -q "rank 1 twice (run.1.mcz and run.1.mcz#2): both kept" "$T/dup.err" || fail "duplicate rank: $(cat "$T/dup.err")"
[ "$("$MCZ" info "$T/dup.mcz" | grep -c '^  run\.')" = 5 ] || fail "duplicates: $("$MCZ" info "$T/dup.mcz")"
"$MCZ" merge "$T/a/run.0.mcz" "$T/a/run.1.mcz" "$T/a/run.3.mcz" -o "$T/miss.mcz" >/dev/null 2>"$T/miss.err" ||
	fail "merge with a rank missing"
grep -q "1 of 4 ranks missing in job .* (first: rank 2)" "$T/miss.err" || fail "missing rank: $(cat "$T/miss.err")"
ok "duplicates and a missing rank: said, every file kept"

# a second job (a loop launcher, its own job id) given together
mkdir -p "$T/b"
for r in 0 1; do
	PMI_RANK=$r PMI_SIZE=2 SLURM_JOB_ID=99 "$MCREC" -q -i 50ms -o "$T/b/u.$r.mcz" -- \
		"$WORK" --sleeps 30 || fail "rank $r of the second job"
done
"$MCZ" merge "$T"/a/run.*.mcz "$T"/b/u.*.mcz -o "$T/two.mcz" >/dev/null 2>"$T/two.err" || fail "merge of two jobs"
grep -q "note: recordings of .* jobs" "$T/two.err" || fail "two jobs: $(cat "$T/two.err")"
"$MCVIEW" --report=json "$T/two.mcz" >"$T/two.json" 2>/dev/null || fail "report on a job file of two jobs"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; assert sorted(x["ranks"] for x in j) == [2, 4], [(x["job"], x["ranks"]) for x in j]' \
	"$T/two.json" || fail "two jobs in one file: $(head -c 300 "$T/two.json")"
ok "files of two jobs: a note ($(head -1 "$T/two.err" | cut -c1-90)...), shown as separate jobs"

# a rank cut by a crash: the rank file without its end, as kill -9 leaves it
mkdir -p "$T/c"
cp "$T"/a/run.*.mcz "$T/c/"
sz=$(stat -c %s "$T/c/run.3.mcz")
truncate -s $((sz * 2 / 3)) "$T/c/run.3.mcz"
"$MCZ" merge "$T"/c/run.*.mcz -o "$T/cut.mcz" >/dev/null 2>"$T/cut.err" || fail "merge with a cut rank"
grep -q "run.3.mcz has no index .*: kept as it is, [0-9]* rows readable" "$T/cut.err" || fail "cut rank: $(cat "$T/cut.err")"
"$MCZ" check "$T/cut.mcz" >"$T/cc.txt"
rc=$?
[ $rc = 3 ] || [ $rc = 1 ] || fail "mcz check of a job file with a cut rank: exit $rc"
grep -q "cut.mcz:run.3.mcz: \(INCOMPLETE\|DAMAGED\)" "$T/cc.txt" || fail "check names the cut rank: $(cat "$T/cc.txt")"
"$MCVIEW" --report=json "$T/cut.mcz" >"$T/cut.json" 2>/dev/null || fail "report on a job file with a cut rank"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["ranks"])' "$T/cut.json")" = 4 ] ||
	fail "a cut rank lost: $(head -c 300 "$T/cut.json")"
ok "a rank cut by a crash: kept, said by merge and check (exit $rc), the job keeps 4 ranks"

# a job file one of whose members is damaged where its own header is: the
# job shows the others, and one line names the member left out
python3 - "$T/job.mcz" "$T/badm.mcz" <<'PY' || fail "damaging a member"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, k = 20, 0
while off + 16 <= len(b) and b[off:off + 4] == b'mczB':
    t, fl, ln = struct.unpack_from('<HHI', b, off + 4)
    if t == 12:
        k += 1
        if k == 2:
            b[off + 16 + 1 + b[off + 16]] ^= 0xff  # the member's first magic byte
    off += 20 + ln
open(sys.argv[2], 'wb').write(bytes(b))
PY
"$MCVIEW" --report=json "$T/badm.mcz" >"$T/badm.json" 2>"$T/badm.err" || fail "report on a job file with a damaged member"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["ranks"])' "$T/badm.json")" = 3 ] ||
	fail "a damaged member: $(head -c 300 "$T/badm.json")"
grep -q "badm.mcz:run.1.mcz left out: not an mcz file" "$T/badm.err" || fail "damaged member not named: $(cat "$T/badm.err")"
ok "a damaged member: the job shows the other 3 ranks, one line names it"

# a job file given to merge: its members; an earlier job file kept as .old
"$MCZ" merge "$T/job.mcz" "$T"/b/u.0.mcz -o "$T/cut.mcz" >/dev/null 2>"$T/re.err" || fail "merge of a job file"
grep -q "kept the earlier .*cut.mcz as .*cut.mcz.old" "$T/re.err" || fail ".old: $(cat "$T/re.err")"
[ "$("$MCZ" info "$T/cut.mcz" | grep -c '^  run\.\|^  u\.')" = 5 ] || fail "job file merged: $("$MCZ" info "$T/cut.mcz")"
"$MCZ" check "$T/cut.mcz.old" >/dev/null; [ $? != 0 ] || fail "the .old job file changed"
ok "a job file given to merge gives its 4 members; the earlier output kept as .old"
