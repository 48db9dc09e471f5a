#!/usr/bin/env python3
"""py-read.py: the checks of py-read.sh, in Python: what `import mcz`
(python/mcz) reads equals what the mcz programs print.

    py-read.py frame FILE DUMP.csv          to_pandas() = mcz dump --csv, read by
                                            one thread and by three
    py-read.py window FILE DUMP.csv T0 T1   read() over [T0, T1) of every
                                            stream = the dump rows (--from
                                            T0 --to T1), with the gaps left out
    py-read.py extras FILE CODE.csv REPORT.json MARKS
                                            the code profile = mcz dump --code
                                            --csv, report() = mcview
                                            --report=json, MARKS marks
    py-read.py job JOB DIR                  members: rank, host, and each one's
                                            frame = DIR/NAME.csv
    py-read.py pcp ARCHIVE DUMP.csv [GLOB]  a PCP archive: streams with units
                                            and semantics, frame = the dump of
                                            `mcz import` of it (of the streams
                                            whose names match GLOB, as mcz dump
                                            --streams GLOB: by their ids)
    py-read.py error FILE CHECK_LINE        mcz.Error, at open or at the first
                                            read, says CHECK_LINE
    py-read.py warns FILE CHECK_LINE        strict=False: a warning says
                                            CHECK_LINE, at open
    py-read.py pcpcut ARCHIVE LINE ROWS     a PCP archive cut short: mcz.Error
                                            says LINE (mcz import's warning)
                                            and the rows read; strict=False:
                                            a warning says it, ROWS rows
    py-read.py threads FILE                 4 threads reading one recording
                                            (read, to_pandas) get what one does
    py-read.py memory FILE                  to_pandas(t0, t1) of nearly all
                                            rows peaks no higher than
                                            to_pandas() (each in a fresh python)
    py-read.py bounds FILE LINE T0 T1...    read(), to_pandas() with bounds
                                            mcz dump refuses (T1 "-": none):
                                            mcz.Error LINE; triples repeated
Prints "ok: ..." lines; exits 1 with "FAIL: ..." at the first difference.
The DUMP.csv files are read with float_precision="round_trip": mcz dump
prints a float in the shortest form that reads back to its bits, which
pandas' default (faster, not exact) parser may miss by an ulp.
"""
import csv as csvmod
import fnmatch
import json
import resource
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

import mcz


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def csv(path):
    """The dump read by pandas, its columns named as the header names them
    (read_csv would call a repeated name "x.1")."""
    frame = pd.read_csv(path, index_col=0, float_precision="round_trip")
    with open(path, newline="") as f:
        frame.columns = next(csvmod.reader(f))[1:]
    return frame


def same_frame(got, want, what):
    """got (to_pandas) equals want (the dump read by pandas) value for value."""
    if list(got.columns) != list(want.columns):
        fail("%s: columns %s... differ from the dump's %s..."
             % (what, list(got.columns)[:4], list(want.columns)[:4]))
    if got.shape != want.shape:
        fail("%s: shape %s, the dump's %s" % (what, got.shape, want.shape))
    if got.index.name != "time_s" or not np.array_equal(got.index.values, want.index.values):
        bad = np.nonzero(got.index.values != want.index.values)[0]
        fail("%s: times differ from row %d: %r against %r"
             % (what, bad[0], got.index.values[bad[0]], want.index.values[bad[0]]))
    gaps = 0
    for j, k in enumerate(want.columns):  # by position: keys may repeat
        a, b = got.iloc[:, j].to_numpy(), want.iloc[:, j].to_numpy()
        na, nb = pd.isna(a), pd.isna(b)
        if b.dtype == object:  # the parser's fallback for u64 beyond int64 keeps '' as ''
            nb |= b == ""
        if not np.array_equal(na, nb):
            i = np.nonzero(na != nb)[0][0]
            fail("%s: %s row %d: %r against the dump's %r" % (what, k, i, a[i], b[i]))
        if b.dtype == object:  # integers beyond int64 and float64: compared as ints
            a, b = a.astype(object), np.array([int(x) if not n else x for x, n in zip(b, nb)],
                                              dtype=object)
        eq = a[~na] == b[~nb]
        if not np.all(eq):
            i = np.nonzero(~na)[0][np.nonzero(~eq)[0][0]]
            fail("%s: %s row %d: %r against the dump's %r" % (what, k, i, a[i], b[i]))
        gaps += int(na.sum())
    return gaps


def frame(path, dump):
    with mcz.open(path) as rec:
        got = rec.to_pandas()
        par = rec.to_pandas(threads=3)  # streams read by 3 threads, a reader each
    want = csv(dump)
    gaps = same_frame(got, want, path)
    if not par.equals(got):
        fail("%s: to_pandas(threads=3) differs from to_pandas()" % path)
    print("ok: to_pandas() of %s = mcz dump --csv (also read by 3 threads): %d rows x %d "
          "streams, %d values, %d NaN where the dump is empty" % (path, got.shape[0], got.shape[1],
                                             got.size - gaps, gaps))


def window(path, dump, t0, t1):
    want = csv(dump)
    with mcz.open(path) as rec:
        part = rec.to_pandas(t0=float(t0), t1=float(t1))
        same_frame(part, want, "%s [%s, %s)" % (path, t0, t1))
        n = 0
        for s in rec.streams:
            t, v = rec.read(s.key, float(t0), float(t1))
            col = want[s.key]
            keep = col.notna().to_numpy()
            if not np.array_equal(t, want.index.to_numpy()[keep]):
                fail("%s: read(%s) times differ from the dump's rows" % (path, s.key))
            if v.dtype != {"u64": np.uint64, "i64": np.int64, "f64": np.float64}[s.type]:
                fail("%s: read(%s) gives %s for a %s stream" % (path, s.key, v.dtype, s.type))
            if not np.array_equal(v.astype(np.float64), col.to_numpy()[keep].astype(np.float64)):
                fail("%s: read(%s) values differ from the dump's" % (path, s.key))
            n += len(v)
            if s.kind == "counter":
                _, d = rec.read(s.key, float(t0), float(t1), delta=True)
                if len(d) > 1 and not np.array_equal(d[1:], np.diff(v)):
                    fail("%s: read(%s, delta=True) is not the increments" % (path, s.key))
            tn, _ = rec.read(s.key, float(t0), float(t1), ns=True)
            if tn.dtype != np.int64 or not np.array_equal(tn / 1e9, t):
                fail("%s: read(%s, ns=True) is not the times in ns" % (path, s.key))
    print("ok: read() of every stream over [%s, %s) s = the dump's %d rows there (%d values); "
          "to_pandas(t0, t1) = the dump" % (t0, t1, len(want), n))


def extras(path, code_csv, report_json, marks):
    with mcz.open(path) as rec:
        code, rep, mk = rec.code, rec.report(), rec.marks
        kinds = {s.kind for s in rec.streams}
        topo = [s.topo for s in rec.streams if s.topo is not None]
        meta, host = rec.meta, rec.host
    want = pd.read_csv(code_csv, keep_default_na=False)
    if code is None or len(code) != len(want):
        fail("%s: code profile of %s rows, the dump's %d" % (path, code is None or len(code),
                                                              len(want)))
    for k in ("samples", "function", "file", "line", "name"):
        if list(code[k]) != list(want[k]):
            fail("%s: the code profile's %s column differs from mcz dump --code's" % (path, k))
    if not np.allclose(code["time_s"], want["time_s"], rtol=0, atol=5e-10):
        fail("%s: the code profile's times differ from mcz dump --code's" % path)
    with open(report_json) as f:
        if rep != json.load(f):
            fail("%s: report() differs from mcview --report=json" % path)
    if len(mk) != int(marks) or not all(a.time <= b.time for a, b in zip(mk, mk[1:])):
        fail("%s: %d marks, mcz info says %s" % (path, len(mk), marks))
    if kinds != {"counter", "gauge"} or not topo or host != meta.get("host") or not host:
        fail("%s: streams' kinds %s, %d with a topology object, host %r"
             % (path, kinds, len(topo), host))
    print("ok: code profile = mcz dump --code (%d rows, %d samples), report() = mcview "
          "--report=json (%d phases), %d marks, streams of host %s with their topology "
          "objects (%s...)" % (len(code), code["samples"].sum(), len(rep["phases"]), len(mk),
                               host, topo[0].name))


def job(path, folder):
    with mcz.open(path) as j:
        if j.streams or len(j.members) != 2:
            fail("%s: %d streams, %d members" % (path, len(j.streams), len(j.members)))
        try:
            j.to_pandas()
            fail("%s: to_pandas() of a job file did not say to take a member" % path)
        except mcz.Error as e:
            if "job file of 2 recordings" not in str(e):
                fail("%s: %s" % (path, e))
        for i, m in enumerate(j.members):
            if m.rank != i or not m.host or any(s.rank != i for s in m.streams):
                fail("%s: member %s: rank %r host %r" % (path, m.name, m.rank, m.host))
            same_frame(m.to_pandas(), csv("%s/%s.csv" % (folder, m.name)), m.path)
        names = [(m.name, m.rank, m.host, m.nrows) for m in j.members]
    print("ok: job file %s: members %s, each to_pandas() = mcz dump JOB:NAME" % (path, names))


def pcp(path, dump, glob=None):
    with mcz.open(path) as rec:
        got = rec.to_pandas(None if glob is None else
                            [s.id for s in rec.streams if fnmatch.fnmatchcase(s.name, glob)])
        sems = sorted({s.semantics for s in rec.streams})
        units = sorted({s.unit for s in rec.streams if s.unit})
        n, host = len(rec.streams), rec.host
    gaps = same_frame(got, csv(dump), path)
    dup = got.shape[1] - len(set(got.columns))
    print("ok: PCP archive %s (host %s): %d streams (semantics %s, units %s), to_pandas(%s) = "
          "mcz dump of mcz import: %d rows, %d values, %d NaN, %d keys repeated"
          % (path, host, n, sems, units, glob or "", got.shape[0], got.size - gaps, gaps, dup))


def error(path, line):
    try:
        rec = mcz.open(path)
        rec.to_pandas()
    except mcz.Error as e:
        if str(e) != line:
            fail("%s: mcz.Error says %r, mcz check %r" % (path, str(e), line))
        print("ok: %s: mcz.Error(code %d) says what mcz check does: %s" % (path, e.code, e))
        return
    fail("%s: read without an error (mcz check: %s)" % (path, line))


def warns(path, line):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        rec = mcz.open(path, strict=False)
        rec.to_pandas()
    said = [str(w.message) for w in ws]
    if not any(m.startswith(line + " (") for m in said):
        fail("%s, strict=False: warnings %r, mcz check says %r" % (path, said, line))
    print("ok: %s, strict=False: warns %r" % (path, said[0]))


def pcpcut(path, line, rows):
    want = "%s (%s rows read)" % (line, rows)
    try:
        mcz.open(path)
        fail("%s (cut short) opened without an error (mcz import: %s)" % (path, line))
    except mcz.Error as e:
        if str(e) != want:
            fail("%s: mcz.Error says %r, not %r" % (path, str(e), want))
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with mcz.open(path, strict=False) as rec:
            n = len(rec.to_pandas())
    said = [str(w.message) for w in ws]
    if said != [want] or n != int(rows):
        fail("%s, strict=False: %d rows (the import's %s), warnings %r" % (path, n, rows, said))
    print("ok: %s (its volume cut short): mcz.Error, or with strict=False a warning: %s"
          % (path, want))


def threads(path):
    with mcz.open(path) as rec:
        ids = [s.id for s in rec.streams] * 4
        want = [rec.read(i) for i in ids]
        frame = rec.to_pandas(threads=1)
        for _ in range(3):
            with ThreadPoolExecutor(4) as pool:
                got = list(pool.map(rec.read, ids))
                frames = list(pool.map(lambda _: rec.to_pandas(threads=2), range(4)))
            for i, (t, v), (wt, wv) in zip(ids, got, want):
                if not (np.array_equal(t, wt) and np.array_equal(v, wv)):
                    fail("%s: read(%d) in 4 threads differs from read() in one" % (path, i))
            if not all(f.equals(frame) for f in frames):
                fail("%s: to_pandas() in 4 threads differs from to_pandas() in one" % path)
    print("ok: %s: 4 threads on one recording, 3 times: read() of its %d streams x 4 and "
          "to_pandas() x 4 = those of one thread" % (path, len(ids) // 4))


def memory(path, what=None):
    if what:  # in a fresh python: the peak of one call above what was before
        with mcz.open(path) as rec:
            kw = {} if what == "whole" else {"t0": 0, "t1": rec.duration}
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            frame = rec.to_pandas(**kw)
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print((after - before) * 1024, frame.memory_usage().sum())
        return
    peak = {}
    for what in ("whole", "window"):
        out = subprocess.run([sys.executable, __file__, "memory", path, what], check=True,
                             stdout=subprocess.PIPE).stdout.split()
        peak[what], size = int(out[0]), int(out[1])
    # the same columns, one row fewer: at most 5 % of the frame more
    if peak["window"] > peak["whole"] + size // 20:
        fail("%s: to_pandas(t0, t1) peaks %.1f MiB above what it holds before, to_pandas() "
             "%.1f MiB (the frame: %.1f MiB)" % (path, peak["window"] / 2 ** 20,
                                                 peak["whole"] / 2 ** 20, size / 2 ** 20))
    print("ok: %s: to_pandas(t0, t1) peaks %.1f MiB, to_pandas() %.1f MiB (the frame %.1f MiB)"
          % (path, peak["window"] / 2 ** 20, peak["whole"] / 2 ** 20, size / 2 ** 20))


def bounds(path, *cases):
    with mcz.open(path) as rec:
        for i in range(0, len(cases), 3):
            line, t0, t1 = cases[i], float(cases[i + 1]), cases[i + 2]
            t1 = float(t1) if t1 != "-" else None
            for what, call in (("read", lambda: rec.read(0, t0, t1)),
                               ("to_pandas", lambda: rec.to_pandas(t0=t0, t1=t1))):
                try:
                    call()
                    fail("%s: %s(t0=%r, t1=%r) did not raise (mcz dump: %s)"
                         % (path, what, t0, t1, line))
                except mcz.Error as e:
                    if str(e) != line:
                        fail("%s: %s(t0=%r, t1=%r): %r, mcz dump says %r"
                             % (path, what, t0, t1, str(e), line))
            print("ok: read(), to_pandas() with t0=%r t1=%r: mcz.Error %r" % (t0, t1, line))


if __name__ == "__main__":
    {"frame": frame, "window": window, "extras": extras, "job": job, "pcp": pcp,
     "error": error, "warns": warns, "pcpcut": pcpcut, "threads": threads,
     "memory": memory, "bounds": bounds}[sys.argv[1]](*sys.argv[2:])
