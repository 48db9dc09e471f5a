#!/usr/bin/env bash
# rec-env.sh: the recorded command gets the environment it was given.
# mcrec tunes its own hwloc through the environment (which plugins it
# loads: recorder/topo/topology.c, rec_topology_env); those variables are left
# out of the command's environment, a value the user set goes through
# unchanged, and mcrec's own start does not load hwloc's X11, libxml2 or
# OpenCL plugins once the topology is cached.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/rec-common.inc

env -u HWLOC_PLUGINS_BLACKLIST -u HWLOC_LIBXML_IMPORT -u HWLOC_LIBXML_EXPORT \
	"$MCREC" -q -f -o "$T/a.mcz" -- sh -c 'env > "$0"' "$T/env.a" || fail "mcrec exit $?"
grep -E '^HWLOC_' "$T/env.a" && fail "mcrec's own HWLOC_ variables reached the command"
grep -q '^MCMARK_FD=' "$T/env.a" || fail "the mark socket's variable did not reach the command"
ok "the command's environment has none of mcrec's hwloc variables"

HWLOC_LIBXML_IMPORT=1 "$MCREC" -q -f -o "$T/b.mcz" -- sh -c 'env > "$0"' "$T/env.b" || fail "mcrec exit $?"
grep -qx 'HWLOC_LIBXML_IMPORT=1' "$T/env.b" || fail "the user's HWLOC_LIBXML_IMPORT=1 was not passed on: $(grep HWLOC "$T/env.b")"
ok "a variable the user set goes to the command as it was"

# the topology is cached by now (the runs above): no plugin loaded
LD_DEBUG=files "$MCREC" -q -f -o "$T/c.mcz" -- true 2>"$T/ld" || fail "mcrec exit $?"
grep -E 'hwloc_(gl|opencl|xml_libxml|pci)\.so|libxml2|libX11' "$T/ld" | head -3 | grep . &&
	fail "hwloc plugins loaded at a cached start"
"$B/mcz" info "$T/c.mcz" | grep -Eq '^topology +[0-9]+ objects, 1 machine, [0-9]+ package.* [0-9]+ core, [0-9]+ pu' ||
	fail "no topology in the recording: $("$B/mcz" info "$T/c.mcz" | grep '^topology')"
ok "a cached start loads none of hwloc's plugins, and the topology is there"
