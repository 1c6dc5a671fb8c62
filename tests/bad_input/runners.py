"""How the cache and environment categories run a case: the `coop` command, or the Python
engine, in a subprocess of its own, so a crash or a hang fails one case instead of the run,
and each case meets a fresh process (warnings about one value come once per process)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def cpp_coop() -> str | None:
    """The C++ coop tool on PATH, which these cases are about: pip's `coop` console script may
    come first (a pyenv shim, say), and a test run as another user cannot start its interpreter."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory or ".", "coop")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            with open(candidate, "rb") as executable:
                if executable.read(4) == b"\x7fELF":
                    return candidate
    return None


COOP = cpp_coop()
CALL = ["compile", "load", "--items", "1", "--arch", "sm_90"]  # small: one provider, one NVRTC call
WARNING = "cuda.coop: warning: "
TIMEOUT = 120  # seconds; a read that blocks (a FIFO) must fail the case, not hang the run


@dataclasses.dataclass
class Outcome:
    status: int  # exit status; negative when a signal killed the process
    stdout: str
    stderr: str
    warnings: list[str]  # each warning's text
    report: dict  # the JSON the command or the engine script printed ({} when none)


def require_coop() -> str:
    if COOP is None:
        pytest.skip("the coop command is not on PATH")
    return COOP


def environment(cache_home: Path, **variables: str) -> dict:
    """The test process's environment without any CUDA_COOP_ setting of its own, caching
    under `cache_home`."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CUDA_COOP_")}
    env["XDG_CACHE_HOME"] = str(cache_home)
    env.update(variables)
    return env


def _report(stdout: str) -> dict:
    """The JSON document a --json command (or the engine script) printed; {} for text output."""
    return json.loads(stdout) if stdout.lstrip().startswith("{") else {}


def run_coop(arguments: list[str], env: dict, user: int | None = None) -> Outcome:
    """`coop <arguments>`; `user` runs it as another uid (the caller must be root)."""
    ids = {} if user is None else {"user": user, "group": user, "extra_groups": []}
    done = subprocess.run(
        [require_coop(), *arguments], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False, **ids
    )
    warnings = [line[len(WARNING) :] for line in done.stderr.splitlines() if line.startswith(WARNING)]
    return Outcome(done.returncode, done.stdout, done.stderr, warnings, _report(done.stdout))


# Runs in the child: one action through the process-wide engine (the planner's), recording
# warnings by category and turning an engine error into the public class a user would see.
_ENGINE_SCRIPT = """
import json, sys, warnings
from cuda.coop import _engine, _engine_session
from cuda.coop._core.errors import from_engine_error

action = sys.argv[1]
report = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        engine = _engine_session.engine()
        if action == "stats":
            report["entries"] = engine.cache_stats().entries
        if action == "log":  # the planner's log lines and the engine's, from one parse
            from cuda.coop._core import log
            log.stage("plan", "one")
            log.stage("compile", "two")
            report["stages"] = _engine.log_stages()
        if action in ("plan", "compile", "log"):
            facts = _engine.CallFacts(
                "load", _engine.block(128), "int32", 1, {"algorithm": _engine.OptionBinding.fixed("direct")}, "case"
            )
            plan = engine.plan(facts)
        if action == "compile":
            bundle = engine.compile([plan], "sm_90")
            report.update(ltoir_bytes=len(bundle.ltoir), cache=bundle.cache)
    except _engine.EngineError as error:
        public = from_engine_error(error)
        report["error"] = {"class": type(public).__name__, "kind": error.kind, "message": str(public)}
report["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
print(json.dumps(report))
"""


def run_engine(action: str, env: dict) -> Outcome:
    """`action` ("compile", "plan", "stats" or "log") through cuda.coop's engine in a fresh Python."""
    done = subprocess.run(
        [sys.executable, "-c", _ENGINE_SCRIPT, action],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    report = _report(done.stdout)
    warnings = [text for category, text in report.get("warnings", []) if category == "CoopWarning"]
    others = [category for category, _ in report.get("warnings", []) if category != "CoopWarning"]
    assert not others, f"warnings of other categories: {others}\n{done.stderr}"
    return Outcome(done.returncode, done.stdout, done.stderr, warnings, report)


@dataclasses.dataclass(frozen=True)
class Seed:
    """One compiled bundle in a cache of its own, for cases that need a valid entry."""

    home: Path  # its XDG_CACHE_HOME
    key: str

    def copy_to(self, home: Path) -> None:
        shutil.copytree(self.home, home, symlinks=True, dirs_exist_ok=True)


def seed_cache(home: Path) -> Seed:
    outcome = run_coop([*CALL, "--json"], environment(home))
    assert outcome.status == 0, outcome.stderr
    return Seed(home, outcome.report["cache_key"])


def check_compiled(outcome: Outcome, output: Path) -> None:
    """The compile went on: exit 0 and LTO-IR written where -o said."""
    assert outcome.status == 0, f"exit {outcome.status}\n{outcome.stderr}"
    assert outcome.report.get("ltoir_bytes", 0) > 0, outcome.stdout
    assert output.stat().st_size == outcome.report["ltoir_bytes"]


def check_one_warning(case, outcome: Outcome, places: dict) -> None:
    """Exactly one warning, holding the case's fragments (with {placeholders} from `places`)."""
    assert len(outcome.warnings) == 1, f"{case.name}: expected one warning, got {outcome.warnings}\n{outcome.stderr}"
    expand(case, places).check(outcome.warnings[0])


def expand(case, places: dict):
    """The case with its fragments' {placeholders} (paths made per run) filled in."""
    return dataclasses.replace(case, fragments=tuple(fragment.format(**places) for fragment in case.fragments))
