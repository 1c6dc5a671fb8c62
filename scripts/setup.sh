#!/usr/bin/env bash
# Installs what the engine needs on a fresh Debian/Ubuntu machine with the CUDA
# toolkit, builds it, puts the `coop` tool on PATH and installs the cuda.coop
# Python package with its test, docs and Numba-CUDA-MLIR extras. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the docs' rendering check (scripts/docs.sh) opens the built pages headless.
packages=(cmake ninja-build g++ nlohmann-json3-dev libcli11-dev libgtest-dev clang-format chromium)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -x "$CUDA_HOME/bin/nvcc" ]]; then
  echo "setup: no CUDA toolkit at $CUDA_HOME (nvcc, NVRTC, nvJitLink and the CCCL headers are needed); set CUDA_HOME" >&2
  exit 1
fi

# The newest CCCL headers from the nvidia-cuda-cccl wheel, which the compile tests also build
# against (tests/install/test_trial_kernels.py, ctest's newest_cccl.compile_matrix_test.*), beside the
# toolkit's own CCCL. COOP_REFRESH_CCCL=1 takes a newer release.
if [[ ! -d .deps/cccl-newest/nvidia || "${COOP_REFRESH_CCCL:-0}" == 1 ]]; then
  rm -rf .deps/cccl-newest
  python3 -m pip install --quiet --no-deps --target .deps/cccl-newest "nvidia-cuda-cccl>=13,<14"
fi
echo "setup: newest CCCL wheel headers in $(ls -d .deps/cccl-newest/nvidia/cu*/include/cccl)"

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
cmake --install build --prefix "${COOP_PREFIX:-/usr/local}" >/dev/null
echo "setup: coop installed at $(command -v coop)"

# The Python package. Without build isolation the compile commands stay the same from one
# install to the next, so build/python-wheel rebuilds only what changed (seconds, not a minute).
python3 -m pip install --quiet "scikit-build-core>=0.11" "nanobind>=2.0" ruff
python3 -m pip install --quiet --no-build-isolation --config-settings=build-dir=build/python-wheel \
  ".[numba-cuda-mlir,test,docs]"
echo "setup: cuda.coop installed for $(python3 --version)"

