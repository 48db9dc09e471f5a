#!/usr/bin/env bash
# special-files.sh: what is not a regular file, given as input or output.
#  - Inputs (issue 34, finding 7): a FIFO, /dev/null and a process
#    substitution <(...) given to mcz info/check/dump/merge/split and
#    mcview --report/--compare are refused at once, in one line naming what
#    they are, exit 1 — never blocking on the FIFO's open.
#  - Outputs (finding 2): mcz merge -o a device writes into it (/dev/full:
#    "no space left", a null device made by mknod: success) and never
#    renames it (no .old); -o a FIFO or a folder is refused in one line;
#    .old is for a regular file only.  mcrec -o a device writes into it.
set -u
. "$(dirname "$0")/tmp-common.inc"
for r in 0 1; do
	"$B"/tests/tools/gen-recording -o "$T/r.$r.mcz" --streams 4 --rows 300 --interval-ms 10 \
		>/dev/null || fail "gen-recording"
done
mkfifo "$T/fifo"

# one line, exit 1, within the time limit: $1 = what it must say, then the command
refused() {
	local want=$1
	shift
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = 124 ] && fail "$* blocked"
	[ $rc = 1 ] || fail "$*: exit $rc: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "$*: not one line: $(cat "$T/err")"
	grep -q -- "$want" "$T/err" || fail "$*: said $(cat "$T/err"), not '$want'"
}
pipe='a pipe, not a recording'
dev='a character device, not a recording'
for c in info check dump; do
	refused "$T/fifo: $pipe" "$B"/mcz $c "$T/fifo"
	refused "/dev/null: $dev" "$B"/mcz $c /dev/null
	refused "/dev/fd/[0-9]*: $pipe" "$B"/mcz $c <(echo hello)
done
refused "$T/fifo: $pipe" "$B"/mcz merge "$T/r.0.mcz" "$T/fifo" -o "$T/j.mcz"
[ -e "$T/j.mcz" ] && fail "merge wrote a job file from a FIFO input"
refused "$T/fifo: $pipe" "$B"/mcz split "$T/fifo" -o "$T"
refused "$T/fifo: $pipe" "$B"/mcview --report "$T/fifo"
refused "/dev/null: $dev" "$B"/mcview --report /dev/null
refused "/dev/fd/[0-9]*: $pipe" "$B"/mcview --report=json <(echo hello)
timeout 10 "$B"/mcview --compare "$T/r.0.mcz" "$T/fifo" --report >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 124 ] && fail "mcview --compare blocked on a FIFO"
[ $rc = 0 ] && fail "mcview --compare with a FIFO exited 0"
grep -q "$pipe" "$T/err" || fail "mcview --compare with a FIFO: $(cat "$T/err")"
echo "ok: FIFOs, devices and pipes as input refused in one line, none waited on"

# outputs
"$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/job.mcz" || fail "merge"
"$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/job.mcz" 2>"$T/err" || fail "merge again"
[ -f "$T/job.mcz.old" ] || fail "the earlier regular job file not kept as .old"
refused "$T/fifo: a pipe or socket" "$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/fifo"
[ -p "$T/fifo" ] && [ ! -e "$T/fifo.old" ] || fail "the FIFO was renamed"
mkdir "$T/dir"
refused "$T/dir: a folder" "$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/dir"
if [ "$(id -u)" = 0 ]; then
	refused "/dev/full: no space left on device" "$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o /dev/full
	[ -c /dev/full ] && [ ! -e /dev/full.old ] || fail "/dev/full renamed"
	mknod "$T/null" c 1 3 || fail "mknod"
	"$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/null" 2>"$T/err" || fail "merge -o a null device: $(cat "$T/err")"
	[ -c "$T/null" ] && [ ! -e "$T/null.old" ] || fail "the null device was renamed: $(ls -l "$T")"
	ls "$T" | grep -q 'null\.' && fail "temporary files beside the device: $(ls "$T")"
	if [ -x "$B"/mcrec ]; then
		"$B"/mcrec -q -o "$T/null" -- true 2>"$T/err" || fail "mcrec -o a null device: $(cat "$T/err")"
		[ -c "$T/null" ] && [ ! -e "$T/null.old" ] || fail "mcrec renamed the device"
	fi
	echo "ok: -o a device is written into, never renamed"
else
	echo "note: not root: /dev/full and mknod left out"
fi
echo "ok: outputs"
