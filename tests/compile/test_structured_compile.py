"""NumPy structured dtypes (aligned records) as array and ThreadData element types: the GPU
suite's kernels (tests/runtime/test_structured_runtime.py) planned with the record the
engine names by its fields and compiled and linked for sm_90 without a GPU; the records'
local storage and field offsets as the engine lays them out."""

import importlib.util
import pathlib

import numpy as np
import pytest
from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

from cuda import coop
from cuda.coop.numba_mlir import _records
from cuda.coop.numba_mlir._explain import compile_for_launch
from cuda.coop.numba_mlir._payloads import dtype_name


def _runtime():
    path = pathlib.Path(__file__).parents[1] / "runtime" / "test_structured_runtime.py"
    spec = importlib.util.spec_from_file_location("structured_runtime", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runtime = _runtime()


def array(dtype):
    return types.Array(from_dtype(dtype) if isinstance(dtype, np.dtype) else dtype, 1, "C")


def plans(kernel, *arguments, grid=1, block=128):
    return coop.explain(kernel, *arguments, grid=grid, block=block).plans


@pytest.mark.parametrize("name", list(runtime.RECORDS))
def test_an_aligned_structured_dtype_is_the_record_of_its_fields(name):
    dtype = runtime.RECORDS[name]
    record = dtype_name(from_dtype(dtype))
    layout = _records.layout(record)
    assert record == f"record({','.join(dtype.fields[field][0].name for field in dtype.names)})"
    assert layout.offsets == tuple(dtype.fields[field][1] for field in dtype.names)
    assert (layout.size, layout.alignment) == (dtype.itemsize, dtype.alignment)


def test_a_packed_structured_dtype_is_no_record():
    packed = from_dtype(np.dtype([("key", np.int8), ("value", np.float64)]))
    assert dtype_name(packed) is None
    assert "align=True" in _records.refused_structured(packed, dtype_name)


@pytest.mark.parametrize("items_per_thread", [1, 3])
@pytest.mark.parametrize("name", list(runtime.RECORDS))
def test_records_load_exchange_and_store_compile(name, items_per_thread):
    dtype = runtime.RECORDS[name]
    kernel = runtime.move_kernel(items_per_thread)
    source = np.zeros(2 * 128 * items_per_thread, dtype)
    planned = plans(kernel, source, source, grid=2)
    assert [plan.facts.operation for plan in planned] == ["load", "exchange", "store"]
    assert {plan.dtype for plan in planned} == {dtype_name(from_dtype(dtype))}
    compile_for_launch(kernel, (array(dtype),) * 2, 2, 128)


@pytest.mark.parametrize("mode", ["up", "down"])
def test_a_block_shuffle_of_records_compiles(mode):
    dtype = runtime.RECORDS["int8_float64_int16"]
    compile_for_launch(runtime.shuffle_kernel(mode), (array(dtype),) * 2, 1, 128)


@pytest.mark.parametrize("items_per_thread", [1, 4])
def test_a_thread_data_of_records_reduces(items_per_thread):
    kernel = runtime.reduce_kernel(items_per_thread)
    source = np.zeros(128 * items_per_thread, runtime.TRIPLE)
    reduce_plan = plans(kernel, source, np.zeros(1, runtime.TRIPLE))[1]
    assert (reduce_plan.facts.operation, reduce_plan.dtype) == ("reduce", "record(int32,float32,float32)")
    assert reduce_plan.facts.items_per_thread == items_per_thread
    compile_for_launch(kernel, (array(runtime.TRIPLE),) * 2, 1, 128)


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("items_per_thread", [1, 3])
def test_a_block_scan_of_pair_records_compiles(items_per_thread, mode):
    compile_for_launch(runtime.scan_kernel(items_per_thread, mode), (array(runtime.PAIR),) * 2, 1, 128)


@pytest.mark.parametrize("name", ["int32_float32", "int8_float64_int16"])
def test_radix_sort_pairs_with_record_values_compiles(name):
    dtype = runtime.RECORDS[name]
    keys, values = np.zeros(512, np.uint32), np.zeros(512, dtype)
    sort_plan = plans(runtime.radix_sort_record_values, keys, values, keys, values)[2]
    assert sort_plan.facts.operation == "radix_sort_pairs" and sort_plan.dtype == "uint32"
    compile_for_launch(runtime.radix_sort_record_values, (array(types.uint32), array(dtype)) * 2, 1, 128)


def test_topk_pairs_with_record_values_compile():
    dtype = runtime.RECORDS["int64_float32"]
    arrays = (array(types.uint32), array(dtype)) * 2
    compile_for_launch(runtime.topk_record_values, (*arrays, types.int64), 1, 128)


def test_merge_sorts_of_record_keys_and_values_compile():
    keys, values = runtime.RECORDS["int32_float32"], runtime.RECORDS["int8_float64_int16"]
    sort_plan = plans(runtime.merge_sort_record_keys, np.zeros(512, keys), np.zeros(512, keys))[1]
    assert sort_plan.dtype == "record(int32,float32)"
    assert "compare_op: STATIC user:" in sort_plan.describe()
    compile_for_launch(runtime.merge_sort_record_keys, (array(keys),) * 2, 1, 128)
    compile_for_launch(runtime.merge_sort_record_pairs, (array(keys), array(values)) * 2, 1, 128)


def test_tuples_one_per_thread_sort_as_records():
    i32, f32 = array(types.int32), array(types.float32)
    keys, values = np.zeros(128, np.int32), np.zeros(128, np.float32)
    (merge_plan,) = plans(runtime.merge_sort_tuple_keys, keys, values, keys, values)
    assert merge_plan.dtype == "record(int32,float32)"
    compile_for_launch(runtime.merge_sort_tuple_keys, (i32, f32, i32, f32), 1, 128)
    compile_for_launch(runtime.merge_sort_tuple_pairs, (i32, f32, i32, f32, i32), 1, 128)
    (radix_plan,) = plans(runtime.radix_sort_tuple_values, keys, values, keys, keys, values)
    assert radix_plan.dtype == "int32" and "record(int32,float32)" in radix_plan.describe()
    compile_for_launch(runtime.radix_sort_tuple_values, (i32, f32, i32, i32, f32), 1, 128)


def test_a_thread_data_declared_with_a_structured_dtype_compiles():
    values = np.zeros(256, np.float32)
    planned = plans(runtime.fill_and_scan_pairs, values, values, np.zeros(256, runtime.PAIR))
    assert [(plan.facts.operation, plan.dtype) for plan in planned] == [
        ("inclusive_scan", "record(float32,float32)"),
        ("store", "record(float32,float32)"),
    ]
    compile_for_launch(runtime.fill_and_scan_pairs, (array(types.float32),) * 2 + (array(runtime.PAIR),), 1, 128)
