"""Every code sample of the built documentation runs.

The build writes each page's literal blocks, docstrings included, to
``docs/_build/samples.json`` (docs/_ext/coop_docs.py). Here each page's samples
run in order in one fresh process, in one namespace (a later sample may use what
an earlier one defined), with numpy as ``np``, ``cuda`` from numba_cuda_mlir and
``coop`` imported first. Console samples run each ``$`` command with bash; an
included example file runs as a script.

Without a GPU a kernel launch ``kernel[grid, block](*args)`` compiles and links
the kernel for that launch with ``coop.explain`` instead of running it, so every
kernel of the docs is planned, compiled by NVRTC and linked by nvJitLink here.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("COOP_DOCS_BUILD", DOCS / "_build"))
SAMPLES = BUILD / "samples.json"

RUNNER = r'''
import json, pathlib, subprocess, sys, traceback

samples = json.loads(pathlib.Path(sys.argv[1]).read_text())
work = pathlib.Path(sys.argv[2])

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.descriptor import MLIRDispatcher

from cuda import coop

if not cuda.is_available():
    def _compile_only(kernel, configuration):
        grid, block = configuration[0], configuration[1]
        return lambda *args: coop.explain(kernel, *args, grid=grid, block=block)

    MLIRDispatcher.__getitem__ = _compile_only

namespace = {"__name__": "__docs_sample__", "np": np, "cuda": cuda, "coop": coop}


def commands(text):
    """The $ commands of a console block, continuation lines joined."""
    result, current = [], None
    for line in text.splitlines():
        if line.startswith("$ "):
            current = [line[2:]]
            result.append(current)
        elif current is not None and current[-1].endswith("\\"):
            current.append(line)
    return ["\n".join(command) for command in result]


for number, sample in enumerate(samples):
    where = f"{sample['source']}:{sample['line']}"
    print(f"-- sample {number} ({where})", flush=True)
    if sample["file"]:
        program = [sys.executable] if sample["file"].endswith(".py") else ["bash"]
        done = subprocess.run([*program, sample["file"]])
        if done.returncode:
            sys.exit(f"{where}: {sample['file']} exited with {done.returncode}")
    elif sample["language"] == "console":
        found = commands(sample["code"])
        if not found:
            sys.exit(f"{where}: a console sample without a '$ ' command")
        for command in found:
            print(f"$ {command}", flush=True)
            done = subprocess.run(["bash", "-c", command], cwd=work)
            if done.returncode:
                sys.exit(f"{where}: '{command}' exited with {done.returncode}")
    else:
        path = work / f"sample_{number}.py"  # a real file: the kernel compiler reads source lines
        path.write_text(sample["code"] + "\n")
        try:
            exec(compile(sample["code"], str(path), "exec"), namespace)
        except BaseException:
            traceback.print_exc()
            sys.exit(f"{where}: the sample raised (above)")
    sys.stdout.flush()
print(f"{len(samples)} samples ran")
'''


def _pages() -> dict[str, list[dict]]:
    if not SAMPLES.exists():
        return {}
    pages: dict[str, list[dict]] = {}
    for sample in json.loads(SAMPLES.read_text()):
        pages.setdefault(sample["page"], []).append(sample)
    return pages


PAGES = _pages()


def test_the_build_listed_samples():
    assert SAMPLES.exists(), f"{SAMPLES} is missing: build the docs first (scripts/docs.sh)"
    assert sum(len(samples) for samples in PAGES.values()) >= 20


@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_samples_run(page, tmp_path):
    listing = tmp_path / "samples.json"
    listing.write_text(json.dumps(PAGES[page]))
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    done = subprocess.run(
        [sys.executable, str(script), str(listing), str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=os.environ,
        timeout=600,
    )
    assert done.returncode == 0, f"samples of {page} failed:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
