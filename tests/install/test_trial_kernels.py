"""The six trial kernels of scripts/try-fresh-install.sh, explained (planned, NVRTC-compiled) with
this machine's toolkit, and again against the newest CCCL from the nvidia-cuda-cccl wheel
(scripts/setup.sh installs it into .deps/cccl-newest), not only the toolkit's own CCCL."""

import glob
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
REPO = HERE.parent.parent
NEWEST_CCCL = sorted(glob.glob(str(REPO / ".deps" / "cccl-newest" / "nvidia" / "cu*" / "include" / "cccl")))


def run(arguments, tmp_path, **variables):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), **variables}
    return subprocess.run(
        [sys.executable, *arguments], env=env, cwd=HERE, capture_output=True, text=True, timeout=600, check=False
    )


def test_the_six_trial_kernels_explain(tmp_path):
    done = run(["trial_kernels.py"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok   ") == 6


@pytest.mark.skipif(not NEWEST_CCCL, reason="no nvidia-cuda-cccl wheel in .deps/cccl-newest (scripts/setup.sh)")
def test_the_trial_kernels_compile_against_the_newest_cccl_wheel(tmp_path):
    root = NEWEST_CCCL[-1]
    doctor = run(["-m", "cuda.coop", "doctor", "--json"], tmp_path, CUDA_COOP_CCCL_ROOT=root)
    toolkit = json.loads(doctor.stdout)["toolkit"]
    assert toolkit["cccl_include"] == os.path.normpath(root)
    version = tuple(int(part) for part in toolkit["cccl_version"].split("."))
    assert version > (3, 0, 1), f"the wheel's CCCL {version} is no newer than the toolkit's 3.0.1"
    done = run(["trial_kernels.py"], tmp_path, CUDA_COOP_CCCL_ROOT=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok   ") == 6
