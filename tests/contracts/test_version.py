"""The version is written once, in pyproject.toml; the package metadata, CMake's project
version and the engine (which bakes it into cache keys) must all say the same."""

import importlib.metadata
import pathlib
import re
import tomllib

from cuda import coop
from cuda.coop import _engine
from cuda.coop._core import version

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_package_engine_and_pyproject_agree():
    assert coop.__version__ == pyproject_version()
    assert _engine.engine_version() == pyproject_version()


def test_cmake_takes_its_version_from_pyproject():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    project = re.search(r"project\(cuda_coop VERSION (\S+)", cmake)
    assert project is not None
    # Either read from pyproject.toml (as today) or, if written out again, the same.
    assert project[1] in ("${coop_version}", pyproject_version())
    assert "pyproject.toml" in cmake


def test_a_tree_without_metadata_has_an_unknown_version(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert version.package_version() == "0+unknown"
