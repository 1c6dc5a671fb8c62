"""The device code of group members (`rank`, `count`, `is_member`, `sync`): small
device functions the planner calls in place of the descriptor's methods. Their
shape arguments are compile-time constants of the launch, so after inlining each
query is a few integer operations on the thread and block indices.

The arithmetic is unsigned and 32-bit where CUDA C++'s would be: Python's `//`
and `%` on signed integers round toward minus infinity, which costs a sign
correction per division that a shift or a mask does without (a group of two
warps paid 15 instructions for its rank), and an index of a dimension the block
does not have is not read: the compiler cannot know that threadIdx.y is 0."""

from __future__ import annotations

import numpy as np
from numba_cuda_mlir import cuda

from ._barriers import cluster_barrier, named_barrier


@cuda.jit(device=True)
def thread_in_block(x, y, z):
    """The x-major rank of the calling thread in its block of x * y * z threads, as uint32."""
    rank = np.uint32(cuda.threadIdx.x)
    if y > 1:
        rank = np.uint32(rank + np.uint32(cuda.threadIdx.y) * np.uint32(x))
    if z > 1:
        rank = np.uint32(rank + np.uint32(cuda.threadIdx.z) * np.uint32(x * y))
    return rank


@cuda.jit(device=True)
def rank_in_block(x, y, z, divisor, modulus):
    """(thread rank // divisor) % modulus, as uint32; modulus 0: no modulus."""
    rank = np.uint32(thread_in_block(x, y, z) // np.uint32(divisor))
    if modulus != 0:
        rank = np.uint32(rank % np.uint32(modulus))
    return rank


@cuda.jit(device=True)
def block_in_grid():
    """The x-major index of the calling block in its grid, as uint64."""
    across, down = np.uint64(cuda.gridDim.x), np.uint64(cuda.gridDim.y)
    return np.uint64(cuda.blockIdx.x) + np.uint64(cuda.blockIdx.y) * across + np.uint64(cuda.blockIdx.z) * across * down


@cuda.jit(device=True)
def rank_in_grid(x, y, z, divisor, per_block):
    """The rank, in the grid, of the calling thread's unit (thread rank // divisor), as uint64."""
    unit = thread_in_block(x, y, z) // np.uint32(divisor)
    return block_in_grid() * np.uint64(per_block) + np.uint64(unit)


@cuda.jit(device=True)
def count_in_grid(per_block):
    """How many units of `per_block` per block the grid holds, as uint64."""
    blocks = np.uint64(cuda.gridDim.x) * np.uint64(cuda.gridDim.y) * np.uint64(cuda.gridDim.z)
    return blocks * np.uint64(per_block)


@cuda.jit(device=True)
def block_in_cluster(cx, cy, cz):
    """The x-major rank of the calling block in its cluster of cx * cy * cz blocks (clusters
    tile the grid), as uint32."""
    x = np.uint32(cuda.blockIdx.x) % np.uint32(cx)
    y = np.uint32(cuda.blockIdx.y) % np.uint32(cy)
    z = np.uint32(cuda.blockIdx.z) % np.uint32(cz)
    return np.uint32(x + y * np.uint32(cx) + z * np.uint32(cx * cy))


@cuda.jit(device=True)
def rank_in_cluster(x, y, z, divisor, per_block, cx, cy, cz):
    """The rank, in its cluster, of the calling thread's unit (its rank in the block // divisor,
    `per_block` units to a block), as uint32."""
    unit = thread_in_block(x, y, z) // np.uint32(divisor)
    return np.uint32(block_in_cluster(cx, cy, cz) * np.uint32(per_block) + unit)


@cuda.jit(device=True)
def cluster_in_grid(cx, cy, cz):
    """The x-major index, in the grid, of the calling block's cluster, as uint64."""
    across = np.uint64(np.uint32(cuda.gridDim.x) // np.uint32(cx))
    down = np.uint64(np.uint32(cuda.gridDim.y) // np.uint32(cy))
    x = np.uint64(np.uint32(cuda.blockIdx.x) // np.uint32(cx))
    y = np.uint64(np.uint32(cuda.blockIdx.y) // np.uint32(cy))
    z = np.uint64(np.uint32(cuda.blockIdx.z) // np.uint32(cz))
    return x + y * across + z * across * down


@cuda.jit(device=True)
def clusters_in_grid(blocks_per_cluster):
    """How many clusters of `blocks_per_cluster` blocks the grid holds, as uint64."""
    return count_in_grid(1) // np.uint64(blocks_per_cluster)


@cuda.jit(device=True)
def member_of_partition(x, y, z, unit, units, members):
    """1 (uint8) where the thread's unit within its parent of `units` units is below `members`."""
    return np.uint8(1 if rank_in_block(x, y, z, unit, units) < np.uint32(members) else 0)


@cuda.jit(device=True)
def sync_logical_warp(width):
    """__syncwarp over the calling lane's logical warp of `width` lanes."""
    first = np.uint32(cuda.laneid) // np.uint32(width) * np.uint32(width)
    lanes = np.uint32((np.uint32(1) << np.uint32(width)) - np.uint32(1)) if width < 32 else np.uint32(0xFFFFFFFF)
    cuda.syncwarp(np.uint32(lanes << first))


@cuda.jit(device=True)
def sync_warps(x, y, z, threads, groups):
    """The named barrier (1 + the group's index) of the calling thread's group of
    `threads` threads; a thread past the last of `groups` whole groups is in none and
    passes."""
    group = rank_in_block(x, y, z, threads, 0)
    if group < np.uint32(groups):
        named_barrier(np.uint32(1 + group), np.uint32(threads))


@cuda.jit(device=True)
def sync_cluster():
    cluster_barrier()


@cuda.jit(device=True)
def sync_block():
    cuda.syncthreads()


@cuda.jit(device=True)
def sync_warp():
    cuda.syncwarp(np.uint32(0xFFFFFFFF))


@cuda.jit(device=True)
def no_sync():
    return None
