"""Python kernels with cuda.coop compiled to sm_90 cubins without a GPU: every
load/store algorithm reaches a cubin, the providers are inlined across the link,
and a kernel compile runs NVRTC at most once (never on a provider-cache hit)."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types
from numba_cuda_mlir.mlir_optimization import get_lto_ptx

from cuda import coop
from cuda.coop.numba_mlir import _planner
from cuda.coop.numba_mlir._explain import compile_for_launch

BLOCK_ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]
WARP_ALGORITHMS = ["direct", "striped", "vectorize", "transpose"]


def array(dtype):
    return types.Array(dtype, 1, "C")


def kernel_body_ptx(result) -> str:
    ptx = get_lto_ptx(result).rstrip("\0")
    return ptx[ptx.index(".entry") :]


@pytest.fixture
def bundles():
    """The bundle of every kernel compiled while the test runs."""
    seen = []
    recorder = lambda state, calls, bundle: seen.append(bundle)
    _planner._explain_recorders.append(recorder)
    yield seen
    _planner._explain_recorders.remove(recorder)


def block_copy(algorithm):
    @cuda.jit
    def copy(source, destination, valid):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items, algorithm=algorithm, valid_items=valid, oob_default=0)
        coop.store(block, destination, items, algorithm=algorithm, valid_items=valid)

    return copy


def warp_copy(algorithm):
    @cuda.jit
    def copy(source, destination):
        warp = coop.this_warp().group_by(16)
        items = coop.ThreadData(4)
        coop.load(warp, source, items, algorithm=algorithm)
        coop.store(warp, destination, items, algorithm=algorithm)

    return copy


@pytest.mark.parametrize("dtype", [types.int32, types.float16], ids=str)
@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_block_algorithms_compile_and_inline(algorithm, dtype):
    result = compile_for_launch(block_copy(algorithm), [array(dtype)] * 2 + [types.int64], 2, (32, 4, 1))
    assert result.metadata["cubin"][:4] == b"\x7fELF"
    body = kernel_body_ptx(result)
    assert not [line for line in body.splitlines() if line.strip().startswith("call")], "a provider was not inlined"


@pytest.mark.parametrize("algorithm", WARP_ALGORITHMS)
def test_warp_algorithms_compile_and_inline(algorithm):
    result = compile_for_launch(warp_copy(algorithm), [array(types.int64)] * 2, 1, 128)
    assert result.metadata["cubin"][:4] == b"\x7fELF"
    assert "call" not in "".join(line.split()[0] for line in kernel_body_ptx(result).splitlines() if line.split())


def test_one_bundle_per_kernel_and_none_on_a_hit(bundles):
    kernel = block_copy("transpose")
    argtypes = [array(types.float64)] * 2 + [types.int64]
    compile_for_launch(kernel, argtypes, 1, 64)
    compile_for_launch(kernel, argtypes, 3, 64)  # another grid: the kernel recompiles, the providers do not
    assert len(bundles) == 2
    assert len(bundles[0].providers) == 2  # load and store, one NVRTC call
    assert bundles[1].cache in ("memory_hit", "disk_hit")
    assert bundles[1].compile_seconds == 0


def test_kernel_argument_extent_specializes(bundles):
    @cuda.jit
    def copy_tile(source, destination, items_per_thread):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items)
        coop.store(block, destination, items)

    for extent in (2, 5):
        compile_for_launch(copy_tile, [array(types.int32)] * 2 + [types.int64], 1, 128, values=(None, None, extent))
    assert [bundle.providers[0].cub_type.split(", ")[2] for bundle in bundles] == ["2", "5"]


def test_explain_returns_plans_and_source():
    explanation = coop.explain(
        block_copy("striped"), np.zeros(512, np.int16), np.zeros(512, np.int16), 512, grid=1, block=128
    )
    assert "BLOCK_LOAD_STRIPED" in explanation.source
    assert [plan.cub_type for plan in explanation.plans] == [
        "::cub::BlockLoad<::cuda::std::int16_t, 128, 4, ::cub::BLOCK_LOAD_STRIPED, 1, 1>",
        "::cub::BlockStore<::cuda::std::int16_t, 128, 4, ::cub::BLOCK_STORE_STRIPED, 1, 1>",
    ]
    assert explanation.providers[0].symbol in explanation.source


DUMP_SCRIPT = """
import numpy as np
from numba_cuda_mlir import cuda
from cuda import coop

@cuda.jit
def copy(source, destination):
    items = coop.ThreadData(2)
    coop.load(coop.this_block(), source, items, algorithm="transpose")
    coop.store(coop.this_block(), destination, items, algorithm="transpose")

print(coop.explain(copy, np.zeros(64, np.float32), np.zeros(64, np.float32), grid=1, block=32).source)
"""


def test_sources_are_dumped_on_misses_and_hits(tmp_path):
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), CUDA_COOP_ENABLE_CACHE="1")
    for run in ("miss", "hit"):
        dumps = tmp_path / run
        environment["CUDA_COOP_SOURCE_DUMP_DIR"] = str(dumps)
        printed = subprocess.run(
            [sys.executable, "-c", DUMP_SCRIPT], env=environment, check=True, capture_output=True, text=True
        ).stdout
        files = list(dumps.glob("cuda_coop_numba_mlir_*.cu"))
        assert len(files) == 1, run
        assert files[0].read_text() in printed


def view_copy(algorithm, group_kind):
    @cuda.jit
    def copy_view(view, destination):
        group = coop.this_block() if group_kind == "block" else coop.this_warp()
        items = coop.ThreadData(2)
        coop.load(group, view, items, algorithm=algorithm)
        coop.store(group, destination[::-1], items, algorithm=algorithm)

    return copy_view


@pytest.mark.parametrize("layout", [(1, "A"), (2, "A"), (2, "F"), (3, "A")], ids=lambda v: f"{v[0]}d-{v[1]}")
@pytest.mark.parametrize(
    "group_kind, algorithm", [("block", "vectorize"), ("block", "transpose"), ("warp", "striped")], ids=str
)
def test_strided_views_compile_to_iterator_providers(bundles, layout, group_kind, algorithm):
    """A view of any strides reaches the provider as pointer, extents and strides (in
    elements): the wrapper builds a StridedView that CUB walks in C order."""
    ndim, order = layout
    argtypes = (types.Array(types.float32, ndim, order), array(types.float32))
    result = compile_for_launch(view_copy(algorithm, group_kind), argtypes, 1, 64)
    assert result.metadata["cubin"]
    load, store = (provider for bundle in bundles for provider in bundle.providers)
    assert [(p.kind, p.dimension) for p in load.abi if p.array == "source"] == [
        *(("extent", d) for d in range(ndim)),
        *(("stride", d) for d in range(ndim)),
    ]
    assert [p.name for p in store.abi][:3] == ["destination", "destination_extent_0", "destination_stride_0"]
    assert f"StridedView<float, {ndim}>" in bundles[-1].source


def test_contiguous_arrays_stay_plain_pointers(bundles):
    """C-order arrays of any rank are one flat run: no view, no extents, the vectorized path."""
    argtypes = (types.Array(types.float32, 2, "C"), array(types.float32))
    compile_for_launch(view_copy("vectorize", "block"), argtypes, 1, 64)
    load = bundles[-1].providers[0]
    assert [p.kind for p in load.abi] == ["pointer", "pointer"]
    assert "(const float* source, float (&items)[2])" in bundles[-1].source


NEG_INF = float("-inf")  # the usual running-max seed, as a module constant


def max_scan_from_negative_infinity():
    @cuda.jit
    def running_max(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items, valid_items=100, oob_default=NEG_INF)
        before = coop.exclusive_scan(block, items, scan_op="max", initial_value=NEG_INF)
        coop.store(block, destination, before)

    return running_max


@pytest.mark.parametrize("dtype", [types.float16, types.float32, types.float64], ids=str)
def test_infinite_static_seeds_compile(bundles, dtype):
    """Static inf and nan are the dtype's exact bits in the generated source (NVRTC has no __builtin_inf)."""
    compile_for_launch(max_scan_from_negative_infinity(), (array(dtype), array(dtype)), 1, 128)
    assert "__builtin_inf" not in bundles[-1].source
