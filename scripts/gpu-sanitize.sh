#!/usr/bin/env bash
# Runs the runtime test suite (kernels launched and checked against NumPy) under
# compute-sanitizer's memcheck, racecheck and synccheck on the GPU machine, the three
# tools at once, each on its own pytest workers. Logs: $OUT/sanitize_<tool>.log, and
# $OUT/sanitize_summary.txt with each tool's exit status, error summaries and test counts.
#   COOP_SANITIZE_TOOLS="memcheck racecheck synccheck"  COOP_SANITIZE_PATHS=tests/runtime
#   COOP_SANITIZE_WORKERS=5  COOP_SANITIZE_BUDGET=480 (seconds per tool)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
source scripts/gpu-python-env.sh
read -r -a tools <<<"${COOP_SANITIZE_TOOLS:-memcheck racecheck synccheck}"
summary="$OUT/sanitize_summary.txt"
: >"$summary"
for tool in "${tools[@]}"; do
  (
    status=0
    timeout "${COOP_SANITIZE_BUDGET:-480}" compute-sanitizer --tool "$tool" --target-processes all \
      --error-exitcode 86 --print-limit 50 \
      python3 -m pytest -q -p no:cacheprovider -n "${COOP_SANITIZE_WORKERS:-5}" ${COOP_SANITIZE_PATHS:-tests/runtime} \
      >"$OUT/sanitize_$tool.log" 2>&1 || status=$?
    echo "$tool: exit status $status (86: the tool found errors; 124: out of time)" >>"$summary"
  ) &
done
wait
for tool in "${tools[@]}"; do
  echo "== $tool" >>"$summary"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|[0-9]+ (passed|failed)" "$OUT/sanitize_$tool.log" | sort | uniq -c >>"$summary" || true
done
cat "$summary"
