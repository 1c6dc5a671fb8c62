"""The documentation's own Sphinx extension.

- Pictures of the blocked, striped and warp-striped arrangements, drawn as SVG
  when the build starts (arrangements.py), into docs/_generated/.
- ``.. coop-command-help:: coop explain --help``: the command's output, run at
  build time, so the CLI reference is what the installed tools print.
- ``.. coop-benchmarks::``: the tables of the newest committed benchmark result
  (benchmarks/results/*.json), and its plot drawn by benchmarks/report.py.
- After the build, every literal block of every page (docstrings included) is
  written to ``<build>/samples.json`` with its page, line and language, for
  docs/tests/test_samples.py to run. A text block right after a Python sample is
  the output that sample must print. A block whose language is neither runnable
  (python, console) nor an output (text) fails the build: no sample goes unrun.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
from typing import ClassVar

import arrangements
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

HERE = pathlib.Path(__file__).resolve().parent
DOCS = HERE.parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
BUILT_TOOL = ROOT / "build" / "engine" / "tools" / "coop" / "coop"
RUNNABLE = {"python", "default", "py", "python3", "console"}
SCRIPTS = {"bash", "sh"}  # runnable as an included file only
OUTPUT = {"text", "none"}

logger = logging.getLogger(__name__)


class CommandHelp(SphinxDirective):
    """The output of a command run at build time, as a literal block."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        command = shlex.split(self.arguments[0])
        if command[0] == "python":
            command[0] = sys.executable
        elif command[0] == "coop" and BUILT_TOOL.exists():  # the C++ tool of this checkout, not another `coop`
            command[0] = str(BUILT_TOOL)
        environment = {"COLUMNS": "100"}
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=60, check=False, env={**os.environ, **environment}
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise self.error(f"coop-command-help: {self.arguments[0]!r} could not run: {error}") from error
        if done.returncode != 0:
            raise self.error(f"coop-command-help: {self.arguments[0]!r} exited with {done.returncode}: {done.stderr}")
        block = nodes.literal_block(done.stdout, done.stdout.rstrip())
        block["language"] = "text"
        return [block]


def _newest_result() -> pathlib.Path:
    # The newest whole run of benchmarks/run.sh, named <date>_<gpu>_<versions>_cuda-<version>.json;
    # a name with more after it is a part (-startup: compile latency alone; -neighbours, -sorting,
    # -run-length, -batched: filtered rows; -workloads*: workloads alone; -unreported: a run cut
    # short before its report).
    results = sorted(
        path
        for path in (ROOT / "benchmarks" / "results").glob("*.json")
        if re.search(r"_cuda-[0-9.]+\.json$", path.name)
    )
    if not results:
        raise FileNotFoundError("no benchmark result under benchmarks/results/")
    return results[-1]


def _latency(document: dict) -> dict:
    """Compile latency: the run's own, else (a run of the kernel-speed part alone) the newest
    scripts/gpu-startup.sh result for the same numba-cuda-mlir version."""
    if document.get("compile_latency"):
        return document["compile_latency"]
    version = document["environment"].get("numba_cuda_mlir")
    startups = sorted((ROOT / "benchmarks" / "results").glob(f"*_ncm-{version}_*-startup.json"))
    if not startups:
        raise FileNotFoundError(f"no compile latency for numba-cuda-mlir {version} under benchmarks/results/")
    return json.loads(startups[-1].read_text())


def _report_module():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.pop(0)
    return report


class Benchmarks(SphinxDirective):
    """Tables of the newest committed benchmark result."""

    option_spec: ClassVar[dict] = {"part": directives.unchanged_required}

    def run(self):
        self.env.note_dependency(str(_newest_result()))
        document = json.loads(_newest_result().read_text())
        part = self.options.get("part", "summary")
        lines = {
            "environment": _environment_table,
            "summary": _summary_table,
            "alternatives": _alternatives_table,
            "rows": _rows_table,
        }
        lines = lines.get(part, _latency_table)(document)
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=str(_newest_result())), self.content_offset, container)
        return [container]


def _list_table(title: str, header: list[str], rows: list[list[str]], widths: str | None = None) -> list[str]:
    lines = [f".. list-table:: {title}", "   :header-rows: 1"]
    if widths:
        lines.append(f"   :widths: {widths}")
    lines.append("")
    for row in [header, *rows]:
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}" for cell in row[1:]]
    return [*lines, ""]


def _environment_table(document: dict) -> list[str]:
    env = document["environment"]
    keys = ["date", "gpu", "sm_count", "driver", "nvcc", "nvrtc", "cccl", "numba_cuda_mlir", "cuda_coop", "commit"]
    return _list_table("Measured on", ["what", "value"], [[key, f"``{env.get(key)}``"] for key in keys])


def _summary_table(document: dict) -> list[str]:
    summary = document["kernel_speed"]["summary"]
    of_copy = summary.get("of_copy_median", {})
    rows = [
        [f"``{family}``", f"{ratio:.3f}", f"{of_copy[family]:.0%}" if family in of_copy else "n/a"]
        for family, ratio in summary["geomean"].items()
    ]
    rows.append(["all rows", f"{summary['geomean_all']:.3f}", "n/a"])
    header = ["family", "geomean twin time / coop time", "coop bandwidth / copy bandwidth (median row)"]
    return _list_table(f"Kernel speed, {summary['rows']} rows", header, rows)


def _alternatives_table(document: dict) -> list[str]:
    """Per family, the libraries' time over coop's (geomean), and the range over its rows."""
    speed = document["kernel_speed"]
    rows = []
    for family, libraries in speed["summary"].get("alternatives_geomean", {}).items():
        cells = [f"``{family}``"]
        for library in ("torch", "cupy"):
            ratios = [
                row[f"{library}_ratio"]
                for row in speed["rows"]
                if row.get("family") == family and f"{library}_ratio" in row
            ]
            cells.append(f"{libraries[library]:.2f} ({min(ratios):.2f} to {max(ratios):.2f})" if ratios else "n/a")
        rows.append(cells)
    if not rows:
        return ["The newest result times no library beside cuda.coop.", ""]
    header = ["family", "torch time / coop time (rows)", "CuPy time / coop time (rows)"]
    return _list_table("Against what users pick instead, geomean over the rows", header, rows)


def _rows_table(document: dict) -> list[str]:
    speed = document["kernel_speed"]
    rows = []
    for row in speed["rows"]:
        if "ratio" not in row:
            rows.append([f"``{row['name']}``", "n/a", "n/a", "not timed", "n/a"])
            continue
        rows.append(
            [
                f"``{row['name']}``",
                f"{row['coop_ms'] * 1e3:.1f}",
                f"{row['twin_ms'] * 1e3:.1f}",
                f"{row['ratio']:.3f}",
                f"{row['coop_of_copy']:.1%}",
            ]
        )
    header = ["row", "coop (us)", "CUDA C++ twin (us)", "twin / coop", "of copy bandwidth"]
    return _list_table("Every row", header, rows)


def _latency_table(document: dict) -> list[str]:
    latency = _latency(document)
    rows = []
    for name, values in sorted(latency["scenarios"].items()):
        if isinstance(values, dict) and "coop_s" in values:  # the scenarios of one first launch
            rows.append(
                [
                    name.split("_", 1)[1].replace("_", " "),
                    f"{values['wall_s']:.3f}",
                    f"{values['kernel_compiler_s']:.3f}",
                    f"{values['coop_s']:.3f}",
                    f"{values['nvrtc_s']:.3f}",
                    f"{values['plain_wall_s']:.3f}",
                ]
            )
    header = ["scenario", "first launch (s)", "kernel compiler (s)", "cuda.coop (s)", "NVRTC (s)", "without coop (s)"]
    table = _list_table(f"Compile latency: {latency['kernel']}", header, rows)
    launch = latency["scenarios"].get("4_repeated_launch")
    if launch:
        table += [
            (
                f"A repeated launch took {launch['coop_us']:.1f} us with cuda.coop and {launch['plain_us']:.1f} us "
                f"for the same kernel without it ({launch['overhead']:+.1%}); the planner did not run again."
            ),
            "",
        ]
    return table


def _draw(app) -> None:
    """The pictures the pages include, made before the pages are read."""
    GENERATED.mkdir(exist_ok=True)
    arrangements.write_all(GENERATED)
    report = _report_module()
    document = json.loads(_newest_result().read_text())
    target = GENERATED / "benchmarks.svg"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "cuda.coop"  # the same SVG from the same JSON
    plt.rcParams["svg.fonttype"] = "none"
    note = report.plot(document["kernel_speed"], _latency(document), target)
    if not target.exists():
        raise RuntimeError(f"the benchmark plot was not drawn: {note}")


def _collect_samples(app, exception) -> None:
    """Every literal block of the built pages, for test_samples.py."""
    if exception is not None or app.builder.format != "html":
        return
    samples = []
    for docname in sorted(app.env.found_docs):
        doctree = app.env.get_doctree(docname)
        previous = None  # the python sample a text block right after it shows the output of
        for block in doctree.findall(nodes.literal_block):
            language = block.get("language", "default")
            source, line = block.source or docname, block.line
            if language in OUTPUT:
                if previous is not None and _follows(block, previous[0]):
                    previous[1]["expected"] = block.astext()
                previous = None
                continue
            previous = None
            included = block.get("source")  # a literalinclude: run the file itself
            if language not in RUNNABLE and not (included and language in SCRIPTS):
                logger.warning(
                    f"a {language!r} block is neither run nor marked as output (text)", location=(docname, line)
                )
                continue
            sample = {
                "page": docname,
                "source": str(source),
                "line": line,
                "language": "python" if language != "console" else "console",
                "code": block.astext(),
                "file": str(pathlib.Path(included).resolve()) if included else None,
                "expected": None,
            }
            samples.append(sample)
            if sample["language"] == "python" and not included:
                previous = (block, sample)
    target = pathlib.Path(app.outdir).parent / "samples.json"
    target.write_text(json.dumps(samples, indent=1) + "\n")
    logger.info(f"{len(samples)} code samples -> {target}")


def _follows(block, earlier) -> bool:
    """Whether `block` comes right after `earlier`, with nothing between them."""
    parent = block.parent
    return parent is earlier.parent and parent.index(block) == parent.index(earlier) + 1


def setup(app):
    app.add_directive("coop-command-help", CommandHelp)
    app.add_directive("coop-benchmarks", Benchmarks)
    app.connect("builder-inited", _draw)
    app.connect("build-finished", _collect_samples)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
