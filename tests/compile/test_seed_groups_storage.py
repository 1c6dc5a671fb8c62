"""The seed's groups, TempStorage, ThreadData and qualified namespace, compiled for a
launch without a GPU: what the planner leaves in the kernel's MLIR (barriers,
constants, shared memory) and what `coop.explain` reports."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._explain import compile_for_launch

I32 = types.Array(types.int32, 1, "C")
I64 = types.Array(types.int64, 1, "C")
U32 = types.Array(types.uint32, 1, "C")
U64 = types.Array(types.uint64, 1, "C")
BLOCK_BARRIER = "gpu.barrier"  # cuda.syncthreads() in the kernel's MLIR
WARP_BARRIER = "nvvm.bar.warp.sync"  # cuda.syncwarp()


def mlir(kernel, argtypes=(I32, I32), block=128):
    return compile_for_launch(kernel, argtypes, grid=1, block=block).metadata["mlir_module_str"]


# -- TempStorage


def transpose_copy(size_in_bytes=None, *, alignment=None, auto_sync=None, sharing="shared"):
    @cuda.jit
    def copy(source, destination):
        block = coop.this_block()
        scratch = coop.TempStorage(size_in_bytes, alignment=alignment, auto_sync=auto_sync, sharing=sharing)
        items = coop.ThreadData(4)
        coop.load(block, source, items, algorithm="transpose", temp_storage=scratch)
        coop.store(block, destination, items, algorithm="transpose", temp_storage=scratch)

    return copy


@pytest.mark.parametrize(
    "storage, barriers",
    [
        ({}, 1),  # shared, auto_sync None: one barrier between the two users
        ({"sharing": "shared"}, 1),
        ({"sharing": " Shared "}, 1),  # a selector: trimmed, lowercased
        ({"sharing": "reuse"}, 1),  # the earlier spelling
        ({"sharing": "exclusive"}, 0),  # each user its own slice
        ({"auto_sync": True}, 2),  # after every use, none before
        ({"auto_sync": True, "sharing": "exclusive"}, 2),
        ({"auto_sync": False}, 0),  # the caller places them
        ({"auto_sync": None, "alignment": None, "size_in_bytes": None}, 1),  # None written out is omitted
    ],
)
def test_temp_storage_barriers_follow_sharing_and_auto_sync(storage, barriers):
    assert mlir(transpose_copy(**storage)).count(BLOCK_BARRIER) == barriers


@cuda.jit
def direct_copy_with_auto_sync(source, destination):
    block = coop.this_block()
    scratch = coop.TempStorage(auto_sync=True)
    items = coop.ThreadData(4)
    coop.load(block, source, items, temp_storage=scratch)
    coop.store(block, destination, items, temp_storage=scratch)


def test_storage_free_algorithms_ignore_the_descriptor():
    """Direct loads and stores use no scratch, may run in some threads only: no barrier after them."""
    assert mlir(direct_copy_with_auto_sync).count(BLOCK_BARRIER) == 0


def test_an_explicit_capacity_is_the_regions_size():
    source = np.zeros(512, np.int32)
    providers = coop.explain(transpose_copy(), source, source, grid=1, block=128).providers
    needed = max(provider.scratch_bytes_per_block for provider in providers)
    result = compile_for_launch(transpose_copy(size_in_bytes=needed + 1000), (I32, I32), grid=1, block=128)
    assert f"{needed + 1000}xi8" in result.metadata["mlir_module_str"]


def test_a_capacity_past_48_kib_moves_to_dynamic_shared_memory():
    result = compile_for_launch(transpose_copy(size_in_bytes=64 * 1024, alignment=16), (I32, I32), grid=1, block=128)
    assert result.metadata["required_dynamic_shared_memory"] >= 64 * 1024


def test_exclusive_sizes_add_up_and_shared_sizes_overlap():
    source = np.zeros(512, np.int32)
    shared = coop.explain(transpose_copy(), source, source, grid=1, block=128)
    sizes = [provider.scratch_bytes_per_block for provider in shared.providers]
    assert f"<{max(sizes)}xi8" in mlir(transpose_copy())
    assert f"<{sum(sizes)}xi8" in mlir(transpose_copy(sharing="exclusive"))


@cuda.jit
def reads_its_storage_attributes(source, destination):
    block = coop.this_block()
    scratch = coop.TempStorage(4096, alignment=32, auto_sync=False, sharing="exclusive")
    items = coop.ThreadData(4)
    coop.load(block, source, items, algorithm="transpose", temp_storage=scratch)
    destination[0] = scratch.size_in_bytes
    destination[1] = scratch.alignment
    destination[2] = 1 if scratch.auto_sync else 0
    destination[3] = 1 if scratch.sharing == "exclusive" else 0


def test_temp_storage_attributes_are_constants_in_the_kernel():
    text = mlir(reads_its_storage_attributes)
    assert "4096" in text and "32" in text


# -- ThreadData


@cuda.jit
def sizes_by_items_per_thread(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4, dtype=None, alignment=None)
    coop.load(block, source, items)
    copy = coop.ThreadData(items.items_per_thread, np.int32)
    alias = items
    for i in range(alias.items_per_thread):
        copy[i] = items[i] * 2
    coop.store(block, destination, copy)


def test_items_per_thread_is_a_compile_time_constant_and_none_means_omitted():
    source = np.zeros(512, np.int32)
    explanation = coop.explain(sizes_by_items_per_thread, source, source, grid=1, block=128)
    assert [plan.items_per_thread for plan in explanation.plans] == [4, 4]


@cuda.jit
def items_per_thread_by_keyword(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(items_per_thread=2, dtype=np.int32)
    coop.load(block, source, items)
    coop.store(block, destination, items)


def test_thread_data_takes_its_extent_by_keyword():
    source = np.zeros(256, np.int32)
    assert coop.explain(items_per_thread_by_keyword, source, source, grid=1, block=128).plans[0].items_per_thread == 2


# -- groups


@cuda.jit
def every_query(out, wide):
    block = coop.this_block()
    warp = coop.this_warp()
    eight = warp.group_by(8)
    pair = block.group_by(2)
    me = coop.this_thread()
    t = cuda.threadIdx.x
    out[t * 10 + 0] = eight.rank()
    out[t * 10 + 1] = eight.rank("warp")
    out[t * 10 + 2] = pair.rank("warp")
    out[t * 10 + 3] = pair.rank(level="block")
    out[t * 10 + 4] = block.count("warp")
    out[t * 10 + 5] = me.rank("warp")
    out[t * 10 + 6] = pair.is_member()
    out[t * 10 + 7] = eight.static_size + pair.group_thread_count
    out[t * 10 + 8] = warp.rank_as(np.int32, "block")
    out[t * 10 + 9] = 1 if pair.kind == "warps_within_block" else 0
    wide[t] = block.rank("grid") + warp.count("grid")
    eight.sync()
    warp.sync()
    block.sync_aligned()
    me.sync()


def test_group_queries_compile_to_device_code():
    text = mlir(every_query, (U32, U64))
    assert text.count(BLOCK_BARRIER) == 1
    assert text.count(WARP_BARRIER) == 2


def test_group_queries_divide_unsigned():
    """Ranks are divided and reduced as CUDA C++ does, unsigned: Python's signed `//` and `%`
    round toward minus infinity, a sign correction per division (a group of two warps paid 15
    instructions for its rank, benchmarks' warps_reduce rows)."""
    text = mlir(every_query, (U32, U64), block=(64, 2, 2))
    assert "arith.divui" in text and "arith.remui" in text
    for signed in ("arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi"):
        assert signed not in text


@cuda.jit
def a_thread_reduces_its_own_value(values, out):
    me = coop.this_thread()
    out[cuda.threadIdx.x] = coop.sum(me, values[cuda.threadIdx.x])


def test_a_scalar_sum_on_this_thread_is_the_value_with_no_provider():
    values = np.zeros(128, np.int32)
    explanation = coop.explain(a_thread_reduces_its_own_value, values, values, grid=1, block=128)
    assert explanation.plans == []


@cuda.jit
def sums_over_groups_of_warps(values, out):
    pairs = coop.this_block().group_by(2)
    threes = coop.this_block().group_by(3, exhaustive=False)  # 8 warps: two groups, two warps in none
    one = coop.this_block().group_by(1)
    t = cuda.threadIdx.x
    items = coop.ThreadData(2, np.int32)
    items[0] = values[t]
    items[1] = values[t]
    out[t] = coop.sum(pairs, values[t]) + coop.reduce(threes, items, binary_op="max") + coop.sum(one, items)


def test_reductions_over_groups_of_warps_plan_one_provider_each():
    values = np.ones(256, np.int32)
    explanation = coop.explain(sums_over_groups_of_warps, values, values, grid=1, block=256)
    described = [plan.describe() for plan in explanation.plans]
    assert [text.splitlines()[1] for text in described] == [
        "group: 2 warps in block(256,1,1)",
        "group: 3 warps in block(256,1,1)",
        "group: 1 warp in block(256,1,1)",
    ]
    assert all("in every member" in text for text in described)
    # one scratch instance per whole group: 4 pairs, 2 threes (the last two warps are in none), 8 singles
    assert [text.split("scratch: ")[1].split(" x")[0] for text in described] == ["4", "2", "8"]
    assert "bar.sync" in explanation.source


@cuda.jit
def non_exhaustive_members(out):
    groups = coop.this_warp().group_by(12, exhaustive=False)
    out[cuda.threadIdx.x] = groups.is_member()


def test_a_non_exhaustive_partition_queries_membership_at_run_time():
    assert "12" in mlir(non_exhaustive_members, (U32,))


BLOCK = coop.this_block()
LOGICAL_WARPS = coop.this_warp().group_by(8)
PAIRS_OF_WARPS = coop.this_block().group_by(2)
WARP = coop.this_warp()


@cuda.jit
def uses_module_level_descriptors(values, out):
    total = coop.sum(LOGICAL_WARPS, values[cuda.threadIdx.x])
    quarter = WARP.group_by(4)
    part = coop.sum(quarter, values[cuda.threadIdx.x])
    everything = coop.sum(BLOCK, values[cuda.threadIdx.x])
    out[cuda.threadIdx.x] = total + part + everything + LOGICAL_WARPS.rank() + PAIRS_OF_WARPS.rank("block")


def test_descriptors_made_at_module_level_are_kernel_globals():
    values = np.ones(128, np.int32)
    explanation = coop.explain(uses_module_level_descriptors, values, values, grid=1, block=128)
    assert [plan.describe().splitlines()[1] for plan in explanation.plans] == [
        "group: warp(8 lanes) in block(128,1,1)",
        "group: warp(4 lanes) in block(128,1,1)",
        "group: block(128,1,1)",
    ]


@cuda.jit
def only_queries_a_module_level_descriptor(out):
    out[cuda.threadIdx.x] = LOGICAL_WARPS.rank() + WARP.count("block")


def test_a_kernel_may_only_query_a_module_level_descriptor():
    assert coop.explain(only_queries_a_module_level_descriptor, np.zeros(64, np.uint32), grid=1, block=64).plans == []


@cuda.jit(device=True)
def rank_plus(group, value):
    group.sync()
    return group.rank() + value + group.static_size


@cuda.jit
def queries_in_an_inlined_helper(values, out):
    sixteen = coop.this_warp().group_by(16)
    out[cuda.threadIdx.x] = rank_plus(sixteen, values[cuda.threadIdx.x]) + rank_plus(WARP, 0)


def test_members_of_a_descriptor_passed_to_an_inlined_helper():
    assert WARP_BARRIER in mlir(queries_in_an_inlined_helper, (I32, I64), block=64)


# -- the qualified namespace


def test_the_qualified_namespace_holds_the_root_api_and_its_own_names():
    import cuda.coop.numba_mlir as qualified

    root = set(coop.__all__) - {"register"}
    assert root <= set(qualified.__all__)
    for name in qualified.__all__:
        assert hasattr(qualified, name), name
    extras = {"StatefulFunction", "local", "shared", "BlockLoadAlgorithm", "BlockStoreAlgorithm"}
    extras |= {"WarpLoadAlgorithm", "WarpStoreAlgorithm", "BlockScanAlgorithm", "BlockHistogramAlgorithm"}
    assert extras <= set(qualified.__all__)
    assert qualified.load is coop.load and qualified.local is cuda.local
    assert qualified.BlockScanAlgorithm.WARP_SCANS == qualified.BlockScanAlgorithm.WARP_SCAN == 2
    function = qualified.StatefulFunction(len, np.int32)
    assert (function.op, function.dtype, function.name) == (len, np.int32, None)


def enum_copy(load_algorithm, store_algorithm):
    import cuda.coop.numba_mlir as qualified

    @cuda.jit
    def copy(source, destination):
        block = qualified.this_block()
        items = qualified.ThreadData(4)
        qualified.load(block, source, items, algorithm=load_algorithm)
        qualified.store(block, destination, items, algorithm=store_algorithm)

    return copy


def test_selectors_take_intenums_and_any_case_or_dashes():
    import cuda.coop.numba_mlir as qualified

    source = np.zeros(512, np.int32)
    kernel = enum_copy(qualified.BlockLoadAlgorithm.WARP_TRANSPOSE, " Warp-Transpose ")
    explanation = coop.explain(kernel, source, source, grid=1, block=128)
    assert "BLOCK_LOAD_WARP_TRANSPOSE" in explanation.source
    assert "BLOCK_STORE_WARP_TRANSPOSE" in explanation.source


def test_importing_the_root_stays_light():
    """The root does not load the compiler, the engine or the qualified namespace."""
    code = "import sys, cuda.coop; print(sorted(m for m in ('numba_cuda_mlir', 'cuda.coop.numba_mlir', 'cuda.coop._engine') if m in sys.modules))"
    environment = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert done.stdout.strip() == "[]"


@cuda.jit
def payload_typed_like_its_source(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4, dtype=source.dtype)  # the argument's element type, known when compiling
    coop.load(block, source, items)
    coop.store(block, destination, items)


@pytest.mark.parametrize("argtype", [I64, U32])
def test_a_payload_takes_the_dtype_of_a_kernel_array_argument(argtype):
    host = np.zeros(512, argtype.dtype.name)
    explanation = coop.explain(payload_typed_like_its_source, host, host, grid=1, block=128)
    assert all(plan.facts.dtype == argtype.dtype.name for plan in explanation.plans)


@cuda.jit
def pairs_reduce_in_a_loop(values, out):
    pairs = coop.this_block().group_by(2)
    total = 0
    for i in range(4):
        total += coop.sum(pairs, values[cuda.threadIdx.x + i])
    out[cuda.threadIdx.x] = total


@cuda.jit
def pairs_then_quads(values, out):
    pairs = coop.this_block().group_by(2)
    quads = coop.this_block().group_by(4)
    t = cuda.threadIdx.x
    out[t] = coop.sum(pairs, values[t]) + coop.sum(quads, values[t])


def test_a_group_of_warps_frees_its_own_scratch_but_another_call_waits_for_the_block():
    # Its own next run needs no barrier (its named barrier freed the scratch), so sibling
    # groups may still take other paths; another call lays the shared scratch out
    # differently (quads over pairs), so only the block's barrier orders the two.
    assert mlir(pairs_reduce_in_a_loop, block=256).count(BLOCK_BARRIER) == 0
    assert mlir(pairs_then_quads, block=256).count(BLOCK_BARRIER) == 1
