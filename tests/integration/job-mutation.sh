#!/usr/bin/env bash
# job-mutation.sh: a job file of 4 rank files, cut at every block boundary
# after its metadata and inside every member (just after its name, in its
# middle, just before its end), and with a byte flipped in every member
# (issue 34, finding 3).  For each cut:
#   - mcz info exits 1, says DAMAGED, lists every member that survives with
#     its rank, names the one cut ("ends inside it") and counts the rest;
#   - mcz check exits 1; its summary counts the survivors as ok and every
#     other recording as lost; the cut member is named LOST;
#   - mcz split writes exactly the survivors, each byte for byte its rank
#     file, names the cut member and counts the rest, and exits 1 unless
#     all four survive (a cut in the job file's index).
# For each flip: mcz check exits 1 and names the member DAMAGED, the
# summary says 1 damaged and 3 ok.  And a byte flipped in one rank file's
# samples: the job report names the rank whose CPU time it leaves out.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
mkdir "$T/ranks"
for r in 0 1 2 3; do
	"$B"/tests/tools/gen-recording -o "$T/ranks/r.$r.mcz" --rows 300 --streams 4 --seed $r \
		--meta rank=$r --meta nranks=4 >/dev/null || fail "gen-recording $r"
done
"$B"/mcz merge -q "$T"/ranks/r.*.mcz -o "$T/job.mcz" || fail "merge"
size=$(stat -c %s "$T/job.mcz")

# the blocks: "offset end type [name]" (file header 20 bytes; a block is a
# 16-byte header, its payload, a 4-byte CRC; MEMBER = type 12, its payload
# starts with the name, a varint length then the bytes)
python3 - "$T/job.mcz" >"$T/blocks" <<'PY' || fail "block walk"
import struct, sys
b = open(sys.argv[1], "rb").read()
o = 20
while o + 16 <= len(b) and b[o:o + 4] == b[20:24]:  # every block starts with the sync bytes
    typ, flags, ln = struct.unpack_from("<HHI", b, o + 4)
    end = o + 16 + ln + 4
    if end > len(b):
        break
    name = ""
    if typ == 12:
        n, s, k = 0, 0, o + 16
        while True:
            c = b[k]; n |= (c & 0x7f) << s; s += 7; k += 1
            if c < 0x80: break
        name = b[k:k + n].decode()
        print(o, end, typ, name, k + n - o)
    else:
        print(o, end, typ)
    o = end
PY
grep -c ' 12 ' "$T/blocks" | grep -qx 4 || fail "not 4 MEMBER blocks: $(cat "$T/blocks")"
first=$(awk '$3 == 12 { print $1; exit }' "$T/blocks")

# cut points: "offset" for every block boundary from the first member on,
# and inside each member: just after its name, its middle, 5 bytes before its end
cuts=$(awk -v f="$first" '$1 >= f { print $1 } $3 == 12 { print $1 + $5 + 1; print int(($1 + $2) / 2); print $2 - 5 }' "$T/blocks" | sort -n | uniq)
n=0
for cut in $cuts; do
	[ "$cut" -ge "$size" ] && continue
	n=$((n + 1))
	head -c "$cut" "$T/job.mcz" >"$T/cut.mcz"
	# survivors: members whose block ends by the cut; the member cut (its
	# name in the file); the others absent
	surv=$(awk -v c="$cut" '$3 == 12 && $2 <= c { print $4 }' "$T/blocks")
	cutm=$(awk -v c="$cut" '$3 == 12 && $1 + $5 <= c && $2 > c { print $4 }' "$T/blocks")
	ns=$(echo "$surv" | grep -c .)
	what="cut at $cut of $size ($ns whole${cutm:+, $cutm cut})"

	"$B"/mcz info "$T/cut.mcz" >"$T/info" 2>&1 && fail "$what: mcz info exited 0"
	grep -q '^DAMAGED    '"$ns"' of 4 readable' "$T/info" || fail "$what: mcz info: $(cat "$T/info")"
	grep -q 'a job file of 4 recordings' "$T/info" || fail "$what: not 4 recordings: $(head -1 "$T/info")"
	for m in $surv; do
		grep -qE "^  $m +[0-3] " "$T/info" || fail "$what: $m not listed: $(cat "$T/info")"
	done
	[ -n "$cutm" ] && { grep -qE "^  $cutm +the job file ends inside it" "$T/info" || fail "$what: $cutm not named: $(cat "$T/info")"; }
	absent=$((4 - ns - (${#cutm} > 0 ? 1 : 0)))
	[ $absent -gt 0 ] && { grep -q "($absent more recording" "$T/info" || fail "$what: $absent absent not counted: $(cat "$T/info")"; }

	"$B"/mcz check "$T/cut.mcz" >"$T/check" 2>&1 && fail "$what: mcz check exited 0"
	grep -qE ": (the job file DAMAGED; )?4 recordings: 0 damaged, $((4 - ns)) lost, 0 incomplete, $ns ok$" "$T/check" ||
		fail "$what: check summary: $(tail -1 "$T/check")"
	[ -n "$cutm" ] && { grep -q ":$cutm: LOST: the job file ends inside it" "$T/check" || fail "$what: check: $(cat "$T/check")"; }

	rm -rf "$T/split" && mkdir "$T/split"
	"$B"/mcz split "$T/cut.mcz" -o "$T/split" >"$T/split.out" 2>"$T/split.err"
	rc=$?
	# every member whole (the index cut): all given back, exit 0; else 1
	[ $rc = $((ns < 4)) ] || fail "$what: split exited $rc: $(cat "$T/split.err")"
	[ "$(ls "$T/split" | sort)" = "$(echo "$surv" | grep . | sort)" ] || fail "$what: split wrote $(ls "$T/split")"
	for m in $surv; do
		cmp -s "$T/split/$m" "$T/ranks/$m" || fail "$what: split: $m differs from its rank file"
	done
	[ -n "$cutm" ] && { grep -q ":$cutm: not written: the job file ends inside it" "$T/split.err" || fail "$what: split: $(cat "$T/split.err")"; }
	[ $absent -gt 0 ] && { grep -q "$absent more recording" "$T/split.err" || fail "$what: split: $(cat "$T/split.err")"; }
	grep -q "wrote $ns of 4 recordings" "$T/split.out" || fail "$what: split: $(cat "$T/split.out")"
done
[ $n -ge 12 ] || fail "only $n cuts"
echo "ok: $n cuts: survivors listed, checked and split byte for byte; the rest named or counted; exit 1"

# a byte flipped in the middle of each member's recording
while read -r off end typ name skip; do
	[ "$typ" = 12 ] || continue
	at=$(((off + end) / 2))
	cp "$T/job.mcz" "$T/flip.mcz"
	printf '\377' | dd of="$T/flip.mcz" bs=1 seek=$at conv=notrunc 2>/dev/null
	cmp -s "$T/flip.mcz" "$T/job.mcz" && continue # the byte was 0xff
	"$B"/mcz check "$T/flip.mcz" >"$T/check" 2>&1 && fail "flip in $name: mcz check exited 0"
	grep -q ":$name: DAMAGED" "$T/check" || fail "flip in $name: not named: $(cat "$T/check")"
	grep -qE "4 recordings: 1 damaged, 0 lost, 0 incomplete, 3 ok$" "$T/check" ||
		fail "flip in $name: summary: $(tail -1 "$T/check")"
	# without the job file's index, the flipped member is still listed
	head -c $((size - 30)) "$T/flip.mcz" >"$T/flipcut.mcz"
	"$B"/mcz info "$T/flipcut.mcz" >"$T/info" 2>&1 && fail "flip in $name, index cut: info exited 0"
	grep -qE "^  $name +[0-3] " "$T/info" || fail "flip in $name, index cut: not listed: $(cat "$T/info")"
done <"$T/blocks"
echo "ok: a flipped byte in each member: named DAMAGED, the others ok, exit 1"

# a byte flipped in one rank file's samples: the job report says which
# rank's CPU time it leaves out, in the report itself, instead of counting
# it as zero (load balance fell from 1.00 to 0.75 with only a line on stderr)
mkdir "$T/gj"
"$B"/tests/tools/gen-job -d "$T/gj" --ranks 4 --phases 3 --phase-s 1 >/dev/null || fail "gen-job"
"$B"/mcview --report "$T"/gj/run.*.mcz >"$T/rep0" 2>&1 || fail "job report"
f=$T/gj/run.2.mcz
printf '\125' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc 2>/dev/null
"$B"/mcz check "$f" | grep -q 'DAMAGED: CRC mismatch' || fail "the flip did not damage a block: $("$B"/mcz check "$f")"
"$B"/mcview --report "$T"/gj/run.*.mcz >"$T/rep" 2>/dev/null || fail "job report with a damaged rank"
grep -q '^note: damaged data (rank 2 in phase' "$T/rep" || fail "damage not in the report: $(cat "$T/rep")"
grep -qi 'nan' "$T/rep" && fail "nan in the report"
awk '$1 == "phase" { for (i = 1; i <= NF; i++) if ($i == "load_bal") c = i }
	$1 ~ /^phase[0-9]/ && $c + 0 < 0.9 { bad = 1 } END { exit bad || !c }' "$T/rep" ||
	fail "load balance dropped for the damaged rank: $(cat "$T/rep")"
echo "ok: a damaged rank file: named in the job report, its CPU time left out, not zero"
