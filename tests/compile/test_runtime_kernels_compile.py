"""Kernels of the GPU runtime tests (exchange, shuffle, reductions and scans), compiled for sm_90
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


reductions = _load("test_reduce_scan_runtime.py", "reduce_scan_runtime_kernels")

SCAN_METHODS = {
    "inclusive_sum": "InclusiveSum",
    "exclusive_sum": "ExclusiveSum",
    "inclusive_scan_max": "InclusiveScan",
    "exclusive_scan_min": "ExclusiveScan",
    "scan": "ExclusiveSum",
    "scan_exclusive_max": "ExclusiveScan",
    "scan_inclusive": "InclusiveSum",
    "scan_inclusive_xor": "InclusiveScan",
}


def scan_plans(explanation):
    return [plan for plan in explanation.plans if plan.facts.operation not in ("load", "store")]


def cub_call(plan):
    return next(line.split("cub: ", 1)[1] for line in plan.describe().splitlines() if line.startswith("cub: "))


@pytest.mark.filterwarnings("error::cuda.coop.CoopWarning")  # every result is used
@pytest.mark.parametrize("payload", ["thread_data", "local_array"])
@pytest.mark.parametrize("group_width", [0, 8], ids=["block", "warp8"])
@pytest.mark.parametrize("call", sorted(SCAN_METHODS))
def test_scan_entry_points_write_a_fresh_result(call, group_width, payload):
    """Each entry point (coop.scan in both modes too) calls CUB's method of its mode and operator,
    reading the input and writing the fresh result: two operands, the input left as it was."""
    values = np.zeros(128 * 4, np.int32)
    kernel = reductions.scan_call_kernel(call, group_width, payload)
    (plan,) = scan_plans(coop.explain(kernel, values, values, values, grid=1, block=128))
    scan_class = "::cub::BlockScan<" if group_width == 0 else "::cub::WarpScan<"
    assert cub_call(plan).startswith(scan_class) and cub_call(plan).endswith(f"::{SCAN_METHODS[call]}")
    assert [param.name for param in plan.abi][:2] == ["value", "result"]


@pytest.mark.parametrize("group_width", [0, 16], ids=["block", "warp16"])
@pytest.mark.parametrize("mode", ["exclusive", "inclusive"])
def test_scan_modes_of_scalars(mode, group_width):
    values = np.zeros(256, np.int64)
    (plan,) = scan_plans(
        coop.explain(reductions.scalar_scan_kernel(mode, group_width), values, values, grid=1, block=256)
    )
    description = plan.describe()
    assert f"mode: STATIC {mode}" in description
    # -SEED: arithmetic on a constant is a compile-time constant
    assert f"initial_value: {'STATIC -1000' if mode == 'exclusive' else 'OMITTED'}" in description
    assert cub_call(plan).endswith("::ExclusiveScan" if mode == "exclusive" else "::InclusiveScan")


@pytest.mark.parametrize("group_width", [0, 8], ids=["block", "warp8"])
@pytest.mark.parametrize("holder", ["thread_data", "thread_data_untyped", "local_array"])
def test_aggregate_output_holders(holder, group_width):
    values = np.zeros(128 * 2, np.int32)
    kernel = reductions.aggregate_kernel(holder, group_width)
    (plan,) = scan_plans(coop.explain(kernel, values, values, values[:128], grid=1, block=128))
    assert "aggregate_output: RUNTIME" in plan.describe()
    assert "aggregate_output" in [param.name for param in plan.abi]


@pytest.mark.parametrize(
    ("name", "spelling"),
    reductions.SPELLED,
    ids=[reductions.spelling_id(spelling) for _, spelling in reductions.SPELLED],
)
def test_operator_spelling_kernels(name, spelling):
    values = np.zeros(512, np.int32)
    reduced, scanned = scan_plans(
        coop.explain(reductions.spelled_operator_kernel(spelling), values, values[:1], values, grid=1, block=128)
    )
    python_function = callable(spelling) and getattr(spelling, "__module__", None) == reductions.__name__
    for plan in (reduced, scanned):
        assert bool(plan.external_functions) == python_function


RUNTIME_KERNELS = {
    "block_reduce": lambda: (reductions.block_reduce_kernel("max", "raking", 4), "i4", "i4"),
    "block_reduce_scalars": lambda: (reductions.block_reduce_kernel("min", "warp_reductions", 1), "f8", "f8"),
    "warp_reduce": lambda: (reductions.warp_reduce_kernel("sum", 8, 4), "i4", "i4"),
    "partial_sum": lambda: (reductions.partial_sum, "i4", "i4", 77),
    "block_scan": lambda: (reductions.block_scan_kernel("exclusive_sum_from_100", "warp_scans"), "i4", "i4", "i4"),
    "block_scan_max": lambda: (reductions.block_scan_kernel("inclusive_max", "raking"), "i4", "i4", "i4"),
    "scalar_scans": lambda: (reductions.scalar_scans, "f8", "f8", "f8"),
    "warp_scan": lambda: (reductions.warp_scan_kernel(16), "i8", "i8"),
    "segments": lambda: (reductions.segments_and_broadcast, "i4", "i4", "i4", "i4"),
    "python_operator": lambda: (reductions.operator_kernel("raking"), "i4", "i4", "i4"),
    "running_exclusive_scan": lambda: (
        reductions.running_prefix_kernel("exclusive_scan", "raking", np.int64, 4),
        "i8",
        "i8",
        3,
    ),
    "running_inclusive_scan": lambda: (
        reductions.running_prefix_kernel("inclusive_scan", "warp_scans", np.int64, 4),
        "i8",
        "i8",
        3,
    ),
    "running_max": lambda: (reductions.running_max_of_scalars, "f4", "f4", 3),
    "half_operators": lambda: (reductions.half_operators, "f2", "f2", "f2"),
    "complex_sums": lambda: (reductions.complex_sums_kernel("raking", "raking_memoize", 4), "c8", "c8", "c8", "c8"),
    "complex_warp": lambda: (reductions.complex_warp_kernel(8), "c16", "c16", "c16"),
    "seeded_exclusive": lambda: (reductions.seeded_exclusive_kernel(reductions.larger, -np.inf), "f8", "f8"),
}


@pytest.mark.filterwarnings("error::cuda.coop.CoopWarning")
@pytest.mark.parametrize("name", sorted(RUNTIME_KERNELS))
def test_the_reduction_and_scan_runtime_kernels_compile(name):
    kernel, *arguments = RUNTIME_KERNELS[name]()
    values = [np.zeros(1024, argument) if isinstance(argument, str) else argument for argument in arguments]
    assert scan_plans(coop.explain(kernel, *values, grid=1, block=128))
