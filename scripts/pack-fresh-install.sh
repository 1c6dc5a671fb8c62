#!/usr/bin/env bash
# Packs what scripts/gpu-fresh-install.sh needs on the GPU machine, which has CPython 3.12 and no
# package index: the cuda.coop wheels from DIST (scripts/build-wheels.sh) and every wheel that
# `pip install "cuda-coop[cu13]"` pulls for CPython 3.12 (about 300 MB: NVRTC, nvJitLink, nvcc's
# NVVM, numba-cuda-mlir, ...), as one tar split into parts of at most 50 MiB under .whl/fresh/,
# since the device tool carries 64 MiB a call. Carry the parts one per call (the machine
# keeps ignored files between calls while it stays warm), then run scripts/gpu-fresh-install.sh.
#
#   scripts/pack-fresh-install.sh [DIST]
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(realpath "${1:-dist}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wheelhouse"
cp "$dist"/cuda_coop-*.whl "$work/wheelhouse/"
python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 \
  --find-links "$dist" -d "$work/wheelhouse" "cuda-coop[cu13]"
rm -rf .whl/fresh
mkdir -p .whl/fresh
tar -C "$work" -cf - wheelhouse | split -b 50M -d -a 2 - .whl/fresh/part-
ls -l .whl/fresh/
echo "carry each of these, one a call: $(cd .whl/fresh && printf '.whl/fresh/%s ' part-*)"
