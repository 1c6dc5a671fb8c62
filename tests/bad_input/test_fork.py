"""Bad-input catalogue, Python category: a kernel compile in a process forked after the kernel
compiler had compiled in its parent. numba-cuda-mlir's compiler threads do not survive fork(),
so that compile hung forever inside the kernel compiler; cuda.coop raises ForkedProcessError
instead, naming the cause and the 'spawn' start method. Each case runs in a subprocess with an
alarm in the child: if the detection breaks, the case fails instead of hanging the run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from catalogue import Case, ids
from runners import TIMEOUT, environment

pytest.importorskip("numba_cuda_mlir")

FIX = ("forked from process", "do not survive fork()", "'spawn' start method", 'multiprocessing.get_context("spawn")')

CASES = [
    Case("explain_in_a_forked_child", "ForkedProcessError", ("coop.explain: this process was", *FIX), "copy_tile"),
    Case(
        "explain_of_a_kernel_without_primitives_in_a_forked_child",
        "ForkedProcessError",
        ("this process was", *FIX),
        "plain_copy",
    ),
]

# Runs in the parent: one kernel compile (coop.explain), then a fork; the child explains the
# kernel named on the command line and reports what it raised. SIGALRM ends a child that hangs.
_SCRIPT = """
import json, os, signal, sys
import numpy as np
from numba_cuda_mlir import cuda
from cuda import coop

@cuda.jit
def copy_tile(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    coop.store(block, destination, items)

@cuda.jit
def plain_copy(source, destination):
    destination[0] = source[0]

source = np.arange(256, dtype=np.int32)
coop.explain(copy_tile, source, np.zeros_like(source), grid=1, block=128)
reader, writer = os.pipe()
child = os.fork()
if child == 0:
    signal.alarm(60)
    report = {"error": None}
    try:
        coop.explain(globals()[sys.argv[1]], source, np.zeros_like(source), grid=1, block=128)
    except Exception as error:
        report["error"] = {"class": type(error).__name__, "message": str(error)}
    os.write(writer, json.dumps(report).encode())
    os._exit(0)
os.close(writer)
text = os.read(reader, 1 << 16).decode()
_, status = os.waitpid(child, 0)
print(json.dumps({"child_status": status, "child": json.loads(text) if text else None}))
"""


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_fork(case, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, case.detail],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr}"
    report = json.loads(done.stdout)
    assert report["child_status"] == 0, f"the child hung or died (status {report['child_status']})\n{done.stderr}"
    error = report["child"]["error"]
    assert error is not None and error["class"] == case.error, report
    case.check(error["message"])
