"""Thread block clusters (coop.this_cluster(), sm_90): reductions over every block of
a cluster, the cluster's barrier and its queries, against the block-by-block
arithmetic they stand for; a launch without a cluster runs each block as one."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

pytestmark = pytest.mark.skipif(
    cuda.is_available() and cuda.get_current_device().compute_capability < (9, 0),
    reason="thread block clusters need sm_90",
)


def launch(kernel, grid, block, cluster):
    return kernel[grid, block] if cluster is None else kernel[grid, block, 0, 0, cluster]


def keep_left(a, b):
    return a  # not commutative: a reduction by it gives its first operand, cluster rank 0's value


@cuda.jit
def cluster_reductions(values, sums, minima, firsts):
    cluster = coop.this_cluster()
    me = cluster.rank()
    items = coop.ThreadData(3, np.float64)
    for i in range(3):
        items[i] = values[cluster.rank("grid") * cluster.count() * 3 + me * 3 + i]
    sums[cluster.rank("grid") * cluster.count() + me] = coop.sum(cluster, items)
    one = values[cluster.rank("grid") * cluster.count() * 3 + me * 3]
    minima[cluster.rank("grid") * cluster.count() + me] = coop.reduce(cluster, one, binary_op="min")
    firsts[cluster.rank("grid") * cluster.count() + me] = coop.reduce(cluster, one, binary_op=keep_left)


@pytest.mark.parametrize(
    "block, cluster, clusters",
    [
        (128, (2, 1, 1), 3),
        ((32, 4), (4, 1, 1), 2),
        (64, (2, 2, 1), 2),  # a 2-D cluster: blocks ranked x-major in it
        (96, (8, 1, 1), 1),
        (128, None, 4),  # no cluster: each block is a cluster of one
    ],
)
def test_a_cluster_reduces_every_thread_of_its_blocks(block, cluster, clusters):
    shape = (block, 1) if isinstance(block, int) else block
    threads = shape[0] * shape[1]
    blocks = 1 if cluster is None else cluster[0] * cluster[1] * cluster[2]
    members = threads * blocks
    total = members * clusters
    values = np.random.default_rng(blocks * 10 + threads).normal(size=total * 3)
    sums, minima, firsts = (cuda.to_device(np.zeros(total)) for _ in range(3))
    grid = clusters * blocks if cluster is None or cluster[1] == 1 else (cluster[0] * clusters, cluster[1])
    launch(cluster_reductions, grid, shape, cluster)(cuda.to_device(values), sums, minima, firsts)
    per_cluster = values.reshape(clusters, members, 3)
    np.testing.assert_allclose(sums.copy_to_host(), np.repeat(per_cluster.sum(axis=(1, 2)), members))
    np.testing.assert_array_equal(minima.copy_to_host(), np.repeat(per_cluster[:, :, 0].min(axis=1), members))
    np.testing.assert_array_equal(firsts.copy_to_host(), np.repeat(per_cluster[:, 0, 0], members))


@cuda.jit
def cluster_queries(out):
    cluster = coop.this_cluster()
    block = coop.this_block()
    grid = coop.this_grid()
    g = grid.rank()
    out[g, 0] = cluster.rank()
    out[g, 1] = cluster.rank("block")
    out[g, 2] = cluster.rank("warp")
    out[g, 3] = cluster.count()
    out[g, 4] = cluster.count("block")
    out[g, 5] = cluster.rank("grid")
    out[g, 6] = cluster.count("grid")
    out[g, 7] = block.rank("cluster")
    out[g, 8] = coop.this_thread().rank("cluster")
    out[g, 9] = grid.count("cluster")
    out[g, 10] = coop.this_warp().count("cluster")


def test_cluster_queries_place_each_block_and_thread():
    block, cluster, grid = 64, (2, 2, 1), (4, 4)  # four clusters of 2 x 2 blocks
    out = cuda.to_device(np.zeros((16 * 64, 11), np.uint64))
    cluster_queries[grid, block, 0, 0, cluster](out)
    got = out.copy_to_host()
    g = np.arange(16 * 64)
    bx, by, t = (g // 64) % 4, (g // 64) // 4, g % 64
    in_cluster = bx % 2 + (by % 2) * 2
    cluster_index = bx // 2 + (by // 2) * 2
    expected = [in_cluster * 64 + t, in_cluster, in_cluster * 2 + t // 32, np.full_like(g, 256), np.full_like(g, 4)]
    expected += [cluster_index, np.full_like(g, 4), in_cluster, in_cluster * 64 + t, np.full_like(g, 4)]
    expected += [np.full_like(g, 8)]
    np.testing.assert_array_equal(got, np.stack(expected, axis=1))


@cuda.jit
def swap_with_the_other_block(values, staged, out):
    cluster = coop.this_cluster()
    me = cluster.rank()
    base = cluster.rank("grid") * cluster.count()
    staged[base + me] = values[base + me] * 2
    cluster.sync()  # the other block's writes are visible after it
    other = (me + cuda.blockDim.x) % cluster.count()
    out[base + me] = staged[base + other]


def test_the_cluster_barrier_orders_memory_across_its_blocks():
    values = np.arange(4 * 256, dtype=np.int32)
    staged, out = cuda.to_device(np.zeros_like(values)), cuda.to_device(np.zeros_like(values))
    swap_with_the_other_block[8, 128, 0, 0, (2, 1, 1)](cuda.to_device(values), staged, out)
    expected = (values.reshape(4, 2, 128)[:, ::-1, :] * 2).reshape(-1)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
