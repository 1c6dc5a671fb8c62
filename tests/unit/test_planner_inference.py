"""What the planner infers before Numba's type inference: a group chosen on
several paths, and a payload typed only by the values written into it."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._explain import compile_for_launch

F32 = types.Array(types.float32, 1, "C")


@cuda.jit
def same_group_on_both_paths(source, destination, flag):
    if flag > 0:
        group = coop.this_block()
    else:
        group = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(group, source, items)
    coop.store(group, destination, items)


def test_a_group_from_either_branch_resolves_when_both_agree():
    explanation = coop.explain(
        same_group_on_both_paths, np.zeros(256, np.float32), np.zeros(256, np.float32), 1, grid=1, block=128
    )
    assert explanation.plans[0].cub_type.startswith("::cub::BlockLoad<float, 128, 2,")


@cuda.jit
def different_groups_on_two_paths(source, destination, flag):
    if flag > 0:
        group = coop.this_block()
    else:
        group = coop.this_warp()
    items = coop.ThreadData(2)
    coop.load(group, source, items)


def test_groups_that_differ_by_path_are_refused():
    with pytest.raises(coop.InvalidGroupError, match=r"on one path and .* on another"):
        compile_for_launch(different_groups_on_two_paths, (F32, F32, types.int64), 1, 128)


@cuda.jit
def typed_by_writes(destination):
    items = coop.ThreadData(4)
    for i in range(4):
        items[i] = np.float64(i) * 0.5
    destination[cuda.threadIdx.x] = items[0] + items[3]


def test_a_payload_no_primitive_uses_is_typed_by_its_writes():
    result = compile_for_launch(typed_by_writes, (types.Array(types.float64, 1, "C"),), 1, 32)
    assert result.metadata["cubin"][:4] == b"\x7fELF"
    assert "memref.alloca() : memref<4xf64" in result.metadata["mlir_module_str"]


@cuda.jit
def local_array_payload(source, destination):
    items = cuda.local.array(3, np.float32)
    coop.load(coop.this_block(), source, items)
    coop.store(coop.this_block(), destination, items)


def test_a_local_array_of_constant_length_is_a_payload():
    explanation = coop.explain(
        local_array_payload, np.zeros(96, np.float32), np.zeros(96, np.float32), grid=1, block=32
    )
    assert explanation.plans[0].cub_type == "::cub::BlockLoad<float, 32, 3, ::cub::BLOCK_LOAD_DIRECT, 1, 1>"


@cuda.jit
def local_array_of_another_dtype(source, destination):
    items = cuda.local.array(3, np.int32)
    coop.load(coop.this_block(), source, items)


def test_a_local_array_keeps_its_dtype():
    with pytest.raises(coop.PayloadInferenceError, match="holds int32 .*local array declaration.* holds float32"):
        compile_for_launch(local_array_of_another_dtype, (F32, F32), 1, 32)
