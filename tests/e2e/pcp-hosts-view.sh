#!/usr/bin/env bash
# pcp-hosts-view.sh: PCP archives of several hosts in a real terminal (tmux):
# each host's rows under a row of its own (pcp-testsuite: pcp-uptime was
# logged on "smash", moomba.client on "moomba"), the rows of a host one
# cell in; Enter on a host's row folds its rows and shows them again; R
# folds every host, then shows them all; the filter finds a host by name
# (its rows with it) and a row by its metric (its host's row above it).
# mcz-test: parallel (measures no time: the screen against a file made beforehand)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib-tmux.sh
B=${MCZ_BIN:-build}
A=/var/lib/pcp/testsuite/archives
[ -x "$B/mcview" ] || tmux_fail "no $B/mcview (make first)"
[ -f "$A/pcp-uptime.meta" ] || tmux_skip "pcp-testsuite archives not installed"
D=$(mktemp -d /tmp/mcz-e2e-hosts.XXXXXX)
trap 'tmux_cleanup; rm -rf "$D"' EXIT

tmux_start_sh 140 40 "export TMPDIR=$D; $B/mcview -q $A/pcp-uptime $A/moomba.client; echo AFTER rc=\$?; sleep 60"
tmux_wait_for 'Timeline' 60
tmux_wait_whole
tmux_settle
tmux_expect '▾smash (3)'
tmux_expect '▾moomba (5)'
tmux_expect ' smash:kernel.all.uptime'
tmux_expect ' moomba:mem.freemem'
tmux_expect 'before the first host'
# the first row is selected (smash's first row): Up goes to smash's head
tmux_keys Up
tmux_settle
tmux_expect 'host smash (3) rows shown'
tmux_keys Enter
tmux_settle
tmux_expect '▸smash (3)'
tmux_expect_not 'smash:kernel.all.uptime'
tmux_expect ' moomba:mem.freemem'
tmux_expect 'host smash (3) rows folded'
tmux_keys Enter
tmux_settle
tmux_expect ' smash:kernel.all.uptime'
echo "ok: Enter on a host's row folds its rows and shows them"
tmux_keys R
tmux_settle
tmux_expect '▸smash (3)'
tmux_expect '▸moomba (5)'
tmux_expect_not 'smash:kernel.all.uptime'
tmux_expect_not 'moomba:mem.freemem'
tmux_keys R
tmux_settle
tmux_expect ' smash:kernel.all.uptime'
tmux_expect ' moomba:mem.freemem'
echo "ok: R folds every host's rows, then shows them"
tmux_keys / m o o m b a Enter
tmux_wait_for ' /moomba'
tmux_settle
tmux_expect '▾moomba (5)'
tmux_expect ' moomba:mem.freemem'
tmux_expect_not 'smash'
# the prompt starts with the filter given: rub it out
tmux_keys / BSpace BSpace BSpace BSpace BSpace BSpace u p t i m e Enter
tmux_wait_for ' /uptime'
tmux_settle
tmux_expect '▾smash (3)'
tmux_expect ' smash:kernel.all.uptime'
tmux_expect_not 'moomba'
echo "ok: the filter finds a host (with its rows) and a row (under its host)"
tmux_keys q
tmux_wait_for 'AFTER rc=0' 10
tmux_stop
echo "pass"
