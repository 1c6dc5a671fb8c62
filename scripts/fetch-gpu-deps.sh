#!/usr/bin/env bash
# Downloads the Debian packages of the header-only libraries the GPU machine may
# lack (nlohmann-json, CLI11) into .deps/ (git-ignored). Run it here, then carry
# the two .deb files to the GPU machine (not the whole of .deps: it also holds the newest
# CCCL's wheel, which with .whl passes the 64 MiB a call carries; .whl has its headers
# packed); scripts/gpu.sh extracts them when it needs them.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p .deps
cd .deps
rm -f nlohmann-json3-dev_*.deb libcli11-dev_*.deb
if ! apt-get download nlohmann-json3-dev libcli11-dev; then
  echo "apt-get download failed; try 'apt-get update' first" >&2
  exit 1
fi
ls -l ./*.deb
