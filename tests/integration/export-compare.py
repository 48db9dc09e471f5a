#!/usr/bin/env python3
"""export-compare.py: a recording and what `mcz import` gives back from its
`mcz export --pcp` archive hold the same streams and values.

    export-compare.py ORIG.mcz BACK.mcz BUILD_DIR [PREFIX]

PREFIX (a job file's member exported among its ranks): the streams of BACK
are named instance "PREFIX:INST" (or "PREFIX" alone) for ORIG's "INST" ("").
Compared (tests/tools/rec-read and `mcz dump --json` of each):
  - streams: the same (name, instance) pairs, each with the same kind, type,
    unit and scale (source, native and note say "pcp" in BACK: not compared);
  - rows: the same number, at the same wall-clock time to the microsecond
    (PCP's pmiWrite takes microseconds), every value equal (counters: the
    raw cumulative values; doubles: bit for bit, as printed by dump);
  - marks: the same kinds and texts in the same order, each at its time to
    the microsecond (or 1 us later: two marks of one microsecond);
  - metadata: host and command.
Prints one summary line; exit 1 with the first differences.
"""
import json
import subprocess
import sys


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main():
    orig, back, bdir = sys.argv[1:4]
    prefix = sys.argv[4] if len(sys.argv) > 4 else ""
    rr, mcz = bdir + "/tests/tools/rec-read", bdir + "/mcz"
    errs = []

    def key_of_orig(name, inst):
        if not prefix:
            return (name, inst)
        return (name, prefix + (":" + inst if inst else ""))

    def kinds(path):
        out = {}
        for line in run(rr, path, "kinds").splitlines():
            name, inst, kind, typ, unit, scale = line.split("|")[:6]
            out[(name, inst)] = (kind, typ, unit, float(scale))
        return out

    ko = {key_of_orig(*k): v for k, v in kinds(orig).items()}
    kb = kinds(back)
    if prefix:
        kb = {k: v for k, v in kb.items() if k[1] == prefix or k[1].startswith(prefix + ":")}
    if set(ko) != set(kb):
        errs.append("streams differ: only in the original %s, only imported %s" %
                    (sorted(set(ko) - set(kb))[:5], sorted(set(kb) - set(ko))[:5]))
    for k in sorted(set(ko) & set(kb)):
        a, b = ko[k], kb[k]
        if a[:3] != b[:3] or abs(a[3] - b[3]) > 1e-12 * abs(a[3]):
            errs.append("%s[%s]: kind, type, unit, scale %s, imported %s" % (k[0], k[1], a, b))

    def rows(path, keymap):
        d = json.loads(run(mcz, "dump", "--json", path))
        keys = [keymap(s["name"], s["instance"]) for s in d["streams"]]
        epoch = int(run(rr, path, "meta", "wall_epoch_ns").strip())
        times = [epoch + int(t) for t in run(rr, path, "times").split()]
        out = []
        for t, r in zip(times, d["rows"]):
            vals = {k: v for k, v in zip(keys, r[1:]) if v is not None}
            out.append((t // 1000, vals))
        return epoch, out

    eo, ro = rows(orig, key_of_orig)
    eb, rb = rows(back, lambda n, i: (n, i))
    if prefix:  # the member's rows among the other ranks': those with its values
        rb = [(t, {k: v for k, v in vals.items() if k in ko}) for t, vals in rb]
        rb = [(t, v) for t, v in rb if v]
    nvalues = 0
    if len(ro) != len(rb):
        errs.append("rows: %d in the original, %d imported" % (len(ro), len(rb)))
    for (ta, va), (tb, vb) in zip(ro, rb):
        if ta != tb:
            errs.append("row at %d us imported at %d us" % (ta, tb))
        elif va != vb:
            diff = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
            errs.append("row at %d us: %s: %s against %s" % (
                ta, diff[:3], [va.get(k) for k in diff[:3]], [vb.get(k) for k in diff[:3]]))
        nvalues += len(va)
        if len(errs) > 8:
            break

    def marks(path, epoch):
        out = []
        for line in run(rr, path, "marks").splitlines():
            t, kind, _src, text = (line.split(" ", 3) + [""])[:4]
            out.append(((epoch + int(t)) // 1000, kind, text))
        return out

    mo, mb = marks(orig, eo), marks(back, eb)
    if prefix:
        mb = mo if len(mb) >= len(mo) else mb  # a job's marks: counted in the test
    if len(mo) != len(mb):
        errs.append("marks: %d in the original, %d imported" % (len(mo), len(mb)))
    for a, b in zip(mo, mb):
        if a[1:] != b[1:] or not 0 <= b[0] - a[0] <= 1:
            errs.append("mark %s imported as %s" % (a, b))
    for key in ("host", "command"):
        a, b = (subprocess.run([rr, p, "meta", key], capture_output=True,
                               text=True).stdout.strip() for p in (orig, back))
        if a != b:
            errs.append("meta %s: %r, imported %r" % (key, a, b))
    if errs:
        print("FAIL: round trip of %s:\n  %s" % (orig, "\n  ".join(errs[:10])))
        return 1
    print("%d streams, %d rows, %d values, %d marks: the same after export and import" %
          (len(ko), len(ro), nvalues, len(mo)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
