#!/usr/bin/env bash
# kokkos-chain.sh: a user who already names a Kokkos tool of their own
# (KOKKOS_TOOLS_LIBS, or KOKKOS_PROFILE_LIBRARY of older Kokkos) keeps it
# under mcrec: mcrec says so in one line, its connector loads their tool
# and passes every event on.  The test's own tool (built here) counts what
# Kokkos gave it and writes the counts to a file at finalize.  Asserted:
#   - mcrec's line names the user's tool and says it is passed every event;
#   - the tool ran: init once (its load sequence number 1: it comes after
#     mcrec's connector), as many kernels begun as ended, more than 100,
#     9 regions pushed and popped (samples/kokkos/kokkos-phases, 3 steps),
#     its own kernel ids given back to it at the end (not the connector's);
#   - the recording still has the program's regions and kernels;
#   - the same through KOKKOS_PROFILE_LIBRARY.
set -u
. "$(dirname "$0")/tmp-common.inc"
. "$(dirname "$0")/kokkos-common.inc"
command -v cc >/dev/null || { echo "skip: no C compiler for the test's tool"; exit 77; }
cat >"$T/tool.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static int seq = -1, inits, pushes, pops;
static uint64_t begun, ended, next = 1000000, bad_id;
void kokkosp_init_library(int s, uint64_t v, uint32_t n, void *d) { seq = s; inits++; }
void kokkosp_begin_parallel_for(const char *name, uint32_t dev, uint64_t *kid) { begun++; *kid = next++; }
void kokkosp_end_parallel_for(uint64_t kid) { ended++; bad_id += kid < 1000000; }
void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev, uint64_t *kid) { begun++; *kid = next++; }
void kokkosp_end_parallel_reduce(uint64_t kid) { ended++; bad_id += kid < 1000000; }
void kokkosp_push_profile_region(const char *name) { pushes++; }
void kokkosp_pop_profile_region(void) { pops++; }
void kokkosp_finalize_library(void)
{
	FILE *f = fopen(getenv("TOOL_OUT"), "w");
	if (f) {
		fprintf(f, "seq %d inits %d begun %llu ended %llu bad_ids %llu pushes %d pops %d\n", seq,
			inits, (unsigned long long)begun, (unsigned long long)ended,
			(unsigned long long)bad_id, pushes, pops);
		fclose(f);
	}
}
EOF
cc -shared -fPIC -o "$T/tool.so" "$T/tool.c" || fail "building the test's tool"
for var in KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY; do
	out=$T/$var.counts
	env "$var=$T/tool.so" TOOL_OUT="$out" "$B"/mcrec -o "$T/$var.mcz" -- "$K" --steps 3 --region-ms 100 \
		>"$T/$var.out" 2>"$T/$var.err" || fail "mcrec with $var: $(tail -3 "$T/$var.err")"
	line=$(grep "^mcrec: regions: your Kokkos tool $T/tool.so is loaded by mcrec's connector .*libmcz-kokkos.so, which passes every Kokkos event on to it$" "$T/$var.err")
	[ -n "$line" ] || fail "$var: mcrec did not say what it did: $(cat "$T/$var.err")"
	[ -s "$out" ] || fail "$var: the user's tool did not run (no $out)"
	cat "$out"
	read -r _ seq _ inits _ begun _ ended _ bad _ pushes _ pops <"$out"
	[ "$inits" = 1 ] && [ "$seq" = 1 ] || fail "$var: init $inits times, load sequence $seq"
	[ "$begun" = "$ended" ] && [ "$begun" -gt 100 ] || fail "$var: kernels begun $begun, ended $ended"
	[ "$bad" = 0 ] || fail "$var: $bad kernel ends with an id the tool did not give"
	[ "$pushes" = 9 ] && [ "$pops" = 9 ] || fail "$var: regions pushed $pushes, popped $pops"
	"$B"/mcz info "$T/$var.mcz" | grep -q 'regions.kokkos' || fail "$var: the recording lost its regions"
	"$B"/mcview --report=json "$T/$var.mcz" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['source'] == 'marks' and [p['mark'] for p in d['phases'] if p['mark'] not in ('', '-')][:2] == ['assemble', 'solve'], d['source']
assert d['kernels'], 'no kernels'" || fail "$var: phases or kernels missing"
	echo "ok: $var: $line; the tool saw $begun kernels and $pushes regions"
done
