#!/usr/bin/env bash
# Rewrites engine/tests/golden/*.cu from the current emitter; review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target emit_golden_test
COOP_UPDATE_GOLDEN=1 build/engine/tests/emit_golden_test --gtest_filter='Sources/*'
git --no-pager diff --stat -- engine/tests/golden
