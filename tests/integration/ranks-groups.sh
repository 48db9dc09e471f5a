#!/usr/bin/env bash
# ranks-groups.sh: the Ranks view of a job with more ranks than the screen
# has rows (gen-job --code: 600 ranks, 6 marked phases of 10 s, rank 305
# given 1.3x the work in phase 3), at 120x30 with the cursor in phase 3:
#   - the ranks are folded into groups by useful time in the phase: the
#     title says how many; the first row is rank 305, named slowest, the
#     report's slowest rank of the phase; the last rank row is named
#     fastest; the groups between them hold the other 598 ranks, their
#     labels' times (the slowest rank's of each) never rise down the
#     screen;
#   - Enter on the first group opens it: its ranks, one row each, under
#     it, as many as its label says; Enter again closes it;
#   - L goes to a row per rank (600 ranks, by rank, rank 0 first);
#   - a job of 8 ranks, which fits the screen, is shown a row per rank.
# mcz-test: parallel (generated files, measures no time)
set -u
. "$(dirname "$0")/tmp-common.inc"
GEN=$B/tests/tools/gen-job
MCVIEW=$B/mcview
ok() { echo "ok: $*"; }
"$GEN" -d "$T/j" --ranks 600 --phases 6 --phase-s 10 --slow 305:3:1.3 --code >/dev/null ||
	fail "gen-job (600 ranks)"
"$GEN" -d "$T/s" --ranks 8 --phases 6 --phase-s 10 --slow 3:3:1.3 --code >/dev/null ||
	fail "gen-job (8 ranks)"
snap() { "$MCVIEW" --snapshot 120x30 --view ranks --at 25s "$@" 2>"$T/err" || fail "mcview $*: $(cat "$T/err")"; }

"$MCVIEW" --report=json "$T"/j/run.*.mcz >"$T/r.json" || fail "report"
slowest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["phases"][2]["slowest_rank"])' "$T/r.json")
[ "$slowest" = 305 ] || fail "the report's slowest rank of phase 3 is $slowest, not 305"

snap "$T"/j/run.*.mcz >"$T/g.txt"
title=$(sed -n 2p "$T/g.txt")
ngroups=$(echo "$title" | sed -n 's/^600 ranks in \([0-9]*\) groups, by useful time in phase .*/\1/p')
[ -n "$ngroups" ] && [ "$ngroups" -ge 10 ] || fail "title: $title"
sed -n 5p "$T/g.txt" | grep -q '^r305 slowest' || fail "first row: $(sed -n 5p "$T/g.txt")"
grep -q '^r[0-9]* fastest' "$T/g.txt" || fail "no fastest rank: $(cat "$T/g.txt")"
# the groups' labels: +N T, N ranks, T the slowest one's useful time
awk '/^\+[0-9]+ [0-9.]+s/ { n += substr($1, 2); t = $2 + 0; if (prev != "" && t > prev + 1e-9) bad = 1; prev = t; g++ }
	END { print n, g, bad + 0 }' "$T/g.txt" >"$T/sum"
read -r members groups rising <"$T/sum"
[ "$members" = 598 ] || fail "the groups hold $members ranks, not 598"
[ "$groups" = "$ngroups" ] || fail "$groups group rows, the title says $ngroups"
[ "$rising" = 0 ] || fail "a group's time rises down the screen: $(grep '^+' "$T/g.txt")"
ok "600 ranks: r305 slowest first, $ngroups groups holding the other 598 ranks, the fastest last"

snap --keys Down,Enter "$T"/j/run.*.mcz >"$T/o.txt"
n=$(sed -n 6p "$T/o.txt" | sed -n 's/^-\([0-9]*\) .*/\1/p')
[ -n "$n" ] || fail "the first group is not open: $(sed -n 6p "$T/o.txt")"
shown=$(sed -n '7,28p' "$T/o.txt" | grep -c '^ r[0-9]* node')
want=$((n < 22 ? n : 22))
[ "$shown" = "$want" ] || fail "the open group of $n ranks shows $shown of them: $(sed -n 6,28p "$T/o.txt")"
snap --keys Down,Enter,Enter "$T"/j/run.*.mcz >"$T/c.txt"
sed -n 6p "$T/c.txt" | grep -q '^+' || fail "Enter again did not close it: $(sed -n 6p "$T/c.txt")"
ok "Enter opens the first group ($n ranks, one row each) and closes it"

snap --keys L "$T"/j/run.*.mcz >"$T/l.txt"
sed -n 2p "$T/l.txt" | grep -q '^600 ranks, by rank' || fail "L: $(sed -n 2p "$T/l.txt")"
sed -n 5p "$T/l.txt" | grep -q '^r0 node000' || fail "L: first row $(sed -n 5p "$T/l.txt")"
ok "L: a row per rank"

snap "$T"/s/run.*.mcz >"$T/s.txt"
sed -n 2p "$T/s.txt" | grep -q '^8 ranks, by rank' || fail "8 ranks: $(sed -n 2p "$T/s.txt")"
[ "$(sed -n 5,12p "$T/s.txt" | grep -c '^r[0-7] node')" = 8 ] || fail "8 ranks: $(cat "$T/s.txt")"
ok "8 ranks: a row each"
