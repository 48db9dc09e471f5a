#!/usr/bin/env bash
# pcp-hosts.sh: PCP archives of several hosts (pcp-testsuite: pcp-uptime was
# logged on "smash", moomba.client on "moomba") opened together share one
# time axis and each archive's rows carry its host's name ("smash:",
# "moomba:"); two archives of the same host keep the file prefixes (f0:,
# f1:), which tell them apart.
# mcz-test: parallel (measures no time: tests/run.sh may run it beside another)
set -u
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -f "$A/pcp-uptime.meta" ] || { echo "skip: pcp-testsuite archives not installed (scripts/install-deps.sh)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
out=$("$B/mcview" --snapshot 120x40 "$A/pcp-uptime" "$A/moomba.client" 2>&1) || fail "mcview: $out"
echo "$out" | grep -q '^ \?smash:kernel.all.uptime ' || fail "no smash: rows: $out"
echo "$out" | grep -q '^.\?moomba:' || fail "no moomba: rows: $out"
echo "$out" | grep -q '^.\?f[01]:' && fail "host files shown as f0/f1: $out"
echo "ok: two hosts' archives: rows under smash: and moomba:"
out=$("$B/mcview" --snapshot 120x40 "$A/19970807.09.54" "$A/19970807.09.59" 2>&1) || fail "mcview: $out"
echo "$out" | grep -q '^.\?f1:' || fail "one host's two archives: no f1: rows: $out"
echo "$out" | grep -q '^.\?gonzo:' && fail "one host's two archives under the host name: $out"
echo "ok: one host's two archives: rows under f0: and f1:"
