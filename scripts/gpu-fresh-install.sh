#!/usr/bin/env bash
# On the GPU machine (CPython 3.12, no package index): reassembles the wheelhouse that
# scripts/pack-fresh-install.sh split into .whl/fresh/part-* (with COOP_TRIAL_TOOLKIT=system: its
# .whl/fresh-system/wheelhouse.tar and numba-cuda-mlir rebuilt from .whl), then runs scripts/try-fresh-install.sh
# from it offline, with the system toolkit hidden, launching the six trial kernels and checking
# them against NumPy (COOP_TRIAL_LAUNCH=1: no GPU is a failure). Log: $OUT/fresh_install.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
mkdir -p "$OUT"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ "${COOP_TRIAL_TOOLKIT:-wheels}" == system ]]; then
  # The system-toolkit trial: numba-cuda-mlir's wheel, too large to carry, is rebuilt from its
  # carried unpacked files (the wheel's own, RECORD included) beside the carried wheelhouse.
  [[ -f .whl/fresh-system/wheelhouse.tar && -f .whl/numba_cuda_mlir-cp312.tar.xz ]] ||
    { echo "carry .whl/fresh-system (and earlier .whl/numba_cuda_mlir-cp312.tar.xz)" >&2; exit 1; }
  tar -C "$work" -xf .whl/fresh-system/wheelhouse.tar
  mkdir -p "$work/ncm"
  xz -dc -T0 .whl/numba_cuda_mlir-cp312.tar.xz | tar -C "$work/ncm" -xf -
  python3 - "$work/ncm" "$work/wheelhouse" <<'PY'
import pathlib, sys, zipfile
site, out = map(pathlib.Path, sys.argv[1:])
info = next(site.glob("*.dist-info"))
tag = next(line.split(":", 1)[1].strip() for line in (info / "WHEEL").read_text().splitlines() if line.startswith("Tag:"))
wheel = out / f"{info.name[: -len('.dist-info')]}-{tag}.whl"
with zipfile.ZipFile(wheel, "w") as archive:
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        archive.write(path, path.relative_to(site).as_posix())
print("rebuilt", wheel.name)
PY
else
  compgen -G ".whl/fresh/part-*" >/dev/null || { echo "carry .whl/fresh/part-* (scripts/pack-fresh-install.sh)" >&2; exit 1; }
  cat .whl/fresh/part-* | tar -C "$work" -xf -
fi
COOP_TRIAL_LAUNCH=1 PYTHON="${PYTHON:-python3}" \
  scripts/try-fresh-install.sh "$work/wheelhouse" "$work/wheelhouse" 2>&1 | tee "$OUT/fresh_install.log"
