"""Every code sample of the built documentation runs.

The build writes each page's literal blocks, docstrings included, to
``docs/_build/samples.json`` (docs/_ext/coop_docs.py); run_samples.py runs them
(kernels are compiled and linked without a GPU) and each page is one test here.
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


def _pages() -> list[str]:
    if not SAMPLES.exists():
        return []
    return sorted({sample["page"] for sample in json.loads(SAMPLES.read_text())})


@pytest.fixture(scope="session")
def results(tmp_path_factory) -> dict:
    work = tmp_path_factory.mktemp("samples")
    report = work / "results.json"
    runner = pathlib.Path(__file__).with_name("run_samples.py")
    done = subprocess.run(
        [sys.executable, str(runner), str(SAMPLES), str(work), str(report)],
        check=False,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"the sample runner failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return json.loads(report.read_text())


def test_the_build_listed_samples():
    assert SAMPLES.exists(), f"{SAMPLES} is missing: build the docs first (scripts/docs.sh)"
    assert len(json.loads(SAMPLES.read_text())) >= 40


@pytest.mark.parametrize("page", _pages())
def test_page_samples_run(page, results):
    result = results[page]
    assert result["ok"], f"{result['failure']}\n-- log of the page:\n{result['log']}"
