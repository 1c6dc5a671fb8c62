"""The seed's other spellings, compiled for sm_90 without a GPU: `block_prefix_callback_op=` is
`prefix_op=`, and a StatefulFunction's state is the scan's third operand."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

import cuda.coop.numba_mlir as coop


class RunningTotal:
    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


@cuda.jit(device=True)
def running_total(state, block_aggregate):
    before = state[0]
    state[0] = before + block_aggregate
    return before


RUNNING_TOTAL = coop.StatefulFunction(running_total, np.int64)


def prefix_symbols(explanation):
    return [line for plan in explanation.plans for line in plan.describe().splitlines() if "prefix_op" in line]


def test_block_prefix_callback_op_is_prefix_op():
    @cuda.jit
    def kernel(data, out):
        block = coop.this_block()
        total = cuda.local.array(1, np.int32)
        total[0] = 0
        items = coop.ThreadData(4)
        coop.load(block, data, items)
        coop.store(block, out, coop.exclusive_sum(block, items, block_prefix_callback_op=RunningTotal(total)))

    data = np.ones(512, np.int32)
    assert prefix_symbols(coop.explain(kernel, data, data, grid=1, block=128))


def test_an_option_and_its_other_name_together_are_refused():
    @cuda.jit
    def kernel(data, out):
        block = coop.this_block()
        total = cuda.local.array(1, np.int32)
        items = coop.ThreadData(4)
        coop.load(block, data, items)
        prefix = RunningTotal(total)
        coop.store(block, out, coop.exclusive_sum(block, items, prefix_op=prefix, block_prefix_callback_op=prefix))

    data = np.ones(512, np.int32)
    with pytest.raises(TypeError, match="'block_prefix_callback_op' and 'prefix_op' are the same option"):
        coop.explain(kernel, data, data, grid=1, block=128)


@pytest.mark.parametrize("state_kind", ["thread_data", "local_array"])
def test_a_stateful_function_takes_its_state_as_the_third_operand(state_kind):
    if state_kind == "thread_data":

        @cuda.jit
        def kernel(data, out):
            block = coop.this_block()
            state = coop.ThreadData(1, dtype=np.int64)
            state[0] = 0
            items = coop.ThreadData(2)
            coop.load(block, data, items)
            coop.store(block, out, coop.inclusive_sum(block, items, state, prefix_op=RUNNING_TOTAL))

    else:

        @cuda.jit
        def kernel(data, out):
            block = coop.this_block()
            state = cuda.local.array(1, np.int64)
            state[0] = 0
            items = coop.ThreadData(2)
            coop.load(block, data, items)
            coop.store(block, out, coop.inclusive_sum(block, items, state, prefix_op=RUNNING_TOTAL))

    data = np.ones(256, np.int32)
    assert prefix_symbols(coop.explain(kernel, data, data, grid=1, block=128))


@pytest.mark.parametrize("mode", ["inclusive_max", "exclusive_sum"])
def test_warp_scans_take_valid_items(mode):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "runtime" / "test_warp_scan_valid_items_runtime.py"
    spec = importlib.util.spec_from_file_location("warp_scan_valid_items_kernels", path)
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    values = np.zeros(64, np.int32)
    explanation = coop.explain(kernels.partial_scan_kernel(mode, 16), values, values, values, 5, grid=1, block=64)
    (plan,) = explanation.plans
    assert "::coop_adapt::WarpScanPartial<::cuda::std::int32_t, 16>" in plan.describe()
    assert "valid_items: RUNTIME" in plan.describe()


def written_out_defaults_kernel(spelled_out):
    """A reduction and a scan with their defaults left out, or written out as None."""
    if spelled_out:

        @cuda.jit
        def kernel(data, out):
            block = coop.this_block()
            items = coop.ThreadData(4)
            coop.load(block, data, items)
            total = coop.reduce(block, items, binary_op=None, algorithm=None, valid_items=None, temp_storage=None)
            scanned = coop.scan(block, items, scan_op=None, initial_value=None, algorithm=None, prefix_op=None)
            coop.store(block, out, scanned)
            out[0] = total

    else:

        @cuda.jit
        def kernel(data, out):
            block = coop.this_block()
            items = coop.ThreadData(4)
            coop.load(block, data, items)
            total = coop.reduce(block, items)
            scanned = coop.scan(block, items)
            coop.store(block, out, scanned)
            out[0] = total

    return kernel


def test_none_written_out_is_the_default():
    """algorithm=None is the default algorithm, binary_op=/scan_op=None the sum (the seed's defaults)."""
    data = np.ones(512, np.int32)
    plans = [
        [plan.key for plan in coop.explain(written_out_defaults_kernel(spelled), data, data, grid=1, block=128).plans]
        for spelled in (False, True)
    ]
    assert plans[0] == plans[1]
    assert any("algorithm=warp_reductions" in key for key in plans[0])
    assert any("operation=scan" in key and "algorithm=raking" in key for key in plans[0])


def test_load_returns_the_payload_it_filled():
    @cuda.jit
    def kernel(source, destination, sums):
        block = coop.this_block()
        loaded = coop.load(block, source, coop.ThreadData(4))
        coop.store(block, destination, loaded)
        total = coop.sum(block, coop.load(block, source, coop.ThreadData(4)))
        if cuda.threadIdx.x == 0:
            sums[0] = total

    data = np.ones(512, np.int32)
    explanation = coop.explain(kernel, data, data, data[:1], grid=1, block=128)
    assert [plan.facts.operation for plan in explanation.plans] == ["load", "store", "load", "sum"]
