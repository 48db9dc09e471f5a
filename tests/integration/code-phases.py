#!/usr/bin/env python3
"""code-phases.py: helper of code-record.sh.  Per busy phase of the
code-phases workload (its stderr gives the phases), the top function and
its share of the samples, from mcz (`mcz dump --code --csv`) and, when
given, from perf (`perf script -F time,ip,sym,srcline` of a run recorded
with -k mono); perf's samples are named through the file:line -> function
table of mcz's own profile (perf names inlined code by its caller).

  code-phases.py PHASES WALL_EPOCH_NS MCZ_CSV [PHASES2 PERF_SCRIPT]

Prints one line per busy phase: "NAME mcz FUNC SHARE [perf FUNC SHARE]".
Samples within 0.15 s of a phase's edges are left out (intervals of
0.1 s straddle them)."""
import collections, csv, os, sys

MARGIN = 0.15


def phases(path):
    start, out = None, []
    for line in open(path):
        f = line.split()
        if f[:1] == ['start']:
            start = (float(f[1]), float(f[2]))
        elif f[:1] == ['phase']:
            out.append((f[1], float(f[2]), float(f[3])))
    return start, out


def inside(t, a, b, width=0.0):
    return t >= a + MARGIN and t + width <= b - MARGIN


def top(counter):
    tot = sum(counter.values())
    if not tot:
        return ('-', 0.0, 0)
    f, n = counter.most_common(1)[0]
    return (f, n / tot, tot)


def main(a):
    (mono, real), ph = phases(a[0])
    epoch = int(a[1]) / 1e9
    off = real - epoch  # recording time of the workload's start
    rows = list(csv.DictReader(open(a[2])))
    # dump times are from the first row: 0 is t_first; t_first is printed by mcz info
    t_first = float(os.environ.get('MCZ_T_FIRST', '0'))
    byline = {}
    per = [collections.Counter() for _ in ph]
    for r in rows:
        t = float(r['time_s']) + t_first - off
        if r['file']:
            byline[(os.path.basename(r['file']), int(r['line']))] = r['function']
        for i, (_, s, e) in enumerate(ph):
            if inside(t, s, e, 0.1):
                per[i][r['function'] or r['object']] += int(r['samples'])
    pf = None
    if len(a) > 4:
        (mono2, _), ph2 = phases(a[3])
        pf = [collections.Counter() for _ in ph2]
        t = None
        for line in open(a[4]):
            f = line.split()
            if not f:
                continue
            if f[0].endswith(':') and len(f) >= 3:
                t = float(f[0][:-1]) - mono2
                sym = f[2]
                continue
            if t is None:
                continue
            fn = sym
            if ':' in f[0]:
                fl, _, ln = f[0].rpartition(':')
                if ln.isdigit():
                    fn = byline.get((os.path.basename(fl), int(ln)), sym)
            for i, (_, s, e) in enumerate(ph2):
                if inside(t, s, e):
                    pf[i][fn] += 1
            t = None
    for i, (name, s, e) in enumerate(ph):
        if name == 'idle':
            f, sh, n = top(per[i])
            print(f"{name} mcz {f} {sh:.3f} {n}")
            continue
        f, sh, n = top(per[i])
        line = f"{name} mcz {f} {sh:.3f} {n}"
        if pf:
            g, sh2, n2 = top(pf[i])
            line += f" perf {g} {sh2:.3f} {n2}"
        print(line)


main(sys.argv[1:])
