#!/usr/bin/env bash
# phase-stressng.sh: phases and classes on programs no one here wrote —
# stress-ng's stressors one after the other (matrixprod, stream, sleep,
# memcpy, fft where this build has it, zlib, qsort; 3 s each asked for,
# which keeps make check under 10 minutes), no marks, under mcrec with its
# default sources.  The script's own clock
# gives the truth.  Checked with default options:
#   - every boundary between two stressors found within 0.3 s;
#   - classes take the code into account: no class holds busy phases of two
#     stressors (on a machine without a PMU they all look alike to the
#     counters: one CPU busy).  Stream spends its first seconds in the
#     kernel, setting its buffers up: that part runs no code of its own and
#     is left out of the class check.
set -u
. "$(dirname "$0")/rec-common.inc"
command -v stress-ng >/dev/null || { echo "stress-ng not installed (Debian package stress-ng; make deps installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: the checks need it"; exit 77; }
have=$(stress-ng --stressors 2>/dev/null | tr ' ' '\n')
list=
for s in matrixprod stream sleep memcpy fft zlib qsort; do
	case $s in matrixprod | sleep) ;; *) grep -qx "$s" <<<"$have" || continue ;; esac
	list="$list $s"
done
{
	echo '#!/bin/sh'
	echo "for s in $list; do"
	echo '	echo "$s $(date +%s.%N)" >&2'
	echo '	case $s in'
	echo '	matrixprod) stress-ng -q --matrix 1 --matrix-method prod -t 3 ;;'
	echo '	sleep) sleep 3 ;;'
	echo '	*) stress-ng -q --$s 1 -t 3 ;;'
	echo '	esac'
	echo 'done'
	echo 'echo "end $(date +%s.%N)" >&2'
} >"$T/run.sh"
chmod +x "$T/run.sh"
"$MCREC" -q -o "$T/s.mcz" -- "$T/run.sh" 2>"$T/truth" || fail "mcrec stress-ng: $(tail -3 "$T/truth")"
"$B/mcview" --report=json "$T/s.mcz" >"$T/r.json" || fail "report"
"$B/mcview" --report "$T/s.mcz" | cut -c 1-120
cat "$T/truth"
wall=$("$B/mcz" info "$T/s.mcz" | awk '$2 == "wall_epoch_ns" { print $4 }')
python3 - "$T/truth" "$T/r.json" "$wall" <<'PY' || fail "see above"
import json, sys
truth = [(l.split()[0], float(l.split()[1]) - int(sys.argv[3]) / 1e9)
         for l in open(sys.argv[1]) if len(l.split()) == 2]
ph = json.load(open(sys.argv[2]))["phases"]
bounds = [p["start_s"] for p in ph[1:]]
bad = 0
for name, t in truth[1:-1]:
    d = min(abs(b - t) for b in bounds)
    print("%-10s starts %7.3f s: nearest boundary %.3f s away" % (name, t, d))
    bad += d > 0.3
def stressor(t):
    for (n, a), (_, b) in zip(truth, truth[1:]):
        if a <= t < b:
            return n
    return None
owner = {}
for p in ph:
    busy = p["cpus_busy"] is not None and p["cpus_busy"] >= 0.2
    if not busy or not p.get("code") or p["code"][0]["share"] < 0.2:
        continue  # idle, or no code of its own (a stressor's time in the kernel)
    s = stressor((p["start_s"] + p["end_s"]) / 2)
    if s is not None:
        owner.setdefault(p["class"], set()).add(s)
for c, ss in sorted(owner.items()):
    print("class %s: %s" % (c, ", ".join(sorted(ss))))
    bad += len(ss) > 1
sys.exit(1 if bad else 0)
PY
ok "stress-ng:$list: every boundary within 0.3 s, no class holds two stressors"
