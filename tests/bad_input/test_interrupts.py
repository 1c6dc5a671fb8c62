"""Bad-input catalogue, interrupt category: a real SIGINT (Ctrl-C) at several points of a cold
compile. NVRTC's front end installs a handler that calls exit(4) for the length of a process's
first compile; the engine keeps it from taking SIGINT (engine/src/process_signals.hpp), so the
`coop` command exits 130 with one line and Python raises KeyboardInterrupt, after which the same
process compiles again. Either way the cache holds whole entries only: no temp file, and the
next process reads what is there without a warning.

Each case's detail is (front end, fraction): the signal comes after that fraction of the time an
uninterrupted cold compile of the same front end takes, measured once per run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from catalogue import Case, ids
from runners import CALL, TIMEOUT, environment, require_coop, run_coop

INTERRUPTED = "coop: interrupted"

CASES = [
    Case("cli_early", "exit 130", (INTERRUPTED,), ("cli", 0.1)),
    Case("cli_midway", "exit 130", (INTERRUPTED,), ("cli", 0.3)),
    Case("cli_late", "exit 130", (INTERRUPTED,), ("cli", 0.5)),
    Case("python_at_the_start", "KeyboardInterrupt", ("KeyboardInterrupt", "in interrupted_compile"), ("python", 0.02)),
    Case("python_midway", "KeyboardInterrupt", ("KeyboardInterrupt", "in interrupted_compile"), ("python", 0.3)),
    Case("python_late", "KeyboardInterrupt", ("KeyboardInterrupt", "in interrupted_compile"), ("python", 0.5)),
]

# Runs in the child: one cold compile through the process-wide engine, a SIGINT from a timer
# `delay` seconds after it starts, then the same compile again in the same process.
_ENGINE_SCRIPT = """
import json, os, signal, sys, threading, time, traceback
from cuda.coop import _engine, _engine_session

delay = float(sys.argv[1])
engine = _engine_session.engine()
facts = _engine.CallFacts("load", _engine.block(128), "int32", 1, {"algorithm": _engine.OptionBinding.fixed("direct")}, "case")
plan = engine.plan(facts)
report = {"interrupted": None}


def interrupted_compile():  # named so that the traceback says where the signal landed
    return engine.compile([plan], "sm_90")


timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)) if delay >= 0 else None
start = time.monotonic()
try:
    if timer:
        timer.start()
    interrupted_compile()
    report["seconds"] = time.monotonic() - start
    if timer:
        timer.join()
        time.sleep(0.5)  # a signal that came after the compile is raised here, and fails the case
except KeyboardInterrupt:
    report["interrupted"] = traceback.format_exc()
report["retry_ltoir_bytes"] = len(engine.compile([plan], "sm_90").ltoir)
print(json.dumps(report))
"""


def _run_engine(delay: float, home: Path) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run(
        [sys.executable, "-c", _ENGINE_SCRIPT, str(delay)],
        env=environment(home),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr}"
    return done, json.loads(done.stdout)


def _run_coop(delay: float, home: Path) -> subprocess.CompletedProcess:
    process = subprocess.Popen(
        [require_coop(), *CALL], env=environment(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.fixture(scope="module")
def cold_seconds(tmp_path_factory) -> dict:
    """How long an uninterrupted cold compile takes: the whole `coop` command, and Python's
    engine.compile call. The shorter of two: the first one may read the headers from disk, and
    a signal meant for the middle of a compile must not come after its end."""
    seconds = {"cli": [], "python": []}
    for attempt in range(2):
        home = tmp_path_factory.mktemp(f"uninterrupted{attempt}")
        start = time.monotonic()
        assert run_coop(CALL, environment(home / "cli")).status == 0
        seconds["cli"].append(time.monotonic() - start)
        seconds["python"].append(_run_engine(-1, home / "python")[1]["seconds"])
    return {front_end: min(values) for front_end, values in seconds.items()}


def _check_whole_entries(home: Path) -> None:
    """No temp file is left, and a fresh process reads the cache without a warning."""
    # the entries' MAC key stays, and so does the toolkit's header note (written whole, before any compile)
    kept = lambda path: path.name.endswith((".entry", ".note")) or path.name == "entry-key"
    leftovers = [path.name for path in home.rglob("*") if path.is_file() and not kept(path)]
    assert not leftovers, f"the interrupted compile left {leftovers}"
    after = run_coop([*CALL, "--json"], environment(home))
    assert after.status == 0 and not after.warnings, after.stderr


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_interrupt(case, cold_seconds, tmp_path):
    front_end, fraction = case.detail
    delay = fraction * cold_seconds[front_end]
    if front_end == "cli":
        done = _run_coop(delay, tmp_path)
        assert done.returncode == 130, f"exit {done.returncode} after {delay:.2f} s\n{done.stderr}"
        assert done.stderr.splitlines() == [INTERRUPTED], done.stderr
        case.check(done.stderr)
    else:
        _, report = _run_engine(delay, tmp_path)
        assert report["interrupted"], f"no KeyboardInterrupt from a SIGINT after {delay:.2f} s: {report}"
        case.check(report["interrupted"])
        assert report["retry_ltoir_bytes"] > 0
    _check_whole_entries(tmp_path)
