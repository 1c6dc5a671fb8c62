#!/usr/bin/env bash
# The Python half of scripts/gpu.sh: installs numba-cuda-mlir from the carried
# .whl/ tarball (scripts/pack-gpu-python.sh) and cuda.coop built from source with
# the machine's own Python, then runs every Python test (the runtime ones launch
# kernels there) and the examples. Logs: $OUT/python_runtime.log, python_examples.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
site=/tmp/coop-site
mkdir -p "$site"
if [[ ! -d "$site/numba_cuda_mlir" ]]; then
  [[ -f .whl/numba_cuda_mlir-cp312.tar.xz ]] || { echo "carry .whl (scripts/pack-gpu-python.sh)" >&2; exit 1; }
  xz -dc -T0 .whl/numba_cuda_mlir-cp312.tar.xz | tar -C "$site" -xf -
fi
source scripts/gpu-deps.sh
[[ -z "${COOP_DEPS_PREFIX:-}" ]] || export CMAKE_PREFIX_PATH="$COOP_DEPS_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
python3 -m pip install --quiet --no-index --no-deps --no-build-isolation --target "$site" --upgrade \
  --config-settings=build-dir=build-gpu/python-wheel . >"$OUT/python_build.log" 2>&1 ||
  { tail -40 "$OUT/python_build.log"; exit 1; }
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
status=0
python3 -m pytest -q -p no:cacheprovider -n "${COOP_PYTEST_WORKERS:-12}" ${COOP_PYTEST_PATHS:-tests} 2>&1 |
  tee "$OUT/python_runtime.log" || status=$?
for example in examples/*.py; do
  echo "== $example"
  python3 "$example" 2>&1 | tail -n 3 || status=$?
done | tee "$OUT/python_examples.log"
exit "$status"
