# py-abi.py: python/mcz/_lib.py's ctypes mirrors against the C headers
# (py-abi.sh runs it):
#   - every ctypes Structure of _lib.py names the C structure it mirrors
#     (C_NAME); its sizeof, and each field's name, offset and size, are the
#     compiler's (tests/tools/abi-layout);
#   - the members the compiler was asked about are all those the header
#     declares (read from format/mcz.h, format/pcp/pcp.h), so a member
#     added in C fails here even where it fits in padding;
#   - the constants _lib.py copies (MCZ_E_*, MCZ_COUNTER...) have the C
#     values, and its tables of names by value (TYPES, TOPO_TYPES,
#     MARK_KINDS) hold every value of their enum in order.
#
#   python3 py-abi.py ABI-LAYOUT _lib.py mcz.h pcp.h

import ctypes
import importlib.util
import re
import subprocess
import sys

ENUMS = {"mcz_err": None, "mcz_kind": None, "mcz_type": "TYPES",
         "mcz_topo_type": "TOPO_TYPES", "mcz_mark_kind": "MARK_KINDS"}
bad = []


def fail(msg):
    bad.append(msg)
    print("FAIL: " + msg)


def compiler(helper):
    """{struct: (size, [(member, offset, size)])}, {const: value}"""
    structs, consts = {}, {}
    for line in subprocess.run([helper], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        w = line.split()
        if w[0] == "struct":
            structs[w[1]] = (int(w[2]), [])
        elif w[0] == "field":
            structs[w[1]][1].append((w[2], int(w[3]), int(w[4])))
        elif w[0] == "const":
            consts[w[1]] = int(w[2])
    return structs, consts


def declarator_name(d):
    """The name a member declarator declares: "*name", "name[160]", "(*name)(...)"."""
    m = re.match(r"[^(]*\(\s*\*\s*(\w+)\s*\)", d)
    if m:
        return m.group(1)
    m = re.search(r"(\w+)\s*(\[[^]]*\]\s*)*$", d)
    if not m:
        raise ValueError("cannot read the member declarator '%s'" % d)
    return m.group(1)


def members(body):
    """The members a structure's body declares, in order."""
    out = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        # "uint64_t a, b" declares a and b; the type is before the first
        first, *more = re.split(r",(?![^(]*\))", decl)
        out.append(declarator_name(first))
        out += [declarator_name(d) for d in more]
    return out


def header(paths):
    """{struct: its body}, {enum: [constant...]} as the headers declare them."""
    structs, enums = {}, {}
    for p in paths:
        text = open(p).read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        for name, body in re.findall(r"typedef\s+struct\s+(\w+)\s*\{([^}]*)\}", text):
            structs[name] = body
        for name, body in re.findall(r"typedef\s+enum\s+(\w+)\s*\{([^}]*)\}", text):
            enums[name] = [c.split("=")[0].strip() for c in body.split(",") if c.strip()]
    return structs, enums


def main():
    helper, libpy, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    spec = importlib.util.spec_from_file_location("mcz_lib_under_test", libpy)
    lib = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lib)
    c_structs, c_consts = compiler(helper)
    h_structs, h_enums = header(headers)

    mirrored = set()
    classes = [v for v in vars(lib).values()
               if isinstance(v, type) and issubclass(v, ctypes.Structure)
               and v.__module__ == lib.__name__]
    for cls in classes:
        cname = getattr(cls, "C_NAME", None)
        if cname not in c_structs:
            fail("_lib.py's %s mirrors %s: abi-layout does not list it (C_NAME)" %
                 (cls.__name__, cname))
            continue
        mirrored.add(cname)
        csize, cfields = c_structs[cname]
        pnames = [f[0] for f in cls._fields_]
        hnames = members(h_structs[cname]) if cname in h_structs else None
        if hnames != [f[0] for f in cfields]:
            fail("%s: the header declares %s; abi-layout lists %s" %
                 (cname, hnames, [f[0] for f in cfields]))
        if pnames != hnames:
            fail("%s: the header declares %s; _lib.py's %s mirrors %s" %
                 (cname, hnames, cls.__name__, pnames))
        if ctypes.sizeof(cls) != csize:
            fail("%s: sizeof %d in C, %d in _lib.py's %s" %
                 (cname, csize, ctypes.sizeof(cls), cls.__name__))
        for m, off, size in cfields:
            f = getattr(cls, m, None)
            if f is None:
                continue  # said above
            if (f.offset, f.size) != (off, size):
                fail("%s.%s: offset %d size %d in C, offset %d size %d in _lib.py's %s" %
                     (cname, m, off, size, f.offset, f.size, cls.__name__))
    for cname in sorted(set(c_structs) - mirrored):
        fail("abi-layout lists %s, which no Structure of _lib.py mirrors" % cname)

    # constants: by name, or as a table of names by value
    c_enum = {}
    for enum, consts in h_enums.items():
        if enum in ENUMS:
            for c in consts:
                c_enum[c] = enum
    for enum in ENUMS:
        if enum not in h_enums:
            fail("the headers declare no enum %s" % enum)
    if sorted(c_enum) != sorted(c_consts):
        fail("the enums declare %s; abi-layout lists %s" %
             (sorted(set(c_enum) - set(c_consts)), sorted(set(c_consts) - set(c_enum))))
    for c, v in c_consts.items():
        table = ENUMS.get(c_enum.get(c))
        if table is None:
            if getattr(lib, c, None) != v:
                fail("%s = %d in C, %s in _lib.py" % (c, v, getattr(lib, c, "absent")))
            continue
        names = getattr(lib, table)
        # MCZ_TOPO_PU -> "pu", MCZ_MARK_GAP -> "gap", MCZ_F64 -> "f64"
        want = re.sub(r"^MCZ_(TOPO_|MARK_)?", "", c).lower()
        if not 0 <= v < len(names) or names[v] != want:
            fail("%s = %d in C; _lib.py's %s: %s" % (c, v, table, names))
    for table in {t for t in ENUMS.values() if t}:
        n = sum(1 for c in c_consts if ENUMS.get(c_enum.get(c)) == table)
        if len(getattr(lib, table)) != n:
            fail("_lib.py's %s has %d names, its enum %d values" %
                 (table, len(getattr(lib, table)), n))
    for k, v in vars(lib).items():
        if k.startswith("MCZ_") and isinstance(v, int) and k not in c_consts:
            fail("_lib.py's %s: abi-layout does not list it" % k)

    if bad:
        return 1
    print("ok: %d structures (%d fields) and %d constants as the compiler lays them out" %
          (len(mirrored), sum(len(c_structs[c][1]) for c in mirrored), len(c_consts)))
    return 0


sys.exit(main())
