#!/usr/bin/env bash
# The Python half of scripts/gpu.sh: installs numba-cuda-mlir from the carried
# .whl/ tarball and cuda.coop built from source with the machine's own Python
# (scripts/gpu-python-env.sh), then runs every Python test (the runtime ones
# launch kernels there), the CCCL-dependent ones again against the newest CCCL where it is carried
# (COOP_PYTEST_NEWEST_CCCL paths, -k COOP_PYTEST_NEWEST_CCCL_FILTER; default the top-k and batched reduction tests), and the
# examples. Logs: $OUT/python_runtime.log, python_runtime_newest_cccl.log, python_examples.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
source scripts/gpu-python-env.sh
status=0
python3 -m pytest -q -p no:cacheprovider -n "${COOP_PYTEST_WORKERS:-12}" ${COOP_PYTEST_PATHS:-tests} 2>&1 |
  tee "$OUT/python_runtime.log" || status=$?
# The tests of providers that depend on the CCCL (a block top-k is CUB's where it has one; a batched
# warp reduction needs CCCL 3.5) once more against the newest CCCL's headers.
newest_tests="tests/runtime/test_sorting_runtime.py tests/runtime/test_reduce_batched_runtime.py"
if [[ -n "${COOP_NEWEST_CCCL:-}" && -n "${COOP_PYTEST_NEWEST_CCCL:-$newest_tests}" ]]; then
  CUDA_COOP_CCCL_ROOT="$COOP_NEWEST_CCCL" python3 -m pytest -q -p no:cacheprovider -n "${COOP_PYTEST_WORKERS:-12}" \
    ${COOP_PYTEST_NEWEST_CCCL:-$newest_tests} -k "${COOP_PYTEST_NEWEST_CCCL_FILTER:-topk or reduce_batched}" 2>&1 |
    tee "$OUT/python_runtime_newest_cccl.log" || status=$?
fi
for example in examples/*.py; do
  echo "== $example"
  python3 "$example" 2>&1 | tail -n 3 || status=$?
done | tee "$OUT/python_examples.log"
exit "$status"
