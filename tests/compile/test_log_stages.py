"""CUDA_COOP_LOG: each stage is logged once, by the engine (the side that knows the
cache outcome and NVRTC's time), never again by the Python planner."""

import numpy as np
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._explain import compile_for_launch


@cuda.jit
def copy_tile(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items, algorithm="striped")
    coop.store(block, destination, items, algorithm="direct")


def test_every_plan_and_the_compile_are_logged_exactly_once(monkeypatch, capfd):
    monkeypatch.setenv("CUDA_COOP_LOG", "plan,compile")
    capfd.readouterr()  # only what this compile prints
    array = types.Array(types.int32, 1, "C")
    compile_for_launch(copy_tile, [array, array], grid=1, block=64, values=(np.zeros(128, np.int32),) * 2)
    logged = capfd.readouterr().err
    assert logged.count("[cuda.coop plan]") == 2, logged
    # Each plan's own lines, not only its header, appear once.
    assert logged.count("operation: load (load_store)") == 1, logged
    assert logged.count("operation: store (load_store)") == 1, logged
    assert logged.count("ALGORITHM = ::cub::BLOCK_LOAD_STRIPED") == 1, logged
    assert logged.count("[cuda.coop compile]") == 1, logged
