#!/usr/bin/env bash
# src-papi-diag.sh: what the papi source says when it cannot count, as a
# user sees it: an unknown event, a hardware event on a kernel without a
# hardware PMU (this CI VM), LIBPFM_FORCE_PMU set (libpfm4 then knows only
# that PMU: the perf:: software events disappear, and the line says so), and
# in `mcrec --list` every component papi_component_avail reports disabled,
# with the same reason.  Each failure is one line and a non-zero exit.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_tmp
command -v papi_component_avail >/dev/null || { echo "papi-tools not installed"; exit 77; }

one_line() { # label, expected text, mcrec args...
	local label=$1 want=$2
	shift 2
	"$MCREC" -q -o "$T/x.mcz" "$@" -- true 2>"$T/err"
	local rc=$?
	[ $rc -ne 0 ] || src_fail "$label: mcrec accepted it"
	[ "$(wc -l <"$T/err")" -eq 1 ] || src_fail "$label: not one line: $(cat "$T/err")"
	grep -q -- "$want" "$T/err" || src_fail "$label: line lacks '$want': $(cat "$T/err")"
	echo "$label: $(cat "$T/err")"
}

one_line unknown "unknown PAPI event 'NO_SUCH_EVENT'" -e papi:NO_SUCH_EVENT

if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	one_line no-pmu "no hardware PMU" -e papi:PAPI_TOT_INS
fi

pmu=$(papi_component_avail 2>/dev/null | awk '/PMUs supported:/ { for (i = 3; i <= NF; i++) { gsub(",", "", $i); if ($i != "perf" && $i != "perf_raw") { print $i; exit } } }')
if [ -n "$pmu" ]; then
	LIBPFM_FORCE_PMU=$pmu one_line force-pmu "LIBPFM_FORCE_PMU=$pmu" -e papi:perf::TASK-CLOCK
else
	echo "(no CPU PMU known to libpfm4 here: LIBPFM_FORCE_PMU case not run)"
fi

"$MCREC" --list >"$T/list" 2>&1 || src_fail "--list failed"
papi_component_avail 2>/dev/null | awk '/^Name:/ { name = $2 } /Disabled:/ { sub(/.*Disabled: */, ""); print name "\t" $0 }' >"$T/disabled"
while IFS=$'\t' read -r name reason; do
	grep -qF "$name ($reason)" "$T/list" || src_fail "--list does not say '$name ($reason)': $(grep -A2 '^  papi' "$T/list")"
done <"$T/disabled"
echo "--list: $(grep -A1 '^  papi' "$T/list" | tail -1)"
