#!/usr/bin/env bash
# Packs what the GPU machine lacks (it has no package index) into .whl/, which
# the device tool carries: numba-cuda-mlir for CPython 3.12, unpacked and
# xz-compressed because its wheel (71 MB) is over the 64 MiB a call can carry.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${NUMBA_CUDA_MLIR_VERSION:-0.5.4}"
mkdir -p .whl
work=$(mktemp -d)
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d "$work" "numba-cuda-mlir==$version"
mkdir "$work/site"
python3 -m zipfile -e "$work"/numba_cuda_mlir-*.whl "$work/site"
tar -C "$work/site" -cf - . | xz -T0 -6 >.whl/numba_cuda_mlir-cp312.tar.xz
rm -rf "$work"
ls -l .whl/
