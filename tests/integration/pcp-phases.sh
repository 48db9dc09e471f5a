#!/usr/bin/env bash
# pcp-phases.sh: phases on a real pmlogger archive with default options.
# pmlogger logs the local pmcd with the configuration pmlogconf makes by
# default, every half second, for 16 s; every CPU is kept busy from about
# 4.5 s to 10.5 s (one spinning shell per CPU): 12 samples, over the
# detector's shortest phase (10 samples by default; at 10 the test passed
# by a sample, at 8 the period is no phase; a sample a second for 32 s
# was the same test at twice the time).  `mcview --report` with no option
# must find the start and the end of the busy period within 2 s each, with
# at most 2 other boundaries, and say in its header that it chose the
# host's streams that change (viewer/analysis/phases/phase-pick.c), none of the
# constants pmlogger logs (pmcd.pid, pmcd.pmlogger.port, hinv.ntape).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd python3
src_tmp
export XDG_CACHE_HOME=$T/cache
command -v pmlogger >/dev/null || { echo "pmlogger is not installed (pcp package)"; exit 77; }
command -v pmlogconf >/dev/null || { echo "pmlogconf is not installed (pcp package)"; exit 77; }
pmlogconf -h local: "$T/cfg" >"$T/pmlogconf.log" 2>&1 || src_fail "pmlogconf: $(tail -2 "$T/pmlogconf.log")"
grep -q '^log advisory on default' "$T/cfg" || src_fail "pmlogconf made no default groups"

now() { date +%s.%N; }
pmlogger -h local: -c "$T/cfg" -t 0.5 -T 16s -l "$T/pmlogger.log" "$T/arch" &
plog=$!
sleep 4.5
b0=$(now)
pids=()
for i in $(seq "$(nproc)"); do
	timeout 6 sh -c 'while :; do :; done' &
	pids+=($!)
done
wait "${pids[@]}"
b1=$(now)
wait $plog || src_fail "pmlogger failed: $(tail -3 "$T/pmlogger.log")"

# t = 0 of the recording: its wall_epoch_ns (mcz import of the same archive)
"$B/mcz" import -q "$T/arch" -o "$T/a.mcz" || src_fail "mcz import"
epoch=$("$B/mcz" info "$T/a.mcz" | sed -n 's/.*wall_epoch_ns = \([0-9]*\).*/\1/p')
[ -n "$epoch" ] || src_fail "no wall_epoch_ns"

"$B/mcview" --report "$T/arch" >"$T/report.txt" 2>&1 || src_fail "report: $(cat "$T/report.txt")"
"$B/mcview" --report=json "$T/arch" >"$T/report.json" 2>&1 || src_fail "json report"
cat "$T/report.txt"
grep -q '^# streams chosen: PCP: the host' "$T/report.txt" || src_fail "the header does not say which streams"
grep '^# streams:' "$T/report.txt" | grep -Eq 'pmcd\.|hinv\.' && src_fail "constants or metadata among the streams"
grep -v '^#' "$T/report.txt" | grep -Eq 'pmcd\.|hinv\.|pmda\.' &&
	src_fail "a phase described by what pmcd says of itself (pmcd.*, hinv.*)"
python3 - "$T/report.json" "$epoch" "$b0" "$b1" <<'EOF' || src_fail "busy period not found (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
epoch = int(sys.argv[2]) / 1e9
b0, b1 = float(sys.argv[3]) - epoch, float(sys.argv[4]) - epoch
cuts = [p["start_s"] for p in d["phases"][1:]]
print(f"busy {b0:.2f} s to {b1:.2f} s; boundaries at {', '.join(f'{c:.2f}' for c in cuts)} s")
near = lambda t: [c for c in cuts if abs(c - t) <= 2]
ok = near(b0) and near(b1)
others = [c for c in cuts if abs(c - b0) > 2 and abs(c - b1) > 2]
if not ok:
    print("FAIL: no boundary within 2 s of the start and of the end")
if len(others) > 2:
    print(f"FAIL: {len(others)} other boundaries (at most 2)")
sys.exit(0 if ok and len(others) <= 2 else 1)
EOF
echo "pcp-phases: ok"
