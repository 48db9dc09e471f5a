#!/usr/bin/env bash
# rec-cli.sh: bad input gets one clear line and a non-zero exit, and leaves
# no file behind: missing command (127), not executable (126), interval 0
# or garbage, unknown event, unknown source, unknown group, no command.
set -u
. "$(dirname "$0")/rec-common.inc"
cd "$T"
expect() { # status pattern args...
	local want=$1 pat=$2; shift 2
	"$MCREC" "$@" >out 2>err
	local rc=$?
	[ $rc = "$want" ] || fail "mcrec $*: exit $rc, expected $want ($(cat err))"
	[ "$(wc -l <err)" = 1 ] || fail "mcrec $*: expected one line, got: $(cat err)"
	grep -q -- "$pat" err || fail "mcrec $*: '$(cat err)' lacks '$pat'"
	echo "ok: mcrec $* -> $rc: $(cat err)"
}
expect 127 "nosuchcommand: command not found" -o x.mcz -- nosuchcommand
printf "data\n" >notexec; chmod 644 notexec
expect 126 "Permission denied" -o x.mcz -- ./notexec
expect 127 "No such file or directory" -o x.mcz -- ./no/such/file
expect 2 "at least 1 ms" -i 0 -- true
expect 2 "not a duration" -i fast -- true
expect 2 "unknown unit" -i 10parsecs -- true
expect 2 "unknown perf event 'nosuch-event'" -e perf:nosuch-event -- true
expect 2 "unknown source 'bogus'" -e bogus:thing -- true
expect 2 "no network interface 'nosuch0'" -e net:nosuch0 -- true
expect 2 "unknown group 'cpu'" -g cpu -- true
expect 2 "no command given"
expect 2 "unknown '%q'" -o 'run-%q.mcz' -- true
[ ! -e x.mcz ] || fail "a failed start left x.mcz behind"
"$MCREC" --help | grep -q '^usage: mcrec' || fail "--help"
"$MCREC" --list >list || fail "--list exit $?"
grep -q '^  perf ' list && grep -q 'core.task_clock' list || fail "--list lacks perf streams"
if perf stat -e instructions true 2>&1 | grep -q 'not supported'; then
	grep -q 'hardware events .* not recorded' list || fail "--list does not say why hardware events are missing"
fi
ok "--list"
