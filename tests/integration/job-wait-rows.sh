#!/usr/bin/env bash
# job-wait-rows.sh: the timeline's "MPI %" rows on a job whose ranks poll
# while they wait (gen-job --code: work in solve_kernel, waits in
# opal_progress), 2 ranks a host, rank 4 given twice the work in phase 2:
#   - on 3 hosts, one row per host, labelled with it; at 2.5 s (rank 4
#     still computing, every other rank waiting) the readout gives 100 %
#     for node000 and node001 and 50 % for node002 (rank 4 computes, rank
#     5 waits), 0 % for all three at 1 s (every rank computes);
#   - where the screen has no room for a row per host, one row for the
#     job: 5 of 6 ranks waiting, 83 %;
#   - on one host, one row, no host named: 3 of 4 waiting, 75 %.
# mcz-test: parallel (generated files, measures no time)
set -u
. "$(dirname "$0")/tmp-common.inc"
GEN=$B/tests/tools/gen-job
MCVIEW=$B/mcview
ok() { echo "ok: $*"; }
"$GEN" -d "$T/h3" --ranks 6 --phases 3 --phase-s 2 --per-host 2 --slow 4:1:2 --code >/dev/null ||
	fail "gen-job (3 hosts)"
"$GEN" -d "$T/h1" --ranks 4 --phases 3 --phase-s 2 --slow 3:1:2 --code >/dev/null ||
	fail "gen-job (1 host)"

# snap DIR SIZE AT: the snapshot; its readout line (the one before the key help)
snap() {
	"$MCVIEW" --snapshot "$2" --ascii --at "$3" "$T/$1"/run.*.mcz >"$T/snap" 2>"$T/err" ||
		fail "snapshot $1 $2: $(cat "$T/err")"
	readout=$(tail -n 2 "$T/snap" | head -n 1)
}

snap h3 200x22 2.5
rows=$(grep -c '^MPI % node00[012] ' "$T/snap")
[ "$rows" = 3 ] || fail "3 hosts: $rows host rows, want 3: $(cat "$T/snap")"
grep -q '^MPI % *[_.:'"'"'|-]' "$T/snap" && fail "3 hosts: a row for the whole job too"
[[ $readout == *"MPI node000 100% node001 100% node002 50%"* ]] ||
	fail "3 hosts at 2.5 s: $readout"
ok "3 hosts: a row each; at 2.5 s ${readout##*MPI }"
# the files in another order (the shell's order of node names is not theirs):
# the rows still by host name
"$MCVIEW" --snapshot 200x22 --ascii --at 2.5 $(ls "$T"/h3/run.*.mcz | sort -r) >"$T/snap-r" ||
	fail "snapshot, files reversed"
[ "$(grep -o '^MPI % node00[0-9]' "$T/snap-r" | tr '\n' ' ')" = "MPI % node000 MPI % node001 MPI % node002 " ] ||
	fail "files reversed: host rows $(grep -o '^MPI % node00[0-9]' "$T/snap-r" | tr '\n' ' ')"
ok "files given in reverse: the host rows still node000, node001, node002"
snap h3 200x22 1
[[ $readout == *"MPI node000 0% node001 0% node002 0%"* ]] || fail "3 hosts at 1 s: $readout"
ok "3 hosts at 1 s: every rank computes"

snap h3 200x16 2.5
[ "$(grep -c '^MPI %' "$T/snap")" = 1 ] && grep -q '^MPI %  ' "$T/snap" ||
	fail "no room: not one row for the job: $(grep '^MPI' "$T/snap")"
[[ $readout == *"MPI 83%"* ]] || fail "no room, at 2.5 s: $readout"
ok "no room for a row per host: one for the job, 83 %"

snap h1 200x22 2.5
[ "$(grep -c '^MPI %' "$T/snap")" = 1 ] && grep -q '^MPI %  ' "$T/snap" ||
	fail "one host: $(grep '^MPI' "$T/snap")"
[[ $readout == *"MPI 75%"* ]] || fail "one host, at 2.5 s: $readout"
ok "one host: one row, 75 %"
