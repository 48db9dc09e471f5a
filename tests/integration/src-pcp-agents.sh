#!/usr/bin/env bash
# src-pcp-agents.sh: with a real pmcd answering, a recording that names no
# pcp: metric asks pmcd only when its configuration runs an agent the pcp
# source's defaults come from (perfevent, nvidia, denki; pcp-agents.c).
# pmcd.conf is given through PCP_PMCDCONF_PATH, as pmcd takes it:
#   - none of them: libpcp is not loaded (LD_DEBUG=files), the recording
#     has every other default stream, and memory traffic says why;
#   - perfevent listed, or a pmcd.conf that cannot be read: pmcd is asked
#     (libpcp loaded), as before;
#   - -e pcp:METRIC, and mcrec --list, ask pmcd whatever the file says.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/src-common.inc
src_need_pmcd
src_tmp

printf 'root\t1\tpipe\tbinary\t\t/var/lib/pcp/pmdas/root/pmdaroot\npmcd\t2\tdso\tpmcd_init\t/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so\nlinux\t60\tpipe\tbinary\t\t/var/lib/pcp/pmdas/linux/pmdalinux\n[access]\nallow "local:*" : all;\n' >"$T/none.conf"
sed 's|^\[access\]|perfevent\t127\tpipe\tbinary\t/var/lib/pcp/pmdas/perfevent/pmdaperfevent -d 127\n[access]|' \
	"$T/none.conf" >"$T/perfevent.conf"
grep -q '^perfevent' "$T/perfevent.conf" || src_fail "could not write the perfevent configuration"

# rec CONF ARGS...: LD_DEBUG's list of loaded files in $T/ld, the file $T/r.mcz
rec() {
	local conf=$1
	shift
	PCP_PMCDCONF_PATH=$conf LD_DEBUG=files "$MCREC" -f -o "$T/r.mcz" "$@" 2>"$T/ld" >"$T/out" ||
		src_fail "mcrec exited $?: $(grep -v '^ *[0-9]*:' "$T/ld" | tail -3)"
}
loaded() { grep -q 'file=libpcp\.so' "$T/ld"; }

rec "$T/none.conf" -- sleep 0.3
loaded && src_fail "libpcp loaded, though the pmcd runs none of perfevent, nvidia, denki"
n=$("$READ" "$T/r.mcz" info | awk '$1 == "streams" { print $2 }')
[ "${n:-0}" -ge 20 ] || src_fail "only ${n:-0} streams recorded without the pcp source"
"$B/mcz" info "$T/r.mcz" | grep -q ' pcp ' && src_fail "a pcp stream without -e pcp: and no agent"
echo "no agent of the defaults: libpcp not loaded, $n streams recorded"

rec "$T/perfevent.conf" -- sleep 0.3
loaded || src_fail "the pmcd runs perfevent, but libpcp was not loaded to ask it"
rec "$T/missing.conf" -- sleep 0.3
loaded || src_fail "an unreadable pmcd.conf must leave the question to pmcd (libpcp not loaded)"
echo "perfevent listed, or pmcd.conf unreadable: pmcd asked"

rec "$T/none.conf" -e pcp:kernel.all.load -- sleep 0.5
loaded || src_fail "-e pcp:kernel.all.load did not load libpcp"
"$VALUES" "$T/r.mcz" kernel.all.load >"$T/v" || src_fail "-e pcp:kernel.all.load recorded nothing"
[ "$(wc -l <"$T/v")" -eq 3 ] || src_fail "kernel.all.load: $(wc -l <"$T/v") streams, not its 3 instances"
echo "-e pcp:METRIC: pmcd asked, 3 streams"

PCP_PMCDCONF_PATH=$T/none.conf "$MCREC" --list >"$T/list" 2>&1 || src_fail "mcrec --list exited $?"
grep -Eq '^  pcp +all +available' "$T/list" || src_fail "--list: pcp not available: $(grep '^  pcp' "$T/list")"
grep -q "pmcd at local: has no perfevent.hwcounters (its pmcd.conf runs no perfevent agent" "$T/list" ||
	grep -q 'memory traffic: perf-uncore' "$T/list" ||
	src_fail "--list: memory traffic does not say the pmcd runs no perfevent agent: $(grep 'memory traffic' "$T/list")"
echo "--list asks pmcd whatever pmcd.conf says, and memory traffic says why not pcp"
