#!/usr/bin/env bash
# On the GPU machine (CPython 3.12, no package index): reassembles the wheelhouse that
# scripts/pack-fresh-install.sh split into .whl/fresh/part-*, then runs scripts/try-fresh-install.sh
# from it offline, with the system toolkit hidden, launching the six trial kernels and checking
# them against NumPy (COOP_TRIAL_LAUNCH=1: no GPU is a failure). Log: $OUT/fresh_install.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
mkdir -p "$OUT"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
compgen -G ".whl/fresh/part-*" >/dev/null || { echo "carry .whl/fresh/part-* (scripts/pack-fresh-install.sh)" >&2; exit 1; }
cat .whl/fresh/part-* | tar -C "$work" -xf -
COOP_TRIAL_LAUNCH=1 PYTHON="${PYTHON:-python3}" \
  scripts/try-fresh-install.sh "$work/wheelhouse" "$work/wheelhouse" 2>&1 | tee "$OUT/fresh_install.log"
