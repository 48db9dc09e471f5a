#!/usr/bin/env bash
# bench-sources.sh: cost of one tick of every mcrec source (µs), with the
# bare libpcp pmFetch beside the pcp source as the reference, so that a user
# can see what a 1 ms or 10 ms interval costs.  Sources that cannot run here
# say why.  RAPL, absent on a VM, is also timed on a powercap-shaped tree in
# tmpfs (the same reads on files that are not sysfs: a lower bound), and
# NVML on the tests' stand-in library (the source's own work only).
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-build}
BENCH=$B/bench/bench-sources
[ -x "$BENCH" ] || BENCH=${MCZ_BUILD:-build}/bench/bench-sources
[ -x "$BENCH" ] || { echo "no bench-sources binary (make build/bench/bench-sources)"; exit 1; }
pminfo -h local: pmcd.version >/dev/null 2>&1 || echo "(no pmcd answering: the pcp rows will say unavailable)"
"$BENCH" || exit 1
echo "the pcp source at 10 ms (its deadline is half the interval):"
BENCH_INTERVAL_MS=10 "$BENCH" 300 | grep -A1 '^pcp'
T=$(mktemp -d /tmp/mcz-bench-rapl.XXXXXX)
trap 'rm -rf "$T"' EXIT
for z in intel-rapl:0 intel-rapl:0:0; do
	mkdir -p "$T/$z"
	echo 262143328850 >"$T/$z/max_energy_range_uj"
	echo 123456789 >"$T/$z/energy_uj"
done
echo package-0 >"$T/intel-rapl:0/name"
echo dram >"$T/intel-rapl:0:0/name"
MCREC_POWERCAP_DIR=$T "$BENCH" | grep '^rapl'
# NVML, absent here, through the tests' stand-in library: the source's own
# work per tick (a real driver adds its ioctls, typically 10-50 us per call)
if cc -shared -fPIC -O2 -o "$T/libnvidia-ml.so.1" tests/data/nvml/fake-nvml.c 2>/dev/null; then
	MCREC_NVML_LIB=$T/libnvidia-ml.so.1 FAKE_NVML_FIXTURE=$PWD/tests/data/nvml/two-gpus.txt "$BENCH" | grep '^nvml'
fi
