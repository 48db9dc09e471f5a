#!/usr/bin/env bash
# code-old-reader.sh: a real 1.1 reader (libmcz as it was before the CODE
# block, built from git history) opens a file recorded with the code source:
# it skips the CODE block and the CODEPART and CODETHREADS blocks (1.6) and reads the same streams,
# rows, marks and values as this reader (SPEC.md 4: "A 1.0 or 1.1 reader
# skips CODE blocks"), through the index and by scanning (no trailer).
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc

command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "skip: no git history to build the 1.1 reader from"; exit 77; }
# the commit that introduced 1.2 (the oldest one changing that line: a
# later minor version removes it again)
intro=$(git log --format=%H --reverse -S'#define MCZ_VERSION_MINOR 2' -- format/mcz.h | head -1)
[ -n "$intro" ] || { echo "skip: no commit introduces format 1.2 in this history"; exit 77; }
mkdir -p "$T/old"
git archive "$intro^" format | tar -x -C "$T/old" || fail "git archive $intro^"
grep -q '#define MCZ_VERSION_MINOR 1' "$T/old/format/mcz.h" || fail "$intro^ is not format 1.1"

# one small program, built against both libraries
cat >"$T/rd.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "mcz.h"
int main(int argc, char **argv)
{
	mcz_reader *r;
	int rc = mcz_open(&r, argv[1], 0);
	if (rc) { printf("open: %s\n", mcz_strerror(rc)); return 1; }
	const mcz_file_info *fi = mcz_info(r);
	printf("rows %llu streams %zu marks %zu recovered %d\n", (unsigned long long)fi->nrows,
	       mcz_stream_count(r), mcz_mark_count(r), fi->recovered);
	for (size_t s = 0; s < mcz_stream_count(r); s++) {
		mcz_series x = {0};
		double sum = 0;
		if (mcz_read(r, (uint32_t)s, fi->t_first, fi->t_last + 1, &x)) return 1;
		for (size_t i = 0; i < x.n; i++)
			if (x.present[i])
				sum += mcz_stream(r, s)->type == MCZ_F64 ? x.v[i].f : (double)x.v[i].u;
		printf("%s[%s] %zu %.17g\n", mcz_stream(r, s)->name, mcz_stream(r, s)->instance, x.n, sum);
		mcz_series_free(&x);
	}
	fprintf(stderr, "skipped %llu\n", (unsigned long long)fi->skipped_blocks);
	mcz_close(r);
	return 0;
}
C
Z="-lzstd -lz -lm -lstdc++ -pthread" # -lstdc++: the old sources' code names (code-name.c linked it then)
cc -std=c11 -D_GNU_SOURCE -O1 -I"$T/old/format" -o "$T/rd-old" "$T/rd.c" "$T"/old/format/*.c $Z ||
	fail "building the 1.1 reader"
# libmcz: format/ and its rooms, not libmczpcp (pcp/) nor the mcz command (cli/)
cc -std=c11 -D_GNU_SOURCE -O1 -Iformat -o "$T/rd-new" "$T/rd.c" \
	$(find format -name '*.c' -not -path 'format/pcp/*' -not -path 'format/cli/*') $Z -ldl ||
	fail "building this reader"

cc -O2 -g -o "$T/work" tests/tools/code-phases.c || fail "cc code-phases"
# A 1.3 writer groups narrow columns (GCHUNK, critical) where that is
# smaller: a reader before 1.3 refuses such a file with one line naming the
# block; MCZ_FORMAT=1.2 writes a file it reads, CODE block included.
"$MCREC" -q -f -g code,os -o "$T/new.mcz" -- "$T/work" 0.3 2>/dev/null || fail "mcrec exit $?"
if ! "$T/rd-old" "$T/new.mcz" >"$T/old.out" 2>"$T/old.err"; then
	grep -q '^open: unsupported format version' "$T/old.out" || fail "1.1 reader on a 1.3 file: $(cat "$T/old.out")"
	ok "a file with 1.3 blocks: the 1.1 reader refuses it ($(head -1 "$T/old.out"))"
fi
MCZ_FORMAT=1.8 "$MCREC" -q -f -g os -o "$T/bad.mcz" -- true 2>"$T/bad.err" && fail "MCZ_FORMAT=1.8 accepted"
grep -q 'MCZ_FORMAT=1.8' "$T/bad.err" || fail "MCZ_FORMAT=1.8: $(cat "$T/bad.err")"
MCZ_FORMAT=1.2 "$MCREC" -q -f -g code,os -o "$T/run.mcz" -- "$T/work" 0.3 2>/dev/null || fail "mcrec exit $?"
"$B/mcz" info "$T/run.mcz" | grep -q 'format 1.2)' || fail "MCZ_FORMAT=1.2: $("$B/mcz" info "$T/run.mcz" | head -1)"
"$B/mcz" dump "$T/run.mcz" --code --csv | grep -q compute_kernel || fail "the file has no code profile"
head -c $(($(stat -c %s "$T/run.mcz") - 24)) "$T/run.mcz" >"$T/cut.mcz"

# the blocks a 1.1 reader does not know: the CODE block, the CODEPART
# blocks (1.6) the recorder wrote while it ran, and the CODETHREADS block
# (1.6) after the CODE block
parts=$(python3 - "$T/run.mcz" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
o, n = 20, 0
while o + 16 <= len(b) and b[o:o + 4] == b'mczB':
    n += struct.unpack_from('<H', b, o + 4)[0] in (15, 16)
    o += 20 + struct.unpack_from('<I', b, o + 8)[0]
print(n)
PY
)
[ "$parts" -ge 2 ] || fail "run.mcz holds no CODEPART or no CODETHREADS block"
for f in run cut; do
	"$T/rd-old" "$T/$f.mcz" >"$T/old.out" 2>"$T/old.err" || fail "1.1 reader on $f.mcz: $(cat "$T/old.out")"
	"$T/rd-new" "$T/$f.mcz" >"$T/new.out" 2>"$T/new.err" || fail "this reader on $f.mcz"
	grep -q "^skipped $((parts + 1))\$" "$T/old.err" ||
		fail "1.1 reader on $f.mcz: $(cat "$T/old.err"), not $((parts + 1)) skipped blocks"
	grep -q '^skipped 0$' "$T/new.err" || fail "this reader skipped a block of $f.mcz: $(cat "$T/new.err")"
	diff "$T/old.out" "$T/new.out" >/dev/null || fail "readers differ on $f.mcz: $(diff "$T/old.out" "$T/new.out" | head -5)"
	ok "$f.mcz: the 1.1 reader skips the CODE block and $parts CODEPART and CODETHREADS blocks, and reads $(head -1 "$T/old.out")"
done

# A job file (1.4, mcz merge): its MEMBER blocks are critical, so an older
# reader refuses it in one line rather than show an empty recording.
"$B/mcz" merge -q "$T/run.mcz" -o "$T/job.mcz" || fail "mcz merge"
"$T/rd-old" "$T/job.mcz" >"$T/old.out" 2>"$T/old.err" && fail "the 1.1 reader opened a job file: $(cat "$T/old.out")"
grep -q '^open: unsupported format version' "$T/old.out" || fail "1.1 reader on a job file: $(cat "$T/old.out")"
ok "a job file: the 1.1 reader refuses it ($(head -1 "$T/old.out"))"
