"""The `coop` console script (cuda.coop._cli:console): with the C++ tool shipped in the wheel,
every command but a well-formed `coop doctor` runs that tool, told where cuda-pathfinder found
each piece; without it, Python's doctor, cache and explain. scripts/try-fresh-install.sh checks
the installed wheel's `coop` end to end."""

import os
import shutil
import subprocess
import sys

import pytest

from cuda.coop import _cli

CONSOLE = "import sys; from cuda.coop import _cli; {patch}sys.argv = ['coop', *sys.argv[1:]]; _cli.console()"


def console(*arguments, tool=None):
    """`coop ARGUMENTS` through the console script; `tool`: the C++ tool it finds ("": none),
    None: whatever this install ships."""
    patch = "" if tool is None else f"_cli.tool_path = lambda: {tool or None!r}; "
    return subprocess.run(
        [sys.executable, "-c", CONSOLE.format(patch=patch), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_python_commands_run_in_python():
    done = console("--version", tool="")
    assert done.returncode == 0 and done.stdout.startswith("cuda.coop ")
    done = console("explain", "load", "--group", "block:32", "--dtype", "int32", "--items", "1", tool="")
    assert done.returncode == 0, done.stderr
    assert "BlockLoad" in done.stdout


def _cpp_coop():
    """The C++ coop tool on PATH (an ELF file), not a console script that may come first."""
    for directory in os.environ["PATH"].split(os.pathsep):
        path = shutil.which("coop", path=directory)
        if path:
            with open(path, "rb") as executable:
                if executable.read(4) == b"\x7fELF":
                    return path
    return None


CPP_TOOL = _cpp_coop()
needs_the_tool = pytest.mark.skipif(CPP_TOOL is None, reason="the C++ coop tool is not built")


@needs_the_tool
def test_compile_and_link_run_the_cpp_tool():
    done = console("link", "--help", tool=CPP_TOOL)
    assert done.returncode == 0, done.stderr
    assert "Link LTO-IR" in done.stdout


@needs_the_tool
def test_bad_input_is_the_cpp_tools_word_for_word():
    done = console("frobnicate", tool=CPP_TOOL)
    assert done.returncode == 2
    assert "argument 'subcommand' = 'frobnicate'" in done.stderr
    done = console("doctor", "extra", tool=CPP_TOOL)
    assert done.returncode == 2
    assert "coop doctor: unexpected argument 'extra'" in done.stderr


@needs_the_tool
def test_doctor_is_pythons_which_names_each_origin():
    done = console("doctor", tool=CPP_TOOL)
    assert done.returncode == 0, done.stderr
    assert "cuda-pathfinder:" in done.stdout
    assert any(line.startswith("NVRTC:") and line.endswith("]") for line in done.stdout.splitlines())


def test_without_the_cpp_tool_the_other_commands_are_refused_by_name():
    done = console("link", "--help", tool="")
    assert done.returncode == 2
    assert "invalid choice: 'link'" in done.stderr


def test_the_tool_is_told_where_each_piece_is(monkeypatch):
    for name in ("CUDA_COOP_NVRTC_LIBRARY", "CUDA_COOP_NVJITLINK_LIBRARY", "CUDA_COOP_CUDA_INCLUDE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", "/explicit/cccl")
    environment = _cli.tool_environment()
    assert os.path.isfile(environment["CUDA_COOP_NVRTC_LIBRARY"])
    assert os.path.isfile(environment["CUDA_COOP_NVJITLINK_LIBRARY"])
    assert os.path.isfile(os.path.join(environment["CUDA_COOP_CUDA_INCLUDE"], "cuda_fp16.h"))
    assert environment["CUDA_COOP_CCCL_ROOT"] == "/explicit/cccl"  # what the user named stays
