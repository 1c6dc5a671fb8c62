#!/usr/bin/env bash
# The documentation site: build it (warnings are errors, every cross-reference must
# resolve), run every code sample of it (kernels compile and link without a GPU),
# and open pages in headless Chromium. Output under docs/_build/html.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf docs/_build
started=$SECONDS
python3 -m sphinx -W --keep-going -n -q -b html -d docs/_build/doctrees docs docs/_build/html
echo "docs: built in $((SECONDS - started)) s -> docs/_build/html/index.html"
python3 -m pytest -q docs/tests
echo "docs: built and checked in $((SECONDS - started)) s"
