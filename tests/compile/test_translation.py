"""What a kernel with cooperative calls looks like when numba-cuda-mlir translates it
(cuda.coop.numba_mlir._translation): its entry block's stack slots come before its first
call (a three-field tuple reduction's record slots among them, which otherwise left the
items' loop rolled at the link), and its array offsets are not read (the launcher passes
0). A kernel without cooperative calls is translated as the compiler makes it."""

import re

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types
from numba_cuda_mlir.mlir_optimization import get_llvmir

from cuda import coop
from cuda.coop.numba_mlir import _array_arguments, _translation
from cuda.coop.numba_mlir._explain import _capability, compile_for_launch

ROW = types.Array(types.float32, 1, "C")
ITEMS = 8
# The two arrays' descriptors: (allocated, aligned, offset, size, stride) each.
OFFSET_PARAMETERS = ("%2", "%7")


@pytest.fixture(autouse=True)
def sm_90():
    major, _ = _capability()
    if major >= 10:
        pytest.skip("from sm_100 on the compiler translates through a path cuda.coop does not rewrite")


def kernel_body(result) -> list[str]:
    """The kernel function's instructions, in the NVVM IR the translation made."""
    text = get_llvmir(result)
    text = text.decode() if isinstance(text, bytes) else text
    body = text.split("define ptx_kernel", 1)[1].split("\n}\n", 1)[0]
    return [line.strip() for line in body.splitlines()[1:] if line.strip()]


def entry_block(body: list[str]) -> list[str]:
    return body[: next((i for i, line in enumerate(body) if line.startswith("; <label>")), len(body))]


def reads(body: list[str], parameter: str) -> bool:
    return any(re.search(rf"{re.escape(parameter)}(?!\d)", line) for line in body)


def combine(left, right):
    return left[0] + right[0], left[1] + right[1], left[2] + right[2]


@cuda.jit
def tuple_reduction(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS, dtype=np.float32)
    coop.load(block, source, items, offset=cuda.blockIdx.x * 128 * ITEMS)
    total, squares = np.float32(0), np.float32(0)
    for i in range(ITEMS):
        total += items[i]
        squares += items[i] * items[i]
    summary = coop.reduce(block, (total, squares, np.float32(ITEMS)), binary_op=combine)
    for i in range(ITEMS):
        items[i] = items[i] * summary[0] + summary[1] * summary[2]
    coop.store(block, destination, items, offset=cuda.blockIdx.x * 128 * ITEMS)


def test_installed_on_this_compiler():
    assert _translation.install() is True


def test_the_entry_blocks_stack_slots_come_before_its_first_call():
    result = compile_for_launch(tuple_reduction, [ROW, ROW], 4, 128)
    entry = entry_block(kernel_body(result))
    slots = [i for i, line in enumerate(entry) if re.match(r"%\d+ = alloca ", line)]
    first_call = next(i for i, line in enumerate(entry) if " call " in f" {line}")
    record_slots = [i for i in slots if "alloca [12 x i8]" in entry[i]]
    assert record_slots, "the three-field record's slots are in the entry block"
    assert max(slots) < first_call


def test_array_offsets_are_not_read():
    result = compile_for_launch(tuple_reduction, [ROW, ROW], 4, 128)
    body = kernel_body(result)
    assert result.metadata["targetoptions"][_translation.OPTION] is True and _translation._fold_offsets
    for offset in OFFSET_PARAMETERS:
        assert not reads(body, offset), f"the kernel reads the array offset {offset}"


def test_a_kernel_without_cooperative_calls_is_translated_as_the_compiler_makes_it():
    @cuda.jit
    def plain_copy(source, destination):
        i = cuda.grid(1)
        if i < source.shape[0]:
            destination[i] = source[i]

    result = compile_for_launch(plain_copy, [ROW, ROW], 4, 128)
    assert _translation.OPTION not in result.metadata["targetoptions"]
    body = kernel_body(result)
    assert any(reads(body, offset) for offset in OFFSET_PARAMETERS)


def test_the_launcher_releases_are_the_ones_read():
    from importlib.metadata import version

    assert version("numba-cuda-mlir").startswith(_array_arguments.LAUNCHER_RELEASES)
