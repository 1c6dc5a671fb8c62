"""The kernels of compile_latency.py's disk-cache scenarios (6 and 7), with cache=True
and at module level: numba-cuda-mlir's disk cache finds a kernel by its file
(NUMBA_CACHE_DIR holds the entries). The coop kernel exists only when cuda.coop was
imported before this module (COOP_BENCH_WITH_COOP=1), so that the plain process never
imports it. Same kernels as compile_latency's (block load + sum + inclusive_sum +
store, 256 threads x 4 items), the coop one declaring its block, and once more without
(cached per block shape)."""

import os

import numpy as np
from numba_cuda_mlir import cuda

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS
ALGORITHM = "transpose"


@cuda.jit(cache=True)
def plain_scan(source, destination, totals):
    partials = cuda.shared.array(THREADS, np.int32)
    items = cuda.local.array(ITEMS, np.int32)
    thread = cuda.threadIdx.x
    start = cuda.blockIdx.x * TILE + thread * ITEMS
    items[0] = source[start]
    for i in range(1, ITEMS):
        items[i] = items[i - 1] + source[start + i]
    partials[thread] = items[ITEMS - 1]
    cuda.syncthreads()
    distance = 1
    while distance < THREADS:
        value = partials[thread]
        if thread >= distance:
            value += partials[thread - distance]
        cuda.syncthreads()
        partials[thread] = value
        cuda.syncthreads()
        distance *= 2
    prefix = partials[thread] - items[ITEMS - 1]
    for i in range(ITEMS):
        destination[start + i] = items[i] + prefix
    if thread == 0:
        totals[cuda.blockIdx.x] = partials[THREADS - 1]


if os.environ.get("COOP_BENCH_WITH_COOP") == "1":
    from cuda import coop

    @cuda.jit(cache=True)
    def coop_scan(source, destination, totals):
        block = coop.this_block(THREADS)
        items = coop.ThreadData(ITEMS)
        start = cuda.blockIdx.x * TILE
        coop.load(block, source, items, algorithm=ALGORITHM, offset=start)
        total = coop.sum(block, items)
        scanned = coop.inclusive_sum(block, items)
        coop.store(block, destination, scanned, algorithm=ALGORITHM, offset=start)
        if cuda.threadIdx.x == 0:
            totals[cuda.blockIdx.x] = total

    @cuda.jit(cache=True)
    def coop_scan_undeclared(source, destination, totals):
        block = coop.this_block()
        items = coop.ThreadData(ITEMS)
        start = cuda.blockIdx.x * TILE
        coop.load(block, source, items, algorithm=ALGORITHM, offset=start)
        total = coop.sum(block, items)
        scanned = coop.inclusive_sum(block, items)
        coop.store(block, destination, scanned, algorithm=ALGORITHM, offset=start)
        if cuda.threadIdx.x == 0:
            totals[cuda.blockIdx.x] = total
