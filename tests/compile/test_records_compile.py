"""Tuples of scalars as one payload value (records): reductions and scans with a Python
operator taking and returning tuples, on blocks, warps and logical warps, compiled and
linked to sm_90 cubins without a GPU, with the record's layout as the engine gives it."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop import _engine
from cuda.coop.numba_mlir._explain import compile_for_launch


def array(dtype, ndim=1):
    return types.Array(dtype, ndim, "C")


def combine_pair(a, b):
    return a[0] + b[0], a[1] + b[1]


def welford(a, b):
    count = a[0] + b[0]
    if count == 0:
        return a
    delta = b[1] - a[1]
    mean = a[1] + delta * b[0] / count
    m2 = a[2] + b[2] + delta * delta * a[0] * b[0] / count
    return count, mean, m2


def block_pair_sums(block_shape):
    @cuda.jit
    def kernel(values, out):
        block = coop.this_block()
        x = values[cuda.threadIdx.x]
        s, sq = coop.reduce(block, (x, x * x), binary_op=combine_pair)
        if cuda.threadIdx.x == 0:
            out[0] = s
            out[1] = sq

    return kernel


def test_a_tuple_reduction_plans_a_record_and_compiles():
    kernel = block_pair_sums(128)
    explained = coop.explain(kernel, np.zeros(128, np.float32), np.zeros(2, np.float32), grid=1, block=128)
    (plan,) = explained.plans
    assert plan.dtype == "record(float32,float32)"
    assert "binary_op: STATIC user:coop_op_combine_pair_record_float32_float32_" in plan.describe()
    assert "struct coop_record_float32_float32 {" in explained.source
    compile_for_launch(kernel, (array(types.float32), array(types.float32)), 1, 128)


def test_the_engine_lays_records_out_as_c_does():
    assert _engine.record_dtype(["int32", "float32", "float32"]) == "record(int32,float32,float32)"
    assert _engine.record_layout("record(int8,float64,int16)") == {
        "fields": ["int8", "float64", "int16"],
        "offsets": [0, 8, 16],
        "size": 24,
        "alignment": 8,
    }
    assert _engine.record_layout("float32") is None
    assert _engine.record_dtype(["int32", "object"]) is None


def welford_kernel():
    @cuda.jit
    def kernel(values, out):
        block = coop.this_block()
        state = (np.int32(1), values[cuda.threadIdx.x], np.float32(0))
        count, mean, m2 = coop.reduce(block, state, binary_op=welford)
        if cuda.threadIdx.x == 0:
            out[0] = count
            out[1] = mean
            out[2] = m2

    return kernel


def test_a_mixed_width_welford_triple_reduces():
    kernel = welford_kernel()
    (plan,) = [
        plan
        for plan in coop.explain(kernel, np.zeros(128, np.float32), np.zeros(3, np.float32), grid=1, block=128).plans
        if plan.facts.operation == "reduce"
    ]
    assert plan.dtype == "record(int32,float32,float32)"
    compile_for_launch(kernel, (array(types.float32), array(types.float32)), 1, 128)


def scan_kernels():
    @cuda.jit
    def inclusive(a, b, out_a, out_b):
        t = cuda.threadIdx.x
        x, y = coop.inclusive_scan(coop.this_block(), (a[t], b[t]), scan_op=affine)
        out_a[t] = x
        out_b[t] = y

    @cuda.jit
    def exclusive(a, b, out_a, out_b):
        t = cuda.threadIdx.x
        x, y = coop.exclusive_scan(coop.this_block(), (a[t], b[t]), scan_op=affine, initial_value=(1.0, 0.0))
        out_a[t] = x
        out_b[t] = y

    @cuda.jit
    def warp(a, b, out_a, out_b):
        t = cuda.threadIdx.x
        x, y = coop.inclusive_scan(coop.this_warp(), (a[t], b[t]), scan_op=affine)
        out_a[t] = x
        out_b[t] = y

    @cuda.jit
    def logical_warp_reduce(a, b, out_a, out_b):
        t = cuda.threadIdx.x
        x, y = coop.reduce(coop.this_warp().group_by(8), (a[t], b[t]), binary_op=affine)
        out_a[t] = x
        out_b[t] = y

    return {"inclusive": inclusive, "exclusive": exclusive, "warp": warp, "logical_warp_reduce": logical_warp_reduce}


def affine(left, right):
    """The selective scan's pairs: (a1, b1) then (a2, b2) is (a1 a2, a2 b1 + b2)."""
    return left[0] * right[0], right[0] * left[1] + right[1]


@pytest.mark.parametrize("name", ["inclusive", "exclusive", "warp", "logical_warp_reduce"])
def test_pair_scans_and_reductions_compile_on_blocks_and_warps(name):
    kernel = scan_kernels()[name]
    arrays = (array(types.float32),) * 4
    compile_for_launch(kernel, arrays, 1, 128)


def test_a_record_of_doubles_and_ints_with_padding_compiles():
    def combine(a, b):
        return a[0] + b[0], max(a[1], b[1]), a[2] + b[2]

    @cuda.jit
    def kernel(values, out):
        t = cuda.threadIdx.x
        total, largest, count = coop.reduce(
            coop.this_block(), (np.int8(1), values[t], np.int16(1)), binary_op=combine, broadcast=False
        )
        if t == 0:
            out[0] = total
            out[1] = largest
            out[2] = count

    explained = coop.explain(kernel, np.zeros(128, np.float64), np.zeros(3, np.float64), grid=1, block=128)
    assert explained.plans[0].dtype == "record(int8,float64,int16)"
    compile_for_launch(kernel, (array(types.float64), array(types.float64)), 1, 128)


def test_groups_of_warps_reduce_pairs():
    @cuda.jit
    def kernel(values, out):
        t = cuda.threadIdx.x
        s, sq = coop.reduce(coop.this_block().group_by(2), (values[t], values[t]), binary_op=combine_pair)
        out[t] = s + sq

    compile_for_launch(kernel, (array(types.float32), array(types.float32)), 1, 256)


def _runtime_kernels():
    """The GPU suite's records module, for its kernel factories (its tests are not collected here)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "runtime" / "test_records_runtime.py"
    spec = importlib.util.spec_from_file_location("records_runtime", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("form", ["class", "stateful_function"])
def test_a_pair_prefix_op_carries_a_selective_scan_across_tiles(form, mode):
    """The running pair in a class's two-item local array or a StatefulFunction's two-item state."""
    kernel = _runtime_kernels().tiled_pair_scan_kernel(form, mode)
    matrix = np.zeros((3, 256), np.float32)
    (plan,) = coop.explain(
        kernel, matrix, matrix, matrix, matrix, np.zeros((3, 2), np.float32), grid=3, block=128
    ).plans
    assert plan.dtype == "record(float32,float32)"
    assert "prefix_op: STATIC user:coop_prefix_" in plan.describe()
    compile_for_launch(kernel, (types.Array(types.float32, 2, "C"),) * 5, 3, 128)


@pytest.mark.parametrize("mode", ["offset", "rotate"])
def test_a_block_shuffle_of_a_mixed_width_pair_compiles(mode):
    kernel = _runtime_kernels().shuffle_pairs_kernel(mode)
    f64, i32 = array(types.float64), array(types.int32)
    explained = coop.explain(
        kernel, np.zeros(128), np.zeros(128, np.int32), np.zeros(128), np.zeros(128, np.int32), 3, grid=1, block=128
    )
    assert explained.plans[0].dtype == "record(float64,int32)"
    compile_for_launch(kernel, (f64, i32, f64, i32, types.int32), 1, 128)


@cuda.jit
def pair_of_loaded_items(values, out):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(2))  # typed by the load, not by its constructor
    s, sq = coop.reduce(block, (items[0] + items[1], items[0] * items[0] + items[1] * items[1]), binary_op=combine_pair)
    if cuda.threadIdx.x == 0:
        out[0] = s
        out[1] = sq


def test_a_tuple_of_items_from_a_thread_data_a_load_typed_is_a_record():
    explained = coop.explain(pair_of_loaded_items, np.zeros(256, np.float32), np.zeros(2, np.float32), block=128)
    assert [plan.dtype for plan in explained.plans] == ["float32", "record(float32,float32)"]
