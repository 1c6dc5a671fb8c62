#!/usr/bin/env bash
# The main job: set up, then plan, generate, compile and link a real tile copy,
# from the shell and from a Python kernel (launched and checked where a GPU exists).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
examples/tile_copy_cli.sh
echo; echo "== examples/copy_tile.py"
python3 examples/copy_tile.py
