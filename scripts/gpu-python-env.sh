# Sourced by the GPU scripts (scripts/gpu-python.sh, benchmarks/run.sh): installs
# numba-cuda-mlir from the carried .whl/ tarballs (scripts/pack-gpu-python.sh) and
# cuda.coop built from source with the machine's own Python into /tmp/coop-site-<version>,
# and exports PYTHONPATH (and COOP_NEWEST_CCCL, the newest CCCL's headers, where carried). COOP_NCM_VERSION picks the numba-cuda-mlir version (default:
# the base one packed whole; another is unpacked as its difference from the base).
# Needs OUT (the build log goes to $OUT/python_build.log); works in the repository
# root. Exits the calling script on failure.
[[ -f .whl/numba_cuda_mlir-cp312.tar.xz ]] || { echo "carry .whl (scripts/pack-gpu-python.sh)" >&2; exit 1; }
ncm_base=$(cat .whl/numba_cuda_mlir-base-version 2>/dev/null || echo 0.5.4)
ncm_version="${COOP_NCM_VERSION:-$ncm_base}"
site="/tmp/coop-site-$ncm_version"
mkdir -p "$site" "$OUT"
if [[ ! -d "$site/numba_cuda_mlir" ]]; then
  xz -dc -T0 .whl/numba_cuda_mlir-cp312.tar.xz | tar -C "$site" -xf -
  if [[ "$ncm_version" != "$ncm_base" ]]; then
    delta=".whl/numba_cuda_mlir-$ncm_version-delta-cp312.tar.xz"
    [[ -f "$delta" ]] || { echo "no $delta: pack it (NUMBA_CUDA_MLIR_VERSIONS=\"$ncm_base $ncm_version\")" >&2; exit 1; }
    xz -dc -T0 "$delta" | tar -C "$site" -xf -
    (cd "$site" && xargs -r -d '\n' rm -f <.removed && rm -f .removed && find . -depth -type d -empty -delete)
  fi
fi
source scripts/gpu-deps.sh
[[ -z "${COOP_DEPS_PREFIX:-}" ]] || export CMAKE_PREFIX_PATH="$COOP_DEPS_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
python3 -m pip install --quiet --no-index --no-deps --no-build-isolation --target "$site" --upgrade \
  --config-settings=build-dir=build-gpu/python-wheel . >"$OUT/python_build.log" 2>&1 ||
  { tail -40 "$OUT/python_build.log"; exit 1; }
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
# The newest CCCL's headers, when carried: COOP_NEWEST_CCCL names them (CUDA_COOP_CCCL_ROOT takes it).
if [[ -f .whl/cccl-newest-headers.tar.xz ]]; then
  mkdir -p /tmp/cccl-newest && xz -dc -T0 .whl/cccl-newest-headers.tar.xz | tar -C /tmp/cccl-newest -xf -
  export COOP_NEWEST_CCCL=/tmp/cccl-newest/cccl
fi
python3 -c "import importlib.metadata as m; print('numba-cuda-mlir', m.version('numba-cuda-mlir'))" |
  tee -a "$OUT/python_build.log"
