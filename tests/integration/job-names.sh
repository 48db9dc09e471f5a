#!/usr/bin/env bash
# job-names.sh: naming the recordings of a job file (issue 34, findings 4
# and 5).
#  - JOB:MEMBER works for every command taking a file: mcz info, check,
#    dump, merge, split (as a second job file) and mcview --report, with the
#    names mcview prints itself; a member whose name holds ':' is reached
#    (the shortest prefix before a ':' that is a file is the job file); a
#    member that is not there is one line naming the job file.
#  - A file given twice is taken once, by identity (job.mcz job.mcz, and a
#    hard link to it); a second recording of one name becomes the first free
#    NAME#k, said in a note (a real r.0.mcz#2 keeps its name).
#  - split into a folder holding one of the names writes nothing and says
#    which; --force overwrites.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
mkdir "$T/a" "$T/b"
for r in 0 1 2; do
	"$B"/tests/tools/gen-recording -o "$T/a/r.$r.mcz" --rows 200 --streams 4 --seed $r \
		--meta rank=$r --meta nranks=3 >/dev/null || fail "gen-recording $r"
done
cp "$T/a/r.2.mcz" "$T/a/r:2.mcz"
"$B"/mcz merge -q "$T"/a/r.0.mcz "$T"/a/r.1.mcz "$T/a/r:2.mcz" -o "$T/job.mcz" || fail "merge"

# every command, a member by name
"$B"/mcz check "$T/job.mcz:r.1.mcz" >"$T/out" 2>&1 || fail "check JOB:MEMBER: $(cat "$T/out")"
grep -q "job.mcz:r.1.mcz: ok: " "$T/out" || fail "check JOB:MEMBER: $(cat "$T/out")"
"$B"/mcz info "$T/job.mcz:r:2.mcz" >"$T/out" 2>&1 || fail "info of a member named with ':': $(cat "$T/out")"
grep -q '^meta       rank = 2' "$T/out" || fail "info r:2.mcz: $(cat "$T/out")"
cmp <("$B"/mcz dump "$T/job.mcz:r.0.mcz" --csv) <("$B"/mcz dump "$T/a/r.0.mcz" --csv) || fail "dump JOB:MEMBER"
"$B"/mcz merge -q "$T/job.mcz:r.0.mcz" "$T/job.mcz:r:2.mcz" -o "$T/two.mcz" || fail "merge of members"
"$B"/mcz info "$T/two.mcz" | grep -q 'a job file of 2 recordings' || fail "merge of members: $("$B"/mcz info "$T/two.mcz" | head -1)"
# the names mcview prints (a job file's member: JOB:NAME), given back to it
"$B"/mcview --report "$T/job.mcz:r.1.mcz" >"$T/rep" 2>&1 || fail "mcview JOB:MEMBER: $(cat "$T/rep")"
head -1 "$T/rep" | grep -q "job.mcz:r.1.mcz: " || fail "mcview JOB:MEMBER: $(head -1 "$T/rep")"
"$B"/mcz info "$T/job.mcz:r.9.mcz" >"$T/out" 2>"$T/err" && fail "a member not there: exit 0"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "job.mcz has no recording named 'r.9.mcz'" "$T/err" || fail "no such member: $(cat "$T/err")"
echo "ok: JOB:MEMBER for info, check, dump, merge and mcview; ':' in a member's name"

# given twice
ln "$T/job.mcz" "$T/link.mcz"
"$B"/mcz merge "$T/job.mcz" "$T/job.mcz" "$T/link.mcz" -o "$T/dup.mcz" >/dev/null 2>"$T/err" || fail "merge twice: $(cat "$T/err")"
[ "$(grep -c 'given twice: taken once' "$T/err")" = 2 ] || fail "given twice: $(cat "$T/err")"
"$B"/mcz info "$T/dup.mcz" | head -1 | grep -q 'a job file of 3 recordings' || fail "twice: $("$B"/mcz info "$T/dup.mcz" | head -1)"
# name collisions: b/r.0.mcz is a second r.0.mcz, and a real r.0.mcz#2 is there
cp "$T/a/r.0.mcz" "$T/b/r.0.mcz"
cp "$T/a/r.1.mcz" "$T/b/r.0.mcz#2"
"$B"/mcz merge "$T/a/r.0.mcz" "$T/b/r.0.mcz" "$T/b/r.0.mcz#2" -o "$T/coll.mcz" >/dev/null 2>"$T/err" || fail "merge collisions"
grep -q "note: $T/b/r.0.mcz is a second recording named r.0.mcz: kept as r.0.mcz#3" "$T/err" || fail "collision note: $(cat "$T/err")"
"$B"/mcz info "$T/coll.mcz" | awk '/^  r\./ { print $1 }' | sort >"$T/names"
[ "$(tr '\n' ' ' <"$T/names")" = "r.0.mcz r.0.mcz#2 r.0.mcz#3 " ] || fail "names: $(cat "$T/names")"
"$B"/mcz info "$T/coll.mcz:r.0.mcz#2" | grep -q '^meta       rank = 1' || fail "the real r.0.mcz#2 is not rank 1"
echo "ok: a file given twice taken once; name collisions noted, a real NAME#2 kept"

# split: every name checked first
mkdir "$T/s"
cp "$T/a/r.0.mcz" "$T/s/r.1.mcz"
"$B"/mcz split "$T/job.mcz" -o "$T/s" >"$T/out" 2>"$T/err" && fail "split over a file exited 0"
grep -q "$T/s/r.1.mcz exists (--force overwrites it)" "$T/err" && grep -q 'nothing written' "$T/err" || fail "split: $(cat "$T/err")"
[ "$(ls "$T/s")" = "r.1.mcz" ] || fail "split wrote part: $(ls "$T/s")"
cmp -s "$T/s/r.1.mcz" "$T/a/r.0.mcz" || fail "split changed the file there"
"$B"/mcz split "$T/job.mcz" -o "$T/s" --force >"$T/out" 2>"$T/err" || fail "split --force: $(cat "$T/err")"
for m in r.0.mcz r.1.mcz r:2.mcz; do
	cmp -s "$T/s/$m" "$T/a/$m" || fail "split --force: $m"
done
[ "$(ls -A "$T/s" | wc -l)" = 3 ] || fail "split left temporary files: $(ls -A "$T/s")"
echo "ok: split checks every name first, writes nothing over a file unless --force"
