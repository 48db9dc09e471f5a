#!/usr/bin/env bash
# view-slow-rows.sh: every row is drawn over the time its samples cover.
# A recording of 20 ms rows whose second half of streams is read every
# 500 ms (gen-recording --slow-every 25, as mcrec's proc and net sources
# beside its 20 ms perf counters), and a 2-rank job of such files, drawn
# by mcview --snapshot at 80, 150 and 250 columns (braille, blocks, ASCII):
#   - no row has a hole inside its time: between a row's first and last
#     drawn column, no column is blank on every line of the row (a
#     500 ms stream at 150 columns of 4 s was drawn as dots 13 columns
#     apart; a 20 ms stream had empty braille half-columns);
#   - the screens equal the golden ones in golden-rows/ (MCZ_GOLDEN_UPDATE=1
#     writes them again);
#   - a real recording, mcrec -i 20ms of stress-ng for 3 s: no hole either;
#   - the code row of a program that only computes, recorded at the default
#     100 ms intervals, at 250 columns of 2 s (8 ms a column): a letter in
#     every column of its time (an interval's samples stand for its whole
#     length, not for the column it starts in).
# mcz-test: parallel (snapshots of files; the recording's 3 s are not timed)
set -u
. "$(dirname "$0")/rec-common.inc"
MCVIEW=$B/mcview
G=$(cd "$(dirname "$0")" && pwd)/golden-rows
GEN=$B/tests/tools/gen-recording
command -v python3 >/dev/null || { echo "python3 not installed: the hole check needs it"; exit 77; }
"$GEN" -o "$T/slow.mcz" --streams 8 --rows 200 --interval-ms 20 --slow-every 25 --phases >/dev/null ||
	fail "gen-recording"
for r in 0 1; do
	"$GEN" -o "$T/r.$r.mcz" --streams 8 --rows 200 --interval-ms 20 --slow-every 25 --phases \
		--seed $((r + 3)) --meta rank=$r --meta nranks=2 --meta job=42 >/dev/null || fail "gen-recording rank $r"
done

# holes FILE WHAT: the rows of a snapshot with a blank column inside their time
holes() {
	python3 - "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
def lit(ch):
    o = ord(ch)
    return 0x2801 <= o <= 0x28ff or 0x2581 <= o <= 0x2588 or ch in "_-'|"
# the rows: from the line after the phases band to the first blank line;
# a row's first line has its label at column 0, the others start blank
groups, start = [], None
for k, ln in enumerate(lines):
    if ln.startswith("phases") or ln.startswith("marks"):
        start = k + 1
        break
# (the last two lines: the read-out and the keys)
for ln in lines[start or 3:-3]:
    if not ln.strip() or "never change" in ln:
        groups.append([])
    elif ln[:1] != " " or not groups or not groups[-1]:
        groups.append([ln])
    else:
        groups[-1].append(ln)
groups = [g for g in groups if g]
bad = []
for g in groups:
    if g[0].split(" ")[0] == "code":
        # the code row: a letter a column (its legend on the lines below),
        # a blank where no user-space code ran (a process in the kernel,
        # waiting): only the recording with nothing but work is checked
        if sys.argv[2] == "real":
            continue
        g = [g[0]]
        cols = [c.isalpha() or c in "*\u2502:" for c in g[0]]
        cols[:5] = [False] * 5
    else:
        w = max(len(l) for l in g)
        cols = [any(i < len(l) and (lit(l[i]) or l[i] in "\u2502:") for l in g) for i in range(w)]
    # the plot: after the label (which holds no space), up to the value
    # (after a space; a value holds no drawn character)
    label_end = g[0].find(" ") if g[0][:1] != " " else 0
    lits = [i for i, c in enumerate(cols) if c and i > label_end]
    if len(lits) < 2:
        continue
    a, b = lits[0], lits[-1]
    gaps = [i for i in range(a, b) if not cols[i]]
    if gaps:
        bad.append("%s: %d blank columns inside its time (%d..%d)" % (g[0][:28].strip(), len(gaps), gaps[0], gaps[-1]))
if len(groups) < 4:
    bad.append("only %d rows found" % len(groups))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# shot NAME SIZE ARGS...: a snapshot, its holes, and the golden screen
shot() {
	local name=$1 size=$2
	shift 2
	"$MCVIEW" --snapshot "$size" "$@" >"$T/$name.txt" 2>"$T/$name.err" || fail "$name: $(cat "$T/$name.err")"
	holes "$T/$name.txt" "$name" >"$T/$name.holes" || fail "$name ($size): $(head -3 "$T/$name.holes")"
	if [ -n "${MCZ_GOLDEN_UPDATE:-}" ]; then
		cp "$T/$name.txt" "$G/$name.txt"
	fi
	diff -u "$G/$name.txt" "$T/$name.txt" >"$T/$name.diff" ||
		fail "$name: not the golden screen: $(head -20 "$T/$name.diff")"
}
cd "$T" || fail "cd $T"
shot slow-80x24-ascii 80x24 --ascii slow.mcz
shot slow-150x42 150x42 slow.mcz
shot slow-250x60-blocks 250x60 --blocks slow.mcz
shot job-150x42 150x42 r.0.mcz r.1.mcz
shot job-250x60 250x60 r.0.mcz r.1.mcz
ok "20 ms rows with 500 ms streams, and a job of two: no hole at 80, 150, 250 columns; the golden screens"

"$MCREC" -q -i 20ms -o "$T/real.mcz" -- stress-ng --cpu 1 --vm 1 --vm-bytes 32M -t 3 >/dev/null 2>&1 ||
	fail "mcrec of stress-ng: exit $?"
for size in 80x24 150x42 250x60; do
	"$MCVIEW" --snapshot $size "$T/real.mcz" >"$T/real-$size.txt" 2>/dev/null || fail "snapshot $size of real.mcz"
	holes "$T/real-$size.txt" real >"$T/real.holes" || fail "mcrec -i 20ms at $size: $(head -3 "$T/real.holes")"
done
ok "mcrec -i 20ms of stress-ng (500 ms proc and net streams): no hole at 80, 150, 250 columns"

cat >"$T/spin.c" <<'C'
#include <time.h>
static volatile double x;
int main(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i * 0.5;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000000L);
	return 0;
}
C
cc -O2 -o "$T/spin" "$T/spin.c" || fail "cc spin.c"
"$MCREC" -q -o "$T/spin.mcz" -- "$T/spin" || fail "mcrec of spin: exit $?"
"$MCVIEW" --snapshot 250x60 "$T/spin.mcz" >"$T/spin.txt" 2>/dev/null || fail "snapshot of spin.mcz"
grep -q '^code ' "$T/spin.txt" || fail "no code row: $(head -5 "$T/spin.txt")"
holes "$T/spin.txt" spin >"$T/spin.holes" || fail "the code row at 250 columns: $(head -3 "$T/spin.holes")"
ok "the code row of a computing program at 250 columns of 2 s (100 ms intervals): no hole"

# the code row's legend names every letter the row draws, or counts them
cat >"$T/six.c" <<'C'
#include <time.h>
static volatile double x;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
#define F(name, secs) \
	__attribute__((noinline)) static void name(void) \
	{ \
		double e = now() + secs; \
		while (now() < e) \
			for (int i = 0; i < 10000; i++) \
				x += i * 0.5; \
	}
F(first_function_of_six, 0.6) F(second_function_of_six, 0.5) F(third_function_of_six, 0.4)
F(fourth_function_of_six, 0.3) F(fifth_function_of_six, 0.25) F(sixth_function_of_six, 0.2)
int main(void)
{
	first_function_of_six(), second_function_of_six(), third_function_of_six();
	fourth_function_of_six(), fifth_function_of_six(), sixth_function_of_six();
	return 0;
}
C
cc -O2 -g -o "$T/six" "$T/six.c" || fail "cc six.c"
"$MCREC" -q -o "$T/six.mcz" -- "$T/six" || fail "mcrec of six: exit $?"
for size in 80x24 150x42; do
	"$MCVIEW" --snapshot $size "$T/six.mcz" >"$T/six.txt" 2>/dev/null || fail "snapshot $size of six.mcz"
	python3 - "$T/six.txt" "$size" <<'PY' || fail "the code row's legend at $size (above)"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
k = next(i for i, l in enumerate(lines) if l.startswith("code "))
row = set(re.findall(r"[A-Za-z]", lines[k][5:]))
legend = lines[k + 1]
named = set(re.findall(r"(?:^|\s{2})([A-Za-z]) \S", legend.strip()))
more = re.search(r"\+(\d+) more", legend)
missing = row - named
if len(row) < 4:
    sys.exit("%s: the row draws %s only" % (sys.argv[2], sorted(row)))
if missing and (not more or int(more.group(1)) != len(missing)):
    sys.exit("%s: the row draws %s, the legend names %s (%s)" % (sys.argv[2], sorted(row), sorted(named), legend.strip()))
if named - row:
    sys.exit("%s: the legend names %s, not drawn" % (sys.argv[2], sorted(named - row)))
print("%s: row %s, legend %s%s" % (sys.argv[2], "".join(sorted(row)), "".join(sorted(named)),
                                   " +%s more" % more.group(1) if more else ""))
PY
done
ok "the code row's legend: every letter drawn named, or counted as more"
