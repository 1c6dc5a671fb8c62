"""Arithmetic on compile-time constants written in the kernel (`2 * ITEMS`, `TILE // 32`,
`-OFFSET`) is a compile-time constant, as Python computes it: for a ThreadData's extent, a
compile-time option and a declared block. Arithmetic with a runtime value stays runtime, and
arithmetic that gives no integer is refused where an integer must be."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

ITEMS = 4
RUNS = 2
HALF_BLOCK = 64
WIDE = np.int64(3)


@cuda.jit
def doubled_extent(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2 * ITEMS)
    coop.load(block, source, items)
    coop.store(block, destination, items)


@cuda.jit
def extent_of_numpy_and_unary_arithmetic(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS // 2 - -WIDE)  # 2 + 3
    coop.load(block, source, items)
    coop.store(block, destination, items)


@cuda.jit
def doubled_window(values, lengths, destination):
    block = coop.this_block()
    runs = coop.load(block, values, coop.ThreadData(RUNS))
    sizes = coop.load(block, lengths, coop.ThreadData(RUNS))
    decoded = coop.run_length_decode(block, runs, sizes, decoded_items_per_thread=RUNS * 2)
    coop.store(block, destination, decoded)


@cuda.jit
def declared_block_of_a_product(source, destination):
    block = coop.this_block(2 * HALF_BLOCK)
    items = coop.ThreadData(ITEMS)
    coop.load(block, source, items)
    coop.store(block, destination, items)


@cuda.jit
def runtime_offset_of_a_product(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, source, items, offset=cuda.blockIdx.x * (2 * ITEMS * HALF_BLOCK))
    coop.store(block, destination, items, offset=cuda.blockIdx.x * (2 * ITEMS * HALF_BLOCK))


@cuda.jit
def halved_extent(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS / 2)  # 2.0: not an integer
    coop.load(block, source, items)


@cuda.jit
def huge_power_extent(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2**HUGE)  # not folded: the planner does not compute a 10**9-bit number
    coop.load(block, source, items)


HUGE = 10**9


def test_a_product_of_constants_is_a_thread_data_extent():
    source = np.zeros(1024, np.int32)
    plans = coop.explain(doubled_extent, source, source, grid=1, block=128).plans
    assert [plan.items_per_thread for plan in plans] == [8, 8]


def test_numpy_scalars_negation_and_floor_division_fold():
    source = np.zeros(1024, np.int32)
    plans = coop.explain(extent_of_numpy_and_unary_arithmetic, source, source, grid=1, block=128).plans
    assert [plan.items_per_thread for plan in plans] == [5, 5]


def test_a_product_of_constants_is_a_compile_time_option():
    values = np.ones(256, np.int32)
    plans = coop.explain(doubled_window, values, values, np.zeros(512, np.int32), grid=1, block=128).plans
    decode = next(plan for plan in plans if "RunLength" in plan.cub_type)
    assert "int32_t, 128, 2, 4," in decode.cub_type  # RUNS_PER_THREAD 2, DECODED_ITEMS_PER_THREAD 4


def test_a_product_of_constants_declares_the_block():
    source = np.zeros(512, np.int32)
    assert coop.explain(declared_block_of_a_product, source, source, grid=1, block=128).plans
    with pytest.raises(coop.InvalidGroupError, match="128"):
        coop.explain(declared_block_of_a_product, source, source, grid=1, block=64)


def test_a_product_with_a_runtime_value_stays_runtime():
    source = np.zeros(2048, np.int32)
    plans = coop.explain(runtime_offset_of_a_product, source, source, grid=2, block=128).plans
    assert all("offset: RUNTIME" in plan.describe() for plan in plans)


def test_arithmetic_that_gives_no_integer_is_not_an_extent():
    source = np.zeros(512, np.int32)
    with pytest.raises(
        coop.PayloadInferenceError, match=r"'items_per_thread' is not a compile-time integer.*2 \* ITEMS"
    ):
        coop.explain(halved_extent, source, source, grid=1, block=128)


def test_a_power_that_would_grow_without_bound_is_not_folded():
    source = np.zeros(512, np.int32)
    with pytest.raises(coop.PayloadInferenceError, match="'items_per_thread' is not a compile-time integer"):
        coop.explain(huge_power_extent, source, source, grid=1, block=128)
