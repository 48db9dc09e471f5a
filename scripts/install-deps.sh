#!/usr/bin/env bash
# install-deps.sh: install the Debian packages mcz builds and tests with, when missing.
#
# Used by `make deps` (and so by `make demo`, `make check` and .ci/run).
# Idempotent: does nothing when every package is present.  Needs root or sudo
# for installing; without either it names what is missing and exits 1.
#
# The `pcp` package's post-install step calls systemctl, which fails where
# systemd is not PID 1 (containers, CI).  We put a no-op systemctl (with
# deb-systemd-helper and invoke-rc.d) first on the PATH that apt gives dpkg
# (DPkg::Path) for the duration of the install, check that every package ended
# up installed (naming those that did not), and start pmcd ourselves when
# needed (scripts/pmcd-start.sh).
set -euo pipefail

BUILD_PKGS="build-essential pkg-config libncurses-dev libzstd-dev libpapi-dev
  libpcp3-dev libpcp-import1-dev libhwloc-dev libcmocka-dev zlib1g-dev libdw-dev libelf-dev
  libopenmpi-dev"
TEST_PKGS="pcp pcp-testsuite papi-tools hwloc openssh-server openssh-client tmux
  openmpi-bin hpcc stress-ng xz-utils zstd clang libclang-rt-14-dev linux-perf python3
  locales time debuginfod lammps python3-numpy python3-pandas libomp-dev cp2k"

# mcz export --pcp's test loads its archive into pmseries, which needs a Redis
TEST_PKGS="$TEST_PKGS redis-server"
# tests/integration/job-slurm.sh runs a one-node Slurm of its own (its
# munged, slurmctld and slurmd, config and state in its temporary folder);
# slurm-client (sbatch, srun) comes with them
TEST_PKGS="$TEST_PKGS slurmctld slurmd munge"
# samples/kokkos (mcrec's Kokkos Tools connector: tests/integration/kokkos-*.sh,
# tests/bench/bench-regions.sh) builds against Debian's Trilinos Kokkos
TEST_PKGS="$TEST_PKGS libtrilinos-kokkos-dev"
want="$BUILD_PKGS"
case "${1:-all}" in
build) ;;
all) want="$BUILD_PKGS $TEST_PKGS" ;;
*) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac

# The packages of $* that are not fully installed (one dpkg-query for all:
# every `make` asks, so this is the fast path).
not_installed() {
  local have
  # dpkg-query exits 1 when it knows a package not at all (never installed,
  # or purged): not an error here, those are the missing ones.
  have=$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | awk '/ install ok installed$/ { print $1 }' || true)
  for p in "$@"; do
    grep -qx "$p" <<<"$have" || echo "$p"
  done
}
mapfile -t missing < <(not_installed $want)
[ ${#missing[@]} -eq 0 ] && exit 0

# `make -j` may ask for two sets at once: one install at a time, and the
# second one sees what the first installed.
exec 9>"${TMPDIR:-/tmp}/mcz-install-deps.lock"
flock 9
mapfile -t missing < <(not_installed $want)
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
# apt runs dpkg (and so the maintainer scripts) with PATH set from its own
# DPkg::Path, not ours: the shim has to be named there too.
dpkg_path="$shim:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
apt() {
  $SUDO env PATH="$shim:$PATH" DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Path="$dpkg_path" -o Dpkg::Use-Pty=0 "$@"
}
log=$(mktemp)
trap 'rm -rf "$shim" "$log"' EXIT
apt update -qq >"$log" 2>&1 || { tail -n 5 "$log" >&2; echo "install-deps: apt-get update failed (see above)" >&2; exit 1; }
rc=0
apt install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1 || rc=$?
# A package whose post-install still refused (a maintainer script that does
# not go through PATH) is finished here, with the shim in place.
$SUDO env PATH="$shim:$PATH" dpkg --configure -a >>"$log" 2>&1 || true

mapfile -t still < <(not_installed "${missing[@]}")
if [ ${#still[@]} -gt 0 ]; then
  grep -E '^(E|W):|error' "$log" | tail -n 5 >&2
  echo "install-deps: could not install ${still[*]} (apt-get exit $rc; see above)" >&2
  exit 1
fi
echo "install-deps: done"
