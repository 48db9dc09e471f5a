#!/usr/bin/env bash
# messages.sh: what mcz says when it is used wrongly or counts one thing
# (issue 34, finding 10).  A usage error is one line naming the problem,
# then "(see mcz CMD --help)", exit 2 — never the usage text without the
# problem; "1 recording", "1 phase matched"; MCZ_FORMAT=abc named in the
# error; the text job report prints "-", never "nan", for a figure it does
# not have.  (/dev/null and <(...) as input: special-files.sh.)
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
for r in 0 1; do
	"$B"/tests/tools/gen-recording -o "$T/r.$r.mcz" --rows 300 --streams 4 --phases \
		--meta rank=$r --meta nranks=2 >/dev/null || fail "gen-recording"
done

# $1: what must be said, then the arguments of mcz
usage_err() {
	local want=$1
	shift
	"$B"/mcz "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = 2 ] || fail "mcz $*: exit $rc"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "mcz $*: not one line: $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || fail "mcz $*: said '$(cat "$T/err")', not '$want'"
	[ -s "$T/out" ] && fail "mcz $*: printed on stdout: $(cat "$T/out")"
	return 0
}
usage_err "mcz merge: unknown option '--bogus' (see mcz merge --help)" merge --bogus
usage_err "mcz merge: -o needs the job file's name (see mcz merge --help)" merge "$T/r.0.mcz" -o
usage_err "mcz merge: no recordings to merge" merge -o "$T/j.mcz"
usage_err "mcz merge: no job file to write: give -o JOB.mcz" merge "$T/r.0.mcz"
usage_err "mcz split: no job file given" split
usage_err "mcz split: unknown option '--bogus'" split --bogus
usage_err "mcz info: no file given" info
usage_err "mcz info: one file at a time ('b' is a second)" info a b
usage_err "mcz check: --repair needs the file to write" check "$T/r.0.mcz" --repair
usage_err "mcz dump: --from needs a value" dump "$T/r.0.mcz" --from
usage_err "mcz dump: unknown option '--bogus'" dump "$T/r.0.mcz" --bogus
usage_err "mcz import: unknown option or missing value: '--bogus'" import --bogus
usage_err "mcz import: no archive given" import
usage_err "mcz: no command given (see mcz --help)"
[ -e "$T/j.mcz" ] && fail "a usage error wrote a file"
echo "ok: usage errors: one line naming the problem, exit 2"

MCZ_FORMAT=abc "$B"/mcz merge -q "$T/r.0.mcz" -o "$T/f.mcz" 2>"$T/err" && fail "MCZ_FORMAT=abc accepted"
grep -q 'MCZ_FORMAT=abc' "$T/err" || fail "MCZ_FORMAT=abc not named: $(cat "$T/err")"

"$B"/mcz merge -q "$T/r.0.mcz" -o "$T/one.mcz" || fail "merge of one"
"$B"/mcz info "$T/one.mcz" | head -1 | grep -q 'a job file of 1 recording$' || fail "info: $("$B"/mcz info "$T/one.mcz" | head -1)"
"$B"/mcz check "$T/one.mcz" | grep -q 'ok: a job file of 1 recording,' || fail "check: $("$B"/mcz check "$T/one.mcz")"
"$B"/mcz dump "$T/one.mcz" 2>&1 | grep -q 'is a job file of 1 recording:' || fail "dump: $("$B"/mcz dump "$T/one.mcz" 2>&1)"
"$B"/tests/tools/gen-recording -o "$T/s.mcz" --rows 100 --streams 4 >/dev/null || fail "gen-recording"
"$B"/mcview --compare "$T/s.mcz" "$T/s.mcz" --report >"$T/cmp" 2>&1 || fail "compare: $(cat "$T/cmp")"
grep -q '^1 phase matched (detected' "$T/cmp" || fail "compare: $(sed -n 3p "$T/cmp")"
echo "ok: one recording, one phase: said in the singular"

# ranks without CPU time: the job report's figures are "-", never nan
"$B"/mcview --report --phases auto "$T/r.0.mcz" "$T/r.1.mcz" >"$T/job" 2>&1 || fail "job report: $(cat "$T/job")"
grep -q 'phases from detection' "$T/job" || fail "not a job report: $(head -2 "$T/job")"
grep -qi 'nan' "$T/job" && fail "the job report prints nan: $(grep -i nan "$T/job" | head -2)"
echo "ok: MCZ_FORMAT named, no nan in the job report"

# each message one line with its exit status (issue 46): $1 the exit status
# wanted, $2 what must be said, then the command
said() {
	local rc=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ $got = "$rc" ] || fail "$*: exit $got, not $rc: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "$*: not one line: $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || fail "$*: said '$(cat "$T/err")', not '$want'"
	return 0
}
A=/var/lib/pcp/testsuite/archives/20180102
if [ -f "$A.meta" ]; then
	for f in "$A" "$A.0" "$A.index"; do
		said 1 "a PCP archive, not an mcz recording: mcz import $A -o FILE.mcz converts it" "$B"/mcz info "$f"
		said 1 "mcview $A shows it" "$B"/mcz dump "$f"
	done
fi
said 1 "No such file or directory" "$B"/mcz info "$T/none.mcz"
said 2 "--at: not a time: 'nan'" "$B"/mcview --at nan --snapshot 80x24 "$T/r.0.mcz"
said 2 "--at: not a time: '1e30'" "$B"/mcview --at 1e30 --snapshot 80x24 "$T/r.0.mcz"
said 2 "--view ranks shows the ranks of a parallel job" "$B"/mcview --view ranks --snapshot 80x24 "$T/r.0.mcz"
said 2 "--cache-size wants a size" "$B"/mcview --cache-size 300x --report "$T/r.0.mcz"
for v in 300k 300K 300KiB 300KB; do
	"$B"/mcview --cache-size $v --report "$T/r.0.mcz" >/dev/null 2>"$T/err" || fail "--cache-size $v refused: $(cat "$T/err")"
done
"$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/j.mcz" || fail "mcz merge"
"$B"/mcz split "$T/j.mcz" -o "$T/new/sub" >/dev/null 2>"$T/err" || fail "split into a new folder: $(cat "$T/err")"
[ -f "$T/new/sub/r.0.mcz" ] || fail "split made no $T/new/sub/r.0.mcz: $(ls -R "$T/new")"
said 1 "cannot make the folder: Not a directory" "$B"/mcz split "$T/j.mcz" -o "$T/r.0.mcz/x"
echo "ok: a PCP archive named with what reads it; --at nan, --view ranks of one file, a split into a bad folder: one line each; sizes as people type them"

# libpcp's own line folded into mcz's: one line, the archive's files gone
said 1 '(libpcp: __pmLogNewFile: failed to create "/proc/x.index"' "$B"/mcz export --pcp /proc/x "$T/r.0.mcz"
ls /proc/x.* >/dev/null 2>&1 && fail "export left /proc/x.*"
# an archive named by one of its files is that archive, as PCP's tools read it
"$B"/mcz export -q --pcp "$T/exp/rec1.0" "$T/r.0.mcz" || fail "export --pcp exp/rec1.0"
[ -f "$T/exp/rec1.0" ] && [ -f "$T/exp/rec1.meta" ] && [ ! -e "$T/exp/rec1.0.0" ] ||
	fail "export --pcp exp/rec1.0 wrote $(ls "$T/exp")"
"$B"/mcz export -q --pcp "$T/exp/rec2.meta" "$T/r.0.mcz" && [ -f "$T/exp/rec2.index" ] ||
	fail "export --pcp exp/rec2.meta wrote $(ls "$T/exp")"
# a report of a file that holds no row, and a theme that is no theme
head -c 300 "$T/r.0.mcz" >"$T/cut.mcz"
said 1 "mcview: nothing to report: cut.mcz holds nothing readable" "$B"/mcview --report "$T/cut.mcz"
said 2 "theme /etc/passwd: not a theme" "$B"/mcview --theme /etc/passwd --report "$T/r.0.mcz"
printf '# a comment only\n\n' >"$T/empty.theme"
"$B"/mcview --theme "$T/empty.theme" --report "$T/r.0.mcz" >/dev/null 2>"$T/err" ||
	fail "a theme of comments refused: $(cat "$T/err")"
echo "ok: export's libpcp line folded into one, an archive named by its volume, a report of nothing, a theme that is not one: one line each"
