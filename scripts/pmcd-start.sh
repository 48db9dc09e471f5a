#!/usr/bin/env bash
# pmcd-start.sh: make sure a local pmcd answers, starting it when needed.
#
# Tests that need a real pmcd call this.  Works where systemd is not PID 1
# (containers, CI) through the package's init script.  Exits 0 when
# `pminfo -h localhost` answers within 30 s, else prints why and exits 1.
set -u
ok() { timeout 5 pminfo -h localhost -f pmcd.version >/dev/null 2>&1; }
ok && exit 0
command -v pminfo >/dev/null || { echo "pmcd-start: pcp is not installed (make deps)" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "pmcd-start: pmcd is not running and starting it needs root" >&2
	exit 1
fi
if [ -x /etc/init.d/pmcd ]; then
	timeout 60 /etc/init.d/pmcd start >/dev/null 2>&1
else
	/usr/lib/pcp/bin/pmcd -A >/dev/null 2>&1
fi
for _ in $(seq 30); do ok && exit 0; sleep 1; done
echo "pmcd-start: pmcd did not answer on localhost within 30 s" >&2
exit 1
