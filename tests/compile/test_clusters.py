"""Thread block clusters and the barriers of groups, compiled for a launch without a
GPU: what the planner leaves in the kernel's MLIR and what the engine plans."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir import _explain, _planner
from cuda.coop.numba_mlir._explain import compile_for_launch

I32 = types.Array(types.int32, 1, "C")
CLUSTER_BARRIER = ("nvvm.cluster.arrive {aligned}", "nvvm.cluster.wait {aligned}")


def mlir(kernel, block=128, cluster=None):
    return compile_for_launch(kernel, (I32, I32), grid=8, block=block, cluster=cluster).metadata["mlir_module_str"]


@cuda.jit
def cluster_sum(values, out):
    cluster = coop.this_cluster()
    total = coop.sum(cluster, values[cluster.rank()])
    cluster.sync()
    out[cluster.rank()] = total


def test_a_cluster_launch_syncs_on_the_cluster_barrier():
    text = mlir(cluster_sum, cluster=(2, 1, 1))
    assert all(op in text for op in CLUSTER_BARRIER)


def test_without_a_cluster_launch_the_cluster_is_the_block():
    text = mlir(cluster_sum)
    assert not any(op in text for op in CLUSTER_BARRIER)
    assert "gpu.barrier" in text


def test_the_engine_plans_a_cluster_of_the_launch():
    plans = []
    _planner._explain_recorders.append(lambda state, linked, bundle: plans.extend(linked))
    try:
        mlir(cluster_sum, block=(32, 2), cluster=(2, 2, 1))
    finally:
        _planner._explain_recorders.pop()
    (linked,) = plans
    assert linked.plan.facts.group.kind == "cluster"
    assert linked.plan.facts.group.threads == 64 * 4
    assert (
        "ClusterReduce<::cuda::std::int32_t, 32, 4, ::cub::BLOCK_REDUCE_WARP_REDUCTIONS, 2, 1>" in linked.plan.cub_type
    )


def test_a_cluster_of_several_blocks_needs_sm_90(monkeypatch):
    monkeypatch.setattr(_explain, "_capability", lambda: (8, 0))
    with pytest.raises(coop.UnsupportedOperationError, match="needs sm_90 or later; this kernel compiles for sm_80"):
        mlir(cluster_sum, cluster=(2, 1, 1))
    mlir(cluster_sum)  # a cluster of one is the block, on any GPU


@cuda.jit
def pairs_sync(values, out):
    pairs = coop.this_block().group_by(2)
    ones = coop.this_block().group_by(1)
    out[cuda.threadIdx.x] = values[cuda.threadIdx.x]
    pairs.sync()
    ones.sync()
    out[cuda.threadIdx.x] = out[cuda.threadIdx.x ^ 32]


def test_a_group_of_warps_syncs_on_a_named_barrier_and_one_warp_on_syncwarp():
    text = mlir(pairs_sync, block=256)
    assert text.count("nvvm.barrier id") == 1
    assert "nvvm.bar.warp.sync" in text
    assert "gpu.barrier" not in text


@cuda.jit
def cluster_levels(values, out):
    block = coop.this_block()
    out[0] = block.count("cluster")
    out[1] = coop.this_cluster().count("warp")
    out[2] = coop.this_cluster().count()
    out[3] = coop.this_cluster().static_size


def test_cluster_counts_are_constants_of_the_launch():
    text = mlir(cluster_levels, block=96, cluster=(4, 1, 1))
    for count in (4, 12, 384):
        assert f"arith.constant {count} : i32" in text or f"arith.constant {count} : i64" in text


def test_cluster_queries_compile_for_every_kind():
    @cuda.jit
    def kinds(values, out):
        t = cuda.threadIdx.x
        out[t] = coop.this_thread().rank("cluster") + coop.this_warp().rank("cluster")
        out[t] += coop.this_grid().rank("cluster") + coop.this_grid().count("cluster")
        out[t] += coop.this_cluster().rank("grid") + coop.this_cluster().count("grid")
        out[t] += np.int32(coop.this_cluster().rank_as(np.int32, "warp"))

    mlir(kinds, cluster=(2, 1, 1))


@cuda.jit
def partition_places(values, out):
    sixteen = coop.this_warp().group_by(16)
    pair = coop.this_block().group_by(2)
    out[0] = sixteen.count("block")
    out[1] = sixteen.count("cluster")
    out[2] = pair.count("cluster")
    out[3] = sixteen.rank("block") + sixteen.rank("cluster") + sixteen.rank("grid") + sixteen.count("grid")
    out[4] = pair.rank("cluster") + pair.rank("grid") + pair.count("grid")


def test_partitions_are_placed_at_every_level():
    """A logical warp of 16 lanes in a block of 256 threads: 16 per block, 48 per cluster of 3
    blocks; groups of 2 warps: 4 per block, 12 per cluster."""
    text = mlir(partition_places, block=256, cluster=(3, 1, 1))
    for count in (16, 48, 12):
        assert f"arith.constant {count} : i32" in text
