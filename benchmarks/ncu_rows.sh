#!/usr/bin/env bash
# Nsight Compute on chosen rows, their cuda.coop kernel beside their CUDA C++ twin, in one
# call on the lent H200:
#   run(command="COOP_NCU_FILTER='block_discontinuity,512x4' benchmarks/ncu_rows.sh", carry=[".whl", ".deps/<the two .deb files>"])
# or on row workloads, each library's kernel (benchmarks/profile_workloads.py):
#   run(command="COOP_NCU_WORKLOADS=layer_norm,softmax benchmarks/ncu_rows.sh", carry=[".whl", ".deps/<the two .deb files>"])
# Installs numba-cuda-mlir and cuda.coop (scripts/gpu-python-env.sh), builds the rows' twins,
# profiles one launch of each kernel (benchmarks/profile_rows.py) with the memory, occupancy,
# scheduler and warp-state sections at the GPU's own clocks, and writes under $OUT:
# ncu.csv (every metric), ncu_rows.json (the metrics that explain a gap, coop beside twin,
# from benchmarks/ncu_summary.py) and its table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results/ncu}"
mkdir -p "$OUT"
[[ -n "${COOP_NCU_WORKLOADS:-}" ]] ||
  : "${COOP_NCU_FILTER:?rows to profile, e.g. COOP_NCU_FILTER='block_discontinuity,512x4' (or COOP_NCU_WORKLOADS)}"
command -v nvcc >/dev/null || export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
source scripts/gpu-python-env.sh
work=$(mktemp -d)
# The command's profiled range under Nsight Compute, every metric into $OUT/ncu.csv.
profile() {
  ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --print-kernel-base mangled \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section SchedulerStats --section WarpStateStats \
    "$@" >"$OUT/ncu.csv" 2>"$OUT/ncu.log" || { tail -n 30 "$OUT/ncu.log"; exit 1; }
}
if [[ -n "${COOP_NCU_WORKLOADS:-}" ]]; then
  profile python3 benchmarks/profile_workloads.py --only "$COOP_NCU_WORKLOADS" --json "$work/launches.json"
  python3 benchmarks/ncu_summary.py "$OUT/ncu.csv" "$work/launches.json" --json "$OUT/ncu_workloads.json"
  exit 0
fi
cccl=$(python3 -c "from cuda.coop._engine_session import engine; print(engine().toolkit['cccl_include'])")
python3 benchmarks/twins.py "$work/twins.cubin" --cccl-include "$cccl" --filter "$COOP_NCU_FILTER" >"$work/twins.log" 2>&1 ||
  { cat "$work/twins.log"; exit 1; }
profile python3 benchmarks/profile_rows.py --cubin "$work/twins.cubin" --filter "$COOP_NCU_FILTER" --json "$work/rows.json"
python3 benchmarks/ncu_summary.py "$OUT/ncu.csv" "$work/rows.json" --json "$OUT/ncu_rows.json"
