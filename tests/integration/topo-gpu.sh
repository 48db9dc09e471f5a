#!/usr/bin/env bash
# topo-gpu.sh: GPUs in the topology view, end to end through mcrec.  There is
# no GPU here, so two stand-ins: the topology is the GPU-node hwloc XML
# fixture (tests/data/topo/gpu-node.xml: 8 H100 on 2 packages, read through
# MCREC_TOPOLOGY exactly as this machine's would be), and NVML is the
# sources' replaying stand-in (tests/data/nvml/fake-nvml.c with
# two-gpus.txt: GPU 0 draws 71-699 W, GPU 1 30-250 W, GPU 0 more at every
# tick it reports).
# Checked through the view's own code (tests/tools/topo-values): gpu.power
# lands on GPU#0 and GPU#1 of the table, GPU#0 is the hot one, the package
# holding both carries their sum and the machine the same, the GPUs NVML
# does not report stay without data, utilisation is averaged, not summed, and
# energy counters are shown as power (W).
set -u
cd "$(dirname "$0")/../.."
B=${MCZ_BIN:-build}
V=$B/tests/tools/topo-values
for p in "$B/mcrec" "$V"; do
	[ -x "$p" ] || { echo "FAIL: $p is not built"; exit 1; }
done
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "no C compiler to build the stand-in NVML"; exit 77; }
T=$(mktemp -d /tmp/topo-gpu.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/v" ] && cat "$T/v"; exit 1; }
"$CC" -shared -fPIC -O1 -o "$T/libnvidia-ml.so.1" tests/data/nvml/fake-nvml.c ||
	fail "cannot build the stand-in NVML"

MCREC_TOPOLOGY=$PWD/tests/data/topo/gpu-node.xml MCREC_NVML_LIB=$T/libnvidia-ml.so.1 \
	FAKE_NVML_FIXTURE=$PWD/tests/data/nvml/two-gpus.txt \
	"$B/mcrec" -q -i 100ms -g gpu -o "$T/r.mcz" -- sleep 0.75 || fail "mcrec exited $?"
"$V" "$T/r.mcz" >"$T/metrics" || fail "topo-values: no metrics"
grep -q '^gpu.power W 0 2$' "$T/metrics" || { cat "$T/metrics"; fail "gpu.power: not a sum over 2 streams"; }
grep -q '^gpu.util % 1 2$' "$T/metrics" || { cat "$T/metrics"; fail "gpu.util: not a mean over 2 streams"; }
grep -q '^gpu.energy W 0 2$' "$T/metrics" || { cat "$T/metrics"; fail "gpu.energy: not shown as power"; }

"$V" "$T/r.mcz" gpu.power >"$T/v" || fail "topo-values gpu.power"
# fields: index parent type os_index own agg name...
awk '
	$3 == 8 { gpu[$4] = $6; gi[$4] = $1 }   # GPUs by number
	$3 == 1 { pack[$4] = $6; pi[$4] = $1 }  # packages
	$3 == 0 { machine = $6 }
	{ parent[$1] = $2 }
	END {
		if (length(gpu) != 8) { print "FAIL: " length(gpu) " GPUs in the table, not 8"; exit 1 }
		if (!(gpu[0] > 71 && gpu[0] < 699)) { print "FAIL: GPU#0 " gpu[0] " W"; exit 1 }
		if (!(gpu[1] > 30 && gpu[1] < 250)) { print "FAIL: GPU#1 " gpu[1] " W"; exit 1 }
		if (!(gpu[0] > gpu[1])) { print "FAIL: GPU#0 (" gpu[0] ") is not the hot one (" gpu[1] ")"; exit 1 }
		for (k = 2; k < 8; k++)
			if (gpu[k] != "nan") { print "FAIL: GPU#" k " has " gpu[k]; exit 1 }
		if (parent[gi[0]] != pi[0] || parent[gi[1]] != pi[0]) { print "FAIL: GPUs 0, 1 not on package 0"; exit 1 }
		d = pack[0] - (gpu[0] + gpu[1]); if (d < 0) d = -d
		if (d > 1e-6 * pack[0]) { print "FAIL: package 0 " pack[0] " != " gpu[0] " + " gpu[1]; exit 1 }
		if (pack[1] != "nan") { print "FAIL: package 1 (no reporting GPU) has " pack[1]; exit 1 }
		if (machine != pack[0]) { print "FAIL: machine " machine " != package 0 " pack[0]; exit 1 }
		printf "GPU#0 %.1f W (hot), GPU#1 %.1f W, package 0 %.1f W, machine %.1f W\n", gpu[0], gpu[1], pack[0], machine
	}' "$T/v" || fail "gpu.power"

"$V" "$T/r.mcz" gpu.util >"$T/v" || fail "topo-values gpu.util"
awk '$3 == 8 && $4 < 2 { s += $6; n++ } $3 == 0 { m = $6 }
	END { d = m - s / n; if (d < 0) d = -d; exit !(n == 2 && d < 1e-6 * (m + 1)) }' "$T/v" ||
	fail "gpu.util: the machine is not the mean of its GPUs"
echo ok
