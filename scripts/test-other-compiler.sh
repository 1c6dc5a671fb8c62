#!/usr/bin/env bash
# The compile-only Python tests (tests/unit, tests/compile, tests/contracts: real
# NVRTC, nvJitLink and kernel compiles, no GPU) again against the other supported
# numba-cuda-mlir series: 0.6.x when 0.5.x is installed, else 0.5.4. Runs in a venv
# that sees the system's packages (cuda.coop as scripts/setup.sh installed it, the
# CUDA wheels) with only numba-cuda-mlir replaced; both series have the same
# dependencies. About 4 minutes on 2 cores.
#   COOP_OTHER_COMPILER=numba-cuda-mlir==0.6.0 scripts/test-other-compiler.sh
set -euo pipefail
cd "$(dirname "$0")/.."
installed=$(python3 -c "import importlib.metadata as m; print(m.version('numba-cuda-mlir'))")
case "$installed" in
  0.5.*) other="numba-cuda-mlir>=0.6,<0.7" ;;
  *) other="numba-cuda-mlir==0.5.4" ;;
esac
other="${COOP_OTHER_COMPILER:-$other}"
venv="build/venv-other-compiler"
[[ -x "$venv/bin/python" ]] || python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --quiet --no-deps --upgrade "$other"
version=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('numba-cuda-mlir'))")
echo "test-other-compiler: numba-cuda-mlir $version (the main run used $installed)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/unit tests/compile tests/contracts
