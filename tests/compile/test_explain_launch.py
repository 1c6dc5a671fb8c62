"""coop.explain shows what a CUDA programmer looks for, without a GPU: the launch taken
from a configured kernel, from the block the kernel declares or from a cluster=, and the
linked kernel's registers, local memory and static shared memory (compared with ptxas's
own report where ptxas is installed); the bundle's #define lines folded unless asked for."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import _resources

VALUES = np.zeros(512, np.int32)


@cuda.jit
def transpose_copy(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items, algorithm="transpose")
    coop.store(block, destination, items)


@cuda.jit
def declares_its_block(source, destination):
    block = coop.this_block((32, 4))
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    coop.store(block, destination, items)


@cuda.jit
def cluster_sum(values, out):
    cluster = coop.this_cluster()
    out[cluster.rank()] = coop.sum(cluster, values[cluster.rank()])


def test_a_configured_kernel_gives_its_launch():
    explanation = coop.explain(transpose_copy[4, (32, 2)], VALUES, VALUES)
    assert explanation.launch == {"grid": (4, 1, 1), "block": (32, 2, 1)}
    assert explanation.plans[0].facts.group.block == (32, 2, 1)


def test_a_declared_block_needs_no_block_keyword():
    explanation = coop.explain(declares_its_block, VALUES, VALUES)
    assert explanation.launch == {"grid": (1, 1, 1), "block": (32, 4, 1)}


def test_a_cluster_keyword_plans_for_the_cluster():
    explanation = coop.explain(cluster_sum, VALUES, VALUES, grid=8, block=128, cluster=2)
    assert explanation.launch["cluster"] == (2, 1, 1)
    assert explanation.plans[0].facts.group.kind == "cluster"


def test_resources_count_the_registers_and_the_scratch():
    copy = coop.explain(transpose_copy, VALUES, VALUES, grid=1, block=128)
    scratch = copy.providers[0].scratch_bytes_per_block
    assert scratch > 0 and copy.resources.shared_bytes >= scratch
    assert copy.resources.registers > 0
    assert f"{copy.resources.registers} registers" in str(copy)
    assert f"{copy.resources.shared_bytes} bytes of static shared memory ({scratch} of them" in str(copy)


def test_defines_are_folded_unless_asked_for():
    explanation = coop.explain(transpose_copy, VALUES, VALUES, grid=1, block=128)
    defines = [line for line in explanation.source.splitlines() if line.startswith("#define ")]
    assert defines, "the bundle has configuration macros to fold"
    assert not any(line.startswith("#define ") for line in str(explanation).splitlines())
    assert f"({len(defines)} #define lines folded" in str(explanation)
    assert all(line in explanation.report(defines=True) for line in defines)


PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry kern(.param .u64 p)
{
  .shared .align 4 .b8 buf[4000];
  .local .align 4 .b8 frame[400];
  .reg .b32 r<4>;
  .reg .b64 rd<6>;
  ld.param.u64 rd1, [p];
  mov.u32 r1, %tid.x;
  shl.b32 r2, r1, 2;
  mov.u32 r3, buf;
  add.u32 r3, r3, r2;
  st.shared.u32 [r3], r1;
  cvt.u64.u32 rd3, r2;
  mov.u64 rd4, frame;
  add.u64 rd4, rd4, rd3;
  st.local.u32 [rd4], r1;
  bar.sync 0;
  ld.local.u32 r2, [rd4+4];
  ld.shared.u32 r1, [r3+4];
  add.u32 r2, r2, r1;
  cvta.to.global.u64 rd2, rd1;
  st.global.u32 [rd2], r2;
  ret;
}
"""


@pytest.mark.skipif(
    shutil.which("ptxas") is None and not shutil.os.path.exists("/usr/local/cuda/bin/ptxas"),
    reason="ptxas, the reference, is not installed",
)
def test_the_cubin_reader_agrees_with_ptxas(tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    (tmp_path / "kern.ptx").write_text(PTX)
    done = subprocess.run(
        [ptxas, "-arch=sm_90", "-v", str(tmp_path / "kern.ptx"), "-o", str(tmp_path / "kern.cubin")],
        capture_output=True,
        text=True,
        check=True,
    )
    report = done.stdout + done.stderr
    registers = int(re.search(r"Used (\d+) registers", report)[1])
    shared = int(re.search(r"(\d+) bytes smem", report)[1])
    frame = int(re.search(r"(\d+) bytes stack frame", report)[1])
    found = _resources.of_kernel((tmp_path / "kern.cubin").read_bytes(), "kern")
    assert found == _resources.Resources(registers=registers, shared_bytes=shared, local_bytes=frame)
    assert (shared, frame) == (4000, 400)
