#!/usr/bin/env bash
# Every test: style checks, then the engine's unit, golden, compile, link and
# cache tests, then the Python package's tests (real NVRTC, nvJitLink and nvcc;
# no GPU needed), then the compile-only Python tests against the other supported
# numba-cuda-mlir series (0.5.4 and 0.6.x: scripts/test-other-compiler.sh), then
# the documentation: built, its samples run, its pages opened in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/lint.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
python3 -m pytest -q tests
scripts/test-other-compiler.sh
scripts/docs.sh
