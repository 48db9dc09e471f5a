#!/usr/bin/env bash
# code-list.sh: mcrec --list and the code source's options.  --list names the
# code source, its rate (--code-hz); under a seccomp filter that refuses
# perf_event_open (a container's profile) it is unavailable with the reason
# and the fix, and a recording there goes on without it (a note, no CODE
# block; mcz dump --code says so in one line, exit 1).  A bad --code-hz or
# --code-event is one line and exit 2; --code-event cycles without a PMU is
# unavailable with the fix; task-clock samples; a CODE block that does not
# decode is one line from mcz dump --code and named by mcz check.  An
# unprivileged user (perf_event_paranoid 2) samples their own command.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc
NOPERF=$B/tests/tools/no-perf-exec
[ -x "$NOPERF" ] || fail "$NOPERF not built (make units)"

"$MCREC" --list >"$T/list" 2>&1 || fail "--list exit $?"
grep -q '^  code     code       available, 1 stream' "$T/list" || fail "code line: $(grep '^  code' "$T/list")"
grep -q 'sampled at 1000 Hz per thread' "$T/list" || fail "no default rate in --list"
"$MCREC" --list --code-hz 250 2>&1 | grep -q 'sampled at 250 Hz per thread' || fail "--code-hz 250 not in --list"
ok "--list: code source and its rate"

for bad in 0 -5 abc 1e9; do
	"$MCREC" --code-hz "$bad" -- true >"$T/out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "--code-hz $bad: exit $rc"
	[ "$(wc -l <"$T/out")" = 1 ] && grep -q -- "--code-hz $bad: samples per second, 1 to 100000" "$T/out" ||
		fail "--code-hz $bad: $(cat "$T/out")"
done
"$MCREC" --call-graph lbr -- true >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -qF -- "--call-graph lbr: fp (frame pointers) or dwarf[,SIZE]" "$T/out" ||
	fail "--call-graph lbr: exit $rc: $(cat "$T/out")"
"$MCREC" --code-event foo -- true >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q -- "--code-event foo: cpu-clock (default), task-clock, cycles or instructions" "$T/out" ||
	fail "--code-event foo: exit $rc: $(cat "$T/out")"
ok "a bad --code-hz or --code-event is one line, exit 2"

# --code-event cycles needs a hardware PMU: without one, unavailable with the fix
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	"$MCREC" --list --code-event cycles >"$T/list" 2>&1 || fail "--list --code-event cycles exit $?"
	grep -q '^  code     code       unavailable: --code-event cycles: no hardware PMU here' "$T/list" ||
		fail "cycles without a PMU: $(grep -A1 '^  code' "$T/list")"
	grep -A1 '^  code' "$T/list" | grep -q 'fix: sample with the default --code-event cpu-clock' ||
		fail "cycles fix: $(grep -A1 '^  code' "$T/list")"
	"$MCREC" -f -g code,os --code-event cycles -o "$T/c.mcz" -- sleep 0.2 >"$T/out" 2>&1 || fail "recording with cycles: exit $?"
	grep -q '^mcrec: not recording code: --code-event cycles: no hardware PMU' "$T/out" || fail "no note: $(cat "$T/out")"
	ok "--code-event cycles without a PMU: unavailable, the fix, recorded without it"
fi
"$MCREC" -q -f -g code --code-event task-clock -o "$T/t.mcz" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' ||
	fail "task-clock recording exit $?"
"$B/mcz" info "$T/t.mcz" | grep -q '^code       [0-9]* samples (task-clock, every 1000000)' || fail "task-clock: $("$B/mcz" info "$T/t.mcz" | grep '^code')"
ok "--code-event task-clock samples"

"$NOPERF" "$MCREC" --list >"$T/list" 2>&1
rc=$?
[ $rc = 77 ] && { echo "skip: no seccomp here: $(cat "$T/list")"; exit 77; }
[ $rc = 0 ] || fail "--list under seccomp exit $rc"
grep -q '^  code     code       unavailable: perf_event_open: Operation not permitted (a seccomp filter forbids it' "$T/list" ||
	fail "seccomp: $(grep -A1 '^  code' "$T/list")"
grep -A1 '^  code' "$T/list" | grep -q 'fix: allow perf_event_open in the container.s seccomp profile' ||
	fail "seccomp fix: $(grep -A1 '^  code' "$T/list")"
"$NOPERF" "$MCREC" -f -g code,os -o "$T/s.mcz" -- sleep 0.3 >"$T/out" 2>&1 || fail "recording under seccomp: exit $?: $(cat "$T/out")"
grep -q '^mcrec: not recording code: perf_event_open: Operation not permitted (a seccomp' "$T/out" ||
	fail "no note on code under seccomp: $(cat "$T/out")"
"$B/mcz" dump "$T/s.mcz" --code >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q 'no code profile (recorded without the code source' "$T/out" ||
	fail "dump --code without a profile: exit $rc: $(cat "$T/out")"
ok "under seccomp: unavailable with the reason and fix; recorded without it"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 777 "$T"
	cp "$MCREC" "$B/mcz" "$T"/ && chmod 755 "$T/mcrec" "$T/mcz"
	cc -O2 -g -o "$T/work" tests/tools/code-phases.c && chmod 755 "$T/work"
	(cd "$T" && setpriv --reuid=65534 --regid=65534 --clear-groups "$T/mcrec" -q -g code -o "$T/u.mcz" -- "$T/work" 0.2) ||
		fail "mcrec as nobody: exit $?"
	"$T/mcz" dump "$T/u.mcz" --code --csv | grep -q ',compute_kernel,main,' || fail "as nobody: no compute_kernel"
	ok "an unprivileged user samples their command"
fi

# a CODE block that does not decode (CRC good, body bad): one line and exit 1
# from mcz dump --code, mcz check names it, everything else still opens
python3 - tests/fuzz/corpus-code/file-dwarf.mcz "$T/bad.mcz" <<'PY' || fail "making the bad file"
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
off = 20
while d[off:off + 4] == b'mczB':
    t, f, l = struct.unpack('<HHI', d[off + 4:off + 12])
    if t == 9:
        d[off + 16] = 5  # packing 5: invalid
        d[off + 16 + l:off + 20 + l] = struct.pack('<I', zlib.crc32(bytes(d[off + 16:off + 16 + l])))
        break
    off += 20 + l
else:
    sys.exit(1)
open(sys.argv[2], 'wb').write(bytes(d))
PY
"$B/mcz" dump "$T/bad.mcz" --code >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] || fail "dump --code of a bad block: exit $rc: $(cat "$T/out")"
"$B/mcz" check "$T/bad.mcz" >"$T/out" 2>&1 && fail "mcz check passes a bad CODE block"
grep -q 'CODE block does not decode' "$T/out" || fail "mcz check: $(cat "$T/out")"
"$B/mcz" dump "$T/bad.mcz" --streams code.samples --csv >/dev/null || fail "the rows do not read"
MCVIEW_PHASE_CACHE=0 "$B/mcview" --report=json "$T/bad.mcz" | grep -q '"code":\[\]' || fail "mcview --report with a bad CODE block"
ok "a bad CODE block: one line from dump --code, named by mcz check, the rest reads"
