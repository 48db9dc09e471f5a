# _lib.py: the ctypes door to libmcz.so.1 (format/mcz.h) and libmczpcp.so.1
# (format/pcp/pcp.h's pcp_open_any), as python3-pcp's pmapi.py is over
# libpcp: the C structures mirrored field for field, each function's
# argument and result types declared once, and where the libraries are.
#
# Where: $MCZ_LIB (the path of a libmcz.so.1), else the build tree this
# package sits in (python/mcz -> build/), else where `make install` put
# them (_paths.py, written at install), else the dynamic linker's search.
# libmczpcp is looked for beside the libmcz found, then by the linker; it
# takes libmcz from beside itself, so both share one copy in the process.
# Nothing is compiled at install time.

import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_longlong, c_size_t, c_uint, c_uint8, c_uint16, c_uint32,
                    c_uint64, c_void_p)

SONAME = "libmcz.so.1"
PCP_SONAME = "libmczpcp.so.1"
HERE = os.path.dirname(os.path.abspath(__file__))


# mcz_err
MCZ_OK = 0
MCZ_E_IO, MCZ_E_NOMEM, MCZ_E_NOTMCZ, MCZ_E_VERSION, MCZ_E_CORRUPT = -1, -2, -3, -4, -5
MCZ_E_TRUNCATED, MCZ_E_ARG, MCZ_E_RANGE, MCZ_E_STATE, MCZ_E_NOSPC = -6, -7, -8, -9, -10
MCZ_E_EMPTY, MCZ_E_ISDIR, MCZ_E_NOTFOUND = -11, -12, -13
# mcz_kind
MCZ_COUNTER, MCZ_GAUGE = 0, 1
# the names of mcz_type's, mcz_topo_type's and mcz_mark_kind's values, by
# value (MCZ_U64 = 0: "u64", MCZ_TOPO_MACHINE = 0: "machine", ...)
TYPES = ("u64", "i64", "f64")
TOPO_TYPES = ("machine", "package", "numa", "l3", "l2", "l1", "core", "pu", "gpu", "nic",
              "other")
MARK_KINDS = ("point", "begin", "end", "gap")


class StreamDesc(Structure):
    C_NAME = "mcz_stream_desc"
    _fields_ = [("id", c_uint32), ("name", c_char_p), ("source", c_char_p),
                ("native", c_char_p), ("unit", c_char_p), ("note", c_char_p),
                ("instance", c_char_p), ("kind", c_uint8), ("type", c_uint8),
                ("flags", c_uint16), ("scale", c_double), ("topo", c_int32)]


class TopoObj(Structure):
    C_NAME = "mcz_topo_obj"
    _fields_ = [("parent", c_int32), ("type", c_uint8), ("os_index", c_int32),
                ("size", c_uint64), ("name", c_char_p)]


class Mark(Structure):
    C_NAME = "mcz_mark"
    _fields_ = [("t", c_int64), ("kind", c_uint8), ("source", c_uint32), ("text", c_char_p)]


class FileInfo(Structure):
    C_NAME = "mcz_file_info"
    _fields_ = [("version_major", c_uint16), ("version_minor", c_uint16),
                ("file_bytes", c_uint64), ("nrows", c_uint64), ("nchunks", c_uint64),
                ("nvalues", c_uint64), ("t_first", c_int64), ("t_last", c_int64),
                ("wall_epoch_ns", c_int64), ("recovered", c_int),
                ("valid_bytes", c_uint64), ("skipped_blocks", c_uint64),
                ("sample_bytes", c_uint64), ("nparts", c_uint64), ("part_rows", c_uint64)]


class Series(Structure):
    C_NAME = "mcz_series"
    # addresses of int64 t[n], mcz_value v[n] (8-byte unions: read as the
    # stream's type), uint64 delta[n] (counters), uint8 present[n]
    _fields_ = [("n", c_size_t), ("t", c_void_p), ("v", c_void_p), ("delta", c_void_p),
                ("present", c_void_p)]


class CheckReport(Structure):
    C_NAME = "mcz_check_report"
    _fields_ = [("blocks_ok", c_uint64), ("blocks_bad", c_uint64), ("chunks_ok", c_uint64),
                ("rows_ok", c_uint64), ("valid_bytes", c_uint64), ("file_bytes", c_uint64),
                ("index_ok", c_int), ("first_problem", c_char * 160)]


class CodeObject(Structure):
    C_NAME = "mcz_code_object"
    _fields_ = [("path", c_char_p), ("build_id", c_char_p), ("note", c_char_p)]


class CodeLoc(Structure):
    C_NAME = "mcz_code_loc"
    _fields_ = [("object", c_uint32), ("offset", c_uint64), ("how", c_uint8),
                ("function", c_char_p), ("inlined", c_char_p), ("file", c_char_p),
                ("line", c_uint32)]


class CodeHit(Structure):
    C_NAME = "mcz_code_hit"
    _fields_ = [("loc", c_uint32), ("count", c_uint32)]


class Code(Structure):
    C_NAME = "mcz_code"
    _fields_ = [("event", c_char_p), ("period", c_uint64), ("interval_ns", c_int64),
                ("note", c_char_p), ("nobjects", c_size_t), ("objects", POINTER(CodeObject)),
                ("nlocs", c_size_t), ("locs", POINTER(CodeLoc)),
                ("nintervals", c_size_t), ("t", POINTER(c_int64)), ("first", POINTER(c_size_t)),
                ("nhits", c_size_t), ("hits", POINTER(CodeHit)),
                ("ncallers", c_size_t), ("callers", c_void_p),
                ("nthreads", c_size_t), ("threads", c_void_p), ("nthits", c_size_t),
                ("thits", c_void_p), ("nframes", c_size_t), ("frames", c_void_p),
                ("nstackhits", c_size_t), ("stackhits", c_void_p)]


class PcpImportOpts(Structure):
    C_NAME = "pcp_import_opts"
    _fields_ = [("metrics", c_char_p), ("ssh_options", c_void_p), ("progress", c_void_p),
                ("progress_arg", c_void_p), ("zstd_level", c_int), ("view", c_int),
                ("cache_max", c_longlong), ("note", c_char_p), ("notelen", c_size_t),
                ("first_ms", c_int), ("pending", c_void_p)]


Reader = c_void_p
PReader = POINTER(c_void_p)

# name: (result, argument types)
_PROTOS = {
    "mcz_strerror": (c_char_p, [c_int]),
    "mcz_errdetail": (c_char_p, []),
    "mcz_open": (c_int, [PReader, c_char_p, c_uint]),
    "mcz_close": (None, [Reader]),
    "mcz_reader_clone": (c_int, [Reader, PReader]),
    "mcz_info": (POINTER(FileInfo), [Reader]),
    "mcz_meta_count": (c_size_t, [Reader]),
    "mcz_meta_at": (c_int, [Reader, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    "mcz_topo_count": (c_size_t, [Reader]),
    "mcz_topo": (POINTER(TopoObj), [Reader, c_size_t]),
    "mcz_stream_count": (c_size_t, [Reader]),
    "mcz_stream": (POINTER(StreamDesc), [Reader, c_size_t]),
    "mcz_mark_count": (c_size_t, [Reader]),
    "mcz_mark_at": (POINTER(Mark), [Reader, c_size_t]),
    "mcz_read": (c_int, [Reader, c_uint32, c_int64, c_int64, POINTER(Series)]),
    "mcz_read_into": (c_int, [Reader, c_uint32, c_int64, c_int64, c_void_p, c_void_p, c_size_t,
                              POINTER(c_size_t)]),
    "mcz_series_free": (None, [POINTER(Series)]),
    "mcz_damaged_count": (c_size_t, [Reader]),
    "mcz_cache_limit": (None, [Reader, c_size_t]),
    "mcz_code_get": (c_int, [Reader, POINTER(POINTER(Code))]),
    "mcz_code_name": (c_int, [c_char_p, c_char_p, c_size_t, c_char_p, c_size_t]),
    "mcz_member_count": (c_size_t, [Reader]),
    "mcz_member_expected": (c_size_t, [Reader]),
    "mcz_member_is_cut": (c_int, [Reader, c_size_t]),
    "mcz_member_name": (c_char_p, [Reader, c_size_t]),
    "mcz_member_open": (c_int, [Reader, c_size_t, c_uint, PReader]),
    "mcz_member_self": (c_char_p, [Reader, POINTER(c_void_p), POINTER(c_size_t)]),
    "mcz_check": (c_int, [c_char_p, POINTER(CheckReport)]),
    "mcz_check_member": (c_int, [Reader, c_size_t, POINTER(CheckReport)]),
    "mcz_termsafe": (c_size_t, [c_char_p, c_size_t, c_char_p]),
}
_PCP_PROTOS = {
    "pcp_import_claims": (c_int, [c_char_p]),
    "pcp_open_any": (c_int, [PReader, c_char_p, POINTER(PcpImportOpts), c_char_p, c_size_t]),
}


def _candidates():
    """Paths of libmcz.so.1 to try, in order (see the top of this file)."""
    env = os.environ.get("MCZ_LIB")
    if env:
        return [env]  # asked for: that one or an error, never another
    out = [os.path.join(HERE, "..", "..", "build", SONAME)]
    try:
        from . import _paths  # written by make install
        out.append(os.path.join(_paths.LIBDIR, SONAME))
    except ImportError:
        pass
    return [p for p in out if os.path.exists(p)] + [SONAME]


def _declare(lib, protos):
    for name, (res, args) in protos.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def load():
    """(libmcz, libmczpcp or None, the folder libmcz came from or None)."""
    err = None
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path, use_errno=True)
            break
        except OSError as e:
            err = e
    else:
        raise ImportError("mcz: cannot load %s (%s); build it (make shlib) or set MCZ_LIB "
                          "to its path" % (SONAME, err))
    _declare(lib, _PROTOS)
    folder = os.path.dirname(os.path.abspath(path)) if os.sep in path else None
    pcp = None
    for p in ([os.path.join(folder, PCP_SONAME)] if folder else []) + [PCP_SONAME]:
        if p != PCP_SONAME and not os.path.exists(p):
            continue
        try:
            pcp = ctypes.CDLL(p)
            _declare(pcp, _PCP_PROTOS)
            break
        except (OSError, AttributeError):
            pcp = None  # PCP archives then cannot be opened; .mcz files can
    return lib, pcp, folder


LIB, PCP, FOLDER = load()
