#!/usr/bin/env bash
# Packs what scripts/gpu-fresh-install.sh needs on the GPU machine, which has CPython 3.12 and no
# package index: the cuda.coop wheels from DIST (scripts/build-wheels.sh) and every wheel that
# `pip install "cuda-coop[cu13]"` pulls for CPython 3.12 (about 300 MB: NVRTC, nvJitLink, nvcc's
# NVVM, numba-cuda-mlir, ...), as one tar split into parts of at most 50 MiB under .whl/fresh/,
# since the device tool carries 64 MiB a call. Carry the parts one per call (the machine
# keeps ignored files between calls while it stays warm), then run scripts/gpu-fresh-install.sh.
#
#   scripts/pack-fresh-install.sh [DIST]
#
# COOP_TRIAL_TOOLKIT=system packs the trial that takes the toolkit from the GPU machine's own CUDA
# 13.0 instead (scripts/try-fresh-install.sh says how): the cuda.coop wheel and what
# "cuda-coop[numba-cuda-mlir]" pulls but numba-cuda-mlir itself, which the GPU machine rebuilds
# from the carried .whl/numba_cuda_mlir-cp312.tar.xz (its 71 MB wheel cannot be carried), as one
# .whl/fresh-system/wheelhouse.tar of about 35 MB: one call's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(realpath "${1:-dist}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wheelhouse"
cp "$dist"/cuda_coop-*.whl "$work/wheelhouse/"
# The GPU machine's driver is CUDA 13.0: its bindings must not be newer.
echo "cuda-bindings<13.1" >"$work/constraints.txt"
requirement="cuda-coop[cu13]"
[[ "${COOP_TRIAL_TOOLKIT:-wheels}" == system ]] && requirement="cuda-coop[numba-cuda-mlir]"
python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 \
  -c "$work/constraints.txt" --find-links "$dist" -d "$work/wheelhouse" "$requirement"
if [[ "${COOP_TRIAL_TOOLKIT:-wheels}" == system ]]; then
  rm -f "$work"/wheelhouse/numba_cuda_mlir-*.whl
  rm -rf .whl/fresh-system
  mkdir -p .whl/fresh-system
  tar -C "$work" -cf .whl/fresh-system/wheelhouse.tar wheelhouse
  ls -l .whl/fresh-system/ && tar -tf .whl/fresh-system/wheelhouse.tar
  echo "carry .whl/fresh-system after a call that carried .whl/numba_cuda_mlir-cp312.tar.xz"
  exit 0
fi
rm -rf .whl/fresh
mkdir -p .whl/fresh
tar -C "$work" -cf - wheelhouse | split -b 50M -d -a 2 - .whl/fresh/part-
ls -l .whl/fresh/
echo "carry each of these, one a call: $(cd .whl/fresh && printf '.whl/fresh/%s ' part-*)"
