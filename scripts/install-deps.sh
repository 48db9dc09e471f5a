#!/usr/bin/env bash
# install-deps.sh: install the Debian packages mcz builds and tests with, when missing.
#
# Used by `make deps` (and so by `make demo`, `make check` and .ci/run).
# Idempotent: does nothing when every package is present.  Needs root or sudo
# for installing; without either it names what is missing and exits 1.
#
# The `pcp` package's post-install step calls systemctl, which fails where
# systemd is not PID 1 (containers, CI).  We put a no-op systemctl first on
# PATH (with deb-systemd-helper, which calls it) for the duration of the install and start pmcd ourselves when needed
# (scripts/pmcd-start.sh).
set -euo pipefail

BUILD_PKGS="build-essential pkg-config libncurses-dev libzstd-dev libpapi-dev
  libpcp3-dev libpcp-import1-dev libhwloc-dev libcmocka-dev zlib1g-dev"
TEST_PKGS="pcp pcp-testsuite papi-tools hwloc openssh-server openssh-client tmux
  openmpi-bin xz-utils zstd clang libclang-rt-14-dev linux-perf python3 locales time"

want="$BUILD_PKGS"
case "${1:-all}" in
build) ;;
all) want="$BUILD_PKGS $TEST_PKGS" ;;
*) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac

missing=()
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"
  else echo "install-deps: missing packages: ${missing[*]} (run as root or install them)" >&2; exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
if ! pidof systemd >/dev/null 2>&1; then
  for t in systemctl deb-systemd-helper deb-systemd-invoke invoke-rc.d; do
    printf '#!/bin/sh\nexit 0\n' >"$shim/$t"; chmod +x "$shim/$t"
  done
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO env PATH="$shim:$PATH" DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env PATH="$shim:$PATH" DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# A half-configured pcp (post-install refused) is finished here.
$SUDO env PATH="$shim:$PATH" dpkg --configure -a >/dev/null 2>&1 || true
echo "install-deps: done"
