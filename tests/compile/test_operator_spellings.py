"""An operator may be spelled as the engine's catalog lists it (a name or an alias such as
"+" or "maximum"), as a Python operator or as a NumPy ufunc: each plans as the built-in
functor of that name, with no Python function to compile and link."""

import operator

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop


def reduce_kernel(op):
    @cuda.jit
    def kernel(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items)
        destination[0] = coop.reduce(block, items, op)

    return kernel


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("+", "sum"),
        ("plus", "sum"),
        (" Add ", "sum"),
        (np.add, "sum"),
        ("*", "mul"),
        (operator.mul, "mul"),
        (np.multiply, "mul"),
        ("minimum", "min"),
        (np.maximum, "max"),
        ("^", "bit_xor"),
        (np.bitwise_or, "bit_or"),
    ],
    ids=str,
)
def test_operator_spellings_plan_as_the_builtin(spelling, name):
    values = np.zeros(512, np.int32)
    _load, plan = coop.explain(reduce_kernel(spelling), values, values, grid=1, block=128).plans
    assert f"op: STATIC {name}" in plan.describe()
    assert not plan.external_functions
