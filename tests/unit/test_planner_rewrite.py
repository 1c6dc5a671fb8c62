"""What the planner's rewrite leaves in real kernels, compiled for a launch without a
GPU (sm_90): provider calls inlined by LTO, reuse barriers only where scratch is
reused, scratch laid out per TempStorage sharing, dynamic shared memory past
48 KiB, payload alignment, and coop.explain's plans and generated source.

The kernel's own MLIR (metadata "mlir_module_str") holds what the rewrite
emitted before CUB is linked in, so a barrier there is the planner's; the
post-LTO PTX holds CUB's code as well."""

import dataclasses
import re

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types
from numba_cuda_mlir.mlir_optimization import get_lto_ptx

from cuda import coop
from cuda.coop.numba_mlir import _planner
from cuda.coop.numba_mlir._explain import compile_for_launch

I32 = types.Array(types.int32, 1, "C")
I64 = types.Array(types.int64, 1, "C")
BLOCK_BARRIER = "gpu.barrier"  # what cuda.syncthreads() becomes in the kernel's MLIR
WARP_BARRIER = "nvvm.bar.warp.sync"  # cuda.syncwarp()


class Compiled:
    """A kernel compiled for one launch: its pre-link MLIR and its post-LTO PTX."""

    def __init__(self, kernel, argtypes=(I32, I32), block=128):
        self.result = compile_for_launch(kernel, argtypes, grid=1, block=block)
        self.mlir = self.result.metadata["mlir_module_str"]
        self.ptx = get_lto_ptx(self.result)
        self.body = self.ptx[self.ptx.index(".entry") :]

    def planner_barriers(self, kind=BLOCK_BARRIER):
        return self.mlir.count(kind)

    def ptx_barriers(self):
        return len(re.findall(r"\b(?:bar|barrier)\.sync\b", self.body))

    def static_shared_bytes(self):
        sizes = re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", self.ptx)
        return sum(int(size) for size in sizes)


def copy_kernel(algorithm, sharing=None):
    """A load and a store of the same tile; with `sharing`, through one explicit TempStorage."""
    if sharing is None:

        @cuda.jit
        def copy_tile(source, destination):
            block = coop.this_block()
            items = coop.ThreadData(4)
            coop.load(block, source, items, algorithm=algorithm)
            coop.store(block, destination, items, algorithm=algorithm)

        return copy_tile

    @cuda.jit
    def copy_tile_through(source, destination):
        block = coop.this_block()
        storage = coop.TempStorage(sharing=sharing)
        items = coop.ThreadData(4)
        coop.load(block, source, items, algorithm=algorithm, temp_storage=storage)
        coop.store(block, destination, items, algorithm=algorithm, temp_storage=storage)

    return copy_tile_through


@pytest.fixture(scope="module")
def transpose_reuse():
    return Compiled(copy_kernel("transpose", "reuse"))


@pytest.fixture(scope="module")
def transpose_exclusive():
    return Compiled(copy_kernel("transpose", "exclusive"))


def test_provider_calls_are_inlined_by_lto(transpose_reuse):
    symbols = set(re.findall(r"func\.call @(coop_(?:load|store)_\w+)", transpose_reuse.mlir))
    assert len(symbols) == 2  # the rewrite emitted one external call per primitive ...
    assert not re.search(r"\bcall(?:\.uni)?\b", transpose_reuse.body)  # ... and nvJitLink inlined both
    assert not any(symbol in transpose_reuse.ptx for symbol in symbols)
    assert transpose_reuse.result.metadata["cubin"]


def test_direct_algorithms_use_no_scratch_and_no_barrier():
    compiled = Compiled(copy_kernel("direct", "reuse"))
    assert compiled.planner_barriers() == 0
    assert compiled.ptx_barriers() == 0
    assert compiled.static_shared_bytes() == 0


def test_reused_scratch_gets_one_barrier_between_its_users(transpose_reuse):
    assert transpose_reuse.planner_barriers() == 1


def test_exclusive_scratch_needs_no_barrier(transpose_reuse, transpose_exclusive):
    assert transpose_exclusive.planner_barriers() == 0
    # Same CUB code otherwise: the planner's barrier is the only difference in the PTX.
    assert transpose_exclusive.ptx_barriers() == transpose_reuse.ptx_barriers() - 1


def test_exclusive_scratch_gives_each_user_its_own_slice(transpose_reuse, transpose_exclusive):
    tile = np.zeros(512, np.int32)
    explanation = coop.explain(copy_kernel("transpose", "reuse"), tile, tile, grid=1, block=128)
    scratch = [provider.scratch_bytes_per_block for provider in explanation.providers]
    assert all(scratch)
    assert transpose_reuse.static_shared_bytes() == max(scratch)
    assert transpose_exclusive.static_shared_bytes() == sum(scratch)  # both sizes are 16-byte multiples


def test_implicit_scratch_is_reused_safely(transpose_reuse):
    implicit = Compiled(copy_kernel("transpose"))
    assert implicit.planner_barriers() == 1
    assert implicit.static_shared_bytes() == transpose_reuse.static_shared_bytes()


@cuda.jit
def copy_tiles_in_a_loop(source, destination, tiles):
    block = coop.this_block()
    items = coop.ThreadData(4)
    for tile in range(tiles):
        coop.load(block, source, items, algorithm="transpose", offset=tile * 512)
        coop.store(block, destination, items, algorithm="transpose", offset=tile * 512)


def test_a_loop_needs_a_barrier_before_every_reuse():
    """In a loop the store of one tile runs before the load of the next: both need a barrier."""
    compiled = Compiled(copy_tiles_in_a_loop, (I32, I32, types.int32))
    assert compiled.planner_barriers() == 2


@cuda.jit
def load_tiles_in_a_loop_exclusively(source, destination, tiles):
    block = coop.this_block()
    storage = coop.TempStorage(sharing="exclusive")
    items = coop.ThreadData(4)
    for tile in range(tiles):
        coop.load(block, source, items, algorithm="transpose", offset=tile * 512, temp_storage=storage)
        coop.store(block, destination, items, offset=tile * 512, temp_storage=storage)


def test_exclusive_scratch_in_a_loop_is_reused_by_its_own_user():
    """The next iteration's load overwrites the slice the slowest threads may still read."""
    compiled = Compiled(load_tiles_in_a_loop_exclusively, (I32, I32, types.int32))
    assert compiled.planner_barriers() == 1


@cuda.jit
def copy_warp_tiles(source, destination):
    warp = coop.this_warp()
    items = coop.ThreadData(4)
    coop.load(warp, source, items, algorithm="transpose")
    coop.store(warp, destination, items, algorithm="transpose")


def test_warp_scratch_is_guarded_by_a_warp_barrier():
    compiled = Compiled(copy_warp_tiles)
    assert compiled.planner_barriers(WARP_BARRIER) == 1
    assert compiled.planner_barriers(BLOCK_BARRIER) == 0


@cuda.jit
def load_a_large_tile(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(8)
    coop.load(block, source, items, algorithm="transpose")
    coop.store(block, destination, items)


def test_scratch_beyond_48_kib_becomes_dynamic_shared_memory(transpose_reuse):
    compiled = Compiled(load_a_large_tile, (I64, I64), block=1024)
    required = compiled.result.metadata["required_dynamic_shared_memory"]
    assert required >= 1024 * 8 * 8  # the transpose exchanges the whole 64 KiB tile
    assert compiled.static_shared_bytes() == 0
    assert "__dynamic_shmem" in compiled.ptx  # the backing is numba-cuda-mlir's shared.array(0)
    assert "required_dynamic_shared_memory" not in transpose_reuse.result.metadata


@cuda.jit
def copy_aligned_items(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4, alignment=32)
    coop.load(block, source, items, algorithm="vectorize")
    coop.store(block, destination, items, algorithm="vectorize")


def test_payload_alignment_reaches_the_local_array():
    compiled = Compiled(copy_aligned_items)
    assert re.search(r"memref\.alloca\(\) \{alignment = 32 : i64\} : memref<4xi32>", compiled.mlir)
    assert compiled.result.metadata["cubin"]


@cuda.jit
def copy_with_a_kernel_extent(source, destination, items_per_thread, valid):
    block = coop.this_block()
    items = coop.ThreadData(items_per_thread)
    coop.load(block, source, items, algorithm="transpose", valid_items=valid, oob_default=0)
    coop.store(block, destination, items, algorithm="striped")


def test_explain_returns_the_plans_and_the_generated_source():
    data = np.zeros(512, np.float32)
    explanation = coop.explain(copy_with_a_kernel_extent, data, data, 4, 500, grid=2, block=(64, 2))
    assert explanation.kernel == "copy_with_a_kernel_extent"
    assert explanation.launch == {"grid": (2, 1, 1), "block": (64, 2, 1)}
    assert explanation.arch == "sm_90"
    load, store = explanation.plans
    assert load.cub_type == "::cub::BlockLoad<float, 64, 4, ::cub::BLOCK_LOAD_TRANSPOSE, 2, 1>"
    assert store.cub_type == "::cub::BlockStore<float, 64, 4, ::cub::BLOCK_STORE_STRIPED, 2, 1>"
    assert "valid_items: RUNTIME" in load.describe()
    assert "reuse barrier: block" in load.describe()
    assert "scratch: none" in store.describe()
    for provider in explanation.providers:
        assert f'extern "C" __device__ int {provider.symbol}(' in explanation.source
    assert "#include <cub/block/block_load.cuh>" in explanation.source
    assert str(explanation).startswith("kernel copy_with_a_kernel_extent, launch")


def test_the_stages_hand_on_frozen_values():
    """Plan and bundle return what they made beside the facts stage's call; none is filled in later."""
    seen = []
    recorder = lambda state, linked, bundle: seen.append((linked, bundle))
    _planner._explain_recorders.append(recorder)
    try:
        Compiled(copy_kernel("transpose"))
    finally:
        _planner._explain_recorders.remove(recorder)
    ((linked, bundle),) = seen
    assert [each.call.facts.operation for each in linked] == ["load", "store"]  # program order
    assert [each.provider.symbol for each in linked] == [provider.symbol for provider in bundle.providers]
    assert "BLOCK_LOAD_TRANSPOSE" in linked[0].plan.cub_type
    for value in (linked[0], linked[0].call):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.plan = None


def test_explain_names_warp_types():
    data = np.zeros(512, np.int64)
    explanation = coop.explain(copy_warp_tiles, data, data, grid=1, block=128)
    assert [plan.cub_type for plan in explanation.plans] == [
        "::cub::WarpLoad<::cuda::std::int64_t, 4, ::cub::WARP_LOAD_TRANSPOSE, 32>",
        "::cub::WarpStore<::cuda::std::int64_t, 4, ::cub::WARP_STORE_TRANSPOSE, 32>",
    ]


def test_explain_refuses_what_is_not_a_kernel():
    with pytest.raises(coop.InvalidArgumentError, match="coop.explain: argument 'kernel'"):
        coop.explain(len, grid=1, block=32)


@cuda.jit
def sequential_reductions(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)  # direct: no scratch
    largest = coop.reduce(block, items, binary_op="max")
    total = coop.sum(block, items)  # reuses the reduction's scratch: one barrier
    running = coop.inclusive_sum(block, items)  # and again: one barrier
    coop.store(block, destination, running)  # direct: none
    if cuda.threadIdx.x == 0:
        destination[0] = largest + total


def test_sequential_reductions_and_scans_get_a_barrier_before_each_reuse_only():
    compiled = Compiled(sequential_reductions)
    assert compiled.planner_barriers() == 2


@cuda.jit
def sequential_reductions_exclusively(source, destination):
    block = coop.this_block()
    storage = coop.TempStorage(sharing="exclusive")
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    largest = coop.reduce(block, items, binary_op="max", temp_storage=storage)
    total = coop.sum(block, items, temp_storage=storage)
    running = coop.inclusive_sum(block, items, temp_storage=storage)
    coop.store(block, destination, running)
    if cuda.threadIdx.x == 0:
        destination[0] = largest + total


def test_exclusive_scratch_lets_sequential_reductions_run_without_barriers():
    compiled = Compiled(sequential_reductions_exclusively)
    assert compiled.planner_barriers() == 0
    assert compiled.static_shared_bytes() > Compiled(sequential_reductions).static_shared_bytes()


class RunningTotal:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


@cuda.jit
def running_prefix(source, destination, tiles):
    block = coop.this_block()
    items = coop.ThreadData(4)
    total = cuda.local.array(1, np.int64)
    total[0] = 0
    prefix = RunningTotal(total)
    for tile in range(tiles):
        coop.load(block, source, items, offset=tile * 512)
        before = coop.exclusive_sum(block, items, prefix_op=prefix)
        coop.store(block, destination, before, offset=tile * 512)


def test_a_prefix_callback_is_inlined_and_its_scan_reused_in_a_loop():
    compiled = Compiled(running_prefix, (I64, I64, types.int32))
    assert not re.search(r"^\s*call", compiled.body, re.MULTILINE), "the callback or a provider was not inlined"
    assert compiled.planner_barriers() == 1  # the next tile's scan reuses this one's scratch
    assert "RunningTotal" not in compiled.mlir  # the object exists only at compile time


def larger(a, b):
    return max(a, b)


@cuda.jit
def half_precision_operator(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    running = coop.inclusive_scan(block, items, scan_op=larger)
    coop.store(block, destination, running)


def test_a_python_operator_on_float16_is_inlined():
    f16 = types.Array(types.float16, 1, "C")
    compiled = Compiled(half_precision_operator, (f16, f16))
    assert not re.search(r"^\s*call", compiled.body, re.MULTILINE)
    assert re.search(r"\bmax\.f(16|32)\b", compiled.body)  # the operator itself, folded into CUB's loops


def maxntid(compiled):
    return re.search(r"\.maxntid (\d+), (\d+), (\d+)", compiled.ptx).groups()


@pytest.mark.parametrize("block", [1024, (32, 4, 1)], ids=str)
def test_the_kernel_is_bounded_by_its_launch_block(block):
    """As CUB's kernels are (__launch_bounds__): ptxas keeps registers within what
    the block can run with, so a 1024-thread launch does not fail for lack of them."""
    compiled = Compiled(running_prefix, (I64, I64, types.int32), block=block)
    assert maxntid(compiled) == ("1024" if block == 1024 else "128", "1", "1")


@cuda.jit(launch_bounds=512)
def copy_with_its_own_bounds(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, items)


def test_launch_bounds_the_user_gave_are_kept():
    assert maxntid(Compiled(copy_with_its_own_bounds, block=128)) == ("512", "1", "1")
