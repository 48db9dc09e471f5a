#!/usr/bin/env bash
# demo.sh: `make demo` — record the phased sample with mcrec and open it in mcview.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "demo: not yet wired (recorder and viewer in progress)" >&2
exit 1
