#!/usr/bin/env bash
# Style is checked by a tool, never in review: clang-format over the C++ sources.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.hpp' ':!engine/tests/golden/*' |
  xargs -0 clang-format --dry-run --Werror
echo "lint: clang-format clean"
