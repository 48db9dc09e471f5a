#!/usr/bin/env bash
# pcp-view.sh: `mcview ARCHIVE` in a real terminal (tmux) on PCP archives
# from pcp-testsuite: the timeline of the archive's metrics; the usual keys
# work (filter, zoom, Tab to the next view, q); a folio with --metrics
# opens; the temporary .mcz is gone once mcview has ended; a rejected
# archive is one line, before the terminal is touched.
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
[ -f "$A/small.index" ] || tmux_skip "pcp-testsuite archives not installed"
D=$(mktemp -d /tmp/mcz-e2e-pcp.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT

# an archive with xz volumes: the timeline of its metrics, the usual keys
tmux_start_sh 120 40 "export TMPDIR=$D; $B/mcview $A/small; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline' 120
tmux_wait_whole
tmux_expect 'small'
tmux_expect 'disk.dev.total_bytes'
tmux_keys / d i s k . d e v . r e a d _ b y t e s Enter
# the filter in the tab bar (the row itself was on screen before it: waiting
# for it raced the filter under load)
tmux_wait_for ' /disk.dev.read_bytes'
tmux_settle
tmux_expect 'disk.dev.read_bytes (2)'
tmux_expect_not 'disk.dev.write_bytes'
tmux_keys +
tmux_wait_for 'win 29m'
tmux_keys Tab
tmux_settle
tmux_keys q
tmux_wait_for 'AFTER rc=0' 10
[ -z "$(ls -A "$D")" ] || tmux_fail "left in TMPDIR: $(ls "$D")"
tmux_stop

# a folio, with --metrics: only the chosen metrics are loaded
tmux_start_sh 120 30 "export TMPDIR=$D; $B/mcview --metrics 'kernel.all.cpu' $A/pcp-atop.folio; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline' 120
tmux_wait_whole
tmux_expect 'kernel.all.cpu.'
tmux_expect_not 'mem.util'
tmux_keys q
tmux_wait_for 'AFTER rc=0' 10
tmux_stop

# rejected by libpcp: one line, exit 1, the terminal untouched
out=$("$B/mcview" /var/lib/pcp/testsuite/badarchives/badlabel-1.meta 2>&1)
rc=$?
[ $rc -eq 1 ] || tmux_fail "bad archive: exit $rc"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"Illegal label record"* ]] ||
	tmux_fail "bad archive: $out"
echo "pass"
