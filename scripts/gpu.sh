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
source scripts/gpu-deps.sh
[[ -z "${COOP_DEPS_PREFIX:-}" ]] || cmake_args+=(-DCMAKE_PREFIX_PATH="$COOP_DEPS_PREFIX")

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
engine_status=0
if [[ " ${COOP_GPU_PARTS:-engine python} " == *" engine "* ]]; then
  build-gpu/engine/tests/gpu/load_store_gpu --deadline "$deadline" --keep-failures "$OUT/failures" "$@" 2>&1 |
    tee "$OUT/load_store_gpu.log" || engine_status=$?
fi
python_status=0
if [[ " ${COOP_GPU_PARTS:-engine python} " == *" python "* ]]; then
  scripts/gpu-python.sh || python_status=$?
fi
exit $((engine_status || python_status))
