#!/usr/bin/env python3
"""pcp-compare.py: every value pmdumplog prints for a PCP archive equals the
value `mcz dump --json` shows for the same metric, instance and time in the
.mcz imported from it, and the .mcz holds no value pmdumplog does not show.

    pcp-compare.py ARCHIVE FILE.mcz MCZ_PROGRAM

Rules (format/SPEC.md, PCP import note):
  - integers: equal; a counter may differ by k * 2^32 where the importer
    unwrapped a 32-bit counter (stored mod 2^32 == printed value);
  - floating point: pmdumplog prints FLOAT with %.8g and DOUBLE with %.16g;
    the stored double, printed the same way, must give the same text;
  - strings, aggregates, events and "No values" are not numeric: absent;
  - time: pmdumplog -x in UTC (microseconds, or nanoseconds for v3), the
    .mcz's wall_epoch_ns + time; matched to the microsecond (+-2 us for the
    rounding of t_first in `mcz info`).
Prints one summary line; exit 0 when all match, 1 with the first mismatches.
"""
import calendar
import json
import os
import re
import subprocess
import sys

MONTHS = {m: i for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1)}
TS = re.compile(r"^\w{3} (\w{3}) +(\d+) (\d\d):(\d\d):(\d\d)\.(\d+) (\d{4})\s+(.*)$")
METRIC = re.compile(r"^    (\S+) \((.*?)\):(?: (.*))?$")
INST = re.compile(r'^(?:        )?inst \[(-?\d+) or (?:"(.*)"|\?\?\?)\] value (.*)$')
INT = re.compile(r"^-?\d+$")


def ts_us(m):
    mon, day, hh, mm, ss, frac, year = m.group(1, 2, 3, 4, 5, 6, 7)
    secs = calendar.timegm((int(year), MONTHS[mon], int(day), int(hh), int(mm), int(ss)))
    ns = int(frac.ljust(9, "0")[:9])
    return secs * 1000000 + (ns + 500) // 1000


def numeric(s):
    s = s.strip()
    if INT.match(s):
        return int(s)
    if s in ("nan", "-nan", "inf", "-inf"):
        return s
    try:
        float(s)
        return s  # keep pmdumplog's text for the float comparison
    except ValueError:
        return None  # "string", [aggregate], event records...


def pm_values(archive):
    env = dict(os.environ, TZ="UTC")
    p = subprocess.run(["pmdumplog", "-x", "-m", archive], capture_output=True, env=env)
    text = p.stdout.decode("utf-8", "replace")
    vals = {}  # (names tuple, instance) -> {t_us: value}
    t = None
    names = None
    for line in text.splitlines():
        m = TS.match(line)
        if m:
            t = ts_us(m)
            names = None
            continue
        m = METRIC.match(line)
        if m and t is not None:
            pmid, name, rest = m.groups()
            rest = rest or ""
            names = tuple(pmid if n == "<nonames>" else n for n in name.split(" or "))
            if "[" in name:  # event record parameter of an indom: not a value line
                names = None
                continue
            if rest.startswith("value "):
                v = numeric(rest[6:])
                if v is not None:
                    vals.setdefault((names, ""), {})[t] = v
            elif rest.startswith("inst "):
                add_inst(vals, names, t, rest)
            continue
        if line.startswith("        inst [") and names is not None:
            add_inst(vals, names, t, line.strip())
        elif not line.startswith("        "):
            names = None  # event record lines and the like end a metric
    return vals, p.returncode


def add_inst(vals, names, t, text):
    m = INST.match(text)
    if not m:
        return
    inst_id, inst_name, rest = m.groups()
    v = numeric(rest)
    if v is not None:
        vals.setdefault((names, inst_name if inst_name is not None else inst_id), {})[t] = v


def mcz_values(path, mcz):
    info = subprocess.run([mcz, "info", path], capture_output=True, text=True, check=True).stdout
    epoch = int(re.search(r"meta\s+wall_epoch_ns = (-?\d+)", info).group(1))
    t_first = float(re.search(r"\(t = (-?[\d.]+) \.\.", info).group(1))
    base_us = epoch / 1000.0 + t_first * 1e6
    out = subprocess.run([mcz, "dump", "--json", path], capture_output=True, check=True).stdout
    d = json.loads(out.decode("utf-8", "replace"))
    streams = d["streams"]
    vals = {}
    for j, s in enumerate(streams):
        vals[(s["name"], s["instance"])] = (j, s["kind"], {})
    col = [vals[(s["name"], s["instance"])][2] for s in streams]
    for row in d["rows"]:
        t = int(round(base_us + row[0] * 1e6))
        for j, v in enumerate(row[1:]):
            if v is not None:
                col[j][t] = v
    return vals


def same(mv, pv, kind):
    """-> 'exact', 'unwrapped' or None"""
    if isinstance(pv, int) and isinstance(mv, int):
        if mv == pv:
            return "exact"
        if kind == "counter" and -2**31 <= pv < 2**32 and mv % 2**32 == pv % 2**32:
            return "unwrapped"
        return None
    f = float(mv) if not isinstance(mv, str) else float(mv)
    ps = str(pv)
    if ps in ("nan", "-nan"):
        return "exact" if f != f else None
    for fmt in ("%.8g", "%.16g"):
        if fmt % f == ps:
            return "exact"
    return None


def main():
    archive, path, mcz = sys.argv[1:4]
    pm, rc = pm_values(archive)
    mc = mcz_values(path, mcz)
    n_pm = sum(len(v) for v in pm.values())
    n_mcz = sum(len(v[2]) for v in mc.values())
    ok = unwrapped = differ = 0
    bad = []
    for (names, inst), series in pm.items():
        hit = next((mc[(n, inst)] for n in names if (n, inst) in mc), None)
        if hit is None:
            bad.append("%s[%s]: %d values in pmdumplog, no stream in the .mcz" %
                       ("|".join(names), inst, len(series)))
            continue
        _, kind, ms = hit
        for t, pv in series.items():
            mv = next((ms[t + dt] for dt in (0, -1, 1, -2, 2) if t + dt in ms), None)
            if mv is None:
                bad.append("%s[%s] at %d us: pmdumplog %s, .mcz missing" %
                           (names[0], inst, t, pv))
                continue
            r = same(mv, pv, kind)
            if r is None:
                differ += 1
                bad.append("%s[%s] at %d us: pmdumplog %s, .mcz %s" %
                           (names[0], inst, t, pv, mv))
            else:
                ok += 1
                unwrapped += r == "unwrapped"
    if n_mcz != ok + differ:
        bad.append("%d values in the .mcz that pmdumplog does not show" % (n_mcz - ok - differ))
    name = os.path.basename(archive)
    print("%-34s pmdumplog %7d values, .mcz %7d, equal %7d (%d unwrapped 32-bit), "
          "mismatches %d" % (name, n_pm, n_mcz, ok, unwrapped, len(bad)))
    for b in bad[:10]:
        print("   ", b)
    if ok == 0 and n_pm > 0:
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
