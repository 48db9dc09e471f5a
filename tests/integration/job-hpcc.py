#!/usr/bin/env python3
"""job-hpcc.py: helper of job-hpcc.sh.  Checks mcview's default job report
on hpcc (the HPC Challenge suite) against hpcc's own log.

  job-hpcc.py HPCCOUTF REPORT_JSON RANK0_CSV RANK1_CSV WALL0_NS WALL1_NS

hpccoutf.txt prints "Current time (EPOCH)" as each section ends, to the
second: a section runs from the previous such line to its own (its end is
taken at EPOCH + 0.5).  Which rank computes in a Single* section is read
from the ranks' code samples (`mcz dump --code --csv`), by object name,
apart from mcz's own classes: the rank with the most samples outside the
MPI library and its plugins.

Prints a line per check; exits 1 when one fails."""
import csv, json, sys

TOL = 2.0          # s: a boundary within this of hpcc's
LONG = 2.0         # s: the sections that must be phases
MPI_OBJ = ("libmpi", "libopen-pal", "libopen-rte", "mca_", "libpmix", "libevent", "libhwloc")


def sections(path):
    out, start, name = [], None, None
    for line in open(path, errors="replace"):
        if line.startswith("Begin of ") and line.rstrip().endswith(" section."):
            name = line.split()[2]
        elif line.startswith("Current time (") and ")" in line:
            t = int(line.split("(")[1].split(")")[0]) + 0.5
            if start is not None and name:
                out.append((name, start, t))
            start, name = t, None
    return out


def work_samples(path, t0, t1, offset):
    """Samples outside MPI of one rank between dataset times t0 and t1."""
    n = 0
    for row in csv.DictReader(open(path)):
        t = float(row["time_s"]) + offset
        if t0 <= t < t1 and not any(k in row["object"].rsplit("/", 1)[-1] for k in MPI_OBJ):
            n += int(row["samples"])
    return n


def main():
    outf, rep, csv0, csv1, w0, w1 = sys.argv[1:7]
    w0, w1 = int(w0), int(w1)
    base = min(w0, w1) / 1e9
    off = [(w0 / 1e9) - base, (w1 / 1e9) - base]
    job = json.load(open(rep))["jobs"][0]
    ph = job["phases"]
    bad = 0

    def check(ok, what):
        nonlocal bad
        print(("ok: " if ok else "FAIL: ") + what)
        bad += not ok

    check(job["source"] == "auto", "phases detected by default (source %s)" % job["source"])
    check(job["useful_from"] == "code samples", "useful time from %s" % job["useful_from"])
    secs = [(n, a - base, b - base) for n, a, b in sections(outf)]
    check(len(secs) >= 10, "%d sections in hpccoutf.txt" % len(secs))
    bounds = [p["start_s"] for p in ph] + [ph[-1]["start_s"] + ph[-1]["duration_s"]]
    for name, a, b in secs:
        if b - a <= LONG:
            continue
        # the phase that matches the section: both its edges within TOL
        match = [p for p in ph if abs(p["start_s"] - a) <= TOL and
                 abs(p["start_s"] + p["duration_s"] - b) <= TOL]
        near_a = min(abs(x - a) for x in bounds)
        near_b = min(abs(x - b) for x in bounds)
        if name == "HPL":
            inside = [p for p in ph if min(p["start_s"] + p["duration_s"], b) -
                      max(p["start_s"], a) > 0.5 * p["duration_s"]]
            check(len(inside) <= 2, "HPL %.1f-%.1f s: %d phase(s) at the default level (%s)" %
                  (a, b, len(inside), ", ".join(p["code"] for p in inside)))
            check(near_a <= TOL and near_b <= TOL, "HPL: boundaries %.1f s and %.1f s from "
                  "hpcc's" % (near_a, near_b))
            continue
        check(len(match) == 1, "%s %.1f-%.1f s (%.1f s): a phase, boundaries %.1f s and %.1f s "
              "from hpcc's" % (name, a, b, b - a, near_a, near_b))
        if not match:
            continue
        p = match[0]
        if name.startswith("Single"):
            n0 = work_samples(csv0, a + 0.5, b - 0.5, off[0])
            n1 = work_samples(csv1, a + 0.5, b - 0.5, off[1])
            busy = 0 if n0 > n1 else 1
            check(p["load_balance"] is not None and p["load_balance"] <= 0.6 and
                  p["slowest_rank"] == busy,
                  "%s: load balance %s, slowest rank %s; rank %d computes (%d against %d "
                  "samples outside MPI)" % (name, p["load_balance"], p["slowest_rank"], busy,
                                            max(n0, n1), min(n0, n1)))
        if name in ("StarDGEMM", "StarRandomAccess"):
            check(p["load_balance"] is not None and p["load_balance"] >= 0.9,
                  "%s: load balance %s (every rank computes)" % (name, p["load_balance"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
