#!/usr/bin/env bash
# Packs what the GPU machine lacks (it has no package index) into .whl/, which
# the device tool carries: numba-cuda-mlir for CPython 3.12, unpacked and
# xz-compressed because its wheel (71 MB) is over the 64 MiB a call can carry.
# The first version (NUMBA_CUDA_MLIR_VERSIONS, default "0.5.4 0.6.0") is packed
# whole (.whl/numba_cuda_mlir-cp312.tar.xz, 50 MB); every other one as its
# difference from the first (.whl/numba_cuda_mlir-<version>-delta-cp312.tar.xz:
# the files that changed or are new, and a list of the ones it no longer has;
# 0.6.0 over 0.5.4 is 0.3 MB), so both fit in one call's carry.
# scripts/gpu-python-env.sh unpacks the one COOP_NCM_VERSION names, and the newest CCCL headers.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a versions <<<"${NUMBA_CUDA_MLIR_VERSIONS:-${NUMBA_CUDA_MLIR_VERSION:-0.5.4 0.6.0}}"
mkdir -p .whl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for version in "${versions[@]}"; do
  mkdir -p "$work/$version/site"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d "$work/$version" "numba-cuda-mlir==$version"
  python3 -m zipfile -e "$work/$version"/numba_cuda_mlir-*.whl "$work/$version/site"
done
base="${versions[0]}"
tar -C "$work/$base/site" -cf - . | xz -T0 -6 >.whl/numba_cuda_mlir-cp312.tar.xz
echo "$base" >.whl/numba_cuda_mlir-base-version
for version in "${versions[@]:1}"; do
  python3 - "$work/$base/site" "$work/$version/site" "$work/$version/changed" "$work/$version/site/.removed" <<'PY'
import filecmp, os, sys
base, new, changed, removed = sys.argv[1:]
def files(root):
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}
old, now = files(base), files(new)
with open(changed, "w") as out:
    for path in sorted(now):
        if path not in old or not filecmp.cmp(os.path.join(base, path), os.path.join(new, path), shallow=False):
            out.write(path + "\n")
    out.write(".removed\n")
with open(removed, "w") as out:
    out.write("".join(path + "\n" for path in sorted(old - now)))
PY
  tar -C "$work/$version/site" -cf - -T "$work/$version/changed" | xz -T0 -6 \
    >".whl/numba_cuda_mlir-$version-delta-cp312.tar.xz"
done
# The newest CCCL headers (scripts/setup.sh put them in .deps/cccl-newest), 1.5 MB compressed: the GPU
# tests run the families whose provider depends on the CCCL (a block top-k) against both.
newest=$(ls -d .deps/cccl-newest/nvidia/cu*/include 2>/dev/null | tail -n 1)
[[ -z "$newest" ]] || tar -C "$newest" -cf - cccl | xz -T0 -6 >.whl/cccl-newest-headers.tar.xz
ls -l .whl/
