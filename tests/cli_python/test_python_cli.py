"""The command line that comes with the Python package. `python -m cuda.coop` and the `coop`
console script are one command: the C++ tool shipped in the wheel (doctor excepted, which
is Python's), or, in a wheel without it, the Python commands (doctor, cache stats|clear,
explain), which read the tool's vocabulary. Bad input exits 2 with one line
`coop: <ErrorClass>: message`, as the C++ tool does."""

import importlib.metadata
import json
import os
import subprocess
import sys
import sysconfig

import pytest

from cuda import coop
from cuda.coop import _cli
from cuda.coop._toolkit_origin import origin

# The Python commands themselves, as a wheel without the C++ tool runs them.
PYTHON_COMMANDS = [sys.executable, "-c", "import sys; from cuda.coop._cli import main; sys.exit(main(sys.argv[1:]))"]
# The `coop` console script pip installs (or what it runs, where the scripts directory has none).
CONSOLE_SCRIPT = os.path.join(sysconfig.get_path("scripts"), "coop")
if not os.path.isfile(CONSOLE_SCRIPT):
    CONSOLE_SCRIPT = [sys.executable, "-c", "from cuda.coop._cli import console; console()"]


def coop_command(*arguments, cache=None, command=None):
    env = dict(os.environ)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    return subprocess.run(
        [*(command or PYTHON_COMMANDS), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def fake_entries(cache, count):
    """Entries as the disk cache lays them out: <dir>/<first two hex digits>/<64 hex digits>.entry."""
    directory = cache / "cccl" / "coop"
    for index in range(count):
        key = f"{index:02x}" * 32
        shard = directory / key[:2]
        shard.mkdir(parents=True, mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)
        entry = shard / f"{key}.entry"
        entry.write_text("not a real entry")
        os.chmod(entry, 0o600)
    return directory


def test_version():
    done = coop_command("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"cuda.coop {coop.__version__}"


def test_doctor_names_each_piece_and_where_it_came_from(tmp_path):
    done = coop_command("doctor", "--json", cache=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert found["cuda.coop"] == coop.__version__
    assert found["numba-cuda-mlir"] == importlib.metadata.version("numba-cuda-mlir")
    toolkit = found["toolkit"]
    assert os.path.isfile(toolkit["nvrtc_library"]) and os.path.isfile(toolkit["nvjitlink_library"])
    assert os.path.isfile(os.path.join(toolkit["cccl_include"], "cub", "version.cuh"))
    assert toolkit["nvrtc_version"].startswith("13.")
    assert set(toolkit["origins"]) == {"nvrtc_library", "nvjitlink_library", "cuda_include", "cccl_include"}
    assert found["cache"] == {
        "directory": str(tmp_path / "cccl" / "coop"),
        "enabled": True,
        "entries": 0,
        "bytes": 0,
    }
    text = coop_command("doctor", cache=tmp_path).stdout
    gpu = found["gpu"]
    if gpu["visible"]:
        assert f"GPU:             {gpu['name']} ({gpu['arch']}); explain and compiles target {gpu['arch']}" in text
    else:  # this machine, or CI: the reason, and what explain compiles for instead
        assert f"GPU:             none visible ({gpu['reason']}); explain and compiles target sm_90" in text
    assert f"NVRTC:           {toolkit['nvrtc_library']} ({toolkit['nvrtc_version']})" in text
    assert f"CCCL {toolkit['cccl_version']}" in text


def test_doctor_without_a_toolkit_says_what_is_missing_and_exits_1(tmp_path):
    env = {
        "CUDA_COOP_CCCL_ROOT": str(tmp_path),  # explicit, so no other CCCL is taken
        "XDG_CACHE_HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "doctor"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert "toolkit:" in done.stdout and "not usable" in done.stdout and str(tmp_path) in done.stdout


@pytest.mark.parametrize(
    ("field", "relative", "expected"),
    [
        ("nvrtc_library", "site/nvidia/cu13/lib/libnvrtc.so.13", "wheel nvidia-cuda-nvrtc"),
        ("cccl_include", "site/nvidia/cu13/include/cccl", "wheel nvidia-cuda-cccl"),
        ("cuda_include", "toolkit/include", "CUDA_HOME"),
        ("nvjitlink_library", "elsewhere/lib/libnvJitLink.so.13", "system"),
    ],
)
def test_origin_of_a_piece(tmp_path, monkeypatch, field, relative, expected):
    (tmp_path / "toolkit").mkdir()
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "toolkit"))
    for name in ("CUDA_PATH", "CONDA_PREFIX", "CUDA_COOP_CCCL_ROOT"):
        monkeypatch.delenv(name, raising=False)
    assert origin(field, str(tmp_path / relative), [str(tmp_path / "site" / "nvidia")]) == expected


def test_cache_stats_and_clear(tmp_path):
    directory = fake_entries(tmp_path, 3)
    stats = json.loads(coop_command("cache", "stats", "--json", cache=tmp_path).stdout)
    assert (stats["directory"], stats["entries"]) == (str(directory), 3)
    done = coop_command("cache", "clear", "--json", cache=tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"directory": str(directory), "removed": 3, "failed": []}
    assert coop_command("cache", "stats", cache=tmp_path).stdout.splitlines()[1:] == ["entries: 0", "bytes: 0"]
    assert coop_command("cache", "clear", cache=tmp_path).stdout.strip() == f"removed 0 entries from {directory}"


def test_an_unusable_cache_is_a_cache_error(tmp_path):
    (tmp_path / "cccl").mkdir()
    (tmp_path / "cccl" / "coop").write_text("a file where the cache directory goes")
    done = coop_command("cache", "stats", "--json", cache=tmp_path)
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["kind"] == "CacheError"


def test_explain_prints_the_plan_and_the_generated_code():
    done = coop_command(
        "explain", "load", "--group", "block:128", "--dtype", "int32", "--items", "2", "--algorithm", "transpose",
        "--valid-items", "--oob-default", "-1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "::cub::BLOCK_LOAD_TRANSPOSE" in done.stdout
    assert "valid_items: RUNTIME" in done.stdout and "oob_default: STATIC -1" in done.stdout
    assert "== generated C++ (sm_90) ==" in done.stdout


def test_explain_a_warp_group():
    done = coop_command("explain", "sum", "--group", "warp:16", "--block", "64", "--dtype", "float32")
    assert done.returncode == 0, done.stderr
    assert "WarpReduce" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "kind", "words"),
    [
        (["explain", "load", "--group", "block:128", "--dtype", "int32", "--bogus"], "InvalidArgumentError",
         "argument '--bogus' is not allowed; expected one of: --algorithm, --valid-items"),
        (["explain", "load", "--group", "grid:1", "--dtype", "int32"], "InvalidArgumentError",
         "argument 'group' = 'grid:1' is not allowed"),
        (["explain", "sum", "--group", "block:128", "--block", "64", "--dtype", "int32"], "InvalidArgumentError",
         "no --block with a block group"),
        (["explain", "load", "--group", "block:128", "--dtype", "int33"], "InvalidArgumentError", "int33"),
        (["explain", "load", "--group", "block:100000", "--dtype", "int32"], "InvalidGroupError", "100000"),
        (["explain", "load", "--group", "block:128", "--dtype", "int32", "--arch", "sm_999"], "InvalidArgumentError",
         "python -m cuda.coop explain: argument 'arch' = 'sm_999' is not allowed; expected an arch NVRTC"),
        (["frobnicate"], "InvalidArgumentError", "invalid choice: 'frobnicate'"),
        (["cache"], "InvalidArgumentError", "coop cache"),
        (["doctor", "--extra"], "InvalidArgumentError", "--extra"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(arguments, kind, words):
    done = coop_command(*arguments)
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"coop: {kind}: ")
    assert words in line


def test_a_missing_piece_names_the_pip_package_that_provides_it(tmp_path):
    env = {**os.environ, "CUDA_COOP_CCCL_ROOT": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    code = "from cuda.coop import _engine; _engine.Engine().toolkit"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert (
        "CCCL headers (cub/block/block_load.cuh, pip package nvidia-cuda-cccl): looked in " + str(tmp_path)
        in done.stderr
    )
    assert 'pip install "cuda-coop[cu13]"' in done.stderr


PARITY = [
    ["--help"],
    ["explain", "reduce", "--group", "warps:2", "--block", "128", "--dtype", "int32"],
    ["explain", "reduce", "--group", "block:128", "--dtype", "int32", "--binary-op", "np.maximum"],
    ["explain", "load", "--group", "grid:1", "--dtype", "int32"],
    ["doctor", "--json"],
]


@pytest.mark.parametrize("arguments", PARITY, ids=["help", "warps", "numpy-operator", "bad-group", "doctor"])
def test_python_m_cuda_coop_is_the_coop_command(tmp_path, arguments):
    script = [CONSOLE_SCRIPT] if isinstance(CONSOLE_SCRIPT, str) else CONSOLE_SCRIPT
    module = coop_command(*arguments, cache=tmp_path, command=[sys.executable, "-m", "cuda.coop"])
    console = coop_command(*arguments, cache=tmp_path, command=script)
    assert (module.returncode, module.stdout, module.stderr) == (console.returncode, console.stdout, console.stderr)
    assert module.returncode == (2 if "grid:1" in arguments else 0), module.stderr


@pytest.mark.parametrize(
    "arguments",
    [
        ["explain", "reduce", "--group", "warps:2", "--block", "128", "--dtype", "int32"],
        ["explain", "sum", "--group", "cluster:2", "--block", "128", "--dtype", "float32"],
        ["explain", "reduce", "--group", "block:128", "--dtype", "int32", "--binary-op", "np.maximum"],
        ["explain", "scan", "--group", "warp:16", "--block", "64", "--dtype", "int32", "--scan-op", "operator.add"],
    ],
    ids=["warps", "cluster", "numpy-operator", "operator-module"],
)
def test_the_python_commands_read_the_tools_vocabulary(arguments):
    done = coop_command(*arguments)
    assert done.returncode == 0, done.stderr
    tool = _cli.tool_path()
    if tool is not None:  # the same plan, word for word
        reference = coop_command(*arguments, command=[tool])
        assert done.stdout.split("== generated C++")[0] == reference.stdout.split("== generated C++")[0]
