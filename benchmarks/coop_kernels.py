"""The Python tile-copy kernels with cuda.coop, one per row of configs.py: each
block (block family) or each warp of 32 lanes (warp family) loads its tile with
coop.load and stores it with coop.store, same algorithm, at a runtime `offset=`
(pointer arithmetic in the provider, as in the twin). The shape constants are
closure constants, so the tile offset is a compile-time multiple, as in the twin."""

from __future__ import annotations

import configs
from numba_cuda_mlir import cuda

from cuda import coop


def block_copy(algorithm: str, items_per_thread: int, tile: int):
    @cuda.jit
    def copy_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm=algorithm, offset=start)
        coop.store(block, destination, items, algorithm=algorithm, offset=start)

    return copy_tile


def warp_copy(algorithm: str, items_per_thread: int, threads: int):
    warp_tile = configs.WARP_THREADS * items_per_thread

    @cuda.jit
    def copy_tile(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        start = (cuda.blockIdx.x * threads + cuda.threadIdx.x) // configs.WARP_THREADS * warp_tile
        coop.load(warp, source, items, algorithm=algorithm, offset=start)
        coop.store(warp, destination, items, algorithm=algorithm, offset=start)

    return copy_tile


def kernel_for(config: configs.Config):
    """A new dispatcher for one row; it compiles on its first launch (or explain)."""
    if config.family == "block":
        return block_copy(config.algorithm, config.items, config.block_tile)
    return warp_copy(config.algorithm, config.items, config.threads)
