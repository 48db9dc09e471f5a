#!/usr/bin/env bash
# hostile-strings.sh: every string from a file is escaped before it reaches
# a terminal (issue 34, finding 9).  A recording whose command line holds
# "ESC ] 0 ; title BEL ESC [ 2 J", whose host holds a newline, with a 64 KB
# value, marks and stream instances with ESC [ 31 m and a newline, and
# a job file whose member names hold a newline and an escape: mcz info,
# mcz dump, mcz check, the text report, the job report and the view's
# snapshot print no control byte but the line ends, and show them as git
# and ls -b do (\033, \n, \007); the 64 KB value whole.  CSV written to a
# file is data: it carries the names as they are, RFC 4180-quoted.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
big=$(head -c 65536 /dev/zero | tr '\0' 'x')
"$B"/tests/tools/gen-recording -o "$T/h.mcz" --rows 2000 --phases \
	--meta command=$'evil \e]0;pwned\a\e[2J end' --meta host=$'node\nFAKE line' \
	--meta big="$big" --mark-text $'\e[31mred\n' >/dev/null || fail "gen-recording"

# no byte below 0x20 but \n, no DEL; $1: what, $2: file
clean() {
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$2" && fail "$1 prints a control byte: $(grep -n $'[\x01-\x09\x0b-\x1f\x7f]' "$2" | cat -v | head -3)"
	LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$2" && fail "$1 prints a C1 control"
	return 0
}
"$B"/mcz info "$T/h.mcz" >"$T/info" || fail "mcz info"
clean "mcz info" "$T/info"
grep -qxF 'command    evil \033]0;pwned\007\033[2J end' "$T/info" || fail "command: $(grep '^command' "$T/info")"
grep -qxF 'host       node\nFAKE line' "$T/info" || fail "host: $(grep '^host' "$T/info")"
grep -q '^FAKE' "$T/info" && fail "a newline in the host forged a line"
[ "$(grep '^meta       big = ' "$T/info" | wc -c)" -ge 65536 ] || fail "the 64 KB value is not whole"
grep -qF 'cpu0' "$T/info" && grep -qF '\033[31mred\ncpu0' "$T/info" || fail "instance not escaped: $(grep -F 'cpu0' "$T/info" | head -2)"

"$B"/mcz dump "$T/h.mcz" --to 50ms >"$T/dump" || fail "mcz dump"
clean "mcz dump" "$T/dump"
grep -qF 'core.instructions[\033[31mred\ncpu0]' "$T/dump" || fail "dump header: $(head -1 "$T/dump" | cut -c1-200)"
"$B"/mcz dump "$T/h.mcz" --csv --to 50ms >"$T/csv" || fail "mcz dump --csv"
# CSV to a file is data, not a terminal's: the names as the file holds
# them (RFC 4180-quoted), as to_pandas() names its columns
python3 -c 'import csv,sys; h=next(csv.reader(open(sys.argv[1], newline=""))); assert h[1].startswith("core.instructions[\x1b[31mred\n"), h[:2]' "$T/csv" ||
	fail "CSV does not carry the instance as it is: $(head -c 200 "$T/csv" | cat -v)"
"$B"/mcz dump "$T/h.mcz" --json --to 50ms >"$T/json" || fail "mcz dump --json"
clean "mcz dump --json" "$T/json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["streams"][0]["instance"].startswith("\x1b[31mred\n"), d["streams"][0]' "$T/json" ||
	fail "JSON does not carry the instance as it is"

"$B"/mcview --report "$T/h.mcz" >"$T/report" || fail "mcview --report"
clean "the text report" "$T/report"
grep -qF '\033[31mred\nmemory' "$T/report" || fail "report marks: $(sed -n 6p "$T/report")"
"$B"/mcview --report=json "$T/h.mcz" >"$T/report.json" || fail "--report=json"
clean "the JSON report" "$T/report.json"
"$B"/mcview --snapshot 160x30 --view timeline "$T/h.mcz" >"$T/snap" 2>&1 || fail "snapshot: $(cat "$T/snap")"
clean "the view" "$T/snap"
"$B"/mcview --snapshot 160x30 --view phases "$T/h.mcz" >"$T/snap2" 2>&1 || fail "snapshot: $(cat "$T/snap2")"
clean "the phases view" "$T/snap2"
grep -qF '\033[31m' "$T/snap2" || fail "the phases view does not show the mark escaped"
echo "ok: a recording's hostile strings escaped in mcz info, dump, the report and the view"

# member names with a newline and an escape, in a job file
mkdir "$T/j"
for r in 0 1; do
	"$B"/tests/tools/gen-recording -o "$T/j/r.$r.mcz" --rows 300 --streams 4 \
		--meta rank=$r --meta nranks=2 --meta host=$'h\e[2J' >/dev/null || fail "gen-recording rank $r"
done
mv "$T/j/r.0.mcz" "$T/j/"$'r\n.0.mcz'
mv "$T/j/r.1.mcz" "$T/j/"$'r\e[2J.1.mcz'
"$B"/mcz merge -q "$T"/j/r*.mcz -o "$T/job.mcz" 2>"$T/err" || fail "merge: $(cat "$T/err")"
for c in info check; do
	"$B"/mcz $c "$T/job.mcz" >"$T/$c.job" 2>&1 || fail "mcz $c of the job file: $(cat "$T/$c.job")"
	clean "mcz $c of a job file" "$T/$c.job"
done
grep -qF 'r\n.0.mcz' "$T/info.job" && grep -qF 'r\033[2J.1.mcz' "$T/info.job" || fail "member names: $(cat "$T/info.job")"
"$B"/mcview --report "$T/job.mcz" >"$T/jobrep" 2>&1 || fail "job report: $(cat "$T/jobrep")"
clean "the job report" "$T/jobrep"
echo "ok: member names and hosts escaped in mcz info, check and the job report"

# error lines quote names too: escaped as well
"$B"/mcz info "$T/job.mcz:"$'x\e[1m' >/dev/null 2>"$T/err" && fail "a member not there: exit 0"
clean "an mcz error line" "$T/err"
grep -qF 'no recording named '"'"'x\033[1m'"'" "$T/err" || fail "mcz error: $(cat -v "$T/err")"
"$B"/mcview --report "$T/job.mcz:"$'x\e[1m' >/dev/null 2>"$T/err" && fail "mcview, a member not there: exit 0"
clean "an mcview error line" "$T/err"
grep -qF 'x\033[1m' "$T/err" || fail "mcview error: $(cat -v "$T/err")"
echo "ok: names in error lines escaped"
