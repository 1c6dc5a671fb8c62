"""A kernel compile logs its bundle through logging.getLogger("cuda.coop")."""

import logging

from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop._core import log
from cuda.coop.numba_mlir._explain import compile_for_launch


def scaled_copy():
    @cuda.jit
    def logged_copy(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, items)

    return logged_copy


def test_a_kernel_compile_logs_its_calls(caplog, monkeypatch):
    monkeypatch.setattr(log, "SLOW_COMPILE_SECONDS", -1.0)  # every compile counts as slow
    array = types.Array(types.int32, 1, "C")
    with caplog.at_level(logging.DEBUG, logger="cuda.coop"):
        compile_for_launch(scaled_copy(), [array, array], 1, 64)
    messages = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "cuda.coop"]
    subject = (
        "2 cooperative call(s) of scaled_copy.<locals>.logged_copy (test_compile_logging.py): coop.load, coop.store"
    )
    assert (logging.DEBUG, f"compiling {subject} for sm_90") in messages
    assert any(level == logging.INFO and text.startswith(f"compiled {subject} in ") for level, text in messages)
