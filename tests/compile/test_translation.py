"""What a kernel with cooperative calls looks like when numba-cuda-mlir translates it
(cuda.coop.numba_mlir._translation): its entry block's stack slots come before its first
call (a three-field tuple reduction's record slots among them, which otherwise left the
items' loop rolled at the link), and its array offsets are not read (the launcher passes
0); in a compile pinned to its arrays' layouts (its cooperative calls read a contiguous
array as one run), neither are a C array's strides. A kernel without cooperative calls is
translated as the compiler makes it."""

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
VIEW = types.Array(types.float32, 1, "A")
# The two arrays' descriptors: (allocated, aligned, offset, size, stride) each.
OFFSET_PARAMETERS = ("%2", "%7")
STRIDE_PARAMETERS = ("%4", "%9")


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


def kernel_name(result) -> str:
    text = get_llvmir(result)
    text = text.decode() if isinstance(text, bytes) else text
    return re.search(r"define ptx_kernel void @(\S+)\(", text)[1]


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


@cuda.jit
def flags_with_neighbours(source, destination):
    """A direct load of the tile (one run of a C array), then Python indexing of both arrays."""
    block = coop.this_block()
    items = coop.ThreadData(1, dtype=np.float32)
    start = cuda.blockIdx.x * 128
    coop.load(block, source, items, algorithm="direct", offset=start)
    before = source[start - 1] if cuda.blockIdx.x > 0 else source[0]
    destination[start + cuda.threadIdx.x] = items[0] - before


@cuda.jit
def sums_indexed_items(source, destination):
    """A cooperative call that takes no array: the kernel reads both through Python indexing."""
    total = coop.sum(coop.this_block(), source[cuda.grid(1)])
    if cuda.threadIdx.x == 0:
        destination[cuda.blockIdx.x] = total


def test_a_compile_pinned_to_its_layouts_reads_no_stride_of_a_contiguous_array():
    result = compile_for_launch(flags_with_neighbours, [ROW, ROW], 4, 128)
    assert _translation.contiguous_arrays(result.metadata["targetoptions"], kernel_name(result)) == (True, True)
    body = kernel_body(result)
    for stride in STRIDE_PARAMETERS:
        assert not reads(body, stride), f"the kernel reads the array stride {stride}"


@pytest.mark.parametrize(
    "kernel, argtypes",
    [(sums_indexed_items, [ROW, ROW]), (flags_with_neighbours, [VIEW, VIEW])],
    ids=["no_array_taken", "views"],
)
def test_strides_stay_runtime_values_where_other_layouts_may_reuse_the_compile(kernel, argtypes):
    """A compile whose cooperative calls read no contiguous array as a run serves launches of
    any layout (the launcher keys it by dtype and rank): its strides are read; so are a view's."""
    result = compile_for_launch(kernel, argtypes, 4, 128)
    assert not any(_translation.contiguous_arrays(result.metadata["targetoptions"], kernel_name(result)))
    body = kernel_body(result)
    assert all(reads(body, stride) for stride in STRIDE_PARAMETERS)


def test_one_dispatchers_compiles_keep_their_own_layouts():
    """A dispatcher's compiles share its targetoptions: the view's compile after the pinned
    contiguous one still reads its strides, and the contiguous one's stay folded."""

    @cuda.jit
    def declared(source, destination):
        block = coop.this_block(128)
        items = coop.ThreadData(1, dtype=np.float32)
        coop.load(block, source, items, algorithm="direct", offset=cuda.blockIdx.x * 128)
        destination[cuda.blockIdx.x * 128 + cuda.threadIdx.x] = items[0] + source[0]

    contiguous = declared.compile((ROW, ROW))
    view = declared.compile((VIEW, VIEW))
    assert all(not reads(kernel_body(contiguous), stride) for stride in STRIDE_PARAMETERS)
    assert all(reads(kernel_body(view), stride) for stride in STRIDE_PARAMETERS)


def test_the_longest_recorded_signature_a_kernel_name_ends_in_gives_its_flags():
    options = {
        _translation.CONTIGUOUS: (
            ("5ArrayIfLi1E1C7mutable7alignedE", (True,)),
            ("x5ArrayIfLi1E1C7mutable7alignedE", (False, True)),
        )
    }
    assert _translation.contiguous_arrays(options, "_ZN1kEx5ArrayIfLi1E1C7mutable7alignedE") == (False, True)
    assert _translation.contiguous_arrays(options, "_ZN1kE5ArrayIfLi1E1A7mutable7alignedE") == ()
    assert _translation.contiguous_arrays({}, "_ZN1kE") == ()


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
