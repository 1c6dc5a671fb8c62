"""Runs the code samples of the built documentation, page by page, in this one
process (one import of the kernel compiler, one NVRTC precompiled header for all).

    python3 docs/tests/run_samples.py SAMPLES.json WORK_DIR RESULTS.json

Each page's Python samples run in order in one namespace of their own (a later
sample may use what an earlier one defined), which starts with numpy as ``np``,
``cuda`` from numba_cuda_mlir and ``coop``. A sample followed on its page by a text
block must print exactly that text. A console sample runs each ``$`` command with
bash in the page's work directory and needs it to exit 0; an included example runs
as a script. A failing page is recorded and the next one runs.

Without a GPU, a launch ``kernel[grid, block](*args)`` becomes ``coop.explain(kernel,
*args, grid=grid, block=block)``: the kernel is planned, its providers compiled by
NVRTC and the whole linked by nvJitLink, and nothing runs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import traceback

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.descriptor import MLIRDispatcher

from cuda import coop

ROOT = pathlib.Path(__file__).resolve().parents[2]
# `coop` in a console sample is the C++ tool this checkout built (scripts/setup.sh),
# ahead of any other `coop` on PATH (a console script of the Python package).
BUILT_TOOLS = ROOT / "build" / "engine" / "tools" / "coop"


class SampleFailed(Exception):
    pass


def _compile_only(kernel, configuration):
    grid, block = configuration[0], configuration[1]
    return lambda *args: coop.explain(kernel, *args, grid=grid, block=block)


def commands(text: str) -> list[str]:
    """The $ commands of a console block, continuation lines joined."""
    result: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            result.append([line[2:]])
        elif result and result[-1][-1].endswith("\\"):
            result[-1].append(line)
    return ["\n".join(command) for command in result]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def run_python(sample: dict, number: int, namespace: dict, work: pathlib.Path, log) -> None:
    path = work / f"sample_{number}.py"  # a real file: the kernel compiler reads source lines
    path.write_text(sample["code"] + "\n")
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(sample["code"], str(path), "exec"), namespace)  # noqa: S102 -- running the samples is the point
    except Exception as error:
        log.write(printed.getvalue() + traceback.format_exc())
        raise SampleFailed(f"raised {type(error).__name__}: {error}") from error
    log.write(printed.getvalue())
    if sample["expected"] is not None and _lines(printed.getvalue()) != _lines(sample["expected"]):
        raise SampleFailed(f"printed\n{printed.getvalue()}\nbut the page shows\n{sample['expected']}")


def run_process(command: list[str], work: pathlib.Path, log) -> None:
    environment = dict(os.environ)
    if BUILT_TOOLS.is_dir():
        environment["PATH"] = f"{BUILT_TOOLS}{os.pathsep}{environment.get('PATH', '')}"
    done = subprocess.run(command, check=False, capture_output=True, text=True, cwd=work, timeout=300, env=environment)
    log.write(done.stdout + done.stderr)
    if done.returncode:
        raise SampleFailed(f"{' '.join(command)} exited with {done.returncode}:\n{done.stderr[-3000:]}")


def run_page(samples: list[dict], work: pathlib.Path, log) -> None:
    namespace = {"__name__": "__docs_sample__", "np": np, "cuda": cuda, "coop": coop}
    for number, sample in enumerate(samples):
        log.write(f"-- {sample['source']}:{sample['line']}\n")
        try:
            if sample["file"]:
                program = [sys.executable] if sample["file"].endswith(".py") else ["bash"]
                run_process([*program, sample["file"]], work, log)
            elif sample["language"] == "console":
                found = commands(sample["code"])
                if not found:
                    raise SampleFailed("a console sample without a '$ ' command")
                for command in found:
                    log.write(f"$ {command}\n")
                    run_process(["bash", "-c", command], work, log)
            else:
                run_python(sample, number, namespace, work, log)
        except SampleFailed as failure:
            raise SampleFailed(f"{sample['source']}:{sample['line']}: {failure}") from None


def main() -> None:
    samples_path, work, results_path = (pathlib.Path(argument) for argument in sys.argv[1:4])
    if not cuda.is_available():
        MLIRDispatcher.__getitem__ = _compile_only
    pages: dict[str, list[dict]] = {}
    for sample in json.loads(samples_path.read_text()):
        pages.setdefault(sample["page"], []).append(sample)
    results = {}
    for page, page_samples in pages.items():
        page_work = work / page.replace("/", "_")
        page_work.mkdir(parents=True, exist_ok=True)
        log = io.StringIO()
        try:
            run_page(page_samples, page_work, log)
            results[page] = {"ok": True, "samples": len(page_samples)}
        except SampleFailed as failure:
            results[page] = {"ok": False, "failure": str(failure), "log": log.getvalue()[-8000:]}
        print(f"{page}: {'ok' if results[page]['ok'] else 'FAILED'}", flush=True)
    results_path.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
