#!/usr/bin/env bash
# help-fits.sh: the help overlay (?) of every view fits the screen: at 80
# and 150 columns its lines are wrapped at spaces, never cut, so that it
# says word for word what it says at 250 columns (where the box is as wide
# as its longest line).  At 150 columns the Ranks view's help read "LB
# load bala", "communication efficien".
# mcz-test: parallel (snapshots of a generated job; no timing)
set -u
. "$(dirname "$0")/tmp-common.inc"
command -v python3 >/dev/null || { echo "python3 not installed: the check needs it"; exit 77; }
for r in 0 1; do
	"$B"/tests/tools/gen-recording -o "$T/r.$r.mcz" --rows 300 --streams 6 --phases \
		--meta rank=$r --meta nranks=2 --meta job=7 >/dev/null || fail "gen-recording"
done
# words VIEW WxH: the words inside the help box, in order
words() {
	"$B"/mcview --snapshot "$2" --keys '?' --view "$1" "$T/r.0.mcz" "$T/r.1.mcz" >"$T/h.txt" 2>"$T/h.err" ||
		fail "$1 at $2: $(cat "$T/h.err")"
	python3 - "$T/h.txt" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = next(i for i, l in enumerate(lines) if "mcview keys" in l)
x0 = lines[top].index("\u250c") if "\u250c" in lines[top] else lines[top].index("+")
x1 = lines[top].rindex("\u2510") if "\u2510" in lines[top] else lines[top].rindex("+")
out = []
for l in lines[top + 1:]:
    if l[x0:x0 + 1] in ("\u2514", "+"):
        break
    out += l[x0 + 1:x1].split()
print(" ".join(out))
PY
}
for v in timeline phases topology roofline ranks flame; do
	wide=$(words $v 250x70)
	[ -n "$wide" ] || fail "$v: no help at 250 columns"
	for size in 80x70 150x70; do
		got=$(words $v $size)
		[ "$got" = "$wide" ] || fail "$v at $size: the help is not the same words as at 250 columns:
$(diff <(tr ' ' '\n' <<<"$wide") <(tr ' ' '\n' <<<"$got") | head -6)"
	done
	echo "$v: $(wc -w <<<"$wide") words, the same at 80, 150 and 250 columns"
	[ $v = ranks ] || continue
	for phrase in "LB load balance (mean / max useful time), CE communication efficiency" \
		"colour by the next stream (where the files hold a code profile"; do
		grep -qF -- "$phrase" <<<"$wide" || fail "ranks: the help lacks '$phrase': $wide"
	done
done
echo "ok: the help of every view wrapped, not cut, at 80 and 150 columns"
