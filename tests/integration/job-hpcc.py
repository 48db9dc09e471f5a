#!/usr/bin/env python3
"""job-hpcc.py: helper of job-hpcc.sh and job-hpcc-recorded.sh.  Checks
mcview's default job report on hpcc (the HPC Challenge suite) against
hpcc's own log.

  job-hpcc.py BIN DIR

BIN: the folder of mcview and mcz; DIR: hpcc's run, with its rank files
hpcc.0.mcz and hpcc.1.mcz and its log hpccoutf.txt.  The report is
`mcview --report=json` on the two files, the code samples `mcz dump
--code --csv`, each rank's start `mcz info` (wall_epoch_ns).

hpccoutf.txt prints "Current time (EPOCH)" as each section ends, to the
second: a section runs from the previous such line to its own (its end is
taken at EPOCH + 0.5).  Which rank computes in a Single* section is read
from the ranks' code samples (`mcz dump --code --csv`): the rank with the
most samples outside MPI.  A sample is MPI as mcview classes it: by the
rules `mcview --code-classes` prints (its built-in table, after the user's
file), matched as mcview matches them, shell patterns on the object's file
name and the function's name, the first rule that matches deciding.

Where the ranks end a section at different times (on this VM the same
work runs up to a third slower on one CPU than on the other), the first
rank to finish waits in MPI until the last one has, and the job changes
there: a detected boundary is also right when it lies within 2 s of where
the first rank started that wait (from the same samples: the run of 80 %
or more of its samples in MPI that ends at the section's end).

A section may also be cut where the job stalled (a CPU taken from a rank
for a second: one rank waits while the other computes, or, when the rank
without its CPU has no samples at all, the other waits in MPI): the phase
that overlaps it most, at most two short stalled pieces beside it and the
rest of the section (a phase of the same class) after a stall.

Prints a line per check; exits 1 when one fails."""
import csv, io, json, subprocess, sys
from fnmatch import fnmatchcase

TOL = 2.0          # s: a boundary within this of hpcc's
HPL_TOL = 1.0      # s: HPL's solve against its own timer (its matrix's
                   # generation before and the residual check after, 0.5 s
                   # each at N=5000, may join it: they are not counted)
LONG = 2.0         # s: the sections that must be phases


class CodeClasses:
    """mcview's code classes: `mcview --code-classes`, CLASS OBJECT
    [FUNCTION] a line, matched on a sample's object file name and function
    (codeclass.c: the first rule that matches; none: work)."""

    def __init__(self, b):
        self.rules, self.seen = [], {}
        for line in run(b + "/mcview", "--code-classes").splitlines():
            w = line.split()
            self.rules.append((w[0].lower(), w[1], w[2] if len(w) > 2 else None))

    def of(self, row):
        key = (row["object"].rsplit("/", 1)[-1], row["function"])
        if key not in self.seen:
            self.seen[key] = next((c for c, o, f in self.rules if fnmatchcase(key[0], o) and
                                   (f is None or fnmatchcase(key[1], f))), "work")
        return self.seen[key]

    def mpi(self, row):
        return self.of(row) == "mpi"


def hpl_time(path):
    """HPL's own timer: the Time column of its result line ("WR11C2R4 5000
    80 1 2 18.46 4.517e+00"), the seconds it took to solve the system,
    without generating the matrix before nor checking the residual after."""
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) == 7 and f[0][:1] == "W" and f[1].isdigit():
            try:
                return float(f[5])
            except ValueError:
                pass
    return None


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


def work_samples(text, t0, t1, offset, cc):
    """Samples outside MPI of one rank (text: its code CSV) between dataset
    times t0 and t1."""
    n = 0
    for row in csv.DictReader(io.StringIO(text)):
        t = float(row["time_s"]) + offset
        if t0 <= t < t1 and not cc.mpi(row):
            n += int(row["samples"])
    return n


BLAS_OBJ = ("blas", "blis", "mkl")  # where HPL's solve runs: dgemm_, dtrsm_


def in_blas(row):
    return any(x in row["object"].rsplit("/", 1)[-1] for x in BLAS_OBJ)


def share_bins(text, offset, hit, width=0.25):
    """Per bin of `width` s on the dataset axis: (all samples, samples for
    which hit(row), the row of `mcz dump --code --csv`)."""
    bins = {}
    for row in csv.DictReader(io.StringIO(text)):
        k = int((float(row["time_s"]) + offset) / width)
        a, m = bins.get(k, (0, 0))
        n = int(row["samples"])
        bins[k] = (a + n, m + (n if hit(row) else 0))
    return bins


def off_solve_edges(bins, s0, s1, width=0.25):
    """The time at the start and at the end of [s0, s1] whose bins (both
    ranks' samples) are under a fifth in the BLAS: what HPL does outside
    its timer (its matrix generated before, generated again and the
    residual checked after, or a rank waiting for the other to), where a
    phase took it in."""
    def off(k):
        a = sum(bb.get(k, (0, 0))[0] for bb in bins)
        m = sum(bb.get(k, (0, 0))[1] for bb in bins)
        return not a or m < 0.2 * a
    k0, k1 = int(s0 / width), int(s1 / width)
    i = k0
    while i < k1 and off(i):
        i += 1
    j = k1
    while j > i and off(j):
        j -= 1
    return max(0.0, i * width - s0), max(0.0, s1 - (j + 1) * width)


def wait_start(bins, b, width=0.25):
    """Where a rank's last wait before about b began: looking back from
    b + 1 s (hpcc's times are to the second), past at most 2 s of work
    (the next section started on this rank), the run of bins whose samples
    are 80 % MPI or more, when it lasts 0.5 s or more; None otherwise."""
    k = int((b + 1.0) / width)
    skipped = 0
    while k >= 0 and skipped < int(2.0 / width):
        a, m = bins.get(k, (0, 0))
        if a and m >= 0.8 * a:
            break
        k -= 1
        skipped += 1
    end, start = k, None
    while k >= 0:
        a, m = bins.get(k, (0, 0))
        if not a or m < 0.8 * a:
            break
        start = k
        k -= 1
    if start is None or (end - start + 1) * width < 0.5:
        return None
    return start * width


def run(*cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout


def main():
    b, d = sys.argv[1:3]
    outf = d + "/hpccoutf.txt"
    ranks = [d + "/hpcc.0.mcz", d + "/hpcc.1.mcz"]
    rep = io.StringIO(run(b + "/mcview", "--report=json", *ranks))
    csv0, csv1 = (io.StringIO(run(b + "/mcz", "dump", "--code", "--csv", f)) for f in ranks)
    csv0, csv1 = csv0.getvalue(), csv1.getvalue()
    w0, w1 = (int(next(l.split()[3] for l in run(b + "/mcz", "info", f).splitlines()
                       if len(l.split()) > 3 and l.split()[1] == "wall_epoch_ns")) for f in ranks)
    base = min(w0, w1) / 1e9
    off = [(w0 / 1e9) - base, (w1 / 1e9) - base]
    job = json.load(rep)["jobs"][0]
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
    ht = hpl_time(outf)
    bounds = [p["start_s"] for p in ph] + [ph[-1]["start_s"] + ph[-1]["duration_s"]]
    cc = CodeClasses(b)
    check(cc.rules, "mcview --code-classes: %d rules class the code samples" % len(cc.rules))
    rbins = [share_bins(csv0, off[0], cc.mpi), share_bins(csv1, off[1], cc.mpi)]
    bbins = [share_bins(csv0, off[0], in_blas), share_bins(csv1, off[1], in_blas)]

    def edge_ok(x, t):
        """x within TOL of hpcc's t, or of where the first rank to finish began
        to wait for the other before t."""
        if abs(x - t) <= TOL:
            return True
        w = [v for v in (wait_start(rb, t) for rb in rbins) if v is not None]
        return bool(w) and abs(x - min(w)) <= TOL
    def stalled(q):
        return (q["load_balance"] is not None and q["load_balance"] < 0.8) or \
            (q["comm_eff"] is not None and q["comm_eff"] < 0.5) or \
            (q.get("taken_mean_s") is not None and q["taken_mean_s"] >= 0.25 * q["duration_s"])
    def waited(q, width=0.25):
        """Over q, the ranks' own code samples show one rank waiting (80 %
        of its samples or more in MPI) while the other worked (under half
        in MPI): a real imbalance, seen without the detector."""
        ks = range(int(q["start_s"] / width), int((q["start_s"] + q["duration_s"]) / width))
        share = []
        for rb in rbins:
            n = sum(rb.get(k, (0, 0))[0] for k in ks)
            share.append(sum(rb.get(k, (0, 0))[1] for k in ks) / n if n else None)
        return None not in share and max(share) >= 0.8 and min(share) < 0.5
    def overlap(p, a, b):
        return min(p["start_s"] + p["duration_s"], b) - max(p["start_s"], a)

    def section_phase(a, b):
        """The phase that matches section [a, b): the one that overlaps it
        most, both its edges within TOL (a short neighbour can have its
        edges near the section's too: in a Single* section the waiting rank
        waits from its start, so the wait that edge_ok accepts begins
        there); or, as for HPL, that phase cut where the job stalled (on
        this VM a CPU is taken from a rank for a second at times): at most
        three phases, the others short ones where one rank waited while the
        other computed (load balance below 0.8) or where the ranks hardly
        computed at all (comm_eff below 0.5), or where other processes
        took a rank's CPU (taken_mean_s a quarter of the phase or more: the
        rank without its CPU has no samples, the other waits for it in MPI;
        comm_eff leaves that time out), or of the same class as
        it (the rest of the section after the stall: only beside a stall),
        the outer edges within TOL.  A stall may last TOL or more, up to a
        third of the section, where the code samples show it (waited): in
        a fresh-machine make check run, rank 0 finished its share of
        MPIRandomAccess_LCG's updates 2.0 s before rank 1 and waited in MPI
        (95 % of its samples, rank 1 under 15 %, both on their CPUs), and
        the detector made those 2.0 s a phase of their own.  Returns (the
        phase or None, the stalls it was cut by)."""
        k = max(range(len(ph)), key=lambda i: overlap(ph[i], a, b))
        best, found, stalls = ph[k], None, []
        if overlap(best, a, b) <= 0:
            return None, []
        for i0 in range(max(0, k - 2), k + 1):
            for i1 in range(k, min(len(ph), i0 + 3)):
                run_ = ph[i0:i1 + 1]
                others = [q for q in run_ if q is not best]
                other_cls = [q for q in others if q["class"] != best["class"]]
                if edge_ok(run_[0]["start_s"], a) and \
                        edge_ok(run_[-1]["start_s"] + run_[-1]["duration_s"], b) and \
                        all(stalled(q) and (q["duration_s"] < TOL or (
                            q["duration_s"] < (b - a) / 3 and waited(q))) for q in other_cls) and \
                        (not others or other_cls) and \
                        (found is None or len(others) < n_others):
                    found, stalls, n_others = best, other_cls, len(others)
        return found, stalls

    for name, a, b in secs:
        if b - a <= LONG:
            continue
        near_a = min(abs(x - a) for x in bounds)
        near_b = min(abs(x - b) for x in bounds)
        for t, what in ((a, "start"), (b, "end")):
            w = [v for v in (wait_start(rb, t) for rb in rbins) if v is not None]
            if w and min(abs(x - t) for x in bounds) > TOL:
                print("   %s's %s at %.1f s: a rank waited from %.1f s (the job changed there)"
                      % (name, what, t, min(w)))
        if name == "HPL":
            # HPL's section: the matrix generated, the system solved (HPL's
            # own timer), the residual checked.  The solve is the dgemm_
            # phases around the longest one, as long in all as HPL's timer
            # within HPL_TOL (without the generation or the check where they
            # joined it: off_solve_edges); it is at most 2 phases, or 3
            # where the extra pieces are short ones in which a rank waited
            # while the other computed (a load balance below 0.8: on this VM
            # one CPU stalls for a second at times); the generation and the
            # residual check take at most a short phase each
            inside = [p for p in ph if min(p["start_s"] + p["duration_s"], b) -
                      max(p["start_s"], a) > 0.5 * p["duration_s"]]
            solve, rest = [], inside
            if inside:
                k = max(range(len(inside)), key=lambda i: inside[i]["duration_s"])
                i0 = i1 = k
                while i0 > 0 and inside[i0 - 1]["code"].startswith("dgemm_"):
                    i0 -= 1
                while i1 + 1 < len(inside) and inside[i1 + 1]["code"].startswith("dgemm_"):
                    i1 += 1
                solve, rest = inside[i0:i1 + 1], inside[:i0] + inside[i1 + 1:]
                longest = inside[k]
            total = sum(p["duration_s"] for p in solve)
            # the generation and the residual check are under TOL each, too
            # short to be phases of their own at the default level: where
            # the solve's phases took them in, they are not counted against
            # HPL's timer, and are said
            pre, post = off_solve_edges(bbins, solve[0]["start_s"], solve[-1]["start_s"] +
                                  solve[-1]["duration_s"]) if solve else (0.0, 0.0)
            core = total - pre - post
            check(solve and ht is not None and abs(core - ht) <= HPL_TOL and
                  pre < TOL and post < TOL,
                  "HPL: its solve %d phase(s), %.2f s in all (%s), %.2f s without the %.2f s "
                  "before and %.2f s after it where the ranks hardly ran the BLAS, HPL's own timer %s s" %
                  (len(solve), total, ", ".join("%.2f s" % p["duration_s"] for p in solve),
                   core, pre, post, ht))
            pieces = [p for p in solve if p is not longest] if solve else []
            # at most 2 phases at the default level (the must-show: a
            # boundary somewhere in its factorization/update cycle, where
            # the ranks' waiting changed, as a SAN run of make check cut it
            # 2.9 s in), or 3 where the extra pieces are short stalls
            cut_ok = len(solve) <= 2 or (
                len(solve) <= 3 and all(p["duration_s"] < TOL for p in pieces) and
                any(p["load_balance"] < 0.8 for p in pieces))
            check(cut_ok and all(p["duration_s"] < TOL for p in rest),
                  "HPL %.1f-%.1f s: %d phase(s) at the default level (%s): the solve in at most "
                  "2 phases or cut only where a rank waited, the generation and the residual "
                  "check under %.0f s" %
                  (a, b, len(inside), ", ".join(
                      "%.2f s: %s, load balance %.2f" % (p["duration_s"], p["code"],
                                                         p["load_balance"]) for p in inside), TOL))
            check(near_a <= TOL and near_b <= TOL, "HPL: boundaries %.1f s and %.1f s from "
                  "hpcc's" % (near_a, near_b))
            continue
        p, stalls = section_phase(a, b)
        for q in stalls:
            print("   %s: cut where the job stalled, %.2f-%.2f s, load balance %s, comm_eff %s%s"
                  % (name, q["start_s"], q["start_s"] + q["duration_s"],
                     *("-" if v is None else "%.2f" % v for v in (q["load_balance"], q["comm_eff"])),
                     " (a rank waited in MPI for the other, as the code samples show)"
                     if waited(q) else ""))
        check(p is not None, "%s %.1f-%.1f s (%.1f s): a phase, boundaries %.1f s and %.1f s "
              "from hpcc's" % (name, a, b, b - a, near_a, near_b))
        if p is None:
            for q in ph:
                if overlap(q, a, b) > -TOL:
                    print("   phase %.2f-%.2f s: %s, load balance %s" % (
                        q["start_s"], q["start_s"] + q["duration_s"], q["code"],
                        q["load_balance"]))
            continue
        if name.startswith("Single"):
            n0 = work_samples(csv0, a + 0.5, b - 0.5, off[0], cc)
            n1 = work_samples(csv1, a + 0.5, b - 0.5, off[1], cc)
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
