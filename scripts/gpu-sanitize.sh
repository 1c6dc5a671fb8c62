#!/usr/bin/env bash
# Runs the runtime test suite (kernels launched and checked against NumPy) under
# compute-sanitizer's memcheck, racecheck and synccheck on the GPU machine, the three
# tools at once, each on its own pytest workers. The tests whose kernels trap on purpose
# (marked `traps` by tests/runtime/conftest.py: a bad rank, a bad distance, a count out of
# range) run once outside the sanitizers: each trap is an error to memcheck, and hundreds of
# expected ones would hide a real one. So every tool must end at 0 errors.
# Logs: $OUT/sanitize_<tool>.log and $OUT/sanitize_traps.log; summaries: $OUT/sanitize_<tool>_summary.txt
# (exit status, error summaries, test counts), all of them in $OUT/sanitize_summary.txt.
#   COOP_SANITIZE_TOOLS="memcheck racecheck synccheck"  COOP_SANITIZE_PATHS=tests/runtime
#   COOP_SANITIZE_WORKERS=5  COOP_SANITIZE_BUDGET=480 (seconds per tool)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
source scripts/gpu-python-env.sh
read -r -a tools <<<"${COOP_SANITIZE_TOOLS:-memcheck racecheck synccheck}"
read -r -a paths <<<"${COOP_SANITIZE_PATHS:-tests/runtime}"
pytest=(python3 -m pytest -q -p no:cacheprovider)
for tool in "${tools[@]}"; do
  (
    status=0
    timeout "${COOP_SANITIZE_BUDGET:-480}" compute-sanitizer --tool "$tool" --target-processes all \
      --error-exitcode 86 --print-limit 50 \
      "${pytest[@]}" -n "${COOP_SANITIZE_WORKERS:-5}" -m "not traps" "${paths[@]}" \
      >"$OUT/sanitize_$tool.log" 2>&1 || status=$?
    {
      echo "$tool: exit status $status (86: the tool found errors; 124: out of time)"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|[0-9]+ (passed|failed)" "$OUT/sanitize_$tool.log" | sort | uniq -c || true
    } >"$OUT/sanitize_${tool}_summary.txt"
  ) &
done
(
  status=0
  "${pytest[@]}" -m traps "${paths[@]}" >"$OUT/sanitize_traps.log" 2>&1 || status=$?
  { echo "traps (no sanitizer): exit status $status"; grep -E "[0-9]+ (passed|failed)" "$OUT/sanitize_traps.log" || true; } \
    >"$OUT/sanitize_traps_summary.txt"
) &
wait
for part in "${tools[@]}" traps; do cat "$OUT/sanitize_${part}_summary.txt"; done | tee "$OUT/sanitize_summary.txt"
