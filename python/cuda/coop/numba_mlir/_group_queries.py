"""The device code of group members (`rank`, `count`, `is_member`, `sync`): small
device functions the planner calls in place of the descriptor's methods. Their
shape arguments are compile-time constants of the launch, so after inlining each
query is a few integer operations on the thread and block indices."""

from __future__ import annotations

import numpy as np
from numba_cuda_mlir import cuda

from ._barriers import cluster_barrier, named_barrier


@cuda.jit(device=True)
def thread_in_block(x, y):
    """The x-major rank of the calling thread in its block of x * y * z threads."""
    return cuda.threadIdx.x + cuda.threadIdx.y * x + cuda.threadIdx.z * x * y


@cuda.jit(device=True)
def rank_in_block(x, y, divisor, modulus):
    """(thread rank // divisor) % modulus, as uint32; modulus 0: no modulus."""
    rank = thread_in_block(x, y) // divisor
    if modulus != 0:
        rank = rank % modulus
    return np.uint32(rank)


@cuda.jit(device=True)
def rank_in_grid(x, y, divisor, per_block):
    """The rank, in the grid, of the calling thread's unit (thread rank // divisor), as uint64."""
    block = cuda.blockIdx.x + cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.z * cuda.gridDim.x * cuda.gridDim.y
    return np.uint64(block) * np.uint64(per_block) + np.uint64(thread_in_block(x, y) // divisor)


@cuda.jit(device=True)
def count_in_grid(per_block):
    """How many units of `per_block` per block the grid holds, as uint64."""
    blocks = np.uint64(cuda.gridDim.x) * np.uint64(cuda.gridDim.y) * np.uint64(cuda.gridDim.z)
    return blocks * np.uint64(per_block)


@cuda.jit(device=True)
def block_in_cluster(cx, cy, cz):
    """The x-major rank of the calling block in its cluster of cx * cy * cz blocks (clusters tile the grid)."""
    return cuda.blockIdx.x % cx + cuda.blockIdx.y % cy * cx + cuda.blockIdx.z % cz * cx * cy


@cuda.jit(device=True)
def rank_in_cluster(x, y, divisor, per_block, cx, cy, cz):
    """The rank, in its cluster, of the calling thread's unit (its rank in the block // divisor,
    `per_block` units to a block), as uint32."""
    return np.uint32(block_in_cluster(cx, cy, cz) * per_block + thread_in_block(x, y) // divisor)


@cuda.jit(device=True)
def cluster_in_grid(cx, cy, cz):
    """The x-major index, in the grid, of the calling block's cluster, as uint64."""
    across = np.uint64(cuda.gridDim.x // cx)
    down = np.uint64(cuda.gridDim.y // cy)
    x = np.uint64(cuda.blockIdx.x // cx)
    y = np.uint64(cuda.blockIdx.y // cy)
    z = np.uint64(cuda.blockIdx.z // cz)
    return x + y * across + z * across * down


@cuda.jit(device=True)
def clusters_in_grid(blocks_per_cluster):
    """How many clusters of `blocks_per_cluster` blocks the grid holds, as uint64."""
    return count_in_grid(1) // np.uint64(blocks_per_cluster)


@cuda.jit(device=True)
def is_member(x, y, divisor, members):
    """1 (uint8) where the thread's unit (rank // divisor, within its parent) is below `members`."""
    return np.uint8(1 if thread_in_block(x, y) // divisor < members else 0)


@cuda.jit(device=True)
def member_of_partition(x, y, unit, units, members):
    """1 (uint8) where the thread's unit within its parent of `units` units is below `members`."""
    return np.uint8(1 if (thread_in_block(x, y) // unit) % units < members else 0)


@cuda.jit(device=True)
def sync_logical_warp(width):
    """__syncwarp over the calling lane's logical warp of `width` lanes."""
    lane = cuda.laneid
    first = lane // width * width
    mask = ((1 << width) - 1) << first if width < 32 else 0xFFFFFFFF
    cuda.syncwarp(np.uint32(mask))


@cuda.jit(device=True)
def sync_warps(x, y, threads, groups):
    """The named barrier (1 + the group's index) of the calling thread's group of
    `threads` threads; a thread past the last of `groups` whole groups is in none and
    passes."""
    group = thread_in_block(x, y) // threads
    if group < groups:
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
