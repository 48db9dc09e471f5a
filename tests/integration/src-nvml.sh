#!/usr/bin/env bash
# src-nvml.sh: the nvml source end to end through mcrec, on a machine
# without a GPU: a stand-in libnvidia-ml.so.1 (tests/data/nvml/fake-nvml.c,
# built here) replays tests/data/nvml/two-gpus.txt and MCREC_NVML_LIB points
# mcrec at it.  Checked: dlopen/dlsym, one stream per GPU and field, the
# P100's missing energy counter replaced by the (estimated) power integral,
# mW -> W, mJ -> J, MHz -> Hz through the stream scale, and a failed call
# leaving its sample missing.  Without MCREC_NVML_LIB (no driver here) the
# source is unavailable with the reason and mcrec records the rest.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "no C compiler to build the stand-in NVML"; exit 77; }
"$CC" -shared -fPIC -O1 -o "$T/libnvidia-ml.so.1" tests/data/nvml/fake-nvml.c || src_fail "cannot build the stand-in"

# no driver: the recording goes on without a word about it (the machine
# has no GPU, nothing is wrong); --list says why, and naming nvml says why
if ! ldconfig -p | grep -q libnvidia-ml.so.1; then
	"$MCREC" -i 50ms -g gpu,os -o "$T/none.mcz" -- sleep 0.2 2>"$T/err" || src_fail "mcrec failed without NVML"
	! grep -q "nvml" "$T/err" || src_fail "a machine without GPU is told about it: $(cat "$T/err")"
	"$MCREC" --list 2>&1 | grep -q "nvml .*unavailable: no NVIDIA driver library" || src_fail "--list gives no reason"
	"$MCREC" -q -o "$T/none.mcz" -e nvml:power -- true 2>"$T/err" && src_fail "nvml:power accepted without NVML"
	grep -q "nvml: no NVIDIA driver library" "$T/err" || src_fail "-e nvml:power: $(cat "$T/err")"
fi

MCREC_NVML_LIB=$T/libnvidia-ml.so.1 FAKE_NVML_FIXTURE=$PWD/tests/data/nvml/two-gpus.txt \
	"$MCREC" -q -i 100ms -g gpu -o "$T/r.mcz" -- sleep 0.75 || src_fail "mcrec exited $?"
for f in power energy util mem_util mem_used sm_clock; do
	[ "$("$VALUES" "$T/r.mcz" "nvml:gpu.$f" | wc -l)" -eq 2 ] || src_fail "gpu.$f: not one stream per GPU"
done
"$VALUES" "$T/r.mcz" nvml:gpu.power >"$T/p"
grep -q '^gpu0 nvml nvml:nvmlDeviceGetPowerUsage W 0.001 gauge' "$T/p" || src_fail "gpu.power descriptor: $(cat "$T/p")"
"$READ" "$T/r.mcz" streams | grep ' gpu.energy gpu1 ' >"$T/e1"
# fields: id name instance source unit kind flags topo native; flags bit 0 = estimated
awk '$4 == "nvml" && $5 == "J" && $6 == "counter" && $7 % 2 == 1 { ok = 1 } END { exit !ok }' "$T/e1" ||
	src_fail "P100 energy not flagged estimated: $(cat "$T/e1")"
# all ticks replayed by the end: energy of GPU 0 is the fixture's last, J
read -r e0 scale <<<"$("$VALUES" "$T/r.mcz" nvml:gpu.energy gpu0 | awk '{ print $(NF-3), $5 }')"
[ "$e0" = 912540346 ] && [ "$scale" = 0.001 ] || src_fail "gpu0 energy last $e0 x $scale"
# GPU 0's power timed out once (tick 3): one sample fewer than the clock's
np=$(awk '{ print $7 }' <<<"$(grep '^gpu0' "$T/p")")
nc=$("$VALUES" "$T/r.mcz" nvml:gpu.sm_clock gpu0 | awk '{ print $7 }')
[ "$np" -eq $((nc - 1)) ] || src_fail "gpu0 power present $np times, clock $nc"
read -r hz <<<"$("$VALUES" "$T/r.mcz" nvml:gpu.sm_clock gpu0 | awk '{ print $(NF-3) * $5 }')"
[ "$hz" = 1410000000 ] || src_fail "sm clock of the last tick: $hz Hz, want 1.41e9"
# -g power: power and energy only
MCREC_NVML_LIB=$T/libnvidia-ml.so.1 FAKE_NVML_FIXTURE=$PWD/tests/data/nvml/two-gpus.txt \
	"$MCREC" -q -i 100ms -g power -o "$T/pw.mcz" -- sleep 0.2 || src_fail "mcrec -g power exited $?"
got=$("$READ" "$T/pw.mcz" streams | awk '$4 == "nvml" { print $2 }' | sort -u | tr '\n' ' ')
[ "$got" = "gpu.energy gpu.power " ] || src_fail "-g power recorded: $got"
echo "nvml: $(wc -l <"$T/p") GPUs, power/energy/util/memory/clock decoded from the replayed NVML"
