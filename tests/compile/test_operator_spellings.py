"""An operator (`binary_op=` of a reduction, `scan_op=` of a scan) may be spelled as the
engine's catalog lists it (a name or an alias such as "+" or "maximum"), as a Python
operator or as a NumPy ufunc: each plans as the built-in functor of that name, with no
Python function to compile and link. A Python function is compiled and linked; None,
or no operator at all, is the sum."""

import builtins
import operator

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

BUILTIN_SPELLINGS = [
    ("+", "sum"),
    ("plus", "sum"),
    (" Add ", "sum"),
    (operator.add, "sum"),
    (np.add, "sum"),
    ("*", "mul"),
    (operator.mul, "mul"),
    (np.multiply, "mul"),
    ("minimum", "min"),
    (builtins.min, "min"),
    (np.maximum, "max"),
    ("^", "bit_xor"),
    (operator.xor, "bit_xor"),
    (np.bitwise_or, "bit_or"),
]


def reduce_kernel(op):
    @cuda.jit
    def kernel(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items)
        destination[0] = coop.reduce(block, items, binary_op=op)

    return kernel


def scan_kernel(op):
    @cuda.jit
    def kernel(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items)
        coop.store(block, destination, coop.inclusive_scan(block, items, scan_op=op))

    return kernel


def warp_segments_kernel(op):
    @cuda.jit
    def kernel(source, heads, destination):
        lane = cuda.threadIdx.x
        destination[lane] = coop.segmented_reduce(coop.this_warp(), source[lane], heads[lane], binary_op=op)

    return kernel


def plan_of(kernel, *arguments, block=128):
    """The plan of the kernel's reduction or scan (its load and store are planned too)."""
    plans = coop.explain(kernel, *arguments, grid=1, block=block).plans
    return next(plan for plan in plans if plan.facts.operation not in ("load", "store"))


def larger(a, b):
    return max(a, b)


@pytest.mark.parametrize(("spelling", "name"), BUILTIN_SPELLINGS, ids=str)
def test_operator_spellings_plan_as_the_builtin(spelling, name):
    values = np.zeros(512, np.int32)
    plan = plan_of(reduce_kernel(spelling), values, values)
    assert f"binary_op: STATIC {name}" in plan.describe()
    assert not plan.external_functions


@pytest.mark.parametrize(
    ("spelling", "name"), [spelled for spelled in BUILTIN_SPELLINGS if spelled[1] != "sum"], ids=str
)
def test_scan_operator_spellings_plan_as_the_builtin(spelling, name):
    values = np.zeros(512, np.int32)
    plan = plan_of(scan_kernel(spelling), values, values)
    assert f"scan_op: STATIC {name}" in plan.describe()
    assert "::InclusiveScan" in plan.describe()
    assert not plan.external_functions


@pytest.mark.parametrize(
    "spelling",
    ["max", builtins.max, np.maximum, larger, lambda a, b: max(a, b)],
    ids=["name", "builtin", "ufunc", "function", "lambda"],
)
def test_segmented_reduce_takes_its_operator_as_binary_op(spelling):
    values = np.zeros(32, np.int32)
    description = plan_of(warp_segments_kernel(spelling), values, values, values, block=32).describe()
    assert "binary_op: STATIC" in description and "::HeadSegmentedReduce" in description


@pytest.mark.parametrize("make", [reduce_kernel, scan_kernel], ids=["binary_op", "scan_op"])
def test_a_python_function_is_linked_as_the_operator(make):
    values = np.zeros(512, np.float32)
    plan = plan_of(make(larger), values, values)
    assert "STATIC user:coop_op_larger_float32_" in plan.describe()
    assert len(plan.external_functions) == 1


@pytest.mark.parametrize("spelling", [None, "sum", "+", "plus", operator.add, np.add], ids=str)
def test_a_scan_of_the_sum_is_cubs_sum(spelling):
    """None (the default) and every spelling of the sum scan with CUB's InclusiveSum."""
    values = np.zeros(512, np.int64)
    plan = plan_of(scan_kernel(spelling), values, values)
    assert "::InclusiveSum" in plan.describe()
    assert not plan.external_functions


def test_no_operator_is_the_sum():
    values = np.zeros(512, np.int32)
    default = plan_of(reduce_kernel(None), values, values)
    assert "binary_op: STATIC sum" in default.describe()
    assert default.key == plan_of(reduce_kernel("sum"), values, values).key
