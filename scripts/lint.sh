#!/usr/bin/env bash
# Style is checked by tools, never in review: clang-format for C++, ruff for Python.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.cuh' ':!engine/tests/golden/*' |
  xargs -0 clang-format --dry-run --Werror
echo "lint: clang-format clean"
ruff check python tests benchmarks examples docs scripts
ruff format --check python tests benchmarks examples docs scripts
echo "lint: ruff clean"
