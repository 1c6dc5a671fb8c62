"""The catalogue's Python cases: compile-time errors (and warnings) of the planner,
each raised by compiling a real kernel for a launch (no GPU). Every message must name the call or argument at fault and the
user's function, file and line; the line expected is the one tagged `# <- error`.

Each erroneous kernel carries its expectation in an @expect decorator:
the error class, how the message names the site ("coop.load", or "escapes" for
descriptors) and further text the message must hold."""

import dataclasses
import inspect
import operator
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types
from numba_cuda_mlir.numba_cuda.misc.special import literal_unroll
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

from cuda import coop
from cuda.coop.numba_mlir import StatefulFunction
from cuda.coop.numba_mlir._explain import compile_for_launch

I32 = types.Array(types.int32, 1, "C")
F32 = types.Array(types.float32, 1, "C")
BOOLS = types.Array(types.boolean, 1, "C")
DATES = types.Array(types.NPDatetime("ns"), 1, "C")
FILE = os.path.basename(__file__)

UNROLL = ("literal_unroll", "write one call per value with compile-time constants")
BLOCK_ALGORITHMS = "direct, striped, vectorize, transpose, warp_transpose, warp_transpose_timesliced"
WARP_ALGORITHMS = "direct, striped, vectorize, transpose (for warp groups)"


def tagged_line(function, tag="error"):
    """The line of `function`'s source ending with `# <- tag`."""
    lines, first = inspect.getsourcelines(function.py_func)
    hits = [first + index for index, text in enumerate(lines) if text.rstrip().endswith(f"# <- {tag}")]
    assert len(hits) == 1, f"{function.py_func.__name__} needs exactly one '# <- {tag}' line"
    return hits[0]


def site(call, function, tag="error"):
    """How messages place a call: "coop.load (kernel, file.py:12)"."""
    return f"{call} ({function.py_func.__qualname__}, {FILE}:{tagged_line(function, tag)})"


@dataclasses.dataclass
class Case:
    kernel: object
    error: type
    call: str
    fragments: tuple
    argtypes: tuple
    block: int
    located_in: object  # the function holding the `# <- error` line, when not the kernel
    cluster: tuple | None = None  # the launch's cluster of blocks


CASES = []


def expect(error, call, *fragments, argtypes=(I32, I32), block=128, located_in=None, cluster=None):
    def record(kernel):
        CASES.append(Case(kernel, error, call, fragments, argtypes, block, located_in, cluster))
        return kernel

    return record


# -- group descriptors escaping into runtime code


@cuda.jit(device=True, inline="never")
def opaque(value):
    return 0


@expect(coop.EscapingGroupDescriptorError, "escapes", "'block'", "a descriptor exists only at compile time")
@cuda.jit
def passes_group_to_a_device_call(source, destination):
    block = coop.this_block()
    opaque(block)  # <- error


@expect(coop.EscapingGroupDescriptorError, "escapes", "'block'")
@cuda.jit
def stores_group_into_an_array(source, destination):
    block = coop.this_block()
    destination[0] = block  # <- error


@expect(coop.EscapingGroupDescriptorError, "escapes", "'block'")
@cuda.jit
def returns_group(source, destination):
    block = coop.this_block()
    return block  # <- error


@expect(coop.EscapingGroupDescriptorError, "escapes", "coop.this_warp().group_by(n)")
@cuda.jit
def passes_an_unnamed_partition(source, destination):
    opaque(coop.this_warp().group_by(8))  # <- error


# -- names cuda.coop does not have: the user's line, and what to call instead


@expect(coop.UnknownNameError, "coop.max", "cuda.coop has no 'max'", 'coop.reduce(group, value, binary_op="max")')
@cuda.jit
def calls_a_maximum_that_is_an_operator(source, destination):
    block = coop.this_block()
    destination[cuda.threadIdx.x] = coop.max(block, source[cuda.threadIdx.x])  # <- error


@expect(coop.UnknownNameError, "coop.summ", "cuda.coop has no 'summ'", "did you mean coop.sum?")
@cuda.jit
def misspells_a_primitive(source, destination):
    block = coop.this_block()
    destination[cuda.threadIdx.x] = coop.summ(block, source[cuda.threadIdx.x])  # <- error


@expect(coop.UnknownNameError, "coop.scatter", "cuda.coop has no 'scatter'", "its functions are", "exchange")
@cuda.jit
def calls_a_name_without_a_group(source, destination):
    destination[cuda.threadIdx.x] = coop.scatter(source[cuda.threadIdx.x])  # <- error


@expect(
    coop.UnknownNameError,
    "coop.numba_mlir.gpu_dataclas",
    "cuda.coop.numba_mlir has no 'gpu_dataclas'",
    "did you mean coop.numba_mlir.gpu_dataclass",
)
@cuda.jit
def misspells_a_name_of_the_qualified_namespace(source, destination):
    destination[0] = coop.numba_mlir.gpu_dataclas  # <- error


# -- literal_unroll shaping what the planner must know before loops are unrolled


@expect(coop.UnsupportedOperationError, "coop.ThreadData", "'items_per_thread'", *UNROLL)
@cuda.jit
def unrolls_an_extent(source, destination):
    block = coop.this_block()
    for n in literal_unroll((2, 4)):
        items = coop.ThreadData(n)  # <- error
        coop.load(block, source, items)
        coop.store(block, destination, items)


@expect(coop.UnsupportedOperationError, "coop.ThreadData", "'dtype'", *UNROLL)
@cuda.jit
def unrolls_a_dtype(source, destination):
    for dtype in literal_unroll((np.int32, np.float32)):
        items = coop.ThreadData(4, dtype=dtype)  # <- error
        items[0] = 0


@expect(coop.UnsupportedOperationError, "coop.load", "'group'", *UNROLL)
@cuda.jit
def unrolls_groups(source, destination):
    for group in literal_unroll((coop.this_block(), coop.this_warp())):
        items = coop.ThreadData(4)
        coop.load(group, source, items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.load", "'n'", *UNROLL)
@cuda.jit
def unrolls_a_partition_width(source, destination):
    for width in literal_unroll((8, 16)):
        warp = coop.this_warp().group_by(width)
        items = coop.ThreadData(4)
        coop.load(warp, source, items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.load", "'algorithm'", *UNROLL)
@cuda.jit
def unrolls_an_algorithm(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    for algorithm in literal_unroll(("direct", "striped")):
        coop.load(block, source, items, algorithm=algorithm)  # <- error


@expect(coop.UnsupportedOperationError, "coop.store", "'items'", *UNROLL)
@cuda.jit
def unrolls_payloads(source, destination):
    block = coop.this_block()
    small = coop.ThreadData(2, np.int32)
    large = coop.ThreadData(4, np.int32)
    for items in literal_unroll((small, large)):
        coop.store(block, destination, items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.TempStorage", "'sharing'", *UNROLL)
@cuda.jit
def unrolls_a_sharing(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    for sharing in literal_unroll(("reuse", "exclusive")):
        storage = coop.TempStorage(sharing=sharing)  # <- error
        coop.store(block, destination, items, temp_storage=storage)


# -- payloads and memory operands


@expect(coop.PayloadInferenceError, "coop.ThreadData", "payload 'items'", "dtype")
@cuda.jit
def unused_payload_without_dtype(source, destination):
    items = coop.ThreadData(4)  # noqa: F841  # <- error


@expect(coop.PayloadInferenceError, "coop.ThreadData", "'items_per_thread'", "compile-time integer")
@cuda.jit
def runtime_extent(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(cuda.threadIdx.x)  # <- error
    coop.load(block, source, items)


HALVED = 4


@expect(coop.PayloadInferenceError, "coop.ThreadData", "'items_per_thread'", "compile-time integer", "2 * ITEMS")
@cuda.jit
def extent_of_true_division(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(HALVED / 2)  # <- error
    coop.load(block, source, items)


@expect(coop.PayloadInferenceError, "coop.load", "'items'", "is not a coop.ThreadData, a local array")
@cuda.jit
def items_not_a_thread_data(source, destination):
    block = coop.this_block()
    items = destination[:4]
    coop.load(block, source, items)  # <- error


@expect(coop.PayloadInferenceError, "coop.load", "'source' is int32", "device array")
@cuda.jit
def source_not_an_array(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source[0], items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.load", "'source' holds datetime64[ns]", argtypes=(DATES, DATES))
@cuda.jit
def unsupported_dtype(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)  # <- error


@expect(coop.InvalidArgumentError, "coop.store", "argument 'items' = 7.5", "int32 holds exactly")
@cuda.jit
def stores_a_number_its_destination_cannot_hold(source, destination):
    coop.store(coop.this_block(), destination, 7.5)  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.store",
    "argument 'items' = 300",
    "int8 holds exactly",
    argtypes=(types.Array(types.int8, 1, "C"),) * 2,
)
@cuda.jit
def stores_a_number_out_of_its_destinations_range(source, destination):
    coop.store(coop.this_block(), destination, 300)  # <- error


@expect(coop.PayloadInferenceError, "coop.store", "the value holds int64 (from its type)", "holds int32")
@cuda.jit
def stores_a_scalar_of_another_dtype(source, destination):
    coop.store(coop.this_block(), destination, source[cuda.threadIdx.x] * 2)  # <- error


# -- groups (the engine checks these; its messages name the operation without "coop.")


@expect(coop.InvalidGroupError, "load", "12", "power of two")
@cuda.jit
def partition_of_twelve(source, destination):
    warp = coop.this_warp().group_by(12)
    items = coop.ThreadData(4)
    coop.load(warp, source, items)  # <- error


@expect(coop.InvalidGroupError, "coop.load", "group_by", "compile-time integer")
@cuda.jit
def partition_of_runtime_width(source, destination):
    warp = coop.this_warp().group_by(source[0])  # a kernel argument would specialize; a value read cannot
    items = coop.ThreadData(4)
    coop.load(warp, source, items)  # <- error


@expect(coop.InvalidGroupError, "load", "48 threads", "whole warps", block=48)
@cuda.jit
def warp_in_a_block_of_48(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items)  # <- error


# -- operations and options


@expect(coop.InvalidArgumentError, "coop.exchange", "'ranks'", "mode 'scatter_to_blocked' needs ranks")
@cuda.jit
def scatter_without_ranks(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.exchange(block, items, mode="scatter_to_blocked")  # <- error


@expect(coop.PayloadInferenceError, "coop.exchange", "float32", "int32")
@cuda.jit
def scatter_with_float_ranks(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    ranks = coop.ThreadData(4, dtype=np.float32)
    coop.load(block, source, items)
    coop.exchange(block, items, mode="scatter_to_striped", ranks=ranks)  # <- error


@expect(coop.InvalidArgumentError, "coop.exchange", "'ranks'", "holds 2 item(s)", "holds 4")
@cuda.jit
def scatter_with_short_ranks(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    ranks = coop.ThreadData(2, dtype=np.int32)
    coop.load(block, source, items)
    coop.exchange(block, items, mode="scatter_to_striped", ranks=ranks)  # <- error


@expect(coop.UnsupportedOperationError, "coop.exchange", "'mode'", "block only")
@cuda.jit
def warp_exchange_to_warp_striped(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items)
    coop.exchange(warp, items, mode="blocked_to_warp_striped")  # <- error


@expect(coop.InvalidArgumentError, "coop.exchange", "'warp_time_slicing'", "True or False")
@cuda.jit
def exchange_time_slicing_not_a_bool(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.exchange(block, items, warp_time_slicing=1)  # <- error


@expect(coop.UnsupportedOperationError, "coop.shuffle", "group", "block")
@cuda.jit
def shuffle_in_a_warp(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items)
    coop.shuffle(warp, items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.shuffle", "a scalar", "ThreadData")
@cuda.jit
def shuffle_up_a_scalar(source, destination):
    block = coop.this_block()
    destination[0] = coop.shuffle(block, source[0], mode="up")  # <- error


@expect(coop.InvalidArgumentError, "coop.shuffle", "'distance'", "1..127")
@cuda.jit
def rotate_past_the_block(source, destination):
    block = coop.this_block()
    destination[0] = coop.shuffle(block, source[0], mode="rotate", distance=128)  # <- error


@expect(coop.InvalidArgumentError, "coop.shuffle", "'distance'", "1 (or omitted) with mode 'down'")
@cuda.jit
def shuffle_down_by_two(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.shuffle(block, items, distance=2)  # <- error


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = 3 is not allowed", "a Python function op(a, b)")
@cuda.jit
def operator_that_is_not_callable(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=3)  # <- error


def three_way(a, b, c):
    return a + b + c


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = three_way takes 3 arguments", "binary operator")
@cuda.jit
def operator_of_the_wrong_arity(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=three_way)  # <- error


@expect(coop.UnsupportedOperationError, "load", "'diagonal'", BLOCK_ALGORITHMS)
@cuda.jit
def unknown_algorithm(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, algorithm="diagonal")  # <- error


@expect(coop.UnsupportedOperationError, "store", "'warp_transpose'", WARP_ALGORITHMS)
@cuda.jit
def block_algorithm_on_a_warp(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4, np.int32)
    coop.store(warp, destination, items, algorithm="warp_transpose")  # <- error


@expect(coop.InvalidArgumentError, "load", "oob_default", "valid_items")
@cuda.jit
def oob_default_without_valid_items(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, oob_default=0)  # <- error


@expect(coop.InvalidArgumentError, "load", "'valid_items' = 513", "0..512")
@cuda.jit
def static_valid_items_beyond_the_tile(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items=513)  # <- error


@expect(coop.InvalidArgumentError, "coop.TempStorage", "'private'", "'shared' or 'exclusive'")
@cuda.jit
def unknown_sharing(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(sharing="private")  # <- error
    coop.load(block, source, items, algorithm="transpose", temp_storage=storage)


@expect(coop.InvalidArgumentError, "coop.load", "size_in_bytes=16", "needs", "size_in_bytes=")
@cuda.jit
def undersized_temp_storage(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(16)
    coop.load(block, source, items, algorithm="transpose", temp_storage=storage)  # <- error


@expect(coop.InvalidArgumentError, "coop.store", "size_in_bytes=", "users together")
@cuda.jit
def undersized_exclusive_temp_storage(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(2200, sharing="exclusive")
    coop.load(block, source, items, algorithm="transpose", temp_storage=storage)
    coop.store(block, destination, items, algorithm="transpose", temp_storage=storage)  # <- error


@expect(coop.InvalidArgumentError, "coop.TempStorage", "'size_in_bytes' = 0", "positive integer")
@cuda.jit
def zero_sized_temp_storage(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(0)  # <- error
    coop.load(block, source, items, temp_storage=storage)


@expect(
    coop.InvalidArgumentError,
    "coop.TempStorage",
    "'size_in_bytes'",
    "compile-time constant",
    argtypes=(I32, I32, types.int32),
)
@cuda.jit
def runtime_sized_temp_storage(source, destination, size):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(size)  # <- error
    coop.load(block, source, items, temp_storage=storage)


@expect(coop.InvalidArgumentError, "coop.TempStorage.reserve", "auto_sync=True", "auto_sync None or False")
@cuda.jit
def reserves_from_an_auto_synchronized_storage(source, destination):
    storage = coop.TempStorage(auto_sync=True)
    kept = storage.reserve(4, np.int32)  # <- error
    kept[0] = 1


@expect(coop.InvalidArgumentError, "coop.TempStorage.reserve", "'num_elems' = 0", ">= 1")
@cuda.jit
def reserves_nothing(source, destination):
    kept = coop.TempStorage().reserve(0, np.int32)  # <- error
    kept[0] = 1


@expect(coop.InvalidArgumentError, "coop.TempStorage.reserve", "'dtype' = 'text'", "constant NumPy or Numba dtype")
@cuda.jit
def reserves_an_unknown_dtype(source, destination):
    kept = coop.TempStorage().reserve(4, "text")  # <- error
    kept[0] = 1


@expect(coop.InvalidArgumentError, "coop.TempStorage.reserve", "size_in_bytes=16", "need 32 bytes")
@cuda.jit
def reserves_more_than_its_capacity(source, destination):
    kept = coop.TempStorage(16).reserve(8, np.int32)  # <- error
    kept[0] = 1


@expect(coop.InvalidArgumentError, "coop.load", "size_in_bytes=64", "after its reservations' 32 bytes")
@cuda.jit
def reserves_room_its_users_need(source, destination):
    block = coop.this_block()
    storage = coop.TempStorage(64)
    kept = storage.reserve(8, np.int32)
    items = coop.ThreadData(4)
    coop.load(block, source, items, algorithm="transpose", temp_storage=storage)  # <- error
    kept[0] = items[0]


@expect(coop.InvalidArgumentError, "coop.TempStorage", "'alignment' = 24", "power of two")
@cuda.jit
def temp_storage_aligned_to_24(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(alignment=24)  # <- error
    coop.load(block, source, items, temp_storage=storage)


@expect(coop.InvalidArgumentError, "coop.TempStorage", "'auto_sync' = 'yes'", "True, False or None")
@cuda.jit
def temp_storage_auto_sync_as_text(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage(auto_sync="yes")  # <- error
    coop.load(block, source, items, temp_storage=storage)


@expect(coop.UnsupportedOperationError, "coop.TempStorage", "'capacity'", "size_in_bytes, alignment")
@cuda.jit
def reads_an_unknown_temp_storage_attribute(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    storage = coop.TempStorage()
    coop.load(block, source, items, temp_storage=storage)
    destination[0] = storage.capacity  # <- error


@expect(coop.PayloadInferenceError, "coop.ThreadData", "'alignment' = 3", "power of two")
@cuda.jit
def payload_aligned_to_3(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4, None, alignment=3)  # <- error
    coop.load(block, source, items)


# -- the seed's groups: this_thread(), block partitions, members


@expect(coop.InvalidGroupError, "coop.load", "group_by(3)", "divisor of 4")
@cuda.jit
def block_partition_of_three(source, destination):
    groups = coop.this_block().group_by(3)
    items = coop.ThreadData(4)
    coop.load(groups, source, items)  # <- error


@expect(coop.InvalidGroupError, "coop.sum", "group_by(8, exhaustive=False)", "1 to 4 warps")
@cuda.jit
def block_partition_larger_than_the_block(source, destination):
    groups = coop.this_block().group_by(8, exhaustive=False)
    destination[0] = coop.sum(groups, source[cuda.threadIdx.x])  # <- error


@expect(coop.InvalidGroupError, "coop.sum", "whole warps", "48 threads", block=48)
@cuda.jit
def block_partition_of_a_partial_warp(source, destination):
    groups = coop.this_block().group_by(1)
    destination[0] = coop.sum(groups, source[cuda.threadIdx.x])  # <- error


@expect(coop.UnsupportedOperationError, "coop.sum", "group_by", "applies to coop.this_warp()", "once")
@cuda.jit
def nested_partition(source, destination):
    groups = coop.this_warp().group_by(8).group_by(2)
    destination[0] = coop.sum(groups, source[cuda.threadIdx.x])  # <- error


@expect(coop.InvalidGroupError, "coop.sum", "'exhaustive'", "True or False")
@cuda.jit
def partition_exhaustive_as_text(source, destination):
    groups = coop.this_warp().group_by(8, exhaustive="no")
    destination[0] = coop.sum(groups, source[cuda.threadIdx.x])  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.inclusive_sum",
    "2 warps in block(128,1,1)",
    "inclusive_sum supports: block, warp",
)
@cuda.jit
def scan_over_a_block_partition(source, destination):
    pairs = coop.this_block().group_by(2)
    destination[cuda.threadIdx.x] = coop.inclusive_sum(pairs, source[cuda.threadIdx.x])  # <- error


# A group of more than one warp waits on a named barrier of its own: 15 of them in a block.
@expect(coop.InvalidGroupError, "coop.sum", "16 groups", "at most 15 groups", block=1024)
@cuda.jit
def sum_over_sixteen_pairs_of_warps(source, destination):
    pairs = coop.this_block().group_by(2)
    destination[cuda.threadIdx.x] = coop.sum(pairs, source[cuda.threadIdx.x])  # <- error


@expect(coop.UnsupportedOperationError, "coop.sum", "'valid_items'", "warps group")
@cuda.jit
def sum_over_pairs_of_warps_with_valid_items(source, destination):
    pairs = coop.this_block().group_by(2)
    destination[0] = coop.sum(pairs, source[0], valid_items=3, broadcast=False)  # <- error


@expect(coop.InvalidArgumentError, "coop.exchange", "'valid_flags' = float32", "one of bool, int8", "int64")
@cuda.jit
def exchange_with_float_valid_flags(source, destination):
    block = coop.this_block()
    items, ranks, flags = coop.ThreadData(2, np.int32), coop.ThreadData(2, np.int32), coop.ThreadData(2, np.float32)
    for i in range(2):
        items[i], ranks[i], flags[i] = source[i], i, 1.0
    out = coop.exchange(block, items, mode="scatter_to_striped_flagged", ranks=ranks, valid_flags=flags)  # <- error
    destination[0] = out[0]


@expect(coop.InvalidArgumentError, "TempStorage", "indexing a TempStorage", "'size_in_bytes' is None")
@cuda.jit
def indexes_a_temp_storage_without_a_capacity(source, destination):
    scratch = coop.TempStorage()
    scratch[0] = 1  # <- error
    destination[0] = scratch[0]


@expect(coop.UnsupportedOperationError, "coop.load", "coop.this_thread()", "kind 'thread'")
@cuda.jit
def load_on_a_thread(source, destination):
    me = coop.this_thread()
    items = coop.ThreadData(4)
    coop.load(me, source, items)  # <- error


@expect(coop.UnsupportedOperationError, "coop.sum", "this_thread()", "reduce a scalar")
@cuda.jit
def sum_of_a_payload_on_a_thread(source, destination):
    me = coop.this_thread()
    items = coop.ThreadData(4, np.int32)
    for i in range(4):
        items[i] = i
    destination[0] = coop.sum(me, items)  # <- error


@expect(coop.InvalidGroupError, "coop.sum", "coop.this_thread() takes no arguments")
@cuda.jit
def thread_with_an_argument(source, destination):
    me = coop.this_thread(1)
    destination[0] = coop.sum(me, source[0])  # <- error


@expect(
    coop.InvalidGroupError,
    "eight.rank of a threads_within_warp group",
    "'lane'",
    "'thread', 'warp', 'block', 'cluster', 'grid'",
)
@cuda.jit
def logical_warp_rank_in_a_lane(source, destination):
    eight = coop.this_warp().group_by(8)
    destination[cuda.threadIdx.x] = eight.rank("lane")  # <- error


@expect(coop.InvalidGroupError, "block.count of a block group", "'galaxy'")
@cuda.jit
def count_at_an_unknown_level(source, destination):
    block = coop.this_block()
    destination[0] = block.count("galaxy")  # <- error


@expect(coop.InvalidArgumentError, "warp.rank_as of a warp group", "'dtype'", "integer dtype")
@cuda.jit
def rank_as_a_float(source, destination):
    warp = coop.this_warp()
    destination[cuda.threadIdx.x] = warp.rank_as(np.float32)  # <- error


@expect(
    coop.InvalidGroupError,
    "pairs.sync of a warps_within_block group",
    "16 groups of 2 warps",
    "named barrier",
    block=1024,
)
@cuda.jit
def sync_sixteen_pairs_of_warps(source, destination):
    pairs = coop.this_block().group_by(2)
    pairs.sync()  # <- error


@expect(coop.InvalidGroupError, "coop.sum", "clusters of 16 blocks", "1 to 8 blocks", cluster=(16, 1, 1))
@cuda.jit
def sum_over_a_cluster_of_sixteen_blocks(source, destination):
    cluster = coop.this_cluster()
    destination[0] = coop.sum(cluster, source[cluster.rank()])  # <- error


@expect(
    coop.InvalidGroupError,
    "cluster.sync of a cluster group",
    "clusters of 12 blocks",
    "1 to 8 blocks",
    cluster=(4, 3, 1),
)
@cuda.jit
def sync_a_cluster_of_twelve_blocks(source, destination):
    cluster = coop.this_cluster()
    cluster.sync()  # <- error


@expect(coop.UnsupportedOperationError, "coop.load", "cluster", "load supports: block, warp", cluster=(2, 1, 1))
@cuda.jit
def load_on_a_cluster(source, destination):
    items = coop.ThreadData(4)
    coop.load(coop.this_cluster(), source, items)  # <- error


@expect(coop.UnsupportedOperationError, "block.parent of a block group", "no member 'parent'", "properties")
@cuda.jit
def reads_a_groups_parent(source, destination):
    block = coop.this_block()
    destination[0] = block.parent  # <- error


BLOCK_OF_64 = coop.this_block(64)


@expect(coop.InvalidGroupError, "coop.sum", "coop.this_block((64, 1, 1))", "launched with a block of (128, 1, 1)")
@cuda.jit
def module_level_block_of_another_shape(source, destination):
    destination[0] = coop.sum(BLOCK_OF_64, source[cuda.threadIdx.x])  # <- error


@expect(coop.EscapingGroupDescriptorError, "escapes", "'BLOCK_OF_64'")
@cuda.jit
def passes_a_module_level_descriptor_to_a_device_call(source, destination):
    opaque(BLOCK_OF_64)  # <- error


@cuda.jit(device=True)
def running_total(state, block_aggregate):
    prefix = state[0]
    state[0] += block_aggregate
    return prefix


RUNNING_TOTAL = StatefulFunction(running_total, np.int32)


@expect(coop.InvalidArgumentError, "coop.inclusive_sum", "argument 'state' is missing", "third operand")
@cuda.jit
def stateful_function_without_its_state(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_sum(block, items, prefix_op=RUNNING_TOTAL)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "argument 'state' is given without a prefix_op")
@cuda.jit
def state_without_a_prefix_op(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    state = coop.ThreadData(1, dtype=np.int32)
    coop.load(block, source, items)
    scanned = coop.exclusive_sum(block, items, state)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.PayloadInferenceError, "coop.exclusive_sum", "holds float32", "holds int32")
@cuda.jit
def stateful_function_state_of_another_dtype(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    state = coop.ThreadData(1, dtype=np.float32)
    coop.load(block, source, items)
    scanned = coop.exclusive_sum(block, items, state, prefix_op=RUNNING_TOTAL)  # <- error
    coop.store(block, destination, scanned)


@cuda.jit(device=True, inline="never")
def standalone_helper(source, destination):
    block = coop.this_block()  # <- error
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, items)


@expect(
    coop.UnsupportedOperationError,
    "coop.this_block",
    "inline='never'",
    "Let it inline into the kernel",
    located_in=standalone_helper,
)
@cuda.jit
def calls_a_standalone_helper(source, destination):
    standalone_helper(source, destination)


@expect(coop.UnsupportedOperationError, "coop.sum", "coop.this_grid()", "no collective runs on a grid")
@cuda.jit
def reduces_over_the_grid(source, destination):
    destination[0] = coop.sum(coop.this_grid(), source[0])  # <- error


@expect(coop.UnsupportedOperationError, "coop.this_grid().sync of a grid group", "has no barrier", "cooperative launch")
@cuda.jit
def synchronizes_the_grid(source, destination):
    coop.this_grid().sync()  # <- error


# -- reductions, scans and their prefix callbacks

BF16 = types.Array(types.bf16, 1, "C")
I64 = types.Array(types.int64, 1, "C")


class RunningTotal:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


class TwoArguments:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate, extra):
        return block_aggregate


class NamedTotal:
    def __init__(self, total):
        self.total = total
        self.name = "running"

    def __call__(self, block_aggregate):
        return self.total[0]


class ReplacesItsState:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        self.total = block_aggregate
        return block_aggregate


def first_nonzero(a, b):
    return a if a != 0 else b


@expect(coop.InvalidArgumentError, "inclusive_sum", "'prefix_op'", "either prefix_op or aggregate_output")
@cuda.jit
def prefix_op_with_aggregate_output(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    total[0] = 0
    scanned = coop.inclusive_sum(block, items, aggregate_output=destination, prefix_op=RunningTotal(total))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.UnsupportedOperationError, "exclusive_sum", "'prefix_op'", "WarpScan::ExclusiveSum has no overload")
@cuda.jit
def prefix_op_on_a_warp(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items)
    total = cuda.local.array(1, np.int32)
    prefix = RunningTotal(total)
    scanned = coop.exclusive_sum(warp, items, prefix_op=prefix)  # <- error
    coop.store(warp, destination, scanned)


@expect(
    coop.InvalidArgumentError,
    "coop.inclusive_sum",
    "'prefix_op' = first_nonzero (a function of 2",
    "f(block_aggregate)",
    "StatefulFunction(op, dtype)",
)
@cuda.jit
def prefix_op_is_a_function_of_two_arguments(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_sum(block, items, prefix_op=first_nonzero)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.inclusive_sum", "TwoArguments", "__call__(self, block_aggregate)")
@cuda.jit
def prefix_op_of_the_wrong_arity(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    scanned = coop.inclusive_sum(block, items, prefix_op=TwoArguments(total))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "argument 1 of RunningTotal", "cuda.local.array")
@cuda.jit
def prefix_op_state_in_global_memory(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.exclusive_sum(block, items, prefix_op=RunningTotal(destination))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "NamedTotal.name holds 'running'", "compile-time number")
@cuda.jit
def prefix_op_holding_a_string(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    scanned = coop.exclusive_sum(block, items, prefix_op=NamedTotal(total))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "ReplacesItsState.__call__ assigns self.total")
@cuda.jit
def prefix_op_rebinding_its_state(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    scanned = coop.exclusive_sum(block, items, prefix_op=ReplacesItsState(total))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "prefix_op object RunningTotal(...)", "used at line", "only at compile time")
@cuda.jit
def prefix_op_used_at_run_time(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    prefix = RunningTotal(total)  # <- error
    scanned = coop.exclusive_sum(block, items, prefix_op=prefix)
    coop.store(block, destination, scanned)
    destination[0] = prefix(3)


@expect(
    coop.InvalidArgumentError, "exclusive_scan", "'initial_value' = '1.5'", "integer literal representable as int32"
)
@cuda.jit
def static_initial_value_of_another_type(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.exclusive_scan(block, items, scan_op="sum", initial_value=1.5)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_scan", "'initial_value' is float64", "payload's dtype int32")
@cuda.jit
def runtime_initial_value_of_another_type(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.exclusive_scan(block, items, scan_op="sum", initial_value=source[0] * 0.5)  # <- error
    coop.store(block, destination, scanned)


@expect(
    coop.UnsupportedOperationError,
    "reduce",
    "'valid_items'",
    "an overload CUB does not have",
    "oob_default set to the operator's identity",
)
@cuda.jit
def valid_items_on_a_warp_thread_data_reduction(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items)
    destination[0] = coop.reduce(warp, items, binary_op="max", valid_items=100)  # <- error


@expect(coop.UnsupportedOperationError, "segmented_reduce", "'group'", "segmented_reduce supports: warp")
@cuda.jit
def segmented_reduce_on_a_block(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.segmented_reduce(coop.this_block(), value, 1, binary_op="sum")  # <- error


@expect(
    coop.InvalidArgumentError, "coop.inclusive_sum", "'aggregate_output' is int32", "one-item coop.ThreadData or array"
)
@cuda.jit
def aggregate_output_is_not_an_array(source, destination):
    block = coop.this_block()
    destination[1] = coop.inclusive_sum(block, source[cuda.threadIdx.x], aggregate_output=destination[0])  # <- error


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "'aggregate_output' is array(int64", "dtype int32")
@cuda.jit
def aggregate_output_of_another_dtype(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    aggregate = cuda.local.array(1, np.int64)
    scanned = coop.exclusive_sum(block, items, aggregate_output=aggregate)  # <- error
    coop.store(block, destination, scanned)
    destination[0] = aggregate[0]


@expect(
    coop.UnsupportedOperationError,
    "coop.reduce",
    "'binary_op' = first_nonzero cannot be compiled for bfloat16",
    "first_nonzero",
    argtypes=(BF16, BF16),
)
@cuda.jit
def python_operator_the_compiler_cannot_type(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=first_nonzero)  # <- error


# -- arguments of the wrong kind (the bad-input campaign)


class Functor:
    def __call__(self, a, b):
        return a + b


def halves(a, b):
    return a * 0.5 + b


def is_larger(a, b):
    return a > b


class FloatPrefix:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        return block_aggregate * 0.5


def warp_total(a, b):
    return coop.sum(coop.this_warp(), a) + b


class CollectivePrefix:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        return coop.sum(coop.this_warp(), block_aggregate)


@expect(coop.InvalidArgumentError, "coop.load", "'valid_items' is array(int32, 1d, C)", "expected an integer")
@cuda.jit
def valid_items_given_an_array(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items=destination)  # <- error


@expect(coop.InvalidArgumentError, "coop.load", "'valid_items' is float64", "expected an integer")
@cuda.jit
def valid_items_given_a_float(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items=source[0] * 0.5)  # <- error


@expect(coop.InvalidArgumentError, "coop.load", "'valid_items' = '10' (str)", "expected an integer")
@cuda.jit
def valid_items_given_a_string(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items="10")  # <- error


@expect(coop.InvalidArgumentError, "coop.store", "'offset' = True (bool)", "expected an integer")
@cuda.jit
def offset_given_a_bool(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, items, offset=True)  # <- error


@expect(coop.InvalidArgumentError, "coop.load", "'oob_default' is array(int32, 1d, C)", "a scalar of the payload")
@cuda.jit
def oob_default_given_an_array(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items=3, oob_default=destination)  # <- error


@expect(coop.InvalidArgumentError, "coop.segmented_reduce", "'flag' is array(int32, 1d, C)", "flag per thread")
@cuda.jit
def segment_flag_given_an_array(source, destination):
    warp = coop.this_warp()
    destination[0] = coop.segmented_reduce(warp, source[0], destination, binary_op="sum")  # <- error


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = an object made by Functor(...) in the kernel")
@cuda.jit
def operator_given_an_object(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=Functor())  # <- error


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = 'source' of type array(int32, 1d, C)")
@cuda.jit
def operator_given_an_array(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=source)  # <- error


@expect(
    coop.InvalidArgumentError, "coop.reduce", "'binary_op' = halves returns float64 for int32", "convert explicitly"
)
@cuda.jit
def operator_returning_a_float(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=halves)  # <- error


@expect(coop.InvalidArgumentError, "coop.inclusive_scan", "'scan_op' = is_larger returns bool for int32")
@cuda.jit
def operator_returning_a_bool(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_scan(block, items, scan_op=is_larger)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "'prefix_op' = FloatPrefix returns float64 for int32")
@cuda.jit
def prefix_op_returning_a_float(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    scanned = coop.exclusive_sum(block, items, prefix_op=FloatPrefix(total))  # <- error
    coop.store(block, destination, scanned)


@expect(coop.UnsupportedOperationError, "coop.reduce", "'binary_op' = warp_total calls coop.sum", "inside an operator")
@cuda.jit
def collective_inside_an_operator(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=warp_total)  # <- error


@expect(coop.UnsupportedOperationError, "coop.inclusive_sum", "'prefix_op' = CollectivePrefix calls coop.sum")
@cuda.jit
def collective_inside_a_prefix_op(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    total = cuda.local.array(1, np.int32)
    scanned = coop.inclusive_sum(block, items, prefix_op=CollectivePrefix(total))  # <- error
    coop.store(block, destination, scanned)


# -- the seed's reduction and scan shapes: operators are keywords, scans return a fresh payload
# (no output=), aggregate_output= (was block_aggregate=), an exclusive scan of another operator
# than the sum needs its seed, an inclusive scan takes none


@expect(coop.InvalidArgumentError, "coop.exclusive_scan", "'initial_value' = omitted", "initial_value or prefix_op")
@cuda.jit
def exclusive_scan_of_another_operator_without_a_seed(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.exclusive_scan(block, items, scan_op="max")  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.exclusive_scan", "'initial_value' = omitted", "initial_value or prefix_op")
@cuda.jit
def exclusive_scan_of_a_python_operator_without_a_seed(source, destination):
    warp = coop.this_warp()
    scanned = coop.exclusive_scan(warp, source[cuda.threadIdx.x], scan_op=first_nonzero)  # <- error
    destination[cuda.threadIdx.x] = scanned


@expect(coop.InvalidArgumentError, "coop.scan", "'initial_value' = omitted", "mode 'exclusive'")
@cuda.jit
def exclusive_mode_scan_of_another_operator_without_a_seed(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.scan(block, items, scan_op="min")  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.scan", "'initial_value' = given", "mode 'inclusive'")
@cuda.jit
def inclusive_mode_scan_given_an_initial_value(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.scan(block, items, mode="inclusive", scan_op="max", initial_value=0)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.scan", "'initial_value' = given", "mode 'inclusive'")
@cuda.jit
def inclusive_mode_sum_given_an_initial_value(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.scan(block, items, mode="inclusive", initial_value=source[0])  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.scan", "'mode' = 'prefix' is not allowed", "one of: exclusive, inclusive")
@cuda.jit
def scan_of_an_unknown_mode(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.scan(block, items, mode="prefix")  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.scan", "'mode' = 1 (int)", "one of its names as a string")
@cuda.jit
def scan_mode_given_a_number(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.scan(block, items, mode=1)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.inclusive_scan", "'scan_op' = 'avg'", "sum")
@cuda.jit
def scan_op_of_an_unknown_name(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_scan(block, items, scan_op="avg")  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.inclusive_scan", "argument 'state' is given without a prefix_op", "scan_op=")
@cuda.jit
def scan_operator_given_positionally(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_scan(block, items, "max")  # <- error
    coop.store(block, destination, scanned)


@expect(coop.PayloadInferenceError, "coop.exclusive_sum", "holds float32", "holds int32")
@cuda.jit
def aggregate_output_thread_data_of_another_dtype(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    total = coop.ThreadData(1, dtype=np.float32)
    coop.load(block, source, items)
    scanned = coop.exclusive_sum(block, items, aggregate_output=total)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.PayloadInferenceError, "coop.ThreadData", "'dtype' = dtype('<M8[ns]')", "numeric NumPy or Numba dtype")
@cuda.jit
def payload_of_datetimes(source, destination):
    items = coop.ThreadData(4, dtype=np.dtype("M8[ns]"))  # <- error
    items[0] = 0


@expect(coop.PayloadInferenceError, "coop.load", "different payload on different paths", "one extent and dtype")
@cuda.jit
def payload_made_differently_on_two_paths(source, destination):
    block = coop.this_block()
    if source[0] > 0:
        items = coop.ThreadData(4)
    else:
        items = coop.ThreadData(2)
    coop.load(block, source, items)  # <- error


@expect(coop.PayloadInferenceError, "coop.load", "different payload on different paths", "a dtype no call has fixed")
@cuda.jit
def untyped_payloads_made_on_two_paths(source, destination):
    block = coop.this_block()
    if source[0] > 0:
        items = coop.ThreadData(4)
    else:
        items = coop.ThreadData(4)
    coop.load(block, source, items)  # <- error


@expect(coop.InvalidGroupError, "coop.load", "coop.this_block(64) declares a block of (64,)", "(128, 1, 1)")
@cuda.jit
def declared_block_differs_from_the_launch(source, destination):
    block = coop.this_block(64)
    items = coop.ThreadData(4)
    coop.load(block, source, items)  # <- error


@expect(coop.InvalidGroupError, "coop.load", "'block_shape' of coop.this_block = 'wide'", "e.g. 128 or (32, 4)")
@cuda.jit
def declared_block_is_not_a_shape(source, destination):
    block = coop.this_block("wide")
    items = coop.ThreadData(4)
    coop.load(block, source, items)  # <- error


@expect(coop.InvalidGroupError, "coop.load", "coop.this_warp() takes no arguments")
@cuda.jit
def warp_given_a_width(source, destination):
    warp = coop.this_warp(8)
    items = coop.ThreadData(4)
    coop.load(warp, source, items)  # <- error


@expect(
    coop.InvalidArgumentError,
    "load",
    "'scratch' = 540672 bytes per block",
    "shared memory one block may use on sm_90",
    argtypes=(types.Array(types.float64, 1, "C"), types.Array(types.float64, 1, "C")),
    block=1024,
)
@cuda.jit
def scratch_beyond_shared_memory(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(64)
    coop.load(block, source, items, algorithm="transpose")  # <- error
    coop.store(block, destination, items, algorithm="transpose")


# -- sorting and selection


@expect(coop.InvalidArgumentError, "coop.radix_sort_pairs", "argument 'values'", "holds 2 item(s) per thread")
@cuda.jit
def sorts_values_of_another_extent(source, destination):
    block = coop.this_block()
    keys, values = coop.ThreadData(4), coop.ThreadData(2, np.float32)
    coop.load(block, source, keys)
    values[0] = 1.0
    out_keys, _ = coop.radix_sort_pairs(block, keys, values)  # <- error
    coop.store(block, destination, out_keys)


@expect(coop.InvalidArgumentError, "coop.radix_sort_keys", "argument 'begin_bit' = 8", "a value below end_bit (8)")
@cuda.jit
def sorts_an_empty_bit_range(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_sort_keys(block, keys, begin_bit=8, end_bit=8))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.radix_sort_keys",
    "argument 'end_bit' = 17",
    "1..16 (the key is 16 bits wide)",
    argtypes=(types.Array(types.int16, 1, "C"),) * 2,
)
@cuda.jit
def sorts_bits_past_the_key(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_sort_keys(block, keys, end_bit=17))  # <- error


@expect(coop.UnsupportedOperationError, "coop.radix_sort_keys", "a group kind that radix_sort_keys supports: block")
@cuda.jit
def radix_sorts_a_warp(source, destination):
    warp = coop.this_warp()
    keys = coop.ThreadData(4)
    coop.load(warp, source, keys)
    coop.store(warp, destination, coop.radix_sort_keys(warp, keys))  # <- error


@expect(coop.InvalidArgumentTypeError, "coop.radix_sort_keys", "argument 'descending' = 1 (int)", "True or False")
@cuda.jit
def sorts_descending_by_a_number(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_sort_keys(block, keys, descending=1))  # <- error


@expect(coop.InvalidArgumentError, "coop.radix_sort_keys", "a tile of at most 65535 items", block=1024)
@cuda.jit
def radix_sorts_a_tile_past_cubs_counters(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(65)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_sort_keys(block, keys))  # <- error


@expect(coop.InvalidArgumentError, "coop.radix_sort_pairs", "argument 'values'", "expected both alike")
@cuda.jit
def sorts_one_key_with_an_array_of_values(source, destination):
    block = coop.this_block()
    values = coop.ThreadData(1)
    coop.load(block, source, values)
    key, _ = coop.radix_sort_pairs(block, source[cuda.threadIdx.x], values)  # <- error
    destination[cuda.threadIdx.x] = key


@expect(coop.InvalidArgumentError, "coop.radix_rank_keys", "argument 'radix_bits' = 3", "end_bit - begin_bit")
@cuda.jit
def ranks_by_disagreeing_widths(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_rank_keys(block, keys, end_bit=4, radix_bits=3))  # <- error


@expect(coop.InvalidArgumentError, "coop.radix_rank_keys", "argument 'radix_bits' = 9", "1..8")
@cuda.jit
def ranks_by_a_digit_past_eight_bits(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.radix_rank_keys(block, keys, radix_bits=9))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.radix_rank_keys",
    "argument 'exclusive_digit_prefix' = an array of 2 item(s) per thread",
    "1 item(s) per thread: max(1, ceil(16 digits / 128 threads))",
)
@cuda.jit
def ranks_into_a_digit_prefix_of_another_extent(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    prefix = coop.ThreadData(2, np.int32)
    ranks = coop.radix_rank_keys(block, keys, exclusive_digit_prefix=prefix)  # <- error
    coop.store(block, destination, ranks)


def compare_three(a, b, c):
    return a < b


@expect(coop.InvalidArgumentError, "coop.merge_sort_keys", "compare_three takes 3 arguments", "less(a, b)")
@cuda.jit
def sorts_with_a_comparator_of_three_arguments(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.merge_sort_keys(block, keys, compare_op=compare_three))  # <- error


def halfway(a, b):
    return (a - b) * 0.5


@expect(coop.InvalidArgumentError, "coop.merge_sort_keys", "halfway returns float64", "expected a bool")
@cuda.jit
def sorts_with_a_comparator_returning_a_number(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.merge_sort_keys(block, keys, compare_op=halfway))  # <- error


@expect(
    coop.InvalidGroupError,
    "coop.merge_sort_keys",
    "block(96,1,1), 96 threads",
    "a power-of-two thread count",
    "::cub::BlockMergeSort requires one",
    block=96,
)
@cuda.jit
def merge_sorts_a_block_of_96_threads(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.merge_sort_keys(block, keys))  # <- error


@expect(coop.InvalidArgumentError, "coop.merge_sort_keys", "'valid_items' = given without oob_default")
@cuda.jit
def merge_sorts_a_partial_tile_without_a_default(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(2)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.merge_sort_keys(block, keys, valid_items=100))  # <- error


@expect(coop.InvalidArgumentError, "coop.topk_min_keys", "argument 'k' = 0", "0 selects nothing")
@cuda.jit
def selects_no_keys(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.topk_min_keys(block, keys, k=0))  # <- error


@expect(coop.InvalidArgumentError, "coop.topk_max_keys", "argument 'k' = 513", "0..512")
@cuda.jit
def selects_more_keys_than_the_tile(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.topk_max_keys(block, keys, k=513))  # <- error


@expect(coop.InvalidArgumentError, "coop.topk_max_keys", "argument 'begin_bit' = 12", "a value below end_bit (4)")
@cuda.jit
def selects_on_an_empty_bit_range(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.topk_max_keys(block, keys, 8, begin_bit=12, end_bit=4))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.topk_min_pairs",
    "argument 'end_bit' = 9",
    "1..8 (the key is 8 bits wide)",
    argtypes=(types.Array(types.uint8, 1, "C"),) * 2,
)
@cuda.jit
def selects_on_bits_past_the_key(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    values = coop.ThreadData(4, np.int32)
    coop.load(block, source, keys)
    for i in range(4):
        values[i] = i
    chosen, _ = coop.topk_min_pairs(block, keys, values, k=8, end_bit=9)  # <- error
    coop.store(block, destination, chosen)


@expect(coop.InvalidGroupError, "coop.topk_max_keys", "a one-dimensional block", block=(32, 4))
@cuda.jit
def selects_in_a_2d_block(source, destination):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, source, keys)
    coop.store(block, destination, coop.topk_max_keys(block, keys, k=8))  # <- error


# -- item 22: no silent result, no unclear error


@expect(coop.InvalidArgumentError, "load", "'offset' = 9223372036854775807", "<= 2305843009213693439", "64-bit")
@cuda.jit
def offset_whose_pointer_arithmetic_overflows(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, offset=2**63 - 1)  # <- error
    coop.store(block, destination, items)


@expect(coop.InvalidArgumentError, "coop.exclusive_sum", "'aggregate_output' holds 2 items", "one-item")
@cuda.jit
def aggregate_output_of_two_items(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    aggregate = coop.ThreadData(2)
    scanned = coop.exclusive_sum(block, items, aggregate_output=aggregate)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.inclusive_sum", "'aggregate_output' holds 2 items", "item 0")
@cuda.jit
def aggregate_output_local_array_of_two_items(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    aggregate = cuda.local.array(2, np.int32)
    scanned = coop.inclusive_sum(block, items, aggregate_output=aggregate)  # <- error
    coop.store(block, destination, scanned)


@expect(coop.InvalidArgumentError, "coop.inclusive_sum", "argument 'state' holds 3 items", "one-item")
@cuda.jit
def stateful_function_state_of_three_items(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    state = coop.ThreadData(3, dtype=np.int32)
    coop.load(block, source, items)
    scanned = coop.inclusive_sum(block, items, state, prefix_op=RUNNING_TOTAL)  # <- error
    coop.store(block, destination, scanned)


def only_raises(a, b):
    raise ValueError("not an operator")


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = only_raises only raises", "returns the combined")
@cuda.jit
def operator_that_only_raises(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, binary_op=only_raises)  # <- error


def forgets_to_return(a, b):
    total = a + b  # noqa: F841 (the case: no return)


@expect(coop.InvalidArgumentError, "coop.inclusive_scan", "'scan_op' = forgets_to_return returns nothing", "`return`")
@cuda.jit
def operator_without_a_return(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, coop.inclusive_scan(block, items, scan_op=forgets_to_return))  # <- error


def less_without_a_return(a, b):
    smaller = a < b  # noqa: F841 (the case: no return)


@expect(
    coop.InvalidArgumentError, "coop.merge_sort_keys", "'compare_op' = less_without_a_return returns nothing", "a bool"
)
@cuda.jit
def predicate_without_a_return(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, coop.merge_sort_keys(block, items, compare_op=less_without_a_return))  # <- error


def prefix_without_a_return(block_aggregate):
    prefix = block_aggregate  # noqa: F841 (the case: no return)


@expect(coop.InvalidArgumentError, "coop.inclusive_sum", "'prefix_op' = prefix_without_a_return returns nothing")
@cuda.jit
def prefix_op_without_a_return(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, coop.inclusive_sum(block, items, prefix_op=prefix_without_a_return))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.exclusive_sum",
    "a StatefulFunction built in the kernel",
    "from values known only at run time",
    "or build it outside the kernel",
)
@cuda.jit
def stateful_function_of_a_runtime_name(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    state = coop.ThreadData(1, dtype=np.int32)
    state[0] = 0
    stateful = StatefulFunction(running_total, np.int32, source[0])
    coop.store(block, destination, coop.exclusive_sum(block, items, state, prefix_op=stateful))  # <- error


PARTIAL_TILE = ("oob_default set to the operator's identity", "cannot change the result")


@expect(coop.UnsupportedOperationError, "coop.inclusive_sum", "'valid_items'", "block group", *PARTIAL_TILE)
@cuda.jit
def block_scan_of_a_partial_thread_data(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.inclusive_sum(block, items, valid_items=100))  # <- error


@expect(coop.PayloadInferenceError, "coop.store", "'items'", "it is a slice of 'items'", "passed whole")
@cuda.jit
def stores_a_slice_of_a_payload(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, items[:2])  # <- error


# -- neighbours: adjacent differences and discontinuities


@expect(coop.InvalidArgumentError, "coop.reduce", "'binary_op' = 'difference'", "difference is not associative")
@cuda.jit
def reduces_with_a_difference(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    destination[0] = coop.reduce(block, items, binary_op=operator.sub)  # <- error


@expect(coop.InvalidArgumentError, "coop.adjacent_difference", "'tile_predecessor_item'", "float32", "int32")
@cuda.jit
def differs_from_a_predecessor_of_another_dtype(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    previous = np.float32(source[0])
    coop.store(block, destination, coop.adjacent_difference(block, items, tile_predecessor_item=previous))  # <- error


@expect(
    coop.InvalidArgumentError, "coop.adjacent_difference", "'tile_successor_item'", "SubtractRightPartialTile does not"
)
@cuda.jit
def differs_right_in_a_partial_tile_with_a_successor(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    right = coop.adjacent_difference(  # <- error
        block, items, direction="right", valid_items=100, tile_successor_item=source[0]
    )
    coop.store(block, destination, right)


@expect(coop.InvalidArgumentError, "coop.adjacent_difference", "argument 'direction' = 'up'", "left, right")
@cuda.jit
def differs_in_an_unknown_direction(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.adjacent_difference(block, items, direction="up"))  # <- error


@expect(coop.UnsupportedOperationError, "coop.adjacent_difference", "bool", argtypes=(BOOLS, BOOLS))
@cuda.jit
def differs_booleans(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.adjacent_difference(block, items))  # <- error


@expect(coop.UnsupportedOperationError, "coop.discontinuity", "a group kind that discontinuity supports: block")
@cuda.jit
def flags_in_a_warp(source, destination):
    warp = coop.this_warp()
    items = coop.load(warp, source, coop.ThreadData(4))
    coop.store(warp, destination, coop.discontinuity(warp, items))  # <- error


@expect(coop.InvalidArgumentError, "coop.discontinuity", "'tile_predecessor_item'", "mode")
@cuda.jit
def flags_tails_with_a_predecessor(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.discontinuity(block, items, mode="tails", tile_predecessor_item=3))  # <- error


@expect(coop.InvalidArgumentError, "coop.discontinuity", "argument 'mode' = 'head'", "heads, tails, heads_and_tails")
@cuda.jit
def flags_in_an_unknown_mode(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.discontinuity(block, items, mode="head"))  # <- error


@expect(coop.InvalidArgumentError, "coop.discontinuity", "halfway returns float64", "a bool")
@cuda.jit
def flags_with_an_operator_that_returns_a_number(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.discontinuity(block, items, flag_op=halfway))  # <- error


def complex_differ(a, b):
    return a != b


@expect(
    coop.UnsupportedOperationError,
    "coop.discontinuity",
    "'flag_op' = complex_differ cannot be compiled for complex64",
    "failed to lower it",
    ".real and .imag",
    argtypes=(types.Array(types.complex64, 1, "C"), I32),
)
@cuda.jit
def flags_complex_values_with_an_operator_the_compiler_cannot_lower(source, destination):
    block = coop.this_block()
    items = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.discontinuity(block, items, flag_op=complex_differ))  # <- error


# -- histograms


@expect(
    coop.InvalidArgumentError,
    "coop.histogram",
    "argument 'counter_dtype' = 'float32' is not allowed",
    "int32, uint32, int64, uint64",
)
@cuda.jit
def counts_into_float_counters(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=64, counter_dtype=np.float32))  # <- error


@expect(coop.InvalidArgumentTypeError, "coop.histogram", "argument 'counter_dtype' = 'many' is not a dtype")
@cuda.jit
def counts_into_counters_of_no_dtype(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=64, counter_dtype="many"))  # <- error


@expect(coop.InvalidArgumentError, "coop.histogram", "argument 'bins' = a runtime value", "a compile-time constant")
@cuda.jit
def counts_into_a_runtime_number_of_bins(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=destination.size))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.histogram",
    "argument 'bins' = 256",
    "at most 128 (128 threads x bins_per_thread 1)",
    "raise bins_per_thread to 2",
)
@cuda.jit
def counts_more_bins_than_the_threads_hold(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=256))  # <- error


@expect(coop.InvalidArgumentError, "coop.histogram", "argument 'bins' = 0", "1..2147483647")
@cuda.jit
def counts_into_no_bins(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=0))  # <- error


@expect(coop.UnsupportedOperationError, "coop.histogram", "float32", argtypes=(F32, I32))
@cuda.jit
def counts_float_samples(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=64))  # <- error


@expect(coop.UnsupportedOperationError, "coop.histogram", "a group kind that histogram supports: block")
@cuda.jit
def counts_in_a_warp(source, destination):
    warp = coop.this_warp()
    samples = coop.load(warp, source, coop.ThreadData(4))
    coop.store(warp, destination, coop.histogram(warp, samples, bins=32))  # <- error


@expect(coop.UnsupportedOperationError, "coop.histogram", "argument 'algorithm' = 'radix'", "atomic, sort")
@cuda.jit
def counts_with_an_unknown_algorithm(source, destination):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    coop.store(block, destination, coop.histogram(block, samples, bins=64, algorithm="radix"))  # <- error


# -- batched warp reductions (this build's CCCL 3.0.1 lacks cub::WarpReduceBatched)


@expect(
    coop.UnsupportedOperationError,
    "coop.reduce_batched",
    "cub::WarpReduceBatched",
    "CCCL 3.5 or newer",
    "CUDA_COOP_CCCL_ROOT",
)
@cuda.jit
def reduces_batches_with_an_older_cccl(source, destination):
    warp = coop.this_warp()
    values = coop.load(warp, source, coop.ThreadData(4))
    sums = coop.reduce_batched(warp, values)  # <- error
    destination[0] = sums[0]


@expect(coop.UnsupportedOperationError, "coop.reduce_batched", "a group kind that reduce_batched supports: warp")
@cuda.jit
def reduces_batches_in_a_block(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(4))
    sums = coop.reduce_batched(block, values)  # <- error
    destination[0] = sums[0]


@expect(coop.InvalidArgumentError, "coop.reduce_batched", "argument 'output_layout' = 'rows'", "striped, blocked")
@cuda.jit
def reduces_batches_into_an_unknown_layout(source, destination):
    warp = coop.this_warp()
    values = coop.load(warp, source, coop.ThreadData(4))
    sums = coop.reduce_batched(warp, values, output_layout="rows")  # <- error
    destination[0] = sums[0]


# -- run-length decoding


@expect(coop.InvalidArgumentError, "coop.run_length_decode", "run_lengths", "float32", argtypes=(I32, F32))
@cuda.jit
def decodes_float_run_lengths(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    coop.store(block, source, coop.run_length_decode(block, values, lengths, decoded_items_per_thread=2))  # <- error


@expect(coop.InvalidArgumentError, "coop.run_length_decode", "'run_lengths'", "'values'")
@cuda.jit
def decodes_lengths_of_another_extent(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(3))
    coop.store(block, source, coop.run_length_decode(block, values, lengths, decoded_items_per_thread=2))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode",
    "argument 'decoded_items_per_thread' = a runtime value",
    "a compile-time constant",
)
@cuda.jit
def decodes_a_runtime_number_of_items(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    decoded = coop.run_length_decode(block, values, lengths, decoded_items_per_thread=destination.size)  # <- error
    coop.store(block, source, decoded)


@expect(coop.InvalidArgumentError, "coop.run_length_decode", "argument 'decoded_items_per_thread' = 0", "1..")
@cuda.jit
def decodes_no_items(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    coop.store(block, source, coop.run_length_decode(block, values, lengths, decoded_items_per_thread=0))  # <- error


@expect(TypeError, "coop.run_length_decode", "decoded_items_per_thread")
@cuda.jit
def decodes_without_a_window_size(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    coop.store(block, source, coop.run_length_decode(block, values, lengths))  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode",
    "argument 'decoded_offset_dtype' = 'float32' is not allowed",
    "int8, int16, int32, int64, uint8, uint16, uint32, uint64",
)
@cuda.jit
def decodes_with_float_offsets(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, decoded_offset_dtype=np.float32
    )
    coop.store(block, source, decoded)


@expect(coop.InvalidArgumentError, "coop.run_length_decode", "decoded_offset_dtype", "OffsetT", "uint64")
@cuda.jit
def decodes_relative_offsets_of_another_dtype(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    relative = coop.ThreadData(2, dtype=np.uint64)
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, relative_offsets=relative, decoded_offset_dtype=np.uint32
    )
    coop.store(block, source, decoded)


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode",
    "'total_decoded_size' gives OffsetT = int16",
    "'relative_offsets' gives uint64",
)
@cuda.jit
def decodes_relative_offsets_and_a_total_of_two_dtypes(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    relative = coop.ThreadData(2, dtype=np.uint64)
    total = coop.ThreadData(1, dtype=np.int16)
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, relative_offsets=relative, total_decoded_size=total
    )
    coop.store(block, source, decoded)


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode",
    "argument 'decoded_window_offset' is float32",
    "uint8-uint64",
    argtypes=(I32, F32),
)
@cuda.jit
def decodes_from_a_float_window_offset(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, source, coop.ThreadData(2))
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, decoded_window_offset=destination[0]
    )
    coop.store(block, source, decoded)


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode",
    "argument 'decoded_window_offset' = -1",
    "an integer index >= 0",
)
@cuda.jit
def decodes_from_a_negative_window_offset(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, decoded_window_offset=-1
    )
    coop.store(block, source, decoded)


@expect(coop.InvalidArgumentError, "coop.run_length_decode", "decoded_items_per_thread", "DECODED_ITEMS_PER_THREAD")
@cuda.jit
def decodes_relative_offsets_of_another_extent(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    lengths = coop.load(block, destination, coop.ThreadData(2))
    relative = coop.ThreadData(3, dtype=np.uint32)
    decoded = coop.run_length_decode(  # <- error
        block, values, lengths, decoded_items_per_thread=2, relative_offsets=relative
    )
    coop.store(block, source, decoded)


@expect(coop.UnsupportedOperationError, "coop.run_length_decode", "a group kind that run_length_decode supports: block")
@cuda.jit
def decodes_in_a_warp(source, destination):
    warp = coop.this_warp()
    values = coop.load(warp, source, coop.ThreadData(2))
    lengths = coop.load(warp, destination, coop.ThreadData(2))
    coop.store(warp, source, coop.run_length_decode(warp, values, lengths, decoded_items_per_thread=2))  # <- error


@expect(coop.PayloadInferenceError, "coop.run_length_decode_into", "the destination", "float32", argtypes=(I32, F32))
@cuda.jit
def decodes_into_memory_of_another_dtype(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    coop.run_length_decode_into(block, values, values, destination, decoded_items_per_thread=2)  # <- error


@expect(
    coop.PayloadInferenceError,
    "coop.run_length_decode_into",
    "argument 'relative_offsets' is",
    "expected a device array",
)
@cuda.jit
def decodes_relative_offsets_into_a_thread_data(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    relative = coop.ThreadData(2, dtype=np.uint32)
    coop.run_length_decode_into(  # <- error
        block, values, values, destination, decoded_items_per_thread=2, relative_offsets=relative
    )


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode_into",
    "relative_offsets",
    "float32",
    "the array passed as relative_offsets",
    argtypes=(I32, F32),
)
@cuda.jit
def decodes_relative_offsets_into_floats(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    coop.run_length_decode_into(  # <- error
        block, values, values, source, decoded_items_per_thread=2, relative_offsets=destination
    )


@expect(
    coop.InvalidArgumentError,
    "coop.run_length_decode_into",
    "argument 'decoded_offset_dtype' = uint64 is not allowed",
    "the OffsetT of the arrays it types, which is int32 there",
)
@cuda.jit
def decodes_relative_offsets_into_memory_of_another_dtype(source, destination):
    block = coop.this_block()
    values = coop.load(block, source, coop.ThreadData(2))
    coop.run_length_decode_into(  # <- error
        block,
        values,
        values,
        source,
        decoded_items_per_thread=2,
        relative_offsets=destination,
        decoded_offset_dtype=np.uint64,
    )


# -- records: tuples of scalars as one payload value


def add_pairs(a, b):
    return a[0] + b[0], a[1] + b[1]


def three_from_two(a, b):
    return a[0] + b[0], a[1] + b[1], a[0]


def float_count(a, b):
    return a[0] * 0.5, a[1] + b[1]


@expect(coop.PayloadInferenceError, "coop.reduce", "is a tuple of", "a record's fields are scalars", "str")
@cuda.jit
def reduces_a_tuple_with_an_object_field(source, destination):
    pair = (source[cuda.threadIdx.x], "label")
    destination[0] = coop.reduce(coop.this_block(), pair, binary_op=add_pairs)[0]  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.sum",
    "record(int32,int64)",
    "sum (family reduce) takes no records",
    "the operations that take records are exchange, load, store, merge_sort_keys, merge_sort_pairs, reduce, scan, "
    "inclusive_scan, exclusive_scan, shuffle",
)
@cuda.jit
def sums_a_tuple_of_mixed_widths(source, destination):
    pair = (source[cuda.threadIdx.x], np.int64(1))
    destination[0] = coop.sum(coop.this_block(), pair)[0]  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.exclusive_sum",
    "record(int32,int32)",
    "exclusive_sum (family scan) takes no records",
)
@cuda.jit
def sums_a_tuple_exclusively(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.exclusive_sum(coop.this_block(), (value, value))[0]  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.reduce",
    "'binary_op'",
    "'max' on record(int32,int32)",
    "a built-in operator has no meaning on a record",
)
@cuda.jit
def reduces_a_tuple_with_a_builtin_operator(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.reduce(coop.this_block(), (value, value), binary_op="max")[0]  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.inclusive_scan",
    "'scan_op'",
    "omitted (the sum) on record(int32,int32)",
    "a user operator",
)
@cuda.jit
def scans_a_tuple_without_an_operator(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.inclusive_scan(coop.this_block(), (value, value))[0]  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.reduce",
    "'binary_op' = three_from_two",
    "returns a tuple of 3 values for record(int32,int32)",
    "a tuple of 2 values (int32, int32)",
)
@cuda.jit
def reduces_pairs_with_an_operator_returning_three(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.reduce(coop.this_block(), (value, value), binary_op=three_from_two)[0]  # <- error


@expect(
    coop.InvalidArgumentError,
    "coop.reduce",
    "'binary_op' = float_count",
    "returns float64 as field 0 of record(int32,int32) (int32)",
)
@cuda.jit
def reduces_pairs_with_an_operator_truncating_a_field(source, destination):
    value = source[cuda.threadIdx.x]
    destination[0] = coop.reduce(coop.this_block(), (value, value), binary_op=float_count)[0]  # <- error


@expect(coop.InvalidArgumentError, "coop.exclusive_scan", "'initial_value'", "a tuple of 2 values (int32, int32)")
@cuda.jit
def seeds_a_pair_scan_with_one_number(source, destination):
    value = source[cuda.threadIdx.x]
    seed = source[0]
    out = coop.exclusive_scan(coop.this_block(), (value, value), scan_op=add_pairs, initial_value=seed)  # <- error
    destination[0] = out[0]


class FirstOfThePair:
    """A pair scan's prefix_op returning one number where the scan needs a pair."""

    def __init__(self, state):
        self.state = state

    def __call__(self, block_aggregate):
        return self.state[0]


@expect(
    coop.InvalidArgumentError,
    "coop.inclusive_scan",
    "'prefix_op' = FirstOfThePair returns int32 for record(int32,int32) values",
    "a tuple of 2 values (int32, int32)",
)
@cuda.jit
def carries_a_pair_scan_with_one_number(source, destination):
    state = cuda.local.array(2, np.int32)
    state[0], state[1] = 0, 0
    prefix = FirstOfThePair(state)
    value = source[cuda.threadIdx.x]
    out = coop.inclusive_scan(coop.this_block(), (value, value), scan_op=add_pairs, prefix_op=prefix)  # <- error
    destination[0] = out[0]


# -- records: NumPy structured dtypes as array and ThreadData element types

KEYED = types.Array(from_dtype(np.dtype([("key", np.int32), ("value", np.float32)], align=True)), 1, "C")
PACKED = types.Array(from_dtype(np.dtype([("flag", np.int8), ("value", np.float64)])), 1, "C")
NESTED = types.Array(from_dtype(np.dtype([("key", np.int32), ("pair", np.float32, 2)], align=True)), 1, "C")


@expect(
    coop.UnsupportedOperationError,
    "coop.load",
    "argument 'source' holds a structured dtype laid out at offsets [0, 1] in 9 bytes",
    "C lays its fields out at [0, 8] in 16",
    "np.dtype([...], align=True)",
    argtypes=(PACKED, PACKED),
)
@cuda.jit
def loads_a_packed_structured_dtype(source, destination):
    items = coop.ThreadData(2)
    coop.load(coop.this_block(), source, items)  # <- error
    coop.store(coop.this_block(), destination, items)


@expect(
    coop.UnsupportedOperationError,
    "coop.load",
    "a structured dtype with field 'pair' (nestedarray(float32, (2,)))",
    "each a scalar",
    argtypes=(NESTED, NESTED),
)
@cuda.jit
def loads_records_with_an_array_field(source, destination):
    items = coop.ThreadData(2)
    coop.load(coop.this_block(), source, items)  # <- error
    coop.store(coop.this_block(), destination, items)


COMPLEX_FIELD = types.Array(from_dtype(np.dtype([("key", np.int32), ("z", np.complex128)], align=True)), 1, "C")


@expect(
    coop.UnsupportedOperationError,
    "coop.load",
    "a structured dtype with a complex128 field",
    "hold it as two float64 fields",
    argtypes=(COMPLEX_FIELD, COMPLEX_FIELD),
)
@cuda.jit
def loads_records_with_a_complex128_field(source, destination):
    items = coop.ThreadData(2)
    coop.load(coop.this_block(), source, items)  # <- error
    coop.store(coop.this_block(), destination, items)


PACKED_DTYPE = np.dtype([("flag", np.int8), ("value", np.float64)])


@expect(
    coop.PayloadInferenceError,
    "coop.ThreadData",
    "argument 'dtype' = ",
    "it is a structured dtype laid out at offsets [0, 1] in 9 bytes",
    "np.dtype([...], align=True)",
    argtypes=(PACKED, PACKED),
)
@cuda.jit
def declares_thread_data_of_a_packed_structured_dtype(source, destination):
    items = coop.ThreadData(2, dtype=PACKED_DTYPE)  # <- error
    coop.store(coop.this_block(), destination, items)


@expect(
    coop.UnsupportedOperationError,
    "coop.radix_sort_keys",
    "record(int32,float32)",
    "radix_sort_keys (family radix_sort) takes no records",
    argtypes=(KEYED, KEYED),
)
@cuda.jit
def radix_sorts_record_keys(source, destination):
    keys = coop.ThreadData(2)
    coop.load(coop.this_block(), source, keys)
    coop.store(coop.this_block(), destination, coop.radix_sort_keys(coop.this_block(), keys))  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.merge_sort_keys",
    "'compare_op'",
    "omitted (less) on record(int32,float32)",
    "a user comparator",
    argtypes=(KEYED, KEYED),
)
@cuda.jit
def merge_sorts_record_keys_without_a_comparator(source, destination):
    keys = coop.ThreadData(2)
    coop.load(coop.this_block(), source, keys)
    coop.store(coop.this_block(), destination, coop.merge_sort_keys(coop.this_block(), keys))  # <- error


@expect(
    coop.UnsupportedOperationError,
    "coop.adjacent_difference",
    "record(int32,float32)",
    "adjacent_difference (family adjacent_difference) takes no records",
    argtypes=(KEYED, KEYED),
)
@cuda.jit
def differences_records(source, destination):
    items = coop.ThreadData(2)
    coop.load(coop.this_block(), source, items)
    coop.store(coop.this_block(), destination, coop.adjacent_difference(coop.this_block(), items))  # <- error


@pytest.mark.parametrize("case", CASES, ids=[case.kernel.py_func.__name__ for case in CASES])
def test_error_names_the_call_and_the_users_line(case):
    with pytest.raises(case.error) as raised:
        compile_for_launch(case.kernel, case.argtypes, grid=1, block=case.block, cluster=case.cluster)
    message = str(raised.value)
    assert site(case.call, case.located_in or case.kernel) in message
    for fragment in case.fragments:
        assert fragment in message


@cuda.jit
def conflicting_payload_dtypes(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)  # <- source
    coop.store(block, destination, items)  # <- error


def test_conflicting_payload_dtypes_name_the_payload_and_both_sources():
    kernel = conflicting_payload_dtypes
    with pytest.raises(coop.PayloadInferenceError) as raised:
        compile_for_launch(kernel, (I32, F32), grid=1, block=128)
    message = str(raised.value)
    assert message.startswith(site("coop.store", kernel))
    assert "payload 'items' holds int32" in message
    assert f"from the source of {site('coop.load', kernel, 'source')}" in message
    assert f"the destination of {site('coop.store', kernel)} holds float32" in message


@cuda.jit
def algorithm_given_positionally(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, "transpose")  # <- error


@cuda.jit
def group_given_by_keyword(source, destination):
    items = coop.ThreadData(4)
    coop.load(group=coop.this_block(), source=source, items=items)  # <- error


@cuda.jit
def reduce_operator_given_positionally(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, "max")  # <- error


@cuda.jit
def segmented_reduce_operator_given_positionally(source, destination):
    warp = coop.this_warp()
    lane = cuda.threadIdx.x
    destination[lane] = coop.segmented_reduce(warp, source[lane], lane % 4 == 0, "max")  # <- error


@cuda.jit
def scan_given_an_output(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    out = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.inclusive_sum(block, items, output=out)  # <- error
    coop.store(block, destination, out)


@cuda.jit
def scan_given_a_block_aggregate(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.exclusive_sum(block, items, block_aggregate=destination)  # <- error
    coop.store(block, destination, scanned)


@cuda.jit
def inclusive_scan_given_an_initial_value(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    scanned = coop.inclusive_scan(block, items, scan_op="max", initial_value=0)  # <- error
    coop.store(block, destination, scanned)


@cuda.jit
def reduce_given_op_by_its_old_name(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    destination[0] = coop.reduce(block, items, op="max")  # <- error


@cuda.jit
def load_without_its_group(source, destination):
    items = coop.ThreadData(4)
    coop.load(source, items)  # <- error


OPERATOR_BY_KEYWORD = "every option by keyword: pass the operator as"
BINDING = [
    (algorithm_given_positionally, "coop.load", "too many positional arguments", "(group, source, items)"),
    (group_given_by_keyword, "coop.load", "'group' parameter is positional only", ""),
    (reduce_operator_given_positionally, "coop.reduce", "too many positional arguments", "binary_op='max'"),
    (
        segmented_reduce_operator_given_positionally,
        "coop.segmented_reduce",
        "too many positional arguments",
        f"{OPERATOR_BY_KEYWORD} binary_op='max'",
    ),
    (scan_given_an_output, "coop.inclusive_sum", "got an unexpected keyword argument 'output'", ""),
    (
        scan_given_a_block_aggregate,
        "coop.exclusive_sum",
        "got an unexpected keyword argument 'block_aggregate'",
        "",
    ),
    (reduce_given_op_by_its_old_name, "coop.reduce", "got an unexpected keyword argument 'op'", ""),
    (
        inclusive_scan_given_an_initial_value,
        "coop.inclusive_scan",
        "got an unexpected keyword argument 'initial_value'",
        "",
    ),
    (
        load_without_its_group,
        "coop.load",
        "missing a required argument: 'items'",
        "the first argument must be a group ('source' is not one)",
    ),
]


@pytest.mark.parametrize(
    ("kernel", "call", "reason", "hint"),
    BINDING,
    ids=[
        "option-positionally",
        "operand-by-keyword",
        "reduce-operator-positionally",
        "segmented-reduce-operator-positionally",
        "scan-output",
        "scan-block-aggregate",
        "reduce-op-keyword",
        "inclusive-scan-initial-value",
        "load-without-its-group",
    ],
)
def test_argument_binding_follows_the_signature(kernel, call, reason, hint):
    """A CoopError that is still the TypeError Python raises, saying what to write instead."""
    with pytest.raises(coop.InvalidArgumentTypeError) as raised:
        compile_for_launch(kernel, (I32, I32), grid=1, block=128)
    assert isinstance(raised.value, TypeError)
    assert str(raised.value).startswith(f"{site(call, kernel)}: {reason}")
    assert hint in str(raised.value)


@cuda.jit
def make_block():
    return coop.this_block()


@cuda.jit
def copy_with(group, source, destination):
    items = coop.ThreadData(2)
    coop.load(group, source, items)
    coop.store(group, destination, items)


@cuda.jit
def descriptor_through_inlined_helpers(source, destination):
    block = make_block()
    alias = block
    copy_with(alias, source, destination)


def test_descriptors_flowing_through_inlined_helpers_do_not_escape():
    """Inlined helpers that return or receive a descriptor leave only aliases behind."""
    compile_for_launch(descriptor_through_inlined_helpers, (I32, I32), grid=1, block=128)


# -- collectives that only some threads of the group reach: a warning, since the
# planner sees the condition but not whether the user meant it


@cuda.jit
def block_sum_under_a_thread_condition(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    if cuda.threadIdx.x < 64:
        destination[0] = coop.sum(block, items)  # <- error


@cuda.jit
def scan_after_an_early_return(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    if cuda.threadIdx.x >= source[0]:
        return
    coop.load(block, source, items)
    scanned = coop.inclusive_sum(block, items)  # <- error
    destination[cuda.threadIdx.x] = scanned[0]


@cuda.jit
def warp_sum_in_half_a_warp(source, destination):
    warp = coop.this_warp()
    if cuda.threadIdx.x % 32 < 16:
        destination[0] = coop.sum(warp, source[cuda.threadIdx.x])  # <- error


@cuda.jit
def block_scan_in_a_loop_over_the_thread_index(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    for _ in range(cuda.threadIdx.x):
        scanned = coop.inclusive_sum(block, items)  # <- error
        destination[cuda.threadIdx.x] = scanned[0]


DIVERGENT = [
    block_sum_under_a_thread_condition,
    scan_after_an_early_return,
    warp_sum_in_half_a_warp,
    block_scan_in_a_loop_over_the_thread_index,
]


@pytest.mark.parametrize("kernel", DIVERGENT, ids=[kernel.py_func.__name__ for kernel in DIVERGENT])
def test_collective_under_a_thread_dependent_condition_warns(kernel):
    with pytest.warns(coop.CoopWarning) as warned:
        compile_for_launch(kernel, (I32, I32), grid=1, block=128)
    message = str(warned[0].message)
    assert f"({kernel.py_func.__qualname__}, {FILE}:{tagged_line(kernel)})" in message
    assert "depends on the thread index" in message
    assert "every thread of the group" in message


# -- a load's or store's offset computed from the thread index: a warning, since the planner sees
# the dependence but not the user's intent (a warp's tile already follows the warps before it)


@cuda.jit
def warp_load_from_each_warps_own_origin(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(2)
    coop.load(warp, source, items, offset=(cuda.threadIdx.x // 32) * 64)  # <- error
    coop.store(warp, destination, items)


@cuda.jit
def block_store_at_a_per_thread_offset(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    coop.store(block, destination, items, offset=cuda.threadIdx.x)  # <- error


@pytest.mark.parametrize(
    "kernel, fragments",
    [
        (warp_load_from_each_warps_own_origin, ("changes every 32 threads", "pass the block's origin only")),
        (block_store_at_a_per_thread_offset, ("changes from one thread to the next", "one value for every thread")),
    ],
    ids=["warp_own_origin", "per_thread"],
)
def test_an_offset_that_depends_on_the_thread_index_warns(kernel, fragments):
    with pytest.warns(coop.CoopWarning) as warned:
        compile_for_launch(kernel, (I32, I32), grid=1, block=128)
    messages = [str(warning.message) for warning in warned if "argument 'offset'" in str(warning.message)]
    assert len(messages) == 1, [str(warning.message) for warning in warned]
    assert f"({kernel.py_func.__qualname__}, {FILE}:{tagged_line(kernel)})" in messages[0]
    assert "depends on the thread index" in messages[0]
    for fragment in fragments:
        assert fragment in messages[0]


# -- a scan's fresh result dropped: code written for the in-place API would store its input
# unscanned (a warning: the call still compiles)


@cuda.jit
def inclusive_sum_result_dropped(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.inclusive_sum(block, items)  # <- error
    coop.store(block, destination, items)


@cuda.jit
def exclusive_scan_result_dropped(source, destination):
    block = coop.this_block()
    items = cuda.local.array(4, np.int32)
    coop.load(block, source, items)
    coop.exclusive_scan(block, items, scan_op="max", initial_value=-1)  # <- error
    coop.store(block, destination, items)


@cuda.jit
def scan_result_dropped(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(2)
    coop.load(warp, source, items)
    coop.scan(warp, items, mode="inclusive")  # <- error
    coop.store(warp, destination, items)


@cuda.jit
def scalar_scan_result_dropped(source, destination):
    block = coop.this_block()
    value = source[cuda.threadIdx.x]
    coop.exclusive_sum(block, value)  # <- error
    destination[cuda.threadIdx.x] = value


DROPPED = {
    inclusive_sum_result_dropped: "inclusive_sum",
    exclusive_scan_result_dropped: "exclusive_scan",
    scan_result_dropped: "scan",
    scalar_scan_result_dropped: "exclusive_sum",
}


@pytest.mark.parametrize("kernel", list(DROPPED), ids=[kernel.py_func.__name__ for kernel in DROPPED])
def test_a_scans_dropped_result_warns(kernel):
    operation = DROPPED[kernel]
    with pytest.warns(coop.CoopWarning) as warned:
        compile_for_launch(kernel, (I32, I32), grid=1, block=128)
    messages = [str(warning.message) for warning in warned if "the result is not used" in str(warning.message)]
    assert len(messages) == 1, [str(warning.message) for warning in warned]
    assert messages[0].startswith(f"{site(f'coop.{operation}', kernel)}: the result is not used")
    assert f"coop.{operation} returns a fresh payload and leaves its input unchanged" in messages[0]
    assert f"`out = coop.{operation}(...)`" in messages[0]


@cuda.jit
def warp_sum_in_one_warp(source, destination):
    warp = coop.this_warp()
    if cuda.threadIdx.x // 32 == 1:  # the same in every lane of a warp
        destination[0] = coop.sum(warp, source[cuda.threadIdx.x])


@cuda.jit
def block_sum_under_a_uniform_condition(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    if source[0] > 3:
        destination[0] = coop.sum(block, items)


@cuda.jit
def direct_load_by_some_threads(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    if cuda.threadIdx.x < 64:  # a storage-free load moves only this thread's items
        coop.load(block, source, items)
        destination[cuda.threadIdx.x] = items[0]


UNIFORM = [warp_sum_in_one_warp, block_sum_under_a_uniform_condition, direct_load_by_some_threads]


@pytest.mark.parametrize("kernel", UNIFORM, ids=[kernel.py_func.__name__ for kernel in UNIFORM])
def test_group_uniform_conditions_do_not_warn(kernel):
    with warnings.catch_warnings():
        warnings.simplefilter("error", coop.CoopWarning)
        compile_for_launch(kernel, (I32, I32), grid=1, block=128)


# -- coop.explain's own arguments


@cuda.jit
def tile_copy(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    coop.store(block, destination, items)


EXPLAIN = [
    ({"grid": 1, "block": "128"}, "'block' = '128'"),
    ({"grid": 1, "block": (32, 2, 2, 1)}, "'block' = (32, 2, 2, 1)"),
    ({"grid": 0, "block": 128}, "'grid' = 0"),
    ({"grid": 1, "block": (32, -4)}, "'block' = (32, -4)"),
]


@pytest.mark.parametrize("launch, fragment", EXPLAIN, ids=[f"explain-{i}" for i in range(len(EXPLAIN))])
def test_explain_checks_its_launch(launch, fragment):
    values = np.zeros(256, np.int32)
    with pytest.raises(coop.InvalidArgumentError) as raised:
        coop.explain(tile_copy, values, values, **launch)
    assert f"coop.explain: argument {fragment} is not allowed" in str(raised.value)
    assert "positive integer" in str(raised.value)


@pytest.mark.parametrize("launch", [{}, {"grid": 2}], ids=["explain-no-launch", "explain-grid-only"])
def test_explain_without_a_block_says_where_one_comes_from(launch):
    values = np.zeros(256, np.int32)
    with pytest.raises(coop.InvalidArgumentError) as raised:
        coop.explain(tile_copy, values, values, **launch)
    message = str(raised.value)
    assert "coop.explain: argument 'block' is missing; tile_copy declares no block" in message
    assert "pass block=, or a configured kernel, kernel[grid, block]" in message


# -- how an uncaught error reaches a person


UNCAUGHT = """
import numpy as np
from numba_cuda_mlir import cuda
from cuda import coop

@cuda.jit
def kernel(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items, valid_items="10")

values = np.zeros(512, np.int32)
coop.explain(kernel, values, values, grid=1, block=128)
"""


@pytest.mark.parametrize("log", ["", "traceback"], ids=["message-first", "full-traceback"])
def test_an_uncaught_error_shows_its_message_first_and_once(tmp_path, log):
    script = tmp_path / "user_script.py"
    script.write_text(UNCAUGHT)
    environment = dict(os.environ, CUDA_COOP_LOG=log)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environment, timeout=300, check=False
    )
    assert done.returncode == 1
    message = "coop.load (kernel, user_script.py:10): argument 'valid_items' = '10' (str) is not allowed"
    assert done.stderr.count(message) == 1, done.stderr
    if log:
        assert "numba_cuda_mlir" in done.stderr  # every frame, on request
        return
    first = done.stderr.splitlines()[0]
    assert first.startswith("cuda.coop.InvalidArgumentTypeError: " + message), done.stderr
    assert "internal frames hidden" in done.stderr
    assert 'user_script.py", line 13' in done.stderr  # the user's own frame stays
    assert "numba_cuda_mlir" not in done.stderr and "cuda/coop" not in done.stderr, done.stderr
