# _frame.py: Recording.to_pandas, the samples of many streams as one
# DataFrame (= `mcz dump --csv` read by pandas), read in two passes over the
# same windows of about 8192 rows:
#
#   1. the first stream, by one reader: each window's row count, the times
#      (the index) and that stream's values;
#   2. every other stream, by up to 8 threads with a reader each
#      (mcz_reader_clone), its values and presence written by mcz_read_into
#      straight into a column allocated once at the rows pass 1 found.
#
# So a part of the file ([t0, t1)) is read as the whole is, each column
# allocated once at its final size (pass 1's two at the file's rows, cut to
# the part's): no pieces joined at the end.  Of a column with gaps only a
# mask of its rows without a value is kept (1 byte a row), made NaN (or
# pd.NA) column by column at the end, each column's integers let go as soon
# as its float64 copy is made.
#
#     a, b = rec._window(t0, t1)                 # ns, checked (_recording.py)
#     frame = to_pandas(rec, sids, a, b, threads)

import os
from ctypes import byref, c_size_t

import numpy as np

from ._lib import LIB, MCZ_E_RANGE

_BULK_CACHE = 32 << 20  # the cache of each reader while to_pandas reads
_DTYPES = {"u64": np.uint64, "i64": np.int64, "f64": np.float64}


def _threads(asked, k, nr):
    """Threads for k streams of nr rows: asked, else the CPUs this process
    may use, up to 8, one for a small read; never more than the streams
    pass 2 reads."""
    if asked is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            (os.cpu_count() or 1)
        asked = min(cpus, 8) if k * nr >= 1000000 else 1
    return max(1, min(int(asked), k - 1))


def _first(rec, r, sid, dtype, a, b, step):
    """Pass 1: stream sid over [a, b) with reader r, window by window.
    Returns the windows [(w, e, row, n)] (n rows from row on), the index
    (s from the first row), the values and the mask of rows without one
    (None: none).  The index and the values are filled in place in arrays
    of the file's rows, then cut to those of [a, b) by realloc (the pages
    past them were never touched, and are given back)."""
    f, cap = rec._info["t_first"], rec.nrows
    wins, at, w = [], 0, a
    idx, col = np.empty(cap), np.empty(cap, dtype)
    miss = []
    while w < b:
        e = min(b, w + step)
        s = rec._series(r, sid, w, e)
        try:
            n = s.n
            if at + n > cap:
                raise rec._rows_error(sid, at + n, a, b, "the file's", cap)
            if n:
                t, v, p = rec._views(s, dtype)
                idx[at:at + n] = (t - f) / 1e9
                col[at:at + n] = v
                if not p.all():
                    miss.append((at, p == 0))
        finally:
            LIB.mcz_series_free(byref(s))
        if n:
            wins.append((w, e, at, n))
        at += n
        w = e
    if at < cap:
        idx.resize(at, refcheck=False)
        col.resize(at, refcheck=False)
    gaps = None
    if miss:
        gaps = np.zeros(at, bool)
        for row, m in miss:
            gaps[row:row + len(m)] = m
    return wins, idx, col, gaps


def _fill(rec, r, js, sids, wins, cols, gaps):
    """Pass 2: streams sids[j], j in js, with reader r into cols[j], window
    by window (every stream of a window while its times are in r's cache);
    gaps[j]: its rows without a value, where it has some."""
    got = c_size_t()
    present = np.empty(max((n for _, _, _, n in wins), default=0), np.uint8)
    for w, e, row, n in wins:
        for j in js:
            c = cols[j]
            rc = LIB.mcz_read_into(r, sids[j], w, e, c.ctypes.data + row * c.itemsize,
                                   present.ctypes.data, n, byref(got))
            if rc == MCZ_E_RANGE or (not rc and got.value != n):
                # every stream has a value or a gap in every row
                raise rec._rows_error(sids[j], "more" if rc else got.value, w, e,
                                      rec.streams[sids[0]].key, n)
            if rc:
                raise rec._error(rc)
            if not present[:n].all():
                if gaps[j] is None:
                    gaps[j] = np.zeros(len(c), bool)
                gaps[j][row:row + n] = present[:n] == 0


def _column(pd, c, gaps):
    """The frame's column from the values c and their gaps: as read_csv
    gives it, float64 with NaN where absent; integers beyond 2^53 (which
    float64 cannot hold exactly) pandas' nullable integers, pd.NA where
    absent."""
    if gaps is None:
        return c
    if c.dtype != np.float64 and c.size and max(int(c.max()), -int(c.min())) > 2 ** 53:
        return pd.arrays.IntegerArray(c, gaps)
    if c.dtype != np.float64:
        c = c.astype(np.float64)
    c[gaps] = np.nan
    return c


def to_pandas(rec, sids, a, b, threads):
    """The DataFrame of streams sids over [a, b) ns, see
    Recording.to_pandas."""
    import pandas as pd

    k, nr = len(sids), rec.nrows
    if not k:
        return pd.DataFrame(index=pd.Index(np.empty(0), name="time_s"))
    # windows of about 8192 rows: the chunks' decoded time column stays in
    # the reader's cache (_BULK_CACHE at least) while every stream of the
    # window is read, and the pieces stay small (in the CPU's caches, not
    # mapped afresh by malloc)
    per_row = (rec._info["t_last"] - rec._info["t_first"]) / (nr - 1) if nr > 1 else 1.0
    step = max(1, int(per_row * 8192))
    dts = [_DTYPES[rec.streams[i].type] for i in sids]
    nt = _threads(threads, k, nr)
    readers, damaged = [rec._take()], 0
    try:
        LIB.mcz_cache_limit(readers[0], _BULK_CACHE)  # the windows need no more
        wins, idx, col0, gap0 = _first(rec, readers[0], sids[0], dts[0], a, b, step)
        n = len(idx)
        cols = [col0] + [np.empty(n, d) for d in dts[1:]]
        gaps = [gap0] + [None] * (k - 1)
        if k > 1:
            with rec._lock:
                readers += [rec._clone(_BULK_CACHE) for _ in range(nt - 1)]
            groups = [list(range(1 + g, k, nt)) for g in range(nt)]
            args = [(rec, readers[g], groups[g], sids, wins, cols, gaps) for g in range(nt)]
            # the first group in this thread, where pass 1 filled its
            # reader's cache: in another, malloc would keep that cache's
            # memory in this thread's arena and a second one in its own
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max(1, nt - 1)) as pool:
                rest = [pool.submit(_fill, *x) for x in args[1:]]
                _fill(*args[0])
                for f in rest:
                    f.result()
        damaged = sum(LIB.mcz_damaged_count(r) for r in readers)
    finally:
        LIB.mcz_cache_limit(readers[0], rec._cache)
        rec._give(readers[0])
        for c in readers[1:]:
            rec._give(c, keep=False)
    rec._after_read(damaged)
    data = []
    for j in range(k):
        data.append(_column(pd, cols[j], gaps[j]))
        cols[j] = gaps[j] = None  # this column's integers and mask let go now
    index = pd.Index(idx, name="time_s")
    keys = [rec.streams[sid].key for sid in sids]
    if len(set(keys)) == k:
        return pd.DataFrame(dict(zip(keys, data)), index=index, copy=False)
    # keys repeated (two streams of one name and instance, as a PCP archive
    # whose instance number was used again): by position
    frame = pd.DataFrame(dict(enumerate(data)), index=index, copy=False)
    frame.columns = keys
    return frame
