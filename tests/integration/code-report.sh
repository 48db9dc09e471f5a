#!/usr/bin/env bash
# code-report.sh: issue 16's "must show" on an unseen workload of 5 phases
# of 3 s (compute, stream, idle, stream, compute; tests/tools/code-phases.c,
# kernels inlined into main at -O2), recorded with mcrec's defaults on a
# machine without a hardware PMU: `mcview --report=json` finds the 4
# boundaries within 0.35 s with at most 1 spurious one, names the right
# function for each busy phase (-g), gives the two compute phases one class
# and the two stream phases another, and finds the boundaries without -g
# too.  A file without a code profile has "code": [] in every phase.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc
MCZ=$B/mcz
MCVIEW=$B/mcview
PH=${CODE_PHASE_S:-3}
export MCVIEW_PHASE_CACHE=0

cc -O2 -g -o "$T/work-g" tests/tools/code-phases.c || fail "cc -g"
cc -O2 -o "$T/work" tests/tools/code-phases.c || fail "cc"

check() { # name file.mcz workload.err want-functions(0/1)
	"$MCVIEW" --report=json "$2" >"$T/$1.json" || fail "$1: mcview --report=json exit $?"
	epoch=$("$MCZ" info "$2" | awk '$2 == "wall_epoch_ns" { print $4 }')
	first=$("$MCZ" dump "$2" --csv --streams code.samples | awk -F, 'NR == 2 { print $1; exit }')
	python3 - "$T/$1.json" "$3" "$epoch" "$4" <<'PY' || fail "$1: see above"
import json, sys
rep = json.load(open(sys.argv[1]))
start = None
truth = []
for line in open(sys.argv[2]):
    f = line.split()
    if f[:1] == ['start']:
        start = float(f[2]) - int(sys.argv[3]) / 1e9  # recording time of the workload's t0
    elif f[:1] == ['phase']:
        truth.append((f[1], start + float(f[2]), start + float(f[3])))
ph = rep['phases']
t_min = 0.0  # start_s is from the first sample, recorded ~0.4 ms after time 0
found = [p['start_s'] for p in ph[1:]]
bounds = [t[2] for t in truth[:-1]]
ok = True
matched = []
for b in bounds:
    near = min(found, key=lambda x: abs(x - b)) if found else None
    err = abs(near - b) if near is not None else 99
    matched.append(near)
    print(f"boundary {b:7.3f}: found {near} (error {err:.3f} s)")
    if err > 0.35:
        ok = False
spurious = len([x for x in found if x not in matched])
print(f"{len(found)} boundaries found, {spurious} spurious")
if spurious > 1:
    ok = False
def phase_at(t):
    for p in ph:
        if p['start_s'] <= t < p['end_s']:
            return p
    return None
want = {'compute': 'compute_kernel', 'stream': 'stream_kernel'}
cls = {}
for name, a, b in truth:
    p = phase_at((a + b) / 2)
    top = p['code'][0]['function'] if p and p['code'] else '-'
    share = p['code'][0]['share'] if p and p['code'] else 0
    print(f"{name:8s} {a:7.3f}..{b:7.3f}: phase {p['index'] if p else '-'} class {p['class'] if p else '-'} top {top} {share:.2f}")
    if name in want and sys.argv[4] == '1' and top != want[name]:
        ok = False
    if name in want and p:
        if p['code'] and not all(k in p['code'][0] for k in ('function', 'share', 'file', 'line')):
            ok = False
        cls.setdefault(name, set()).add(p['class'])
for name, s in cls.items():
    if len(s) != 1:
        print(f"the {name} phases have classes {sorted(s)}")
        ok = False
if len(cls) == 2 and cls['compute'] == cls['stream']:
    ok = False
for p in ph:
    shares = [c['share'] for c in p['code']]
    if shares != sorted(shares, reverse=True):
        print("code not sorted by share"); ok = False
sys.exit(0 if ok else 1)
PY
}

# the two builds recorded side by side, one per core (each workload is one
# thread; its phases last a set time, and the host-wide streams see the
# other run's phases at the same times as its own)
"$MCREC" -f -o "$T/n.mcz" -- "$T/work" "$PH" 2>"$T/n.err" &
npid=$!
"$MCREC" -f -o "$T/g.mcz" -- "$T/work-g" "$PH" 2>"$T/g.err" || fail "mcrec -g run: exit $?"
wait $npid || fail "mcrec run: exit $?"
check g "$T/g.mcz" "$T/g.err" 1
ok "-g: 4 boundaries within 0.35 s, the right function per busy phase, one class per kernel"
# the timeline's code row, its legend and the read-out; the Phases view's panel
# the cursor in the middle of the first stream phase (3-6 s): n from the
# run's middle may land on the spurious boundary the check above allows
"$MCVIEW" --snapshot 140x30 --at 4.5 "$T/g.mcz" >"$T/snap" || fail "snapshot exit $?"
# (A is the hottest function of the run: either kernel)
grep -Eq '^code +([AB])\1{8,}([AB])\2{8,}' "$T/snap" || fail "no code row of two kernels: $(grep '^code' "$T/snap")"
grep -Eq '[AB] compute_kernel [0-9]+%' "$T/snap" && grep -Eq '[AB] stream_kernel [0-9]+%' "$T/snap" ||
	fail "no legend: $(sed -n 4,5p "$T/snap")"
grep -q '  code: stream_kernel [0-9]*% (code-phases.c:[0-9]*)' "$T/snap" || fail "read-out: $(tail -2 "$T/snap" | head -1)"
"$MCVIEW" --snapshot 140x30 --view phases "$T/g.mcz" >"$T/snap" || fail "phases snapshot exit $?"
grep -q '^code of the run: [0-9]* samples' "$T/snap" || fail "no hot-code panel"
grep -Eq '^[AB] (compute|stream)_kernel .* code-phases.c:[0-9]+ +inlined into main' "$T/snap" ||
	fail "panel: $(grep -A3 '^code of' "$T/snap")"
ok "timeline code row, legend, read-out; the Phases view's hot-code panel"
check n "$T/n.mcz" "$T/n.err" 0
ok "without -g: the boundaries still found (code regions by address)"

"$MCREC" -q -f -g os -o "$T/o.mcz" -- sleep 0.5 || fail "mcrec -g os: exit $?"
"$MCVIEW" --report=json "$T/o.mcz" >"$T/o.json" || fail "--report=json without code"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["phases"] and all(p["code"] == [] for p in r["phases"]) else 1)' "$T/o.json" ||
	fail "without a code profile: code is not [] in every phase"
"$MCVIEW" --report "$T/o.mcz" | grep -q ' code ' && fail "text report without a profile has a code column"
ok "a file without a code profile: \"code\": [] and no code column"
