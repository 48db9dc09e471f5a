#!/usr/bin/env bash
# pcp-interesting.sh: a wide real archive (pcp-zeroconf of pcp-testsuite,
# 28 000 streams, most of them constants such as pmcd.pmlogger.port,
# pmcd.pid, hinv.*) opens on streams that change: the first screen
# (--snapshot 120x40) has one folded "N constant streams" row, then rows whose
# values do change in the file (checked with mcz dump, not with mcview), and
# none of the constants a new user met first.  Then in a real terminal
# (tmux): the same rows in the same order as the snapshot; 's' orders the
# rows by name (the tab bar says so, the rows are in order), Enter on the
# constants row lists constant streams by their whole name, and the
# read-out of one of them is its value in the file.
# mcz-test: parallel
set -u
export LC_ALL=C.UTF-8 # labels are cut by characters (▸, Σ)
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives/pcp-zeroconf
[ -x "$B/mcview" ] && [ -x "$B/mcz" ] || tmux_fail "no $B/mcview or $B/mcz (make first)"
[ -f "$A.index" ] || tmux_skip "pcp-testsuite archive pcp-zeroconf not installed"
D=$(mktemp -d /tmp/mcz-e2e-interesting.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT
F=$D/zc.mcz
"$B/mcz" import "$A" -o "$F" >"$D/import.log" 2>&1 || tmux_fail "import: $(tail -3 "$D/import.log")"

# 1. The first screen.
"$B/mcview" --snapshot 120x40 "$F" >"$D/first.txt" || tmux_fail "snapshot failed"
cat "$D/first.txt"
grep -q 'sort:activity' "$D/first.txt" || tmux_fail "tab bar lacks sort:activity"
# the row of constants, folded, first (screen line 4)
line4=$(sed -n 4p "$D/first.txt")
[[ $line4 =~ ^▸([0-9]+)\ constant\ streams ]] || tmux_fail "line 4 is not the constants row: $line4"
nconst=${BASH_REMATCH[1]}
[ "$nconst" -gt 10000 ] || tmux_fail "only $nconst constant streams folded"
[ "$(grep -c 'constant streams' "$D/first.txt")" -eq 1 ] || tmux_fail "more than one constants row"
for c in pmcd.pmlogger.port pmcd.pid hinv. kernel.all.pid_max; do
	grep -qF "$c" "$D/first.txt" && tmux_fail "the first screen shows the constant $c"
done
# every other row on it changes: the names it shows (groups: the name; a
# cut label: a prefix) are checked against the file's values.  A gauge
# varies when it has two different values, a counter when two of its
# increments differ.
kinds=$("$B/mcz" info "$F" |
	awk '$1 ~ /^[0-9]+$/ && ($4 == "counter" || $4 == "gauge") { print $2, $4 }' | sort -u)
rows=0
while IFS= read -r l; do
	lab=${l:0:29} # the label column, before its blank separator
	label=${lab#▸}
	label=${label%% *} # the name, without " (N) Σ" and the padding
	[ -n "$label" ] || continue
	# whole when a group's count follows it, or a stream's label ends
	# before the column does; else cut, and then a prefix.  An instance's
	# '[' would start a glob's bracket.
	glob=${label//[/?}
	if [[ $label == *"…" ]]; then # a group's name cut before its " (N)"
		label=${label%…}
		glob="${label//[/?}*"
	elif [[ $lab == ▸* ]]; then
		[[ ${lab:$((${#label} + 1)):2} == " (" ]] || glob="$glob*"
	else
		[ ${#label} -lt 29 ] && [[ $label != *"["* ]] || glob="$glob*"
	fi
	"$B/mcz" dump --csv --streams "$glob" "$F" >"$D/row.csv" 2>/dev/null ||
		tmux_fail "mcz dump --streams '$glob' failed"
	kind=$(awk -v n="${label%%[*}" '$1 == n { print $2; exit }' <<<"$kinds")
	awk -F, -v counter=$([ "$kind" = counter ] && echo 1 || echo 0) '
		NR == 1 { next }
		{ for (i = 2; i <= NF; i++) if ($i != "") {
			v = $i
			if (counter) {
				if (i in last) { d = v - last[i]; if (i in d0 && d != d0[i]) ok = 1; d0[i] = d }
				last[i] = v
			} else { if (i in v0 && v != v0[i]) ok = 1; v0[i] = v }
		} }
		END { exit !ok }' "$D/row.csv" || tmux_fail "row '$label' ($kind) does not change in the file"
	rows=$((rows + 1))
done < <(sed -n '5,38p' "$D/first.txt")
[ $rows -ge 30 ] || tmux_fail "only $rows rows checked on the first screen"
echo "ok: the first screen: $nconst constant streams folded, $rows rows that change"

# 2. In a terminal: 's' orders by name; Enter opens the constants row.
tmux_start 120 40 "$B/mcview" --at 30 "$F"
tmux_wait_for 'sort:activity' 60
tmux_settle
# the same rows, in the same order, as the snapshot
diff <(tmux_screen | sed -n '4,38p' | cut -c1-30) <(sed -n '4,38p' "$D/first.txt" | cut -c1-30) ||
	tmux_fail "the terminal's rows differ from --snapshot's"
# the selection starts on the first row that changes; Up is the constants row
tmux_keys k
tmux_wait_for 'constant streams: the same value all along (Enter lists them)'
tmux_keys s
tmux_wait_for 'sort:name'
tmux_settle
# rows after the constants row, by name (their names: labels may be cut)
tmux_screen | sed -n '5,38p' | cut -c1-30 | sed 's/^▸//' | awk '{ print $1 }' | sed 's/…$//' >"$D/names.txt"
[ "$(wc -l <"$D/names.txt")" -ge 30 ] || tmux_fail "rows: $(cat "$D/names.txt")"
LC_ALL=C sort -c "$D/names.txt" || tmux_fail "rows not by name: $(cat "$D/names.txt")"
tmux_keys Enter
tmux_wait_for "▾$nconst constant streams"
tmux_settle
# its members: indented, whole labels, in name order; none is a group
tmux_screen | sed -n '5,38p' | cut -c1-30 >"$D/members.txt"
grep -qv '^  [a-z]' "$D/members.txt" && tmux_fail "constants row members: $(cat "$D/members.txt")"
awk '{ print $1 }' "$D/members.txt" | LC_ALL=C sort -c || tmux_fail "members not by name"
# the first member's read-out is its value in the file (read without the
# viewer), and that stream never changes there
tmux_keys j
tmux_settle
line=$(tmux_screen | sed -n 39p)
[[ $line =~ \ \ ([^ ]+)\ =\ ([^@]+)\ @\ ([0-9.]+)s ]] || tmux_fail "no stream read-out: $line"
label=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]} t=${BASH_REMATCH[3]}
val=${val% }
first=$(sed -n 1p "$D/members.txt" | awk '{ print $1 }')
[[ $label == "$first"* ]] || tmux_fail "read-out of $label, first member shown: $first"
want=$("$B/tests/tools/view-probe" "$F" "$label" "$t") || tmux_fail "probe $label $t"
want=${want#* }
awk -v g="$(si_to_num "$val")" -v w="$want" 'BEGIN {
	d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w
	exit !(d <= 0.006 * a || d < 1e-9) }' || tmux_fail "$label at ${t}s: screen $val, file $want"
echo "first constant: $label = $val (file: $want)"
kind=$(awk -v n="${label%%[*}" '$1 == n { print $2; exit }' <<<"$kinds")
glob=${label//[/?}
"$B/mcz" dump --csv --streams "$glob" "$F" |
	awk -F, -v counter=$([ "$kind" = counter ] && echo 1 || echo 0) '
	NR == 1 { next }
	$2 != "" { if (counter) { if (n++) d[$2 - last] = 1; last = $2 } else d[$2] = 1 }
	END { k = 0; for (x in d) k++; exit k != 1 }' || tmux_fail "$label changes in the file"
tmux_keys q
[ "$(tmux_wait_exit)" = 0 ] || tmux_fail "mcview exit status"
echo "pcp-interesting: ok"
