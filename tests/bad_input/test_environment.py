"""Bad-input catalogue, environment category: a variable whose value cuda.coop cannot use.
None may fail a call or fall back in silence: each warns once (CoopWarning) naming the
variable, its value and what is accepted, and the command goes on with the default. A
value accepted in another case ("NEVER") is a case too, with error "none": no warning,
and the value takes effect. A variable that names what the user asked for explicitly
(CUDA_COOP_CCCL_ROOT) fails instead.

Fragments may hold {file} (a regular file) and {home} (the cache home): paths made per run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from catalogue import Case, ids
from runners import CALL, check_compiled, expand, run_coop, run_engine, seed_cache
from runners import environment as environment_in

EXPLAIN = ["explain", "load", "--items", "1"]  # plans and emits: reads every variable, compiles nothing


@dataclasses.dataclass(frozen=True)
class Setting:
    variables: dict  # the fault: values may hold {file} and {home}
    run: str = "explain"  # explain | compile | compile-hit | stats | engine-compile | engine-log
    expect: dict = dataclasses.field(default_factory=dict)  # fields of the JSON report the value must produce


_BOOLEANS = ("1, true, yes or on", "0, false, no, off or empty")

CASES = [
    Case(
        "pch_unknown",
        "CoopWarning",
        (
            "CUDA_COOP_PCH='sometimes'",
            "one of background, always, after_first, never",
            "kept the default (after_first)",
        ),
        Setting({"CUDA_COOP_PCH": "sometimes"}),
    ),
    Case(
        "pch_upper_case_never",
        "none",
        (),
        Setting({"CUDA_COOP_PCH": "NEVER", "CUDA_COOP_ENABLE_CACHE": "0"}, "compile", {"used_pch": False}),
    ),
    Case(
        "log_unknown",
        "CoopWarning",
        (
            "CUDA_COOP_LOG='chatty'",
            "a comma-separated list of plan, compile, cache, progress, traceback, all",
            "ignored 'chatty'",
        ),
        Setting({"CUDA_COOP_LOG": "chatty"}),
    ),
    Case(
        "log_unknown_warns_once_for_python_and_the_engine",
        "CoopWarning",
        ("CUDA_COOP_LOG='Plan,chatty'", "ignored 'chatty'"),
        Setting({"CUDA_COOP_LOG": "Plan,chatty"}, "engine-log", {"stages": ["plan"]}),
    ),
    Case(
        "enable_cache_unknown",
        "CoopWarning",
        ("CUDA_COOP_ENABLE_CACHE='maybe'", *_BOOLEANS, "kept the default (on)"),
        Setting({"CUDA_COOP_ENABLE_CACHE": "maybe"}, "stats", {"enabled": True}),
    ),
    Case(
        "enable_cache_upper_case_off",
        "none",
        (),
        Setting({"CUDA_COOP_ENABLE_CACHE": "OFF"}, "stats", {"enabled": False}),
    ),
    Case(
        "cuda_home_nowhere",
        "CoopWarning",
        ("CUDA_HOME='/nowhere/cuda' is not usable", "No such file or directory", "the directory of a CUDA toolkit"),
        Setting({"CUDA_HOME": "/nowhere/cuda"}),
    ),
    Case(
        "cuda_home_is_a_file",
        "CoopWarning",
        ("CUDA_HOME='{file}' is not usable (not a directory)", "the directory of a CUDA toolkit"),
        Setting({"CUDA_HOME": "{file}"}),
    ),
    Case(
        "cuda_path_nowhere",
        "CoopWarning",
        ("CUDA_PATH='/nowhere/cuda-path' is not usable", "the directory of a CUDA toolkit"),
        Setting({"CUDA_PATH": "/nowhere/cuda-path", "CUDA_HOME": ""}),
    ),
    Case(
        "tmpdir_nowhere",
        "CoopWarning",
        ("TMPDIR='/nowhere' is not usable", "expected a writable directory", "'/tmp'"),
        Setting({"TMPDIR": "/nowhere", "CUDA_COOP_ENABLE_CACHE": "0"}, "compile"),
    ),
    Case(
        "tmpdir_is_a_file",
        "CoopWarning",
        ("TMPDIR='{file}' is not usable (not a directory)", "expected a writable directory"),
        Setting({"TMPDIR": "{file}", "CUDA_COOP_ENABLE_CACHE": "0"}, "compile"),
    ),
    Case(
        "source_dump_dir_is_a_file_on_a_cache_hit",
        "CoopWarning",
        (
            "CUDA_COOP_SOURCE_DUMP_DIR='{file}' cannot take source dumps",
            "'{file}': Not a directory",  # the OS's reason, never "Success"
            "expected a writable directory",
        ),
        Setting({"CUDA_COOP_SOURCE_DUMP_DIR": "{file}"}, "compile-hit", {"cache": "disk hit", "source_dump": ""}),
    ),
    Case(
        "source_dump_dir_is_a_file_on_a_miss",
        "CoopWarning",
        ("CUDA_COOP_SOURCE_DUMP_DIR='{file}' cannot take source dumps", "'{file}': Not a directory"),
        Setting({"CUDA_COOP_SOURCE_DUMP_DIR": "{file}"}, "compile", {"cache": "miss", "source_dump": ""}),
    ),
    Case(
        "wheel_roots_garbage",
        "CoopWarning",
        (
            "CUDA_COOP_WHEEL_ROOTS='no such wheels:{file}:/tmp' names what is not usable",
            "'no such wheels' (No such file or directory)",
            "'{file}' (not a directory)",
            "'/tmp' (it holds none of cuNN, cuda_nvrtc, nvjitlink, cuda_runtime or cuda_cccl)",
            "a colon-separated list of site-packages/nvidia directories",
            "passed over",
        ),
        Setting({"CUDA_COOP_WHEEL_ROOTS": "no such wheels:{file}:/tmp"}),
    ),
    Case(
        "engine_wheel_roots_garbage",
        "CoopWarning",
        ("CUDA_COOP_WHEEL_ROOTS='/nowhere/nvidia'", "'/nowhere/nvidia' (No such file or directory)"),
        Setting({"CUDA_COOP_WHEEL_ROOTS": "/nowhere/nvidia"}, "engine-compile"),
    ),
    Case(
        "source_dump_dir_under_a_file",
        "CoopWarning",
        ("CUDA_COOP_SOURCE_DUMP_DIR='{file}/dumps' cannot take source dumps", "Not a directory"),
        Setting({"CUDA_COOP_SOURCE_DUMP_DIR": "{file}/dumps"}, "compile-hit", {"source_dump": ""}),
    ),
    Case(
        "engine_pch_unknown",
        "CoopWarning",
        ("CUDA_COOP_PCH='Sometimes'", "one of background, always, after_first, never"),
        Setting({"CUDA_COOP_PCH": "Sometimes"}, "engine-compile"),
    ),
    Case(
        "engine_tmpdir_nowhere",
        "CoopWarning",
        ("TMPDIR='/nowhere' is not usable", "expected a writable directory"),
        Setting({"TMPDIR": "/nowhere", "CUDA_COOP_ENABLE_CACHE": "0"}, "engine-compile"),
    ),
    Case(
        "engine_enable_cache_unknown",
        "CoopWarning",
        ("CUDA_COOP_ENABLE_CACHE='sometimes'", *_BOOLEANS),
        Setting({"CUDA_COOP_ENABLE_CACHE": "sometimes"}, "engine-plan"),
    ),
    Case(
        "cccl_root_nowhere",
        "exit 1 ToolkitError",
        ("CUDA_COOP_CCCL_ROOT = /nowhere/cccl", "cub/block/block_load.cuh"),
        Setting({"CUDA_COOP_CCCL_ROOT": "/nowhere/cccl"}),
    ),
]


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    return seed_cache(tmp_path_factory.mktemp("seed"))


def _places(tmp_path: Path) -> dict:
    file = tmp_path / "a-file"
    file.write_text("a regular file")
    return {"file": file, "home": tmp_path / "xdg"}


def _run(setting: Setting, env: dict, tmp_path: Path):
    if setting.run.startswith("engine-"):
        return run_engine(setting.run.removeprefix("engine-"), env)
    arguments = {"explain": EXPLAIN, "stats": ["cache", "stats", "--json"]}.get(setting.run)
    if arguments is None:
        arguments = [*CALL, "--json", "-o", str(tmp_path / "bundle.ltoir")]
    return run_coop(arguments, env)


def _check_went_on(setting: Setting, outcome, tmp_path: Path) -> None:
    assert outcome.status == 0, f"exit {outcome.status}\n{outcome.stdout}{outcome.stderr}"
    if setting.run.startswith("compile"):
        check_compiled(outcome, tmp_path / "bundle.ltoir")
    elif setting.run == "explain":
        assert "== generated C++" in outcome.stdout, outcome.stdout
    elif setting.run == "engine-compile":
        assert "error" not in outcome.report and outcome.report["ltoir_bytes"] > 0, outcome.report
    for field, value in setting.expect.items():
        assert outcome.report.get(field) == value, f"{field}: {outcome.report}"


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_environment(case, tmp_path, seed):
    setting = case.detail
    places = _places(tmp_path)
    if setting.run == "compile-hit":
        seed.copy_to(places["home"])
    variables = {name: value.format(**places) for name, value in setting.variables.items()}
    outcome = _run(setting, environment_in(places["home"], **variables), tmp_path)
    assert outcome.status >= 0, f"killed by signal {-outcome.status}\n{outcome.stderr}"
    if case.error.startswith("exit "):
        assert outcome.status == int(case.error.split()[1]), outcome.stderr
        assert f"coop: {case.error.split()[2]}: " in outcome.stderr, outcome.stderr
        expand(case, places).check(outcome.stderr)
        return
    _check_went_on(setting, outcome, tmp_path)
    if case.error == "none":
        assert outcome.warnings == [], outcome.warnings
        return
    assert len(outcome.warnings) == 1, f"expected one warning, got {outcome.warnings}\n{outcome.stderr}"
    expand(case, places).check(outcome.warnings[0])
