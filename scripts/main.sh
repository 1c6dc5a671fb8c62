#!/usr/bin/env bash
# The main job: set up, then plan, generate, compile and link a real tile copy.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
examples/tile_copy_cli.sh
