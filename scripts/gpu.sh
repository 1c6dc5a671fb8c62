#!/usr/bin/env bash
# Builds the engine and load_store_gpu on the GPU machine and runs it.
#   scripts/gpu.sh [load_store_gpu arguments, e.g. --filter "block transpose"]
# Works in the repository root. Results go to $OUT (set by the device tool;
# ./gpu-results otherwise): build.log, load_store_gpu.log and failures/ (the
# generated sources of failing batches). The log ends with "N passed, N failed";
# the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
mkdir -p "$OUT"
# The device tool stops a command after 600 s; the test gets what the build leaves of this.
budget="${COOP_GPU_BUDGET:-550}"

command -v nvcc >/dev/null || export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"

cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCOOP_BUILD_GPU_TESTS=ON -DCOOP_BUILD_TESTS=OFF
            -DCOOP_BUILD_TOOLS=OFF -DCOOP_BUILD_BENCHMARKS=OFF)
# Header-only dependencies the machine may lack arrive as Debian packages in .deps/
# (scripts/fetch-gpu-deps.sh; .deps is git-ignored, so the device tool must carry it).
if [[ ! -f /usr/include/nlohmann/json.hpp ]]; then
  if ! compgen -G ".deps/*.deb" >/dev/null; then
    echo "nlohmann/json.hpp is missing and .deps/ holds no packages: run scripts/fetch-gpu-deps.sh, carry .deps" >&2
    exit 1
  fi
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/coop-deps; done
  cmake_args+=(-DCMAKE_PREFIX_PATH=/tmp/coop-deps/usr)
fi

echo "building load_store_gpu (log: $OUT/build.log)"
if ! { cmake -S . -B build-gpu "${cmake_args[@]}" &&
       cmake --build build-gpu --target load_store_gpu -j16; } >"$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"
  if grep -q "unknown target 'load_store_gpu'" "$OUT/build.log"; then
    echo "hint: engine/tests/gpu must be added by engine/CMakeLists.txt when COOP_BUILD_TESTS=OFF"
  fi
  echo "build failed"
  exit 1
fi
echo "built in ${SECONDS} s"

deadline=$((budget - SECONDS))
((deadline >= 120)) || deadline=120
build-gpu/engine/tests/gpu/load_store_gpu --deadline "$deadline" --keep-failures "$OUT/failures" "$@" 2>&1 |
  tee "$OUT/load_store_gpu.log"
