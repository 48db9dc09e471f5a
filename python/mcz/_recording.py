# _recording.py: mcz.Recording, one open recording (an .mcz file, a job
# file's member, or a PCP archive converted by libmczpcp) read through
# libmcz: its streams, samples as numpy arrays or one pandas DataFrame,
# marks, metadata, code profile and mcview's report.  Samples are read in
# bulk: mcz_read fills a series in C, numpy copies it once out of C memory;
# no Python loop runs per value (the DataFrame: _frame.py).
#
# Threads: libmcz allows one thread at a time on a reader (mcz.h), and
# ctypes lets go of the GIL in every C call, so a Recording never hands its
# reader to two threads: each read takes an idle reader of the recording
# (_use), else a clone of it (mcz_reader_clone), and gives it back.  Clones
# and closes change the shared reader's count of users, so they happen
# under the recording's lock (a job file's, for its members).

import ctypes
import json
import math
import os
import shutil
import subprocess
import threading
import warnings
from collections import namedtuple
from contextlib import contextmanager
from ctypes import byref, c_char_p, c_size_t, c_void_p

import numpy as np

from . import _frame, _lib
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

_TOPO_TYPES, _MARK_KINDS, _TYPES = _lib.TOPO_TYPES, _lib.MARK_KINDS, _lib.TYPES
_DTYPES = (np.uint64, np.int64, np.float64)
_E_IO, _E_CORRUPT, _E_ARG = _lib.MCZ_E_IO, _lib.MCZ_E_CORRUPT, _lib.MCZ_E_ARG
_E_ISDIR, _E_NOTFOUND = _lib.MCZ_E_ISDIR, _lib.MCZ_E_NOTFOUND
# the units of a time given as text, as mcz dump takes them (longest first)
_UNITS = (("min", 60e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0), ("m", 60e9), ("s", 1e9),
          ("", 1e9))


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


def _ns(t):
    """A time bound in ns, read as `mcz dump --from/--to` reads one
    (tool_common_time in format/cli/tool-common.c): seconds (a number, or
    text with s, ms, us, ns, m or min after it), finite, within 9.2e18 ns
    either side of the first row, rounded half away from zero; else
    mcz.Error with mcz dump's line."""
    x = None
    try:
        if isinstance(t, (str, bytes)):
            text = t.decode() if isinstance(t, bytes) else t
            for unit, mul in _UNITS:
                if text.endswith(unit) and text[:len(text) - len(unit)].strip():
                    x = float(text[:len(text) - len(unit)]) * mul
                    break
        else:
            x = float(t) * 1e9
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        x = None
    if x is None or not math.isfinite(x) or abs(x) > 9.2e18:
        raise Error("bad time '%s' (seconds, or with ms/us/ns)" % (t,), _E_ARG)
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


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
    stream decodes the times and shared frames once.  Threads may share a
    Recording: each reads with a reader of its own (a clone, kept for the
    next read, with a cache of its own), so reads run side by side.

    Times are seconds from the recording's first row, as float64: the time_s
    column of `mcz dump --csv`, to the nanosecond.  Values are as stored, as
    `mcz dump` prints them: counters as the raw cumulative values recorded
    (not rates; read(..., delta=True) gives the per-interval increments),
    gauges as sampled, before any `scale`.
    """

    def __init__(self, reader, path, strict=True, parent=None, member=None):
        self._r = reader
        self._idle = [reader]  # readers no thread uses (_use)
        self._lock = parent._lock if parent else threading.RLock()
        self._members = None
        self._met_damage = False
        self._parent = parent  # a job file's Recording, kept open with its member
        self._member = member  # the index in it
        self.path = path
        self.strict = strict
        fi = LIB.mcz_info(reader).contents
        self._cache = _cache_bytes(fi.nrows)  # each reader's, between reads
        LIB.mcz_cache_limit(reader, self._cache)
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
        # blocks mcz check verifies, once, only for such a file); damaged
        # where its streams are, such a file reads as empty: never silently
        bad = self._damaged(at_open=True) if fi.recovered else None
        if bad and strict:
            raise bad
        if bad:
            warnings.warn(str(bad) + " (only its readable rows are read)", stacklevel=3)

    # ---- life -------------------------------------------------------------
    def close(self):
        """Close the reader.  A job file's members stay readable until they
        are closed (libmcz keeps the job file's bytes for them).  A read
        under way in another thread ends first, its reader closed then."""
        with self._lock:
            if self._r:
                for r in self._idle:
                    LIB.mcz_close(r)
                self._idle, self._r = [], None

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

    def _clone(self, cache):
        """A new reader over this recording's bytes, its cache bound to
        cache bytes (the caller holds the lock and closes it: _give)."""
        c = c_void_p()
        rc = LIB.mcz_reader_clone(self._reader(), byref(c))
        if rc:
            raise error(rc, self.path)
        LIB.mcz_cache_limit(c, cache)
        return c

    def _take(self):
        """A reader for the calling thread alone: an idle one, else a clone."""
        with self._lock:
            self._reader()
            return self._idle.pop() if self._idle else self._clone(self._cache)

    def _give(self, r, keep=True):
        """r is no longer used: kept for the next read (keep), else closed;
        closed too when the recording was closed meanwhile."""
        with self._lock:
            if not self._r:
                LIB.mcz_close(r)  # closed meanwhile: its last user closes it
            elif keep or r.value == self._r.value:
                self._idle.append(r)
            else:
                LIB.mcz_close(r)

    @contextmanager
    def _use(self):
        """with self._use() as r: a reader no other thread uses meanwhile."""
        r = self._take()
        try:
            yield r
        finally:
            self._give(r)

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
            kind = "counter" if d.kind == _lib.MCZ_COUNTER else "gauge"
            sem = "counter" if d.kind == _lib.MCZ_COUNTER else "instant"
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
        with self._lock:  # a member's reader counts as a user of the job's
            return self._open_members() if self._members is None else self._members

    def _open_members(self):
        r, out = self._reader(), []
        for i in range(LIB.mcz_member_count(r)):
            sub = c_void_p()
            rc = LIB.mcz_member_open(r, i, 0, byref(sub))
            mpath = "%s:%s" % (os.fspath(self.path), _s(LIB.mcz_member_name(r, i)))
            if rc and self.strict:
                raise error(rc, mpath)
            if rc:
                warnings.warn(str(error(rc, mpath)) + " (left out)", stacklevel=4)
                continue
            out.append(Recording(sub, mpath, self.strict, parent=self, member=i))
        self._members = out
        return out

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
            with self._lock:  # the job's (no read uses a job file's reader)
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
        return Error("%s: DAMAGED: %s" % (_esc(self.path), problem or "damaged chunks"),
                     _E_CORRUPT, self.path)

    def _after_read(self, damaged):
        """Raise (strict) or warn when a read met a damaged chunk (damaged:
        its reader met one), and at every read after one did."""
        self._met_damage = self._met_damage or bool(damaged)
        if self._met_damage:
            e = self._damaged()
            if self.strict:
                raise e
            warnings.warn(str(e) + " (the rows of damaged chunks are left out)", stacklevel=3)

    # ---- samples ----------------------------------------------------------
    def _window(self, t0, t1):
        """[a, b) in the file's ns for bounds t0, t1 in s from the first row
        (None: from the start, to the end), checked as mcz dump checks
        --from and --to (an empty range is a mistake), then held to the
        recording's rows: past them a read finds nothing, and libmcz takes
        int64."""
        a = _ns(t0) if t0 is not None else None
        b = _ns(t1) if t1 is not None else None
        if a is not None and b is not None and a >= b:
            raise Error("t0 %s is not before t1 %s" % (t0, t1), _E_ARG)
        f, end = self._info["t_first"], self._info["t_last"] + 1
        a = f if a is None else min(max(f + a, f), end)
        b = end if b is None else min(max(f + b, f), end)
        return a, b

    def _series(self, r, sid, a, b):
        """mcz_read of one stream over [a, b) ns (the caller frees it)."""
        s = _lib.Series()
        rc = LIB.mcz_read(r, sid, a, b, byref(s))
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
        with self._use() as r:
            t, v = self._read(r, st, a, b, delta, ns)
            damaged = LIB.mcz_damaged_count(r)
        self._after_read(damaged)
        return t, v

    def _read(self, r, st, a, b, delta, ns):
        s = self._series(r, st.id, a, b)
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

        A part (t0, t1) costs no more memory than the whole: each column is
        allocated once, at the rows the part has (_frame.py).
        """
        self._not_job("read")
        sids = list(range(len(self.streams))) if streams is None else \
            [self._sid(k) for k in streams]
        a, b = self._window(t0, t1)
        return _frame.to_pandas(self, sids, a, b, threads)

    def _error(self, rc):
        return error(rc, self.path)

    def _rows_error(self, sid, n, a, b, other, n_other):
        """The Error for a stream whose rows in [a, b) ns are not those of
        the others (every stream has a value or a gap in every row)."""
        return Error("%s: stream %s has %s rows in [%d, %d) ns, %s %d"
                     % (self.path, self.streams[sid].key, n, a, b, other, n_other),
                     _E_CORRUPT, self.path)

    # ---- code profile -----------------------------------------------------
    @property
    def code(self):
        """The code profile (mcrec's code source: where the command ran, per
        interval) as a pandas DataFrame, one row per interval and code
        location, with the columns of `mcz dump --code --csv`: time_s
        (the interval's start), samples, function (as stored), inlined, file,
        line, object, offset, name (demangled, mcz_code_name).  None when the
        recording has none."""
        self._not_job("read the code profile of")
        with self._use() as r:  # the profile is decoded into the reader
            return self._code(r)

    def _code(self, r):
        import pandas as pd

        cp = ctypes.POINTER(_lib.Code)()
        rc = LIB.mcz_code_get(r, byref(cp))
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
