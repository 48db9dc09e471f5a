#!/usr/bin/env bash
# ceilings-meta.sh: the roofline's ceilings a recording states (roof.*,
# SPEC.md 5.1) are judged by one rule everywhere (issue 34, finding 8):
# 1e20 B/s, 1e-300 FLOP/s or all CPUs below one core are "none usable" in
# mcz info (with the reason) and no roofs in the report — not "100 EB/s"
# in one and "1e+05 PB/s" in the other, nor "inf%" of a tiny roof; a
# plausible set is written the same way by both ("15.2 GB/s", "100
# GFLOP/s").  (The cache mcrec writes them from: roofline.sh, test-roofline.)
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
. "$(dirname "$0")/tmp-common.inc"
gen() { # FILE, then --meta KEY=VALUE...
	local f=$1
	shift
	"$B"/tests/tools/gen-recording -o "$T/$f" --rows 200 --streams 4 "$@" >/dev/null || fail "gen-recording $f"
}
good=(--meta roof.bw_read_Bps=1.7e10 --meta roof.flops_1core=5e10 --meta roof.flops_scalar=2e10
	--meta roof.flops_scalar_1core=1e10 --meta roof.simd=avx2)
gen ok.mcz --meta roof.bw_triad_Bps=1.52e10 --meta roof.flops=1e11 "${good[@]}"
gen huge.mcz --meta roof.bw_triad_Bps=1e20 --meta roof.flops=1e11 "${good[@]}"
gen tiny.mcz --meta roof.bw_triad_Bps=1.52e10 --meta roof.flops=1e-300 "${good[@]}"
gen below.mcz --meta roof.bw_triad_Bps=1.52e10 --meta roof.flops=1e9 "${good[@]}"

"$B"/mcz info "$T/ok.mcz" >"$T/info" || fail "mcz info"
grep -q '^ceilings   memory 15.2 GB/s triad, 17.0 GB/s read' "$T/info" || fail "info: $(grep ceilings "$T/info")"
grep -q '^ceilings   compute 100 GFLOP/s avx2 FMA all CPUs, 50.0 GFLOP/s one core' "$T/info" ||
	fail "info: $(grep ceilings "$T/info")"
"$B"/mcview --report "$T/ok.mcz" | grep -q '^# roofline: ceilings 15.2 GB/s (triad, all cores), 100 GFLOP/s (avx2 FMA' ||
	fail "report: $("$B"/mcview --report "$T/ok.mcz" | grep roofline)"
for f in huge:'roof.bw_triad_Bps = 1e20 is not a plausible bandwidth' \
	tiny:'roof.flops = 1e-300 is not a plausible rate' below:'roof.flops is below roof.flops_1core'; do
	"$B"/mcz info "$T/${f%%:*}.mcz" >"$T/info" || fail "mcz info ${f%%:*}"
	grep "^ceilings" "$T/info" | grep -qF "ceilings   none usable: ${f#*:}" || fail "${f%%:*}: $(grep ceilings "$T/info")"
	"$B"/mcview --report "$T/${f%%:*}.mcz" >"$T/rep" || fail "report ${f%%:*}"
	grep -q '^# roofline: no ceilings' "$T/rep" || fail "${f%%:*}: the report has roofs: $(grep roofline "$T/rep")"
	grep -q 'inf%\|EB/s\|PB/s' "$T/rep" && fail "${f%%:*}: $(grep -m1 'inf%\|EB/s\|PB/s' "$T/rep")"
done
echo "ok: implausible ceilings refused alike by mcz info and the report; plausible ones written alike"
