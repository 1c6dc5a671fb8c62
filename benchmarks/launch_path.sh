#!/usr/bin/env bash
# Is a row's gap the code or the launch? In one call on the lent H200:
#   run(command="COOP_LAUNCH_FILTER='warp_scan,256x8' benchmarks/launch_path.sh", carry=[".whl", ".deps/<the two .deb files>"])
# Installs numba-cuda-mlir and cuda.coop (scripts/gpu-python-env.sh; COOP_NCM_VERSION picks the
# version), builds the rows' twins and runs benchmarks/launch_path.py: each row's coop kernel
# launched by the dispatcher, the same cubin launched by CuPy, and the twin, interleaved. Writes
# $OUT/launch_path.json and prints one line per row.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results/launch-path}"
mkdir -p "$OUT"
: "${COOP_LAUNCH_FILTER:?rows to time, e.g. COOP_LAUNCH_FILTER='warp_scan,256x8'}"
command -v nvcc >/dev/null || export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
source scripts/gpu-python-env.sh >"$OUT/python_env.log" 2>&1
work=$(mktemp -d)
cccl=$(python3 -c "from cuda.coop._engine_session import engine; print(engine().toolkit['cccl_include'])")
python3 benchmarks/twins.py "$work/twins.cubin" --cccl-include "$cccl" --filter "$COOP_LAUNCH_FILTER" >"$work/twins.log" 2>&1 ||
  { cat "$work/twins.log"; exit 1; }
python3 benchmarks/launch_path.py --cubin "$work/twins.cubin" --filter "$COOP_LAUNCH_FILTER" --runs "${COOP_BENCH_RUNS:-25}" \
  --json "$OUT/launch_path.json"
