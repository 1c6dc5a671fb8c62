"""Kernels of the GPU runtime tests (exchange, shuffle, reduction broadcasts), compiled for sm_90
without a GPU:
each reaches a cubin through the planner, calls the CUB member function its mode names, and
gets its fresh payload allocated where the call was."""

import importlib.util
import pathlib

import numpy as np
import pytest

from cuda import coop


def _load(file_name, module_name):
    """A GPU runtime test module, for its kernel factories (its tests are not collected here)."""
    path = pathlib.Path(__file__).parents[1] / "runtime" / file_name
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kernels = _load("test_exchange_shuffle_runtime.py", "exchange_shuffle_kernels")

METHODS = {
    "striped_to_blocked": "StripedToBlocked",
    "blocked_to_striped": "BlockedToStriped",
    "warp_striped_to_blocked": "WarpStripedToBlocked",
    "blocked_to_warp_striped": "BlockedToWarpStriped",
    "scatter_to_blocked": "ScatterToBlocked",
    "scatter_to_striped": "ScatterToStriped",
    "scatter_to_striped_guarded": "ScatterToStripedGuarded",
    "scatter_to_striped_flagged": "ScatterToStripedFlagged",
}


def cub_calls(explanation):
    return [
        line.split("cub: ", 1)[1]
        for plan in explanation.plans
        for line in plan.describe().splitlines()
        if line.startswith("cub: ")
    ]


@pytest.mark.parametrize(("dtype", "items"), [(np.int32, 3), (np.float16, 4)], ids=["int32x3", "float16x4"])
@pytest.mark.parametrize("mode", kernels.BLOCK_MODES)
def test_block_exchange_kernels(mode, dtype, items):
    threads = 128
    source = np.zeros(threads * items, dtype)
    ranks, flags = np.zeros(source.size, np.int32), np.zeros(source.size, np.int8)
    kernel = kernels.exchange_kernel(mode, items, dtype, time_slicing=(items == 3))
    explanation = coop.explain(kernel, source, ranks, flags, source, source, grid=1, block=(32, 4, 1))
    (call,) = cub_calls(explanation)
    sliced = "true" if items == 3 and mode != "scatter_to_striped_flagged" else "false"
    name = np.dtype(dtype).name
    spelled = {"int32": "::cuda::std::int32_t", "float16": "__half"}[name]
    assert call == f"::cub::BlockExchange<{spelled}, 32, {items}, {sliced}, 4, 1>::{METHODS[mode]}"


@pytest.mark.parametrize("width", [8, 32])
@pytest.mark.parametrize("mode", ["striped_to_blocked", "blocked_to_striped", "scatter_to_striped"])
def test_warp_exchange_kernels(mode, width):
    source = np.zeros(128 * 3, np.float64)
    kernel = kernels.warp_exchange_kernel(mode, width, 3, np.float64)
    explanation = coop.explain(kernel, source, np.zeros(source.size, np.int32), source, grid=1, block=128)
    assert cub_calls(explanation) == [f"::cub::WarpExchange<double, 3, {width}>::{METHODS[mode]}"]
    (plan,) = explanation.plans
    assert f"scratch: {128 // width} x sizeof" in plan.describe()  # one TempStorage per logical warp


@pytest.mark.parametrize("dtype", [np.int8, np.float32], ids=["int8", "float32"])
@pytest.mark.parametrize("mode", ["up", "down"])
def test_shift_kernels(mode, dtype):
    source = np.zeros(64 * 2, dtype)
    explanation = coop.explain(kernels.shift_kernel(mode, 2, dtype), source, source, source[:64], grid=1, block=64)
    (call,) = cub_calls(explanation)
    assert call.endswith("::Up" if mode == "up" else "::Down")


@pytest.mark.parametrize(("mode", "distance"), [("offset", -5), ("rotate", 37)])
def test_move_kernels(mode, distance):
    source = np.zeros(128, np.int64)
    explanation = coop.explain(kernels.move_kernel(mode), source, source, distance, grid=1, block=(16, 4, 2))
    assert cub_calls(explanation) == [f"::cub::BlockShuffle<::cuda::std::int64_t, 16, 4, 2>::{mode.capitalize()}"]


@pytest.mark.parametrize("broadcast", [True, False])
@pytest.mark.parametrize("group_width", [0, 8], ids=["block", "warp8"])
def test_reduction_broadcast_is_planned(group_width, broadcast):
    """The runtime test's kernels: a broadcast result reaches every thread (block: through
    scratch, warp: by shuffle); broadcast=False keeps CUB's own first-thread result."""
    reductions = _load("test_reduce_scan_runtime.py", "reduce_scan_kernels")
    source = np.zeros(128 * 3, np.int32)
    totals = np.zeros(128, np.int32)
    kernel = reductions.broadcast_kernel(group_width, broadcast)
    plans = coop.explain(kernel, source, totals, totals, grid=1, block=128).plans
    results = [line for plan in plans[1:] for line in plan.describe().splitlines() if line.startswith("result:")]
    assert len(results) == 2
    for line in results:
        assert ("in every" in line) == broadcast


def test_an_unused_fresh_result_warns():
    """Code written for an in-place exchange would silently keep the old arrangement."""
    from numba_cuda_mlir import cuda

    @cuda.jit
    def in_place_habit(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items)
        coop.exchange(block, items, mode="blocked_to_striped")  # result dropped
        coop.store(block, destination, items, algorithm="striped")

    values = np.zeros(512, np.int32)
    with pytest.warns(coop.CoopWarning, match=r"coop\.exchange returns a fresh payload and leaves its input"):
        coop.explain(in_place_habit, values, values, grid=1, block=128)
