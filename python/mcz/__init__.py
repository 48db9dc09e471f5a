"""mcz: read mcz recordings (.mcz files, job files, PCP archives) into numpy
and pandas.

A thin layer of ctypes over libmcz.so.1 (format/mcz.h), as python3-pcp is
over libpcp: nothing is compiled at install time.  PCP archives are opened
through libmczpcp.so.1 (pcp_open_any), which converts them into a private
temporary recording first.

    import mcz
    with mcz.open("run.mcz") as rec:
        print(rec.meta["host"], [s.key for s in rec.streams])
        t, v = rec.read("core.instructions[cpu0]", 1.0, 2.5)   # numpy arrays
        df = rec.to_pandas()             # = mcz dump --csv, as a DataFrame
        rep = rec.report()               # = mcview --report=json, parsed

    job = mcz.open("job.mcz")            # mcz merge's job file
    for r in job.members:
        print(r.rank, r.host, r.to_pandas()["mem.read_bytes"].diff().max())

Times are seconds from the recording's first row (the time_s column of
`mcz dump --csv`); values are as stored (counters as raw cumulative values,
as mcz dump prints them).  Errors raise mcz.Error with the one line mcz's
programs print; time bounds are checked as `mcz dump --from --to` checks
them (mcz.Error "bad time '1e+30' (seconds, or with ms/us/ns)").

Threads: a Recording may be read by several threads at once (read,
to_pandas, members, code...): each thread reads with a reader of its own
(a clone of the recording's, libmcz allowing one thread per reader), so
their reads run side by side; ctypes lets go of the GIL in libmcz.

Damage is never silent: a damaged or cut file, or a PCP archive libpcp
could not read to its end, raises mcz.Error, or with strict=False warns
(warnings.warn, naming what is lost) and reads what is readable.

The library is found through $MCZ_LIB (a path to a libmcz.so.1), else the
build tree this package is in (build/), else where `make install` put it,
else the system's.
"""

import os
import warnings

from . import _lib
from ._lib import LIB, PCP
from ._recording import _E_CORRUPT, Error, Mark, Recording, Stream, Topo, _esc, error

__all__ = ["open", "Recording", "Stream", "Topo", "Mark", "Error", "library"]


def library():
    """The path of the libmcz.so.1 in use (None: found by the dynamic linker)."""
    return os.path.join(_lib.FOLDER, _lib.SONAME) if _lib.FOLDER else None


def open(path, strict=True):  # noqa: A001 (as io.open, tarfile.open)
    """Open a recording and return a Recording.

    path    an .mcz file; a job file (mcz merge: its ranks in .members); a
            member of one as "JOB.mcz:NAME"; or a PCP archive (base name,
            volume, .meta, folder, folio), converted by libmczpcp
    strict  True (default): a damaged file raises mcz.Error with the line
            `mcz check` gives ("PATH: DAMAGED: ..."), at open or when a read
            reaches a damaged chunk; a PCP archive libpcp cannot read to its
            end (a volume cut short or corrupt, an unusable .index) raises
            the line `mcz import` warns with; False: a warning instead, and
            the readable rows are returned.

    Raises mcz.Error (file missing, not a recording, damaged, an archive
    libpcp refuses...).
    """
    p = os.fsencode(path)
    r = _lib.c_void_p()
    if PCP is not None and PCP.pcp_import_claims(p):
        o = _lib.PcpImportOpts()
        o.view = 1        # converted to be read now, not kept: a fast zstd level
        o.cache_max = -1  # nothing written into the user's cache folder
        err = _lib.ctypes.create_string_buffer(1024)
        rc = PCP.pcp_open_any(_lib.ctypes.byref(r), p, _lib.ctypes.byref(o), err, 1024)
        if rc:
            raise Error(err.value.decode("utf-8", "replace"), rc, path)
        rec = Recording(r, path, strict)
        # where libpcp stopped and why (SPEC-PCP.md's import_warning)
        cut = rec.meta.get("import_warning")
        if cut:
            line = "%s (%d rows read)" % (_esc(cut), rec.nrows)
            if strict:
                rec.close()
                raise Error(line, _E_CORRUPT, path)
            warnings.warn(line, stacklevel=2)
        return rec
    rc = LIB.mcz_open(_lib.ctypes.byref(r), p, 0)
    if rc:
        raise error(rc, path)
    return Recording(r, path, strict)
