#!/usr/bin/env bash
# fresh-machine.sh: the README's two set-up commands on a machine that has
# never seen mcz — verified by purging what they install, then running each
# from a clean clone of this repository's HEAD:
#
#   1. purge pcp, pcp-testsuite, libpcp3-dev, libpcp-import1-dev; clone; `make demo`
#   2. purge them again; a new clone; `make check` alone
#
# It removes system packages, so it is not part of `make check`: run it by
# hand, as root, on a machine you may change (`--yes` says you mean it).
# Without systemd (containers, CI) the packages' own stop/start scripts call
# systemctl; the purge goes through a no-op one, as install-deps.sh does.
#
#   tests/setup/fresh-machine.sh --yes            # both steps
#   tests/setup/fresh-machine.sh --yes demo       # only make demo
#   tests/setup/fresh-machine.sh --yes check      # only make check
#
# Exit 0 when every step passed; logs in $TMPDIR/mcz-fresh-*/.
set -u
cd "$(dirname "$0")/../.."
PURGE="pcp pcp-testsuite libpcp3-dev libpcp-import1-dev"

[ "${1:-}" = "--yes" ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shift
steps=${*:-demo check}
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: run as root (it purges packages)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mcz-fresh-XXXXXX")
chmod 755 "$work" # a clone as a user would have it, readable by others
shim=$work/shim
mkdir -p "$shim"
for t in systemctl deb-systemd-helper deb-systemd-invoke invoke-rc.d; do
	printf '#!/bin/sh\nexit 0\n' >"$shim/$t"; chmod +x "$shim/$t"
done

purge() {
	[ -x /etc/init.d/pmcd ] && timeout 60 /etc/init.d/pmcd stop >/dev/null 2>&1
	pkill -x pmcd 2>/dev/null; pkill -x pmlogger 2>/dev/null
	env PATH="$shim:$PATH" DEBIAN_FRONTEND=noninteractive apt-get -qq \
		-o DPkg::Path="$shim:/usr/sbin:/usr/bin:/sbin:/bin" purge -y $PURGE >"$work/purge.log" 2>&1
	for p in $PURGE; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			echo "fresh-machine: could not purge $p (see $work/purge.log)" >&2
			return 1
		fi
	done
	if [ -e /usr/include/pcp/pmapi.h ] || command -v pmcd >/dev/null; then
		echo "fresh-machine: pcp is still there after the purge" >&2
		return 1
	fi
}

fail=0
for step in $steps; do
	case $step in demo | check) ;; *) echo "fresh-machine: unknown step $step" >&2; exit 2 ;; esac
	purge || exit 1
	clone=$work/clone-$step
	git clone -q . "$clone" || exit 1
	t0=$SECONDS
	(cd "$clone" && make "$step") </dev/null >"$work/$step.log" 2>&1
	rc=$? dt=$((SECONDS - t0))
	ok=1
	[ $rc -eq 0 ] || ok=0
	case $step in
	demo)  # the demo's screen: mcview's tab bar and the recorded sample's phases
		grep -q 'Timeline' "$work/$step.log" && grep -q 'demo: recording the phased sample' "$work/$step.log" || ok=0 ;;
	check) # the runner's closing line, with nothing failed
		grep -Eq '^[0-9]+ passed, 0 failed' "$work/$step.log" || ok=0 ;;
	esac
	if [ $ok -eq 1 ]; then
		echo "fresh-machine: make $step passed from a clean clone with pcp purged (${dt}s): $(grep -E '^[0-9]+ passed|^demo: not a terminal' "$work/$step.log" | tail -n 1)"
	else
		fail=1
		echo "fresh-machine: make $step FAILED (exit $rc, ${dt}s); last lines of $work/$step.log:" >&2
		tail -n 25 "$work/$step.log" | sed 's/^/  | /' >&2
	fi
done
[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
