"""Device helpers that take part in cooperative calls inline into the kernel whatever
their size: numba-cuda-mlir 0.6 inlines by default only helpers of up to 64 IR
statements (a cost model), and a primitive needs the launching kernel's block. A
helper whose inline option is a cost model (0.6's default, or one the user gives)
and that receives a group or a ThreadData, or calls a primitive, is inlined by
cuda.coop; inline='never' stays the user's choice and keeps the planner's error."""

import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._explain import _capability, compile_for_launch

ARRAY = types.Array(types.int32, 1, "C")
STATEMENTS = 80  # more than 0.6's default inlining limit of 64


def never(expr, caller, callee):
    return False  # a cost model that never inlines


def large_body(name: str) -> str:
    """Source of `name(block, items, source)`: a load after STATEMENTS dead-free scalar steps."""
    steps = "\n".join(f"    n = n * 3 + {i}" for i in range(STATEMENTS))
    return f"def {name}(block, items, source):\n    n = 1\n{steps}\n    coop.load(block, source, items)\n    return n\n"


def make_helper(inline):
    namespace = {"coop": coop}
    exec(large_body("load_after_work"), namespace)  # noqa: S102 -- a body longer than any test should spell out
    options = {} if inline is None else {"inline": inline}
    return cuda.jit(device=True, **options)(namespace["load_after_work"])


def kernel_calling(helper):
    @cuda.jit
    def kernel(source, destination, out):
        block = coop.this_block()
        items = coop.ThreadData(4)
        out[0] = helper(block, items, source)
        coop.store(block, destination, items)

    return kernel


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


@pytest.mark.parametrize("inline", [None, never], ids=["default", "cost_model"])
def test_a_large_helper_receiving_a_group_and_a_payload_inlines(inline):
    kernel = kernel_calling(make_helper(inline))
    result = compile_for_launch(kernel, [ARRAY, ARRAY, ARRAY], 1, 128)
    assert result.metadata["cubin"][:4] == b"\x7fELF"


def test_a_helper_that_makes_its_own_group_inlines():
    namespace = {"coop": coop}
    steps = "\n".join(f"    n = n * 3 + {i}" for i in range(STATEMENTS))
    exec(  # noqa: S102
        f"def copy(source, destination):\n    n = 1\n{steps}\n    block = coop.this_block()\n"
        "    items = coop.ThreadData(4)\n    coop.load(block, source, items)\n"
        "    coop.store(block, destination, items)\n    return n\n",
        namespace,
    )
    helper = cuda.jit(device=True, inline=never)(namespace["copy"])

    @cuda.jit
    def kernel(source, destination, out):
        out[0] = helper(source, destination)

    assert compile_for_launch(kernel, [ARRAY, ARRAY, ARRAY], 1, 128).metadata["cubin"][:4] == b"\x7fELF"


def test_a_helper_marked_never_is_refused():
    kernel = kernel_calling(make_helper("never"))
    with pytest.raises(coop.EscapingGroupDescriptorError, match="'block' escapes"):
        compile_for_launch(kernel, [ARRAY, ARRAY, ARRAY], 1, 128)
