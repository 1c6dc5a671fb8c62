"""Claims the documentation makes, each held against what the code does, so the prose
fails a test when the behaviour moves: the ranges it states, the names it says exist,
the values it lists, the output it shows. (Behaviour only a GPU shows, a store leaving
its items as they were, is held by tests/runtime/test_load_store_runtime.py; here the
prose is held to say so.)"""

from __future__ import annotations

import inspect
import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _text(path: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / path).read_text())


def _rotate_kernel(distance):
    @cuda.jit
    def rotate(source, destination):
        block = coop.this_block()
        destination[cuda.threadIdx.x] = coop.shuffle(block, source[cuda.threadIdx.x], mode="rotate", distance=distance)

    return rotate


def test_the_rotate_range_is_the_one_the_engine_enforces():
    stated = re.search(r'for ``"rotate"``, ``(\d+) <= distance <\s+block threads``', inspect.getdoc(coop.shuffle))
    assert stated, "the shuffle docstring states the rotate range"
    low = int(stated[1])
    values = np.zeros(128, np.int32)
    coop.explain(_rotate_kernel(low), values, values, grid=1, block=128)
    coop.explain(_rotate_kernel(127), values, values, grid=1, block=128)
    for outside in (low - 1, 128):
        with pytest.raises(coop.InvalidArgumentError):
            coop.explain(_rotate_kernel(outside), values, values, grid=1, block=128)


def test_store_is_said_to_leave_its_items_as_they_were():
    for where in (_text("docs/guide/payloads.rst"), re.sub(r"\s+", " ", inspect.getdoc(coop.store))):
        assert "rearrange it in place" not in where and "may rearrange an array in place" not in where
    assert "leaves it as it was, with every algorithm" in _text("docs/guide/payloads.rst")
    assert "The items are left as they were, with every algorithm" in re.sub(r"\s+", " ", inspect.getdoc(coop.store))


def test_every_algorithm_enum_the_api_page_names_is_in_the_root():
    page = (DOCS / "api.rst").read_text()
    named = set(re.findall(r"\b((?:Block|Warp)\w+Algorithm)\b", page))
    assert named, "the API page names the algorithm IntEnums"
    for name in named:
        assert isinstance(getattr(coop, name, None), type), f"the API page names coop.{name}, which does not exist"
    assert coop.BlockLoadAlgorithm.WARP_TRANSPOSE == 4  # numbered as CUB's


def test_stateful_function_is_in_the_root_the_reference_and_the_prefix_callback_guide():
    import cuda.coop.numba_mlir as qualified

    assert coop.StatefulFunction is qualified.StatefulFunction
    assert ".. autoclass:: StatefulFunction" in (DOCS / "api.rst").read_text()
    guide = (DOCS / "guide" / "operators.rst").read_text()
    assert ":class:`~cuda.coop.StatefulFunction`" in guide and "coop.StatefulFunction(" in guide


def test_the_compilation_guide_lists_every_log_stage():
    from cuda.coop import _engine

    table = _text("docs/guide/compilation.rst")
    row = re.search(r"``CUDA_COOP_LOG`` - (.*?) \* - ", table)[1]
    listed = set(re.findall(r"``(\w+)``", row))
    assert set(_engine.log_stages()) | {"all"} <= listed | {"all"}, row


def _doctor_labels(text: str) -> list[str]:
    return [line.split(":", 1)[0] for line in text.splitlines() if re.match(r"^[\w.\- ]+:\s{2,}", line)]


def test_the_readme_doctor_sample_shows_every_line_doctor_prints():
    readme = (ROOT / "README.md").read_text()
    sample = re.search(r"```text\n\$ python -m cuda\.coop doctor\n(.*?)```", readme, re.DOTALL)[1]
    done = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "doctor"], capture_output=True, text=True, timeout=300, check=False
    )
    assert _doctor_labels(sample) == _doctor_labels(done.stdout), done.stdout


# What the README's opening says works, and what it says is coming: each word stands for
# the primitives it names, which must compile (or be refused as not implemented yet).
WORKING = {
    "load": "load",
    "store": "store",
    "exchange": "exchange",
    "shuffle": "shuffle",
    "reduce": "reduce",
    "scan": "scan",
    "radix and merge sorts": "merge_sort_keys",
    "ranks": "radix_rank_keys",
    "top-k": "topk_min_keys",
    "histogram": "histogram",
    "adjacent difference": "adjacent_difference",
    "discontinuity": "discontinuity",
    "run-length decoding": "run_length_decode",
    "batched warp reductions": "reduce_batched",
}
COMING = {}  # what the opening marks as coming: nothing now


def test_the_readme_opening_lists_what_works_and_marks_what_is_coming():
    from cuda.coop._core.markers import marker_of

    opening = re.sub(r"\s+", " ", (ROOT / "README.md").read_text().split("\n\n")[1])
    working = opening.partition(" coming")[0]
    for words, name in WORKING.items():
        assert words in working, f"the README's opening does not list {words!r}"
        assert marker_of(getattr(coop, name)).implemented, f"the README says {words} works; coop.{name} is refused"
    for words, name in COMING.items():
        assert words in working.rsplit(";", 1)[-1], f"the README's opening does not mark {words!r} as coming"
        assert not marker_of(getattr(coop, name)).implemented, f"coop.{name} works now: move it to what works"


def test_the_doctor_json_says_which_architecture_explain_targets():
    done = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "doctor", "--json"], capture_output=True, text=True, timeout=300, check=True
    )
    gpu = json.loads(done.stdout)["gpu"]
    assert gpu["explain_targets"] == (gpu["arch"] if gpu["visible"] else "sm_90")


@cuda.jit
def _max_of_a_partial_tile(values, out, n):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(4))
    out[0] = coop.reduce(block, items, binary_op="max", valid_items=n)


@cuda.jit
def _scan_of_a_partial_tile(values, out, n):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(4))
    coop.store(block, out, coop.inclusive_sum(block, items, valid_items=n))


def test_the_partial_tiles_guide_says_which_collectives_take_valid_items():
    guide = _text("docs/guide/partial-tiles.rst")
    assert "a block's reduction of a :class:`~cuda.coop.ThreadData` reduces the valid prefix" in guide
    assert "A block scan does not take it" in guide
    values = np.zeros(512, np.int32)
    explanation = coop.explain(_max_of_a_partial_tile, values, values, 100, grid=1, block=128)
    assert "valid_items: RUNTIME" in explanation.plans[1].describe()  # after the load
    with pytest.raises(coop.UnsupportedOperationError, match="oob_default set to the operator's identity"):
        coop.explain(_scan_of_a_partial_tile, values, values, 100, grid=1, block=128)


def _records_table_rows() -> list[str]:
    guide = (DOCS / "guide" / "operators.rst").read_text()
    table = guide.split("Which calls take records,")[1].split("An operator or comparator over records")[0]
    return table.split("   * - ")[2:]  # after the header row


def test_the_records_table_names_the_operations_the_catalog_gives_records():
    """The guide's table of structured types against the catalog's takes_records, as the
    engine words it when it refuses a record (radix_sort_pairs and the top-k pairs take records
    as values only, which the catalog does not check)."""

    @cuda.jit
    def sums_a_pair(source, destination):
        value = source[cuda.threadIdx.x]
        destination[0] = coop.sum(coop.this_block(), (value, value))[0]

    values = np.zeros(128, np.int32)
    with pytest.raises(coop.UnsupportedOperationError) as refused:
        coop.explain(sums_a_pair, values, values, grid=1, block=128)
    engine = set(re.search(r"the operations that take records are ([\w, ]+)", str(refused.value))[1].split(", "))
    rows = [row for row in _records_table_rows() if not row.startswith("every other call")]
    named = {name for row in rows for name in re.findall(r":func:`~cuda\.coop\.(\w+)`", row.split("\n     - ")[0])}
    assert named - {"radix_sort_pairs", "topk_min_pairs", "topk_max_pairs"} == engine


def test_the_records_guide_example_compiles():
    guide = (DOCS / "guide" / "operators.rst").read_text()
    block = next(part for part in guide.split(".. code-block:: python") if "def records_kernel" in part)
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("   "):
            break  # the prose after the block
        lines.append(line[3:])
    code = "\n".join(lines)
    namespace = {"np": np, "cuda": cuda, "coop": coop}
    exec(compile(code, "operators.rst", "exec"), namespace)  # noqa: S102 (the guide's own example)
    triple = namespace["triple"]
    source = np.zeros(512, triple)
    plans = coop.explain(namespace["records_kernel"], source, source, np.zeros(1, triple), grid=1, block=128).plans
    assert {plan.facts.operation for plan in plans} == {"load", "reduce", "merge_sort_keys", "store"}
    assert {plan.dtype for plan in plans} == {"record(int32,float32,float32)"}
