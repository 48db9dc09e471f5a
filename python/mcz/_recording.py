# _recording.py: mcz.Recording, one open recording (an .mcz file, a job
# file's member, or a PCP archive converted by libmczpcp) read through
# libmcz: its streams, samples as numpy arrays or one pandas DataFrame,
# marks, metadata, code profile and mcview's report.  Samples are read in
# bulk: mcz_read fills a series in C, numpy copies it once out of C memory;
# no Python loop runs per value.

import ctypes
import json
import os
import shutil
import subprocess
import warnings
from collections import namedtuple
from ctypes import byref, c_char_p, c_size_t, c_void_p

import numpy as np

from . import _lib
from ._lib import LIB

Stream = namedtuple("Stream", "id name instance key unit semantics kind type source native "
                              "note scale topo rank host")
Stream.__doc__ = """One stream of a recording (mcz_stream_desc).

name      dotted metric name ("core.instructions", "mem.util.used")
instance  instance ("cpu3", "eth0", a PCP instance), "" if none
key       the column name: "name[instance]", or name without an instance
          (as `mcz dump`'s header names it)
unit      SI base unit after scale ("B", "W", "instructions", "" dimensionless)
semantics "counter", "instant" or "discrete" (PCP's words; a PCP import
          keeps the archive's, recordings say counter or instant)
kind      "counter" (monotonic, stored as read: raw cumulative values) or
          "gauge" (mcz's kinds)
type      "u64", "i64" or "f64"
source    "perf", "papi", "pcp", "nvml", "net", "rapl", "proc", "mark"
native    the native event ("perf:instructions", "pcp:kernel.all.load")
note      provenance, free text
scale     stored value x scale = value in unit (values are returned as stored)
topo      the Topo object the stream belongs to, None for the whole node
rank      the recording's MPI rank (metadata "rank"), None if none
host      the host it was recorded on (metadata "host"), None if unknown
"""

Topo = namedtuple("Topo", "index type name os_index size parent")
Topo.__doc__ = """A topology object: type ("pu", "core", "numa", "gpu", "nic"...),
name ("PU#3"), os_index (-1 unknown), size (bytes, 0 unknown), parent
(index into Recording.topology, -1 for the root)."""

Mark = namedtuple("Mark", "time kind source text")
Mark.__doc__ = """A mark: time (seconds from the start of the recording), kind
("point", "begin", "end", "gap"), source (rank or pid, 0 unknown), text."""

_TOPO_TYPES = ("machine", "package", "numa", "l3", "l2", "l1", "core", "pu", "gpu", "nic",
               "other")
_MARK_KINDS = ("point", "begin", "end", "gap")
_TYPES = ("u64", "i64", "f64")
_DTYPES = (np.uint64, np.int64, np.float64)
_E_IO, _E_ISDIR, _E_NOTFOUND = -1, -12, -13
_BULK_CACHE = 32 << 20  # the cache of the readers while to_pandas reads


def _cache_bytes(nrows):
    """A reader's cache of decoded columns (mcz_cache_limit; mcz.h's default
    is 8 MiB): about 160 bytes a row, 32 to 256 MiB, keeps the time column
    and the decompressed frames that narrow columns share (GCHUNK) from one
    stream's read() to the next: 100 streams x 10^6 rows, each read()
    whole, 0.27 s a stream with 32 MiB, 0.03 s with 160 MiB."""
    return min(256 << 20, max(32 << 20, 160 * nrows))


class Error(Exception):
    """An mcz error: str(e) is the one line mcz's own programs print after
    their name ("run.mcz: CRC mismatch or impossible field: chunk at offset
    4096: CRC mismatch", "d.mcz: DAMAGED: ..." as `mcz check` says it);
    e.code is libmcz's error code (negative, mcz.h's mcz_err), e.path the
    file."""

    def __init__(self, message, code=0, path=None):
        super().__init__(message)
        self.code, self.path = code, path


def _s(b):
    """A C string from the file as Python text (bytes not UTF-8 kept as
    surrogates, so that they round-trip)."""
    return b.decode("utf-8", "surrogateescape") if b else ""


def _b(s):
    return os.fsencode(s) if isinstance(s, (str, os.PathLike)) else s


def _esc(text):
    """text escaped for a terminal as the mcz programs print it (mcz_termsafe)."""
    raw = _b(text)
    n = LIB.mcz_termsafe(None, 0, raw) + 1
    buf = ctypes.create_string_buffer(n)
    LIB.mcz_termsafe(buf, n, raw)
    return _s(buf.value)


def error(rc, path):
    """The Error for libmcz's code rc on path, worded as the mcz programs
    word it (tool_common_error in format/cli/tool-common.c)."""
    errno = ctypes.get_errno()
    detail = _esc(_s(LIB.mcz_errdetail()))
    what = _s(LIB.mcz_strerror(rc))
    p = _esc(path)
    if rc == _E_IO:
        msg = "%s: %s" % (p, detail or os.strerror(errno))
    elif rc == _E_ISDIR:
        msg = "%s: %s, not a recording" % (p, what)
    else:
        msg = "%s: %s%s%s" % (p, what, ": " if detail else "", detail)
    return Error(msg, rc, path)


def _arr(addr, n, dtype):
    """A numpy view of n items of dtype at a C address (no copy)."""
    return np.frombuffer((ctypes.c_char * (n * np.dtype(dtype).itemsize)).from_address(addr),
                         dtype=dtype)


def _ns(seconds):
    """Seconds to ns rounded half away from zero, as `mcz dump --from` does."""
    x = float(seconds) * 1e9
    return int(np.copysign(np.floor(abs(x) + 0.5), x))


class Recording:
    """One recording, open for reading (see mcz.open).  Close it with
    close() or a with block; it is closed when collected too.

    path      what was opened; name: the member's name in a job file, or the
              file's base name
    meta      metadata (dict of str); rank and host: from it (None if absent)
    streams   list of Stream; topology: list of Topo; marks: list of Mark
    members   a job file's recordings (list of Recording), [] for a recording
    start_wall_ns  wall clock (ns since the epoch) of the first row
    nrows, duration (s from the first row to the last)

    Each open Recording keeps up to 160 bytes a row (32 to 256 MiB) of
    decoded columns (its reader's cache), so that reading stream after
    stream decodes the times and shared frames once.

    Times are seconds from the recording's first row, as float64: the time_s
    column of `mcz dump --csv`, to the nanosecond.  Values are as stored, as
    `mcz dump` prints them: counters as the raw cumulative values recorded
    (not rates; read(..., delta=True) gives the per-interval increments),
    gauges as sampled, before any `scale`.
    """

    def __init__(self, reader, path, strict=True, parent=None, member=None):
        self._r = reader
        self._members = None
        self._parent = parent  # a job file's Recording, kept open with its member
        self._member = member  # the index in it
        self.path = path
        self.strict = strict
        fi = LIB.mcz_info(reader).contents
        LIB.mcz_cache_limit(reader, _cache_bytes(fi.nrows))
        self._info = {k: getattr(fi, k) for k, _ in _lib.FileInfo._fields_}
        mb, ml = c_void_p(), c_size_t()
        mname = LIB.mcz_member_self(reader, byref(mb), byref(ml))
        self.name = _s(mname) if mname else os.path.basename(os.fspath(path))
        self.meta = {}
        k, v = c_char_p(), c_char_p()
        for i in range(LIB.mcz_meta_count(reader)):
            if LIB.mcz_meta_at(reader, i, byref(k), byref(v)) == 0:
                self.meta[_s(k.value)] = _s(v.value)
        rank = self.meta.get("rank")
        self.rank = int(rank) if rank is not None and rank.lstrip("-").isdigit() else None
        self.host = self.meta.get("host")
        self.topology = self._topology()
        self.streams = self._streams()
        self._keys = {}
        for s in self.streams:
            self._keys.setdefault(s.key, []).append(s.id)
            self._keys.setdefault(s.name, []).append(s.id)
        # opened by scanning: a file still being written, or damaged (the
        # blocks mcz check verifies, once, only for such a file)
        bad = self._damaged(at_open=True) if strict and fi.recovered else None
        if bad:
            raise bad

    # ---- life -------------------------------------------------------------
    def close(self):
        """Close the reader.  A job file's members stay readable until they
        are closed (libmcz keeps the job file's bytes for them)."""
        if self._r:
            LIB.mcz_close(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        n = LIB.mcz_member_count(self._r) if self._r else 0
        what = ("job file of %d recordings" % n if n else
                "%d streams, %d rows" % (len(self.streams), self.nrows))
        return "<mcz.Recording %s: %s>" % (self.path, what)

    def _reader(self):
        if not self._r:
            raise Error("%s: the recording is closed" % self.path, 0, self.path)
        return self._r

    # ---- what the recording holds ------------------------------------------
    @property
    def nrows(self):
        return self._info["nrows"]

    @property
    def duration(self):
        return (self._info["t_last"] - self._info["t_first"]) / 1e9

    @property
    def start_wall_ns(self):
        return self._info["wall_epoch_ns"] + self._info["t_first"]

    @property
    def info(self):
        """mcz_file_info as a dict (format version, sizes, rows, recovered...)."""
        return dict(self._info)

    def _topology(self):
        out = []
        for i in range(LIB.mcz_topo_count(self._r)):
            o = LIB.mcz_topo(self._r, i).contents
            ty = _TOPO_TYPES[o.type] if o.type < len(_TOPO_TYPES) else "other"
            out.append(Topo(i, ty, _s(o.name), o.os_index, o.size, o.parent))
        return out

    def _streams(self):
        out = []
        for i in range(LIB.mcz_stream_count(self._r)):
            d = LIB.mcz_stream(self._r, i).contents
            name, inst, note = _s(d.name), _s(d.instance), _s(d.note)
            kind = "counter" if d.kind == 0 else "gauge"
            sem = "counter" if d.kind == 0 else "instant"
            if note.startswith("pcp:"):  # the archive's own semantics (pcp-metric.c)
                for word in ("counter", "instant", "discrete"):
                    if (", %s, " % word) in note or note.startswith("pcp: %s, " % word):
                        sem = word
            topo = self.topology[d.topo] if 0 <= d.topo < len(self.topology) else None
            out.append(Stream(i, name, inst, "%s[%s]" % (name, inst) if inst else name,
                              _s(d.unit), sem, kind, _TYPES[min(d.type, 2)], _s(d.source),
                              _s(d.native), note, d.scale, topo, self.rank, self.host))
        return out

    @property
    def marks(self):
        """The marks, sorted by time (list of Mark)."""
        r, t0, out = self._reader(), self._info["t_first"], []
        for i in range(LIB.mcz_mark_count(r)):
            m = LIB.mcz_mark_at(r, i).contents
            kind = _MARK_KINDS[m.kind] if m.kind < len(_MARK_KINDS) else str(m.kind)
            out.append(Mark((m.t - t0) / 1e9, kind, m.source, _s(m.text)))
        return out

    @property
    def members(self):
        """A job file's recordings (mcz merge), each a Recording with its
        rank and host; [] for a recording of its own.  A member that cannot
        be opened (cut short: the job file ends inside it; damaged where its
        header is) raises Error, or with strict=False is left out with a
        warning."""
        if self._members is None:
            r, out = self._reader(), []
            for i in range(LIB.mcz_member_count(r)):
                sub = c_void_p()
                rc = LIB.mcz_member_open(r, i, 0, byref(sub))
                mpath = "%s:%s" % (os.fspath(self.path), _s(LIB.mcz_member_name(r, i)))
                if rc and self.strict:
                    raise error(rc, mpath)
                if rc:
                    warnings.warn(str(error(rc, mpath)) + " (left out)", stacklevel=2)
                    continue
                out.append(Recording(sub, mpath, self.strict, parent=self, member=i))
            self._members = out
        return self._members

    def stream(self, key):
        """The Stream named key: "name[instance]", a name that only one
        stream has, or a stream id."""
        return self.streams[self._sid(key)]

    def _sid(self, key):
        if isinstance(key, (int, np.integer)):
            if 0 <= key < len(self.streams):
                return int(key)
            raise KeyError("%s: no stream %d (of %d)" % (self.path, key, len(self.streams)))
        ids = self._keys.get(key)
        if not ids:
            raise KeyError("%s: no stream named %r" % (self.path, key))
        if len(set(ids)) > 1:
            raise KeyError("%s: %d streams are named %r: give name[instance] (%s, ...)"
                           % (self.path, len(ids), key, self.streams[ids[0]].key))
        return ids[0]

    def _not_job(self, what):
        if LIB.mcz_member_count(self._reader()):
            n = LIB.mcz_member_count(self._r)
            raise Error("%s is a job file of %d recording%s: %s one of its .members"
                        % (self.path, n, "" if n == 1 else "s", what), 0, self.path)

    # ---- damage -----------------------------------------------------------
    def _damaged(self, at_open=False):
        """The Error for a damaged recording: the line `mcz check` prints
        (check_say in format/cli/tool-check.c).  at_open: None when mcz
        check finds the file whole but without its index (INCOMPLETE: still
        being recorded, or its recorder killed), which reads as it is."""
        rep = _lib.CheckReport()
        if self._member is not None and self._parent._r:  # as mcz check JOB does
            rc = LIB.mcz_check_member(self._parent._r, self._member, byref(rep))
        else:
            rc = LIB.mcz_check(_b(self.path), byref(rep))
        if rc:
            return error(rc, self.path)
        problem = _s(rep.first_problem)
        clean = rep.index_ok and not rep.blocks_bad and not problem
        incomplete = not clean and not rep.index_ok and not rep.blocks_bad and \
            rep.valid_bytes == rep.file_bytes
        if at_open and (clean or incomplete):
            return None
        return Error("%s: DAMAGED: %s" % (_esc(self.path), problem or "damaged chunks"), -5,
                     self.path)

    def _after_read(self, damaged=False):
        """Raise (strict) or warn when a read met a damaged chunk (damaged:
        a clone of the reader met one)."""
        if damaged or LIB.mcz_damaged_count(self._r):
            e = self._damaged()
            if self.strict:
                raise e
            warnings.warn(str(e) + " (the rows of damaged chunks are left out)", stacklevel=3)

    # ---- samples ----------------------------------------------------------
    def _window(self, t0, t1):
        f = self._info["t_first"]
        a = f + _ns(t0) if t0 is not None else f
        b = f + _ns(t1) if t1 is not None else self._info["t_last"] + 1
        return a, b

    def _series(self, sid, a, b):
        """mcz_read of one stream over [a, b) ns (the caller frees it)."""
        s = _lib.Series()
        rc = LIB.mcz_read(self._r, sid, a, b, byref(s))
        if rc:
            raise error(rc, self.path)
        return s

    @staticmethod
    def _views(s, dtype):
        """Zero-copy numpy views of a series' t, v and present (valid until
        the series is freed)."""
        return _arr(s.t, s.n, np.int64), _arr(s.v, s.n, dtype), _arr(s.present, s.n, np.uint8)

    def read(self, key, t0=None, t1=None, delta=False, ns=False):
        """(times, values) of one stream's samples in [t0, t1) as numpy
        arrays, the rows without a value left out.

        key     "name[instance]", a name only one stream has, or a stream id
        t0, t1  seconds from the recording's first row (None: from the
                start, to the end), as `mcz dump --from T0 --to T1`
        delta   counters: the per-interval increments instead of the raw
                cumulative values (0 for the recording's first sample),
                modulo 2**64: one of 2**63 and more is a counter that
                went backwards (a reset), which has no rate (SPEC.md 7.3)
        ns      times as int64 ns from the first row instead of float64 s

        Values have the stream's type (uint64, int64, float64), as stored.
        """
        self._not_job("read")
        sid = self._sid(key)
        st = self.streams[sid]
        a, b = self._window(t0, t1)
        s = self._series(sid, a, b)
        f = self._info["t_first"]
        try:
            if s.n == 0:
                t = np.empty(0, np.int64 if ns else np.float64)
                v = np.empty(0, _DTYPES[_TYPES.index(st.type)])
            else:
                t, v, p = self._views(s, _DTYPES[_TYPES.index(st.type)])
                if delta and st.kind == "counter":
                    v = _arr(s.delta, s.n, np.uint64)
                keep = p.view(bool)
                if keep.all():  # each array copied once out of C memory
                    t, v = (t - f if ns else (t - f) / 1e9), v.copy()
                else:
                    t, v = t[keep] - f, v[keep]
                    t = t if ns else t / 1e9
        finally:
            LIB.mcz_series_free(byref(s))
        self._after_read()
        return t, v

    def to_pandas(self, streams=None, t0=None, t1=None, threads=None):
        """The samples as a pandas DataFrame: indexed by time (float64
        seconds from the first row, named "time_s"), one column per stream
        named by its key, NaN where a row has no value: `mcz dump --csv`
        read by pandas, value for value.  A column of integers with a value
        in every row keeps its type (uint64, int64), one with gaps becomes
        float64, as pandas.read_csv does; unless a value is beyond 2^53,
        which float64 cannot hold exactly: then it is pandas' nullable
        UInt64 or Int64, pd.NA where absent.

        streams  keys (or ids) of the streams to take, default all
        t0, t1   seconds, as read()
        threads  streams are decoded by this many threads at once, each
                 with a reader of its own (mcz_reader_clone; ctypes lets go
                 of the GIL in C), default: the CPUs this process may use,
                 up to 8, one for a small read
        """
        import pandas as pd

        self._not_job("read")
        sids = list(range(len(self.streams))) if streams is None else \
            [self._sid(k) for k in streams]
        a, b = self._window(t0, t1)
        k, nr = len(sids), self._info["nrows"]
        # windows of about 8192 rows: the chunks' decoded time column stays
        # in the reader's cache (_BULK_CACHE at least) while every stream of the
        # window is read, and the series stay small (in the CPU's caches,
        # not mapped afresh by malloc): of 10^8 values, windows of 42000
        # rows and an 8 MiB cache took 11 s, these 1.4 s
        per_row = (self._info["t_last"] - self._info["t_first"]) / (nr - 1) if nr > 1 else 1.0
        step = max(1, int(per_row * 8192))
        dts = [_DTYPES[_TYPES.index(self.streams[i].type)] for i in sids]
        # the whole run: one array per stream of the file's rows, filled in
        # place; a part: the windows' pieces, joined at the end
        whole = t0 is None and t1 is None
        cols = [np.empty(nr, d) for d in dts] if whole else [[] for _ in sids]
        gaps = [None] * k
        if threads is None:
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
                (os.cpu_count() or 1)
            threads = min(cpus, 8) if k * nr >= 1000000 else 1
        threads = max(1, min(int(threads), k))
        groups = [list(range(g, k, threads)) for g in range(threads)]
        readers = [self._reader()]
        try:
            for _ in groups[1:]:
                c = c_void_p()
                rc = LIB.mcz_reader_clone(self._r, byref(c))
                if rc:
                    raise error(rc, self.path)
                readers.append(c)
            for r in readers:  # the windows need no more (a larger cache is
                LIB.mcz_cache_limit(r, _BULK_CACHE)  # only more memory to fill)
            args = [(readers[g], groups[g], sids, dts, a, b, step, whole, cols, gaps)
                    for g in range(threads)]
            if threads == 1:
                done = [self._read_group(*args[0])]
            else:
                from concurrent.futures import ThreadPoolExecutor
                with ThreadPoolExecutor(threads) as pool:
                    done = list(pool.map(lambda x: self._read_group(*x), args))
            damaged = any(LIB.mcz_damaged_count(r) for r in readers[1:])
        finally:
            LIB.mcz_cache_limit(readers[0], _cache_bytes(nr))
            for c in readers[1:]:
                LIB.mcz_close(c)
        counts, times = done[0]
        for g, (cn, _) in enumerate(done[1:], 1):
            if cn != counts:  # every stream has a value or a gap in every row
                raise Error("%s: streams %s and %s have different rows"
                            % (self.path, self.streams[sids[0]].key,
                               self.streams[sids[g]].key), -5, self.path)
        self._after_read(damaged)
        at = sum(counts)
        t = np.concatenate(times) if times else np.empty(0, np.int64)
        if whole:
            cols = [c[:at] for c in cols]
            gaps = [g[:at] if g is not None else None for g in gaps]
        else:
            for j in range(k):
                if gaps[j] is not None:
                    gaps[j] = np.concatenate([gaps[j].get(i, np.zeros(len(c), bool))
                                              for i, c in enumerate(cols[j])])
                cols[j] = np.concatenate(cols[j]) if cols[j] else np.empty(0, dts[j])
        data = {}
        for j, sid in enumerate(sids):
            c = cols[j]
            if gaps[j] is not None and c.dtype != np.float64 and c.size and \
                    max(int(c.max()), -int(c.min())) > 2 ** 53:
                # float64 would not hold these integers exactly: pandas'
                # nullable integers instead (pd.NA where absent)
                c = pd.arrays.IntegerArray(c, gaps[j])
            elif gaps[j] is not None:
                c = c.astype(np.float64)  # NaN where absent, as read_csv gives
                c[gaps[j]] = np.nan
            data[self.streams[sid].key] = c
        index = pd.Index((t - self._info["t_first"]) / 1e9, name="time_s")
        if len(data) == len(sids):
            return pd.DataFrame(data, index=index, copy=False)
        # keys repeated (two streams of one name and instance): by position
        frame = pd.DataFrame({j: cols[j] for j in range(k)}, index=index, copy=False)
        frame.columns = [self.streams[sid].key for sid in sids]
        return frame

    def _read_group(self, r, js, sids, dts, a, b, step, whole, cols, gaps):
        """Streams sids[j], j in js, over [a, b) window by window with reader
        r into cols[j] (and gaps[j] where rows lack them): the rows of each
        window, and (when js holds the first stream) their times."""
        counts, times, at, w = [], [], 0, a
        nr = self._info["nrows"]
        present = np.empty(nr if whole else 0, np.uint8)  # mcz_read_into's
        got = c_size_t()
        while w < b and js:
            e = min(b, w + step)
            n0 = None
            for j in js:
                if whole and n0 is not None:
                    # after the window's first stream (its times, its row
                    # count): the values straight into the column, with
                    # no times, deltas or copy (10^8 values: 1.64 -> 1.35 s)
                    rc = LIB.mcz_read_into(r, sids[j], w, e,
                                           cols[j].ctypes.data + at * cols[j].itemsize,
                                           present.ctypes.data, nr - at, byref(got))
                    if rc:
                        raise error(rc, self.path)
                    if got.value != n0:
                        raise Error("%s: stream %s has %d rows in [%d, %d) ns, %s %d"
                                    % (self.path, self.streams[sids[j]].key, got.value, w, e,
                                       self.streams[sids[js[0]]].key, n0), -5, self.path)
                    if n0 and not present[:n0].all():
                        if gaps[j] is None:
                            gaps[j] = np.zeros(nr, bool)
                        gaps[j][at:at + n0] = present[:n0] == 0
                    continue
                s = _lib.Series()
                rc = LIB.mcz_read(r, sids[j], w, e, byref(s))
                if rc:
                    raise error(rc, self.path)
                try:
                    if n0 is None:
                        n0 = s.n
                        if s.n and js[0] == 0:
                            times.append(_arr(s.t, s.n, np.int64).copy())
                    if s.n != n0:
                        raise Error("%s: stream %s has %d rows in [%d, %d) ns, %s %d"
                                    % (self.path, self.streams[sids[j]].key, s.n, w, e,
                                       self.streams[sids[js[0]]].key, n0), -5, self.path)
                    if not s.n:
                        continue
                    _, v, p = self._views(s, dts[j])
                    miss = None if p.all() else p == 0
                    if whole:
                        cols[j][at:at + s.n] = v
                        if miss is not None:
                            if gaps[j] is None:
                                gaps[j] = np.zeros(nr, bool)
                            gaps[j][at:at + s.n] = miss
                    else:
                        cols[j].append(v.copy())
                        if miss is not None:
                            gaps[j] = gaps[j] or {}
                            gaps[j][len(cols[j]) - 1] = miss
                finally:
                    LIB.mcz_series_free(byref(s))
            counts.append(n0 or 0)
            at += n0 or 0
            w = e
        return counts, times

    # ---- code profile -----------------------------------------------------
    @property
    def code(self):
        """The code profile (mcrec's code source: where the command ran, per
        interval) as a pandas DataFrame, one row per interval and code
        location, with the columns of `mcz dump --code --csv`: time_s
        (the interval's start), samples, function (as stored), inlined, file,
        line, object, offset, name (demangled, mcz_code_name).  None when the
        recording has none."""
        import pandas as pd

        self._not_job("read the code profile of")
        cp = ctypes.POINTER(_lib.Code)()
        rc = LIB.mcz_code_get(self._reader(), byref(cp))
        if rc == _E_NOTFOUND:
            return None
        if rc:
            raise error(rc, self.path)
        c = cp.contents
        names = ("time_s", "samples", "function", "inlined", "file", "line", "object",
                 "offset", "name")
        if not c.nhits:
            return pd.DataFrame({k: [] for k in names})
        first = np.ctypeslib.as_array(c.first, shape=(c.nintervals + 1,))
        t = np.ctypeslib.as_array(c.t, shape=(c.nintervals,))
        hits = np.ctypeslib.as_array(c.hits, shape=(c.nhits,))
        raw = hits.view(np.uint32).reshape(-1, 2)
        loc, count = raw[:, 0], raw[:, 1]
        objs = [_s(c.objects[i].path) for i in range(c.nobjects)]
        fn, inl, fl, line, obj, off, full = [], [], [], [], [], [], []
        buf = ctypes.create_string_buffer(1024)
        for i in range(c.nlocs):  # per location, not per sample
            lo = c.locs[i]
            LIB.mcz_code_name(lo.function, buf, 1024, None, 0)
            fn.append(_s(lo.function))
            inl.append(_s(lo.inlined))
            fl.append(_s(lo.file))
            line.append(lo.line)
            obj.append(objs[lo.object] if lo.object < len(objs) else "")
            off.append(lo.offset)
            full.append(_s(buf.value))
        pick = lambda col: np.asarray(col, dtype=object)[loc]  # noqa: E731
        ti = np.repeat(t, np.diff(first).astype(np.int64))
        return pd.DataFrame({
            "time_s": (ti - self._info["t_first"]) / 1e9, "samples": count.astype(np.int64),
            "function": pick(fn), "inlined": pick(inl), "file": pick(fl),
            "line": np.asarray(line, np.int64)[loc], "object": pick(obj),
            "offset": np.asarray(off, np.uint64)[loc], "name": pick(full)})

    # ---- mcview's report --------------------------------------------------
    def report(self, *args):
        """The phase report (and a job's: ranks, imbalance...) as Python
        objects: the JSON of `mcview --report=json PATH` parsed.  Extra
        arguments go to mcview ("--phase-level", "fine").

        The analyses that make it (phase detection, classes, the job's
        figures) are viewer code (viewer/analysis), not libmcz's: it would
        take a second copy of them in a library to run them in-process, so
        the mcview beside the library (the build tree's, the installed one,
        or the PATH's) is run and its output read."""
        exe = _mcview()
        p = subprocess.run([exe, "--report=json", "-q", *args, os.fspath(self.path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode:
            err = p.stderr.decode(errors="replace").strip().splitlines()
            raise Error(err[-1] if err else "%s: mcview exited %d" % (self.path, p.returncode),
                        0, self.path)
        return json.loads(p.stdout)


def _mcview():
    """The mcview that sits beside the loaded library, else the PATH's."""
    places = [_lib.FOLDER]
    try:
        from . import _paths
        places.append(_paths.BINDIR)
    except ImportError:
        pass
    for d in places:
        if d and os.access(os.path.join(d, "mcview"), os.X_OK):
            return os.path.join(d, "mcview")
    exe = shutil.which("mcview")
    if not exe:
        raise Error("mcview not found (beside %s nor on the PATH): it makes the report"
                    % _lib.SONAME)
    return exe
