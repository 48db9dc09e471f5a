#!/usr/bin/env bash
# job-paths.sh: a job's rank files named by their folder or by a list
# (format/container/inpaths.c), as mcview and mcz merge take them when a
# job has more ranks than a command line holds:
#   - a job of 48 ranks (tests/tools/gen-job, rank 29 given 1.3x the work
#     in phase 3, code profiles): `mcview --report=json DIR` is the report
#     of DIR/run.*.mcz byte for byte, and so is @LIST's (comments, blank
#     lines, a folder listed); `mcz merge @LIST` and `mcz merge DIR` write
#     the job file `mcz merge DIR/run.*.mcz` writes, byte for byte, its
#     members in rank order (mcz info), and mcz split gives every rank file
#     back; @- reads the list from standard input;
#   - refused in one line naming the path, nothing written: an empty folder
#     (mcview and merge), a list that is not there, a folder of PCP
#     archives given to merge (naming the base name that opens one; mcview
#     opens such a folder as archives), more recordings than this system
#     maps (a list naming one file vm.max_map_count times: mcview says to
#     merge them first, before opening any);
#   - a merge of 3,000 ranks given twice over (the folder, then a list of
#     its files: each "given twice, taken once") and a copy of the folder
#     (3,000 names again: each kept as NAME#2, each rank twice): every
#     recording kept once, named apart, in rank order.  The paths that
#     were quadratic, at a size where they would show; correctness only,
#     the time is tests/bench/bench-job.sh's.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
MCZ=$B/mcz
MCVIEW=$B/mcview
GEN=$B/tests/tools/gen-job
[ -x "$GEN" ] || fail "$GEN not built (make units)"
ok() { echo "ok: $*"; }

"$GEN" -d "$T/ranks" --ranks 48 --phases 6 --phase-s 10 --slow 29:3:1.3 --code >/dev/null ||
	fail "gen-job"
[ "$(ls "$T/ranks" | wc -l)" = 48 ] || fail "gen-job wrote $(ls "$T/ranks" | wc -l) files"
"$MCVIEW" --report=json "$T"/ranks/run.*.mcz >"$T/glob.json" 2>"$T/err" || fail "report of the glob: $(cat "$T/err")"
"$MCVIEW" --report=json "$T/ranks" >"$T/dir.json" 2>"$T/err" || fail "report of the folder: $(cat "$T/err")"
cmp -s "$T/glob.json" "$T/dir.json" || fail "the folder's report differs from the glob's: $(diff "$T/glob.json" "$T/dir.json" | head -5)"
python3 - "$T/dir.json" <<'PY' || fail "the report of the folder (above)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
assert len(j) == 1 and j[0]["ranks"] == 48, [(x["job"], x["ranks"]) for x in j]
p = j[0]["phases"][2]
assert p["slowest_rank"] == 29 and p["imbalance"] > 1.2, (p["slowest_rank"], p["imbalance"])
print("ok: the folder's report: 48 ranks, phase 3's slowest rank 29, imbalance %.3f" % p["imbalance"])
PY
mkdir "$T/rest"
for r in $(seq 24 47); do mv "$T/ranks/run.$r.mcz" "$T/rest/"; done
{
	echo "# the ranks of the test job, half by name, half by their folder"
	echo
	for r in $(seq 0 23); do echo "  $T/ranks/run.$r.mcz"; done
	echo "$T/rest/"
} >"$T/ranks.txt"
"$MCVIEW" --report=json @"$T/ranks.txt" >"$T/list.json" 2>"$T/err" || fail "report of the list: $(cat "$T/err")"
cmp -s "$T/glob.json" "$T/list.json" ||
	fail "the list's report differs from the glob's: $(diff "$T/glob.json" "$T/list.json" | head -5)"
mv "$T"/rest/*.mcz "$T/ranks/"
ok "mcview --report=json: DIR, @LIST (a folder in it) and the glob give the same report"

ls "$T"/ranks/run.*.mcz >"$T/flat.txt"
"$MCZ" merge "$T"/ranks/run.*.mcz -o "$T/glob.mcz" >"$T/out" 2>"$T/err" || fail "merge of the glob: $(cat "$T/err")"
grep -q "glob.mcz: 48 recordings (ranks 0-47)" "$T/out" || fail "merge: $(cat "$T/out")"
"$MCZ" merge @"$T/flat.txt" -o "$T/list.mcz" >/dev/null 2>"$T/err" || fail "merge @list: $(cat "$T/err")"
"$MCZ" merge "$T/ranks" -o "$T/dir.mcz" >/dev/null 2>"$T/err" || fail "merge DIR: $(cat "$T/err")"
"$MCZ" merge @- -o "$T/stdin.mcz" <"$T/flat.txt" >/dev/null 2>"$T/err" || fail "merge @-: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "notes on a whole job: $(cat "$T/err")"
for f in list dir stdin; do
	cmp -s "$T/glob.mcz" "$T/$f.mcz" || fail "the job file of $f differs from the glob's"
done
"$MCZ" info "$T/list.mcz" | awk '/^  run\./ { print $1, $2 }' >"$T/members"
for r in $(seq 0 47); do echo "run.$r.mcz $r"; done | cmp -s - "$T/members" ||
	fail "members not in rank order: $(head -5 "$T/members")"
mkdir "$T/split"
"$MCZ" split "$T/list.mcz" -o "$T/split" >/dev/null || fail "split"
for f in "$T"/ranks/run.*.mcz; do
	cmp -s "$f" "$T/split/$(basename "$f")" || fail "split: $(basename "$f") differs"
done
ok "mcz merge @LIST, DIR and @- write the glob's job file: 48 members in rank order, split back whole"

# ---- refused -----------------------------------------------------------------
mkdir "$T/empty"
"$MCVIEW" --report "$T/empty" >/dev/null 2>"$T/err" && fail "mcview of an empty folder exited 0"
[ "$(wc -l <"$T/err")" = 1 ] && grep -qx "mcview: $T/empty: no .mcz file in this folder" "$T/err" ||
	fail "mcview of an empty folder: $(cat "$T/err")"
"$MCZ" merge "$T/ranks" "$T/empty" -o "$T/e.mcz" >/dev/null 2>"$T/err" && fail "merge of an empty folder exited 0"
[ "$(wc -l <"$T/err")" = 1 ] && grep -qx "mcz merge: $T/empty: no .mcz file in this folder" "$T/err" ||
	fail "merge of an empty folder: $(cat "$T/err")"
[ ! -e "$T/e.mcz" ] || fail "a refused merge wrote its job file"
"$MCZ" merge @"$T/nosuch.txt" -o "$T/e.mcz" >/dev/null 2>"$T/err" && fail "merge of a missing list exited 0"
grep -qx "mcz merge: @$T/nosuch.txt: No such file or directory" "$T/err" || fail "a missing list: $(cat "$T/err")"
"$MCVIEW" --report @"$T/nosuch.txt" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -qx "mcview: @$T/nosuch.txt: No such file or directory" "$T/err" || fail "mcview, a missing list: $(cat "$T/err")"
if "$MCZ" export --pcp "$T/pcp/archive" -q "$T/ranks/run.3.mcz" 2>"$T/err"; then
	"$MCZ" merge "$T/pcp" -o "$T/e.mcz" >/dev/null 2>"$T/err" && fail "merge of a folder of PCP archives exited 0"
	grep -qx "mcz merge: $T/pcp: no .mcz file in this folder (it holds PCP archives, which open by their base name: $T/pcp/archive)" "$T/err" ||
		fail "merge of a folder of PCP archives: $(cat "$T/err")"
	"$MCVIEW" -q --report=json "$T/pcp" >"$T/pcp.json" 2>"$T/err" || fail "mcview of a folder of PCP archives: $(cat "$T/err")"
	ok "a folder of PCP archives: merge names the base name, mcview opens it"
else
	echo "no PCP export here ($(head -1 "$T/err")): the folder of PCP archives left out"
fi
max=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -le 2000000 ]; then
	yes "$T/ranks/run.0.mcz" | head -n "$max" >"$T/many.txt"
	"$MCVIEW" --report @"$T/many.txt" >/dev/null 2>"$T/err"
	rc=$?
	grouped=$(echo "$max" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta') # 65,530
	[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -qxF "mcview: $grouped recordings are more than this system maps at once (vm.max_map_count $max): merge them first, mcz merge @$T/many.txt -o job.mcz, and open job.mcz" "$T/err" ||
		fail "more than max_map_count (exit $rc): $(cat "$T/err")"
	ok "$max recordings refused before opening any: $(cut -c1-90 "$T/err")..."
fi
ok "refused in one line each: an empty folder, a missing list"

# ---- thousands of ranks, each twice over ---------------------------------------
"$GEN" -d "$T/big" --ranks 3000 --phases 2 --phase-s 1 >/dev/null || fail "gen-job 3000"
ls "$T"/big/*.mcz >"$T/big.txt"
cp -r "$T/big" "$T/copy"
"$MCZ" merge "$T/big" @"$T/big.txt" "$T/copy" -o "$T/big.mcz" >"$T/out" 2>"$T/err" || fail "merge of 3,000 ranks: $(tail -3 "$T/err")"
grep -q "big.mcz: 6000 recordings (ranks 0-2999)" "$T/out" || fail "merge of 3,000 ranks: $(cat "$T/out")"
[ "$(grep -c 'given twice: taken once' "$T/err")" = 3000 ] || fail "given twice: $(grep -c 'given twice' "$T/err") notes"
[ "$(grep -c 'is a second recording named run\.[0-9]*\.mcz: kept as run\.[0-9]*\.mcz#2$' "$T/err")" = 3000 ] ||
	fail "names: $(grep 'second recording' "$T/err" | head -3)"
[ "$(grep -c '^mcz merge: note: rank [0-9]* twice (run\.\([0-9]*\)\.mcz and run\.\1\.mcz#2): both kept$' "$T/err")" = 3000 ] ||
	fail "ranks twice: $(grep 'twice (' "$T/err" | head -3)"
"$MCZ" info "$T/big.mcz" | awk '/^  run\./ { print $1, $2 }' >"$T/members"
for r in $(seq 0 2999); do echo "run.$r.mcz $r"; echo "run.$r.mcz#2 $r"; done | cmp -s - "$T/members" ||
	fail "members of the big merge: $(diff <(for r in $(seq 0 2999); do echo "run.$r.mcz $r"; echo "run.$r.mcz#2 $r"; done) "$T/members" | head -5)"
ok "3,000 ranks given twice over and a copy: 6,000 members in rank order, each copy named #2, every note said"
