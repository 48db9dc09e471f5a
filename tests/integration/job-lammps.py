#!/usr/bin/env python3
"""job-lammps.py LOG REPORT.json [TOL]: mcz's job report on a LAMMPS run
against LAMMPS's own timers ("MPI task timing breakdown").

LAMMPS times each section per rank on the wall clock; its figures:
  compute = Pair + Neigh + Modify (per section min/avg/max over the ranks;
            the max of each section is the slowest rank's, the rank with
            the most atoms)
  load balance = avg compute / max compute
  comm_eff     = max compute / loop time
mcz's are those of its longest phase (the MD loop).  Prints one line of
both; exits 1 when a figure is more than TOL (0.08) from LAMMPS's."""
import json
import re
import sys


def lammps(log):
    sec, loop = {}, None
    for line in open(log):
        m = re.match(r"Loop time of ([0-9.eE+-]+) on", line)
        if m:
            loop = float(m.group(1))  # the last run's: the MD loop
        m = re.match(r"(Pair|Neigh|Comm|Modify|Output|Other)\s*\|\s*([0-9.eE+-]+)\s*\|"
                     r"\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)", line)
        if m:
            sec[m.group(1)] = [float(m.group(k)) for k in (2, 3, 4)]
    if loop is None or not all(k in sec for k in ("Pair", "Neigh", "Modify")):
        sys.exit("no timing breakdown in %s" % log)
    avg = sum(sec[k][1] for k in ("Pair", "Neigh", "Modify"))
    mx = sum(sec[k][2] for k in ("Pair", "Neigh", "Modify"))
    return avg / mx, mx / loop, loop


def main():
    log, rep = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 0.08
    lb, ce, loop = lammps(log)
    j = json.load(open(rep))["jobs"][0]
    p = max(j["phases"], key=lambda p: p["duration_s"])
    c = j["contention"]["hosts"][0]
    print("LAMMPS lb %.3f comm_eff %.3f loop %.2f s | mcz lb %.3f comm_eff %.3f phase %.2f s "
          "phases %d | off CPU %.2f s, taken %.2f s per rank; others %.1f CPU-s"
          % (lb, ce, loop, p["load_balance"], p["comm_eff"], p["duration_s"], len(j["phases"]),
             p["off_cpu_mean_s"], p["taken_mean_s"], c["others_cpu_s"] or 0))
    ok = abs(p["load_balance"] - lb) <= tol and abs(p["comm_eff"] - ce) <= tol
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
