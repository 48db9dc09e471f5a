#!/usr/bin/env bash
# job-lammps-recorded.sh: the checks of job-lammps.sh (job-lammps.py: the
# load balance and comm_eff of the longest phase within 0.08 of LAMMPS's
# own timers; the hog makes at most one phase more than the quiet run's
# one, the MD loop) on LAMMPS runs kept in tests/data/lammps/, each its two
# rank files and LAMMPS's log, recorded by mcrec under `mpirun -n 2` on
# this project's 2-core VM (in.lj: job-lammps.sh's input, 8000 steps, a
# loop of ~24 s): the same report every time, where a new run's
# contention varies.
#   others-start  the VM's other sessions took half of each CPU for the
#                 first 3 s: 4 phases before issue 42's joins (the loop cut
#                 where the ranks' waits shifted, rank 1 from 55 % of its
#                 samples to 71 %);
#   hog-mid       stress-ng --cpu 1 from 6 s to 14 s: 3 phases before.
# mcz-test: parallel
set -u
B=${MCZ_BIN:-build}
command -v python3 >/dev/null || { echo "python3 not installed: the checks need it"; exit 77; }
D=$(dirname "$0")/../data/lammps
n=0
for d in "$D"/*/; do
	name=$(basename "$d")
	"$B/mcview" --report=json "$d"/lammps.*.mcz >"${TMPDIR:-/tmp}/job-lammps-rec.$$" ||
		{ echo "FAIL: $name: no report"; exit 1; }
	line=$(python3 "$(dirname "$0")/job-lammps.py" "$d/lammps.log" "${TMPDIR:-/tmp}/job-lammps-rec.$$")
	rc=$?
	np=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jobs"][0]["phases"]))' \
		"${TMPDIR:-/tmp}/job-lammps-rec.$$")
	rm -f "${TMPDIR:-/tmp}/job-lammps-rec.$$"
	[ $rc -eq 0 ] || { echo "FAIL: $name: the report does not match LAMMPS's timers: $line"; exit 1; }
	[ "$np" -le 2 ] || { echo "FAIL: $name: $np phases (the MD loop alone: 1, the hog at most 1 more)"; exit 1; }
	# the Phases view's description of a job's phase leads with the job's
	# balance and slowest rank, as the job report gives them
	"$B/mcview" --report "$d"/lammps.*.mcz >"${TMPDIR:-/tmp}/job-lammps-txt.$$" 2>/dev/null
	want=$(awk '$1 == "(whole" { print $13 }' "${TMPDIR:-/tmp}/job-lammps-txt.$$" | tr -d '!')
	slow=$(awk '$1 == "(whole" { print $12 }' "${TMPDIR:-/tmp}/job-lammps-txt.$$")
	rm -f "${TMPDIR:-/tmp}/job-lammps-txt.$$"
	"$B/mcview" --snapshot 250x30 --view phases "$d"/lammps.*.mcz 2>/dev/null | grep -q "balance $want, slowest $slow, MPI [0-9]*% of the time" ||
		{ echo "FAIL: $name: the Phases view's description lacks 'balance $want, slowest $slow': $("$B/mcview" --snapshot 250x30 --view phases "$d"/lammps.*.mcz 2>/dev/null | sed -n 5p)"; exit 1; }
	# the Ranks view coloured by hot function names every letter its rows draw
	"$B/mcview" --snapshot 150x20 --view ranks --keys m "$d"/lammps.*.mcz 2>/dev/null >"${TMPDIR:-/tmp}/job-lammps-rk.$$"
	legend=$(python3 - "${TMPDIR:-/tmp}/job-lammps-rk.$$" <<'PY2'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
title = lines[1]
drawn = set()
for l in lines[4:]:
    seg = l[15:].strip()
    # a rank's row: its label, then one cell a column (the read-out below
    # starts alike, with words)
    if re.match(r"r\d+ ", l) and seg and " " not in seg:
        drawn |= set(re.sub(r"[^A-Za-z]", "", seg))
named = set(re.findall(r"(?:\(|, )([A-Za-z]) = ", title))
more = re.search(r"\+(\d+) more", title)
if not drawn or not (drawn <= named or (more and len(drawn - named) == int(more.group(1)))):
    print("drawn %s, named %s: %s" % ("".join(sorted(drawn)), "".join(sorted(named)), title.strip()))
    sys.exit(1)
print("".join(sorted(named)))
PY2
	) || { echo "FAIL: $name: the Ranks view's legend: $legend"; exit 1; }
	rm -f "${TMPDIR:-/tmp}/job-lammps-rk.$$"
	echo "ok: $name: $line; the Ranks view names the letters $legend"
	n=$((n + 1))
done
[ $n -ge 2 ] || { echo "FAIL: $n runs in $D (2 kept)"; exit 1; }
echo "PASS"
