"""The toolkit pieces come through cuda-pathfinder (python/cuda/coop/_toolkit_locate.py): `doctor`
says where each came from; a CUDA_HOME that lacks a piece warns naming it; the cuda-cccl
package's headers are searched; a piece named by a CUDA_COOP_* variable that is not there fails
naming the pip package; a misspelt CUDA_COOP_* variable warns once. Real engine, real NVRTC."""

import json
import os
import subprocess
import sys

from cuda.coop import _toolkit_locate

VERSION_CUH = "#pragma once\n#define CUB_VERSION {} // one value\n"


def doctor(tmp_path, **variables):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), **variables}
    env = {name: value for name, value in env.items() if value is not None}
    return subprocess.run(
        [sys.executable, "-W", "always", "-m", "cuda.coop", "doctor", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def fake_cccl(include, cub_version):
    (include / "cub" / "block").mkdir(parents=True)
    (include / "cub" / "block" / "block_load.cuh").write_text("#pragma once\n")
    (include / "cub" / "version.cuh").write_text(VERSION_CUH.format(cub_version))


def test_pathfinder_finds_every_piece_on_this_machine():
    found = _toolkit_locate.locate()
    assert set(found) == {"nvrtc_library", "nvjitlink_library", "cuda_include", "cccl_include"}
    assert os.path.isfile(found["nvrtc_library"].path) and "libnvrtc.so" in found["nvrtc_library"].path
    assert os.path.isfile(found["nvjitlink_library"].path) and "libnvJitLink.so" in found["nvjitlink_library"].path
    assert os.path.isfile(os.path.join(found["cuda_include"].path, "cuda_fp16.h"))
    assert os.path.isfile(os.path.join(found["cccl_include"].path, "cub", "block", "block_load.cuh"))
    assert all(piece.found_via for piece in found.values())


def test_doctor_reports_where_each_piece_came_from_and_the_versions(tmp_path):
    done = doctor(tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    toolkit = report["toolkit"]
    assert report["cuda-pathfinder"][0].isdigit()
    assert set(toolkit["cuda_pathfinder"]) == {"nvrtc_library", "nvjitlink_library", "cuda_include", "cccl_include"}
    assert toolkit["nvrtc_version"].startswith("13.") and toolkit["cccl_version"].count(".") == 2
    # The engine used what cuda-pathfinder found.
    found = _toolkit_locate.locate()
    assert toolkit["nvrtc_library"] == found["nvrtc_library"].path


def test_a_cuda_home_without_the_pieces_warns_naming_it_and_each_piece(tmp_path):
    empty = tmp_path / "not-a-toolkit"
    empty.mkdir()
    done = doctor(tmp_path, CUDA_HOME=str(empty), CUDA_PATH=None)
    assert done.returncode == 0, done.stderr  # the pieces come from elsewhere, and doctor says from where
    for label in ("NVRTC", "nvJitLink", "CUDA headers", "CCCL headers"):
        assert f"CUDA_HOME='{empty}' does not hold the {label} cuda.coop needs; using " in done.stderr, done.stderr
    assert done.stderr.count(f"CUDA_HOME='{empty}'") == 4
    origins = json.loads(done.stdout)["toolkit"]["origins"]
    assert "CUDA_HOME" not in origins.values()


def test_the_cuda_cccl_package_headers_are_searched(tmp_path):
    site = tmp_path / "site"
    fake_cccl(site / "cuda" / "cccl" / "headers" / "include", 300700)
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = doctor(tmp_path, **env)
    report = json.loads(done.stdout)
    toolkit = report["toolkit"]
    # On a machine whose CCCL comes from the nvidia-cuda-cccl wheel, that wheel stays first.
    if toolkit["origins"]["cccl_include"] == "wheel nvidia-cuda-cccl":
        return
    assert toolkit["cccl_include"] == str(site / "cuda" / "cccl" / "headers" / "include")
    assert toolkit["cccl_version"] == "3.7.0"
    assert toolkit["origins"]["cccl_include"] == "wheel cuda-cccl"
    assert toolkit["cuda_pathfinder"]["cccl_include"] == "cuda-cccl"


def test_a_named_piece_that_is_not_there_names_its_pip_package(tmp_path):
    done = doctor(tmp_path, CUDA_COOP_NVRTC_LIBRARY=str(tmp_path / "libnvrtc.so.13"))
    assert done.returncode == 1
    error = json.loads(done.stdout)["toolkit"]["error"]
    assert f"given as {tmp_path / 'libnvrtc.so.13'}, which is no file" in error
    assert "pip package nvidia-cuda-nvrtc" in error


def test_a_named_cuda_include_is_used_as_given(tmp_path):
    found = _toolkit_locate.locate()["cuda_include"].path
    done = doctor(tmp_path, CUDA_COOP_CUDA_INCLUDE=found)
    toolkit = json.loads(done.stdout)["toolkit"]
    assert toolkit["cuda_include"] == os.path.normpath(found)
    assert toolkit["origins"]["cuda_include"] == "CUDA_COOP_CUDA_INCLUDE"


def test_a_misspelt_coop_variable_warns_once_naming_the_closest(tmp_path):
    done = doctor(tmp_path, CUDA_COOP_LOGG="plan", CUDA_COOP_ENABLE_CACHES="0")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("CUDA_COOP_LOGG is not a variable cuda.coop reads (did you mean CUDA_COOP_LOG?)") == 1
    assert "CUDA_COOP_ENABLE_CACHES is not a variable cuda.coop reads (did you mean CUDA_COOP_ENABLE_CACHE?)" in (
        done.stderr
    )


def test_known_coop_variables_do_not_warn(tmp_path):
    done = doctor(tmp_path, CUDA_COOP_ENABLE_CACHE="1", CUDA_COOP_LOG="", CUDA_COOP_PCH="always")
    assert "is not a variable cuda.coop reads" not in done.stderr


# A child that creates the process's engine and says what it used and whether either library is
# loaded afterwards (cuda-pathfinder finds a library by loading it).
ENGINE_CHILD = """
import json
from cuda.coop import _engine_session
found = _engine_session.located()
maps = open("/proc/self/maps").read()
print(json.dumps({"found": {field: [piece.path, piece.found_via] for field, piece in found.items()},
                  "loaded": [name for name in ("libnvrtc.so", "libnvJitLink.so") if name in maps]}))
"""


def engine_child(tmp_path, **variables):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), **variables}
    done = subprocess.run(
        [sys.executable, "-c", ENGINE_CHILD], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def cache_directory(tmp_path):
    """The disk cache's directory, made as the first entry stored makes it (a note waits for it)."""
    directory = tmp_path / "xdg" / "cccl" / "coop"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def notes(tmp_path):
    return sorted((tmp_path / "xdg").rglob("toolkit-located-*.note"))


def test_a_later_process_takes_the_noted_toolkit_without_loading_a_library(tmp_path):
    cache_directory(tmp_path)
    first = engine_child(tmp_path)
    assert len(notes(tmp_path)) == 1
    again = engine_child(tmp_path)
    assert again["found"] == first["found"]
    assert again["loaded"] == []


def test_a_changed_search_input_searches_again_and_notes_apart(tmp_path):
    cache_directory(tmp_path)
    engine_child(tmp_path)
    elsewhere = tmp_path / "empty-conda"
    elsewhere.mkdir()
    moved = engine_child(tmp_path, CONDA_PREFIX=str(elsewhere))
    assert "libnvrtc.so" in moved["loaded"]  # searched with cuda-pathfinder again
    assert len(notes(tmp_path)) == 2


def test_a_note_is_used_only_while_each_noted_file_is_the_one_noted(tmp_path):
    found = _toolkit_locate.locate()
    headers_only = {field: piece for field, piece in found.items() if field.endswith("_include")}
    noted = _toolkit_locate.from_note(_toolkit_locate.note_text(headers_only))
    assert noted == headers_only
    stale = json.loads(_toolkit_locate.note_text(headers_only))
    stale["pieces"]["cuda_include"]["stamp"][1] += 1  # the marker header rewritten since
    assert _toolkit_locate.from_note(json.dumps(stale)) is None
    assert _toolkit_locate.from_note("not json") is None
    assert _toolkit_locate.from_note(json.dumps({"format": 0, "pieces": {}})) is None


def test_a_library_loaded_already_is_taken_from_the_loader(tmp_path):
    # cuda-pathfinder loaded both in this process: its first answer, without a search, from a note too
    found = _toolkit_locate.locate()
    for field in ("nvrtc_library", "nvjitlink_library"):
        loaded = _toolkit_locate.loaded_library(field)
        assert loaded is not None and os.path.samefile(loaded.path, found[field].path)
    elsewhere = json.loads(_toolkit_locate.note_text(found))
    elsewhere["pieces"]["nvrtc_library"]["path"] = "/nowhere/libnvrtc.so.13"
    noted = _toolkit_locate.from_note(json.dumps(elsewhere))
    assert noted is not None and os.path.samefile(noted["nvrtc_library"].path, found["nvrtc_library"].path)
    assert noted["nvrtc_library"].found_via == "was-already-loaded-from-elsewhere"


def test_a_loader_that_cannot_say_leaves_the_search_to_cuda_pathfinder(monkeypatch):
    def no_dlinfo(*arguments):
        raise AttributeError("dlinfo")  # a C library without it

    monkeypatch.setattr(_toolkit_locate, "_dlinfo", no_dlinfo)
    assert _toolkit_locate.loaded_library("nvrtc_library") is None
    assert "nvrtc_library" in _toolkit_locate.locate()  # found by cuda-pathfinder's search


def test_a_piece_named_by_a_variable_is_never_taken_from_a_note(tmp_path, monkeypatch):
    found = _toolkit_locate.locate()
    headers_only = {field: piece for field, piece in found.items() if field.endswith("_include")}
    text = _toolkit_locate.note_text(headers_only)
    monkeypatch.setenv("CUDA_COOP_CUDA_INCLUDE", found["cuda_include"].path)
    assert _toolkit_locate.from_note(text) is None


def test_a_forged_note_is_ignored(tmp_path):
    cache_directory(tmp_path)
    first = engine_child(tmp_path)
    (note,) = notes(tmp_path)
    forged = note.read_bytes().replace(first["found"]["nvrtc_library"][0].encode(), b"/tmp/libnvrtc.so.13")
    note.write_bytes(forged)
    again = engine_child(tmp_path)
    assert again["found"] == first["found"] and "libnvrtc.so" in again["loaded"]
