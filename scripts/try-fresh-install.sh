#!/usr/bin/env bash
# What a new user does, checked: a fresh virtual environment installs the cuda.coop wheel with its
# cu13 extra (numba-cuda-mlir, NVRTC, nvJitLink, the CUDA runtime and CCCL headers, all wheels),
# with no system CUDA visible, then runs the commands a new user runs and the six trial kernels
# (tests/install/trial_kernels.py): explained without a GPU, launched and checked where one exists.
#
#   scripts/try-fresh-install.sh DIST [WHEELHOUSE]
# DIST holds the cuda_coop wheels (scripts/build-wheels.sh). With WHEELHOUSE (a directory of
# wheels: `pip download -d WHEELHOUSE "cuda-coop[cu13]" --find-links DIST`), nothing is fetched,
# as on the GPU machine, which has no package index. PYTHON picks the interpreter (default python3).
# COOP_TRIAL_LAUNCH=1 fails unless the trial kernels are launched on a GPU.
#
# COOP_TRIAL_TOOLKIT=system installs "cuda-coop[numba-cuda-mlir]" instead and takes NVRTC,
# nvJitLink and CCCL from the system toolkit (CUDA_HOME, default /usr/local/cuda): the locator's
# last place, and what the GPU machine can carry (the cu13 wheels are 300 MB); doctor must then
# report no piece as a wheel's.
#
# Otherwise system CUDA is hidden three ways: CUDA_HOME, CUDA_PATH and LD_LIBRARY_PATH are unset and PATH
# holds only the environment's bin and /usr/bin:/bin; where the command may (root, unshare), an
# empty directory is mounted over /usr/local/cuda*, which both cuda-pathfinder's system search and
# the engine's last resort look in; and doctor must report every piece as coming from a wheel.
set -euo pipefail
dist="$(realpath "${1:?usage: scripts/try-fresh-install.sh DIST [WHEELHOUSE]}")"
wheelhouse="${2:+$(realpath "$2")}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
trial="$(mktemp -d)"
trap 'rm -rf "$trial"' EXIT
cp "$repo/tests/install/trial_kernels.py" "$trial/"

say() { printf '\n$ %s\n' "$*"; }

say "$python -m venv venv && . venv/bin/activate"
"$python" -m venv "$trial/venv"
venv="$trial/venv"
sources=(--find-links "$dist")
[[ -z "$wheelhouse" ]] || sources+=(--no-index --find-links "$wheelhouse")
# The wheel from DIST that this interpreter takes (pip refuses the others' tags), never an index's.
installed=""
for wheel in "$dist"/cuda_coop-*.whl; do
  if "$venv/bin/python" -m pip install --quiet --no-deps --no-index "$wheel" 2>/dev/null; then
    installed="$wheel"
    break
  fi
done
[[ -n "$installed" ]] || { echo "try-fresh-install: no wheel in $dist fits $("$python" --version)" >&2; exit 1; }
toolkit="${COOP_TRIAL_TOOLKIT:-wheels}"
requirement="cuda-coop[cu13]"
[[ "$toolkit" == system ]] && requirement="cuda-coop[numba-cuda-mlir]"
say "pip install \"$requirement\"   # $(basename "$installed"), --find-links $dist${wheelhouse:+ --no-index --find-links $wheelhouse}"
"$venv/bin/python" -m pip install --quiet "${sources[@]}" "$requirement"
"$venv/bin/python" -m pip list 2>/dev/null | grep -iE '^(cuda-coop|cuda-pathfinder|numba.cuda.mlir|nvidia-)' | sed 's/^/    /'

# The commands run in a clean environment: no CUDA variables, no toolkit on PATH or the loader's path.
clean=(env -i HOME="$trial" TMPDIR="$trial" XDG_CACHE_HOME="$trial/cache" PATH="$venv/bin:/usr/bin:/bin"
  LANG=C.UTF-8 PYTHONNOUSERSITE=1)
hide=()
toolkits=(/usr/local/cuda*)
if [[ "$toolkit" == system ]]; then
  clean+=(CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}")
  echo "(the toolkit comes from the system: CUDA_HOME=${CUDA_HOME:-/usr/local/cuda})"
elif [[ -e "${toolkits[0]}" ]] && [[ $EUID -eq 0 ]] && unshare -m true 2>/dev/null; then
  mkdir -p "$trial/empty"
  mounts=""
  for dir in "${toolkits[@]}"; do [[ -d "$dir" && ! -L "$dir" ]] && mounts+="mount --bind $trial/empty $dir && "; done
  hide=(unshare -m sh -c "${mounts}exec \"\$@\"" hide)
  echo "(system toolkits hidden for the commands below: ${toolkits[*]})"
fi
run() { (cd "$trial" && "${hide[@]}" "${clean[@]}" "$@"); }

say "python -c 'import cuda.coop as coop; print(coop.__version__)'"
run python -c 'import cuda.coop as coop; print(coop.__version__)'
say "coop --version"
run coop --version
say "python -m cuda.coop doctor"
run python -m cuda.coop doctor
run python -m cuda.coop doctor --json >"$trial/doctor.json"
run python - "$trial/doctor.json" "$toolkit" <<'PY'
import json, sys
origins = json.load(open(sys.argv[1]))["toolkit"].get("origins")
from_wheels = sys.argv[2] == "wheels"
if not origins or not all(o.startswith("wheel ") == from_wheels for o in origins.values()):
    sys.exit(f"try-fresh-install: a toolkit piece did not come from the {sys.argv[2]}: {origins}")
PY
say "python -m cuda.coop explain sum --group warp --block 256 --dtype float32"
run python -m cuda.coop explain sum --group warp --block 256 --dtype float32 | head -4
say "coop explain load --group block:128 --dtype int32 --items 4 --algorithm transpose"
run coop explain load --group block:128 --dtype int32 --items 4 --algorithm transpose | head -12
if [[ -n "$(run python -c 'from cuda.coop import _cli; print(_cli.tool_path() or "")')" ]]; then
  say "coop compile sum --group block:128 --dtype float32 --items 4 --arch sm_90   # the C++ tool in the wheel"
  run coop compile sum --group block:128 --dtype float32 --items 4 --arch sm_90 | head -5
fi
say "python trial_kernels.py"
launch=()
[[ "${COOP_TRIAL_LAUNCH:-0}" == 1 ]] && launch=(--launch)
run python trial_kernels.py "${launch[@]}"
say "coop cache stats"
run coop cache stats
