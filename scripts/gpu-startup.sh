#!/usr/bin/env bash
# Issue 12's GPU half, in one call on the lent H200 (no network needed; pack first
# with scripts/pack-gpu-python.sh, which packs 0.5.4 whole and 0.6.0 as a delta):
#   run(command="scripts/gpu-startup.sh", carry=[".whl", ".deps/<the two .deb files>"])
# For each numba-cuda-mlir version (COOP_NCM_VERSIONS, default "0.5.4 0.6.0"):
# installs it with cuda.coop (scripts/gpu-python-env.sh), runs the runtime tests of
# the declared block, the disk cache, an undeclared block and coop.bind_launch (tests/runtime/test_startup_runtime.py,
# tests/runtime/test_undeclared_block_runtime.py, tests/runtime/test_bound_launch_runtime.py; the
# whole runtime suite with COOP_STARTUP_TESTS=tests/runtime; COOP_PYTEST_WORKERS
# processes, default 14), then the whole compile-latency benchmark. Writes under $OUT: compile_latency-ncm<version>.json
# (commit them as benchmarks/results/<date>_H200_coop-<v>_ncm-<version>_cuda-13.0-startup.json)
# and startup-ncm<version>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results/startup}"
mkdir -p "$OUT"
status=0
for version in ${COOP_NCM_VERSIONS:-0.5.4 0.6.0}; do
  (
    export COOP_NCM_VERSION="$version"
    source scripts/gpu-python-env.sh
    tests=0
    python3 -m pytest -q -p no:cacheprovider -n "${COOP_PYTEST_WORKERS:-14}" \
      ${COOP_STARTUP_TESTS:-tests/runtime/test_startup_runtime.py tests/runtime/test_undeclared_block_runtime.py tests/runtime/test_bound_launch_runtime.py} || tests=1
    python3 benchmarks/compile_latency.py --repeat "${COOP_BENCH_REPEAT:-2}" --json "$OUT/compile_latency-ncm$version.json"
    exit "$tests"
  ) 2>&1 | tee "$OUT/startup-ncm$version.log" || status=1
done
exit "$status"
