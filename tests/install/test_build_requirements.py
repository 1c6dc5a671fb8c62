"""A build from the sdist that lacks the one system package it needs (the nlohmann-json headers)
stops with one line naming that package, not CMake's page of search paths."""

import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")
def test_missing_nlohmann_json_is_one_line_naming_the_package(tmp_path):
    done = subprocess.run(
        [
            "cmake",
            "-S",
            str(REPO),
            "-B",
            str(tmp_path),
            "-DCOOP_BUILD_TESTS=OFF",
            "-DCOOP_BUILD_BENCHMARKS=OFF",
            "-DCOOP_BUILD_TOOLS=OFF",
            "-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    lines = done.stderr.splitlines()
    error = lines.index(next(line for line in lines if line.startswith("CMake Error at engine/CMakeLists.txt")))
    assert lines[error + 1].strip() == "cuda.coop needs nlohmann-json headers: apt-get install nlohmann-json3-dev"
    assert lines[error + 2].strip() == ""  # nothing more to the message
