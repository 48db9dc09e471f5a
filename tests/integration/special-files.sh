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
#  - No tool deletes, truncates or replaces what it did not write (issue 43,
#    finding 2): mcz import -o and mcz check --repair of an existing file on
#    a full disk (a 1 MiB tmpfs) fail in one line and leave it byte for byte
#    as it was, no temporary beside it; import and check --repair -o a full
#    device (mknod, as /dev/full) say "no space left" and it is still there; import -o a FIFO or a folder is
#    refused; -o a null device made by mknod is written into; split --force
#    refuses a FIFO in the place of a member.
#  - An output that is an input (finding 3), by its identity: check F
#    --repair F (also ./F, a symlink, a hard link), import of an archive -o
#    one of its own files (also through a symlink), split --force onto the
#    job file itself, export --pcp onto its own input: one line, exit 1,
#    the input byte for byte as it was.
set -u
. "$(dirname "$0")/tmp-common.inc"
for r in 0 1; do
	"$B"/tests/tools/gen-recording -o "$T/r.$r.mcz" --streams 4 --rows 300 --interval-ms 10 \
		>/dev/null || fail "gen-recording"
done
mkfifo "$T/fifo"
A=/var/lib/pcp/testsuite/archives

# one line, exit 1, within the time limit: $1 = what it must say, then the command
refused() {
	local want=$1
	shift
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = 124 ] && fail "$* blocked"
	[ $rc = 1 ] || fail "$*: exit $rc: $(cat "$T/err")"
	# mcz split names each member it cannot write, then says nothing was
	[ "$(grep -vc ': nothing written$' "$T/err")" = 1 ] || fail "$*: not one line: $(cat "$T/err")"
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
	# a full device of the test's own, as /dev/full (an old mcz removed it)
	mknod "$T/full-dev" c 1 7 || fail "mknod"
	if [ -f "$A/20180102.meta" ]; then
		refused "$T/full-dev: no space left on device" "$B"/mcz import -q "$A/20180102" -o "$T/full-dev"
		[ -c "$T/full-dev" ] || fail "mcz import -o a full device removed it"
		"$B"/mcz import -q "$A/20041125" -o "$T/null" 2>"$T/err" || fail "import -o a null device: $(cat "$T/err")"
		[ -c "$T/null" ] || fail "mcz import -o a null device removed it"
	fi
	refused "$T/full-dev: no space left on device" "$B"/mcz check "$T/r.0.mcz" --repair "$T/full-dev"
	[ -c "$T/full-dev" ] || fail "mcz check --repair a full device removed it"
	# a full disk under an existing -o
	mkdir "$T/full"
	if mount -t tmpfs -o size=1m tmpfs "$T/full" 2>/dev/null; then
		trap 'umount "$T/full"; rm -rf "$T"' EXIT
		cp "$T/r.0.mcz" "$T/full/keep.mcz"
		cp "$T/r.0.mcz" "$T/keep.want"
		avail=$(df -k --output=avail "$T/full" | tail -1)
		dd if=/dev/zero of="$T/full/pad" bs=1k count=$((avail - 16)) 2>/dev/null
		"$B"/tests/tools/gen-recording -o "$T/big.mcz" --streams 16 --rows 4000 --interval-ms 10 \
			--entropy >/dev/null || fail "gen-recording"
		refused "keep.mcz: .*no space left" "$B"/mcz check "$T/big.mcz" --repair "$T/full/keep.mcz"
		cmp -s "$T/full/keep.mcz" "$T/keep.want" || fail "check --repair on a full disk changed the earlier file"
		if [ -f "$A/20180102.meta" ]; then
			refused "keep.mcz: .*no space left" "$B"/mcz import -q "$A/20180102" -o "$T/full/keep.mcz"
			cmp -s "$T/full/keep.mcz" "$T/keep.want" || fail "import on a full disk changed the earlier file: $(ls -l "$T/full")"
		fi
		[ "$(ls "$T/full")" = "$(printf 'keep.mcz\npad')" ] || fail "left on the full disk: $(ls "$T/full")"
		echo "ok: an existing -o survives a full disk (import, check --repair)"
	else
		echo "note: no tmpfs: the full disk left out"
	fi
else
	echo "note: not root: /dev/full and mknod left out"
fi
echo "ok: outputs"

# import -o what is not a file, as an ordinary user may
if [ -f "$A/20041125.meta" ]; then
	refused "$T/fifo: a pipe or socket" "$B"/mcz import -q "$A/20041125" -o "$T/fifo"
	[ -p "$T/fifo" ] || fail "import -o a FIFO replaced it"
	refused "$T/dir: a folder" "$B"/mcz import -q "$A/20041125" -o "$T/dir"
	[ -d "$T/dir" ] || fail "import -o a folder"
fi
"$B"/mcz merge -q "$T/r.0.mcz" "$T/r.1.mcz" -o "$T/j2.mcz" || fail "merge"
mkdir "$T/sp"
mkfifo "$T/sp/r.0.mcz"
refused "$T/sp/r.0.mcz: not a file" "$B"/mcz split "$T/j2.mcz" -o "$T/sp" --force
[ -p "$T/sp/r.0.mcz" ] && [ ! -e "$T/sp/r.1.mcz" ] || fail "split --force replaced a FIFO, or wrote: $(ls -l "$T/sp")"
echo "ok: outputs that are not files refused or written into, never removed"

# the output is the input (finding 3)
cp "$T/r.0.mcz" "$T/want.mcz"
ln -s r.0.mcz "$T/link.mcz"
ln "$T/r.0.mcz" "$T/hard.mcz"
for o in "$T/r.0.mcz" "$T/./r.0.mcz" "$T/link.mcz" "$T/hard.mcz"; do
	refused "the file being repaired" "$B"/mcz check "$T/r.0.mcz" --repair "$o"
	cmp -s "$T/r.0.mcz" "$T/want.mcz" || fail "check --repair $o changed its input"
done
(cd "$T" && refused "the file being repaired" "$B"/mcz check r.0.mcz --repair ./r.0.mcz) || exit 1
cmp -s "$T/r.0.mcz" "$T/want.mcz" || fail "check r.0.mcz --repair ./r.0.mcz changed its input"
if [ -f "$A/20041125.meta" ]; then
	mkdir "$T/pa"
	cp "$A"/20041125.* "$T/pa/"
	cp "$T/pa/20041125.meta" "$T/meta.want"
	ln -s 20041125.meta "$T/pa/m"
	for o in "$T/pa/20041125.meta" "$T/pa/m" "$T/pa/20041125.0"; do
		refused "a file of the archive" "$B"/mcz import -q "$T/pa/20041125" -o "$o"
	done
	cmp -s "$T/pa/20041125.meta" "$T/meta.want" || fail "import -o its own .meta changed it"
fi
mkdir "$T/jd" "$T/jo"
cp "$T/r.0.mcz" "$T/jd/job.mcz"
"$B"/mcz merge -q "$T/jd/job.mcz" "$T/r.1.mcz" -o "$T/jo/job.mcz" || fail "merge"
cp "$T/jo/job.mcz" "$T/job.want"
refused "is the job file being split" "$B"/mcz split "$T/jo/job.mcz" -o "$T/jo" --force
cmp -s "$T/jo/job.mcz" "$T/job.want" || fail "split --force onto its own job file changed it"
[ ! -e "$T/jo/r.1.mcz" ] || fail "split wrote a member after refusing one"
if "$B"/mcz help export >/dev/null 2>&1; then
	cp "$T/r.0.mcz" "$T/x.0"
	refused "there already" "$B"/mcz export -q --pcp "$T/x" "$T/x.0"
	cmp -s "$T/x.0" "$T/want.mcz" || fail "export --pcp onto its input changed it"
fi
echo "ok: an output that is an input refused, the input as it was"
