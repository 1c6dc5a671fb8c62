#!/usr/bin/env bash
# The benchmarks, in one call on the lent H200 (needs no network):
#   run(command="benchmarks/run.sh", carry=[".whl", ".deps/<the two .deb files>"])
# Installs numba-cuda-mlir and cuda.coop (scripts/gpu-python-env.sh), builds the
# CUDA C++ twins with nvcc, fills the provider cache in parallel, then runs the
# kernel-speed and compile-latency benchmarks and prints the table; its summary
# lines come last. Writes under $OUT (gpu-results/benchmarks without the device tool):
# results.json, results.png, results/<date>_<gpu>_<versions>.json (the lean copy
# to commit as benchmarks/results/), report.txt, and artifacts.tar.gz holding
# kernel_speed.json, compile_latency.json, sass/ (both kernels of the
# representative row and of rows below 0.95), twins.cu/.cubin and the logs.
# Environment: COOP_BENCH_FILTER (rows whose name contains every comma-separated
# part of one of its |-separated alternatives, e.g. "block_transpose,int32|topk"), COOP_BENCH_RUNS (timed runs per kernel,
# default 25), COOP_BENCH_PARTS (default "speed workloads latency"; workloads: benchmarks/workloads.py,
# whose results.json goes to $OUT/workloads.json), COOP_BENCH_WORKLOADS (comma-separated workloads,
# e.g. "byte_histogram"; default: all), COOP_BENCH_TWIN_FIRST=1 (each round launches the twin before
# the coop kernel: a ratio that moves with the order is the measurement's).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results/benchmarks}"
# The device tool brings back at most 8 files: the results and the report stay in
# $OUT, everything else (logs, twins, SASS) is packed into artifacts.tar.gz at the end.
RESULTS="$OUT"
OUT="$RESULTS/artifacts"
mkdir -p "$OUT"
trap 'tar -czf "$RESULTS/artifacts.tar.gz" -C "$RESULTS" artifacts && rm -rf "$OUT"' EXIT
command -v nvcc >/dev/null || export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
parts=" ${COOP_BENCH_PARTS:-speed workloads latency} "
filter=()
[[ -z "${COOP_BENCH_FILTER:-}" ]] || filter=(--filter "$COOP_BENCH_FILTER")
order=()
[[ -z "${COOP_BENCH_TWIN_FIRST:-}" ]] || order=(--twin-first)

step() { echo "[$(printf '%3d' "$SECONDS") s] $*"; }

step "installing numba-cuda-mlir and cuda.coop (log: $OUT/python_build.log)"
source scripts/gpu-python-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu \
  --format=csv >"$OUT/gpu_state_before.csv" 2>&1 || true
cccl=$(python3 -c "from cuda.coop._engine_session import engine; print(engine().toolkit['cccl_include'])")

status=0
if [[ "$parts" == *" speed "* ]]; then
  step "building the twins with nvcc against $cccl, and filling the provider cache"
  python3 benchmarks/twins.py "$OUT/twins.cubin" --source "$OUT/twins.cu" --cccl-include "$cccl" "${filter[@]}" \
    >"$OUT/twins.log" 2>&1 &
  twins=$!
  XDG_CACHE_HOME=$(mktemp -d)
  export XDG_CACHE_HOME
  timeout 120 python3 benchmarks/prewarm.py "${filter[@]}" >"$OUT/prewarm.log" 2>&1 || status=1
  tail -n 5 "$OUT/prewarm.log"
  wait "$twins" || { cat "$OUT/twins.log"; exit 1; }
  cat "$OUT/twins.log"
  step "kernel speed"
  # the rows' lines stay in the log: the report's table shows them. 240 rows should
  # take one to two minutes (~0.1 s of compile, ~25 ms of runs each); the timeout
  # is the part's budget of five minutes.
  timeout 300 python3 benchmarks/kernel_speed.py --cubin "$OUT/twins.cubin" --json "$OUT/kernel_speed.json" \
    --sass-dir "$OUT/sass" --runs "${COOP_BENCH_RUNS:-25}" "${filter[@]}" "${order[@]}" >"$OUT/kernel_speed.log" 2>&1 ||
    status=1
  grep -v '^\[[0-9]*/[0-9]*\] ' "$OUT/kernel_speed.log" | tail -n 30 || true
fi
if [[ "$parts" == *" workloads "* ]]; then
  step "workloads against torch and CuPy"
  workloads=()
  [[ -z "${COOP_BENCH_WORKLOADS:-}" ]] || workloads=(--only "$COOP_BENCH_WORKLOADS")
  timeout 240 python3 benchmarks/workloads.py --json "$RESULTS/workloads.json" "${workloads[@]}" 2>&1 |
    tee "$OUT/workloads.log" || status=1
fi
if [[ "$parts" == *" latency "* ]]; then
  step "compile latency"
  timeout 150 python3 benchmarks/compile_latency.py --json "$OUT/compile_latency.json" 2>&1 |
    tee "$OUT/compile_latency.log" || status=1
fi

step "report"
python3 benchmarks/report.py --speed "$OUT/kernel_speed.json" --latency "$OUT/compile_latency.json" \
  --out "$RESULTS" --results "$RESULTS/results" 2>&1 | tee "$RESULTS/report.txt" || status=1
mkdir -p benchmarks/results && cp "$RESULTS"/results/*.json benchmarks/results/ 2>/dev/null || true
step "done (status $status)"
exit "$status"
