# Sourced by the GPU scripts (scripts/gpu-python.sh, benchmarks/run.sh): installs
# numba-cuda-mlir from the carried .whl/ tarball (scripts/pack-gpu-python.sh) and
# cuda.coop built from source with the machine's own Python into /tmp/coop-site,
# and exports PYTHONPATH. Needs OUT (the build log goes to $OUT/python_build.log);
# works in the repository root. Exits the calling script on failure.
site=/tmp/coop-site
mkdir -p "$site" "$OUT"
if [[ ! -d "$site/numba_cuda_mlir" ]]; then
  [[ -f .whl/numba_cuda_mlir-cp312.tar.xz ]] || { echo "carry .whl (scripts/pack-gpu-python.sh)" >&2; exit 1; }
  xz -dc -T0 .whl/numba_cuda_mlir-cp312.tar.xz | tar -C "$site" -xf -
fi
source scripts/gpu-deps.sh
[[ -z "${COOP_DEPS_PREFIX:-}" ]] || export CMAKE_PREFIX_PATH="$COOP_DEPS_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
python3 -m pip install --quiet --no-index --no-deps --no-build-isolation --target "$site" --upgrade \
  --config-settings=build-dir=build-gpu/python-wheel . >"$OUT/python_build.log" 2>&1 ||
  { tail -40 "$OUT/python_build.log"; exit 1; }
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
