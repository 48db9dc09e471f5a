#!/usr/bin/env bash
# flame-view.sh: the flame graph in a real terminal (tmux, 120x30) on a
# recording made by the real mcrec --call-graph fp of a program built with
# frame pointers: warm_up alone for about a second (phase 1), then a leaf
# called 3:1 from caller_a and caller_b (phase 2).  f opens the view on the
# whole run: its samples, and the total of the frames reached with Down
# (caller_a, its leaf_work) and Right (caller_b's leaf_work), equal those
# of `mcz dump --code --folded` of the same file, and the shares shown are
# theirs to the 0.1 % printed; the leaves stand 3:1 within 10 %.  Enter
# zooms into caller_b (caller_a leaves the screen), Backspace zooms out;
# /leaf gives the leaves' share.  p selects phase 2: its samples and the
# search for caller_a equal the folded export of the phase's span (an
# interval counts where its middle lies: --from/--to half an interval
# earlier), about 75 % of the phase.  q exits 0.
# mcz-test: parallel (shares only: the view against the export of its file)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
[ -x "$B/mcview" ] && [ -x "$B/mcrec" ] || tmux_fail "no $B/mcview or $B/mcrec (make first)"
command -v gcc >/dev/null || tmux_skip "no gcc to build the test program"
D=$(mktemp -d /tmp/mcz-e2e-flame.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
cat >"$D/p31.c" <<'EOF'
#include <stdlib.h>
static volatile double sink;
/* the leaves call something: each gets a frame of its own */
__attribute__((noinline)) void leaf_done(double *x) { __asm__ volatile("" : : "r"(x) : "memory"); }
__attribute__((noinline)) double leaf_work(double x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 1.0000001 + 1e-9;
	leaf_done(&x);
	return x;
}
__attribute__((noinline)) double warm_up(double x)
{
	for (long i = 0; i < 400000000L; i++)
		x = x * 0.9999999 + 1e-9;
	leaf_done(&x);
	return x;
}
__attribute__((noinline)) double caller_a(double x) { for (int k = 0; k < 3; k++) x = leaf_work(x); return x + 1; }
__attribute__((noinline)) double caller_b(double x) { return leaf_work(x) + 2; }
int main(int argc, char **argv)
{
	double x = warm_up(1);
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	for (int i = 0; i < n; i++) { x = caller_a(x); x = caller_b(x); }
	sink = x;
	return 0;
}
EOF
gcc -O2 -g -fno-omit-frame-pointer -o "$D/p31" "$D/p31.c" || tmux_fail "gcc"
F=$D/run.mcz
"$B/mcrec" -q --call-graph fp -o "$F" -- "$D/p31" 2000 || tmux_fail "mcrec failed"
"$B/mcz" dump --code --folded "$F" >"$D/all.folded" 2>"$D/err" ||
	tmux_skip "no code profile (perf_event_paranoid?): $(head -1 "$D/err")"
grep -q ';caller_b;leaf_work ' "$D/all.folded" ||
	tmux_skip "no stacks through caller_b in the fp recording: $(head -3 "$D/all.folded" | tr '\n' ' ')"

# fsum FOLDED [REGEX]: samples of the folded lines whose stack matches REGEX
fsum() {
	awk -v re="${2:-.}" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) t += n }
		END { print t + 0 }' "$1"
}
# the readout (the body's last line): "NAME  total X % (N samples)  self ..."
readout() { tmux_screen | sed -n "$((H - 1))p"; }
# check_share WHAT SHOWN_PCT SHOWN_N WANT_N TOTAL: the count is the export's,
# the share its to the 0.1 % shown
check_share() {
	[ "$3" = "$4" ] || tmux_fail "$1: $3 samples on screen, the folded export has $4"
	awk -v p="$2" -v n="$4" -v t="$5" 'BEGIN { d = p - 100 * n / t; exit !(d < 0.051 && d > -0.051) }' ||
		tmux_fail "$1: $2 % shown, the export gives $(awk -v n="$4" -v t="$5" 'BEGIN { print 100 * n / t }') %"
	echo "ok: $1 $2 % ($3 samples)"
}
# select_total NAME: the selected frame is NAME; its total share and samples
select_total() {
	local l
	l=$(readout)
	[[ $l =~ ^$1\ \ total\ ([0-9.]+)\ %\ \(([0-9]+)\ samples\) ]] ||
		tmux_fail "the readout is not $1's: $l"
	echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

H=30
T=$(fsum "$D/all.folded")
tmux_start_sh 120 $H "$B/mcview $F; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline'
tmux_expect ' Flame'
tmux_keys f
tmux_wait_for 'flame graph of whole run'
tmux_expect "all threads: $T samples"
tmux_expect 'caller_a'
tmux_expect 'warm_up'
# all > __libc_start_call_main > main > caller_a (its heaviest callee)
tmux_keys Down Down Down
tmux_settle
read -r p n <<<"$(select_total caller_a)"
check_share "caller_a" "$p" "$n" "$(fsum "$D/all.folded" ';main;caller_a(;|$)')" "$T"
tmux_keys Down
tmux_settle
read -r p na <<<"$(select_total leaf_work)"
check_share "caller_a;leaf_work" "$p" "$na" "$(fsum "$D/all.folded" ';caller_a;leaf_work$')" "$T"
tmux_keys Right
tmux_settle
read -r p nb <<<"$(select_total leaf_work)"
check_share "caller_b;leaf_work" "$p" "$nb" "$(fsum "$D/all.folded" ';caller_b;leaf_work$')" "$T"
awk -v a="$na" -v b="$nb" 'BEGIN { r = a / b; exit !(r > 2.7 && r < 3.3) }' ||
	tmux_fail "the leaves from caller_a and caller_b stand $na:$nb, not 3:1"
# zoom into caller_b: it fills the width, caller_a is gone; out again
tmux_keys Up
tmux_settle
select_total caller_b >/dev/null
tmux_keys Enter
tmux_settle
tmux_expect_not 'caller_a'
# caller_b and its leaf_work now start at the left edge, alone on their lines
tmux_screen | grep -qx 'caller_b *' || tmux_fail "caller_b does not fill the width"
tmux_screen | grep -qx 'leaf_work *' || tmux_fail "caller_b's leaf_work does not fill the width"
tmux_keys BSpace
tmux_settle
tmux_expect 'caller_a'
# search: every leaf_work frame
tmux_keys / l e a f Enter
tmux_settle
l=$(tmux_screen | grep -E '^search /leaf: ') || tmux_fail "no search line"
[[ $l =~ ([0-9.]+)\ %\ \(([0-9]+)\ of\ ([0-9]+)\ samples\) ]] || tmux_fail "search line: $l"
check_share "/leaf" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "$(fsum "$D/all.folded" 'leaf_work')" "$T"

# phase 2 (p: the phase the cursor is in, at the middle of the run)
for k in 1 2 3; do
	tmux_screen | grep -q 'flame graph of phase 2 ' && break
	tmux_keys p
	tmux_settle
done
tmux_expect 'flame graph of phase 2 '
read -r t0 t1 <<<"$("$B/mcview" --report=json "$F" | python3 -c '
import json, sys
p = json.load(sys.stdin)["phases"][1]
print(p["start_s"], p["end_s"])')"
iv=$("$B/mcz" info "$F" | awk '$1 == "meta" && $2 == "interval_ns" { print $4 }')
from=$(awk -v s="$t0" -v iv="$iv" 'BEGIN { printf "%.0fns", s * 1e9 - iv / 2 }')
to=$(awk -v s="$t1" -v iv="$iv" 'BEGIN { printf "%.0fns", s * 1e9 - iv / 2 }')
"$B/mcz" dump --code --folded --from "$from" --to "$to" "$F" >"$D/phase.folded" ||
	tmux_fail "mcz dump --folded --from $from --to $to"
TP=$(fsum "$D/phase.folded")
tmux_expect "all threads: $TP samples"
tmux_keys / C-u c a l l e r _ a Enter
tmux_settle
l=$(tmux_screen | grep -E '^search /caller_a: ') || tmux_fail "no search line in the phase"
[[ $l =~ ([0-9.]+)\ %\ \(([0-9]+)\ of\ ([0-9]+)\ samples\) ]] || tmux_fail "search line: $l"
check_share "phase 2 /caller_a" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" \
	"$(fsum "$D/phase.folded" 'caller_a')" "$TP"
awk -v p="${BASH_REMATCH[1]}" 'BEGIN { exit !(p > 67.5 && p < 82.5) }' ||
	tmux_fail "caller_a has ${BASH_REMATCH[1]} % of phase 2, not 75 % (3:1)"
tmux_keys q
tmux_wait_for 'AFTER rc=0'
echo "flame-view: ok ($T samples, phase 2 $TP)"
