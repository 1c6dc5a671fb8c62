"""Six kernels a new user writes first, run by scripts/try-fresh-install.sh in a fresh virtual
environment (and by tests/install/test_trial_kernels.py): each is explained (planned and its
providers compiled with NVRTC, no GPU needed) and, where a GPU exists, launched and checked
against NumPy. Prints one line per kernel; exits 1 when any fails.

    python trial_kernels.py [--launch]   # --launch: fail when no GPU is there to launch on
"""

import sys

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@cuda.jit
def block_sum_atomic(values, total):
    """Each block sums its tile; thread 0 adds the block's total to the result."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, values, items, offset=cuda.blockIdx.x * TILE)
    block_total = coop.sum(block, items)
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(total, 0, block_total)


@cuda.jit
def sum_and_max(values, result):
    """Two reductions of one tile in one kernel: two providers in one bundle."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, values, items)
    total = coop.sum(block, items)
    largest = coop.reduce(block, items, binary_op=max)
    if cuda.threadIdx.x == 0:
        result[0] = total
        result[1] = largest


class RunningTotal:
    """The block prefix callback: the sum of the tiles before this one."""

    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


@cuda.jit
def running_prefix(values, sums, tiles):
    """An inclusive sum over many tiles in one block, carried by prefix_op."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    total = cuda.local.array(1, np.int64)
    total[0] = 0
    prefix = RunningTotal(total)
    for tile in range(tiles):
        offset = tile * TILE
        coop.load(block, values, items, offset=offset, algorithm="transpose")
        running = coop.inclusive_sum(block, items, prefix_op=prefix)
        coop.store(block, sums, running, offset=offset, algorithm="transpose")


@cuda.jit
def warp_sums(values, sums):
    """A warp reduce in a 256-thread block: one total per warp."""
    warp = coop.this_warp()
    rank = cuda.threadIdx.x
    total = coop.sum(warp, values[rank])
    if rank % 32 == 0:
        sums[rank // 32] = total


@cuda.jit
def copy_tail(source, destination, n):
    """A partial last tile: the number of valid items is known at run time only."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    offset = cuda.blockIdx.x * TILE
    valid = min(n - offset, TILE)
    coop.load(block, source, items, offset=offset, valid_items=valid, oob_default=0)
    coop.store(block, destination, items, offset=offset, valid_items=valid)


@cuda.jit
def tile_2d(source, destination):
    """A 16 x 8 block loading a 2-D tile of a contiguous image, two items per thread."""
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items, algorithm="transpose")
    coop.store(block, destination, items, algorithm="transpose")


def trials():
    """(name, kernel, arguments, grid, block, check after a launch)."""
    rng = np.random.default_rng(13)
    values = rng.integers(-100, 100, size=3 * TILE).astype(np.int32)
    total = np.zeros(1, np.int32)
    pair = np.zeros(2, np.int32)
    long_values = rng.integers(-100, 100, size=TILE * 20).astype(np.int64)
    sums = np.zeros_like(long_values)
    warp_values = rng.standard_normal(256).astype(np.float32)
    warp_totals = np.zeros(8, np.float32)
    n = 1000
    tail_source = np.arange(n, dtype=np.float32)
    tail_destination = np.zeros_like(tail_source)
    image = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    image_copy = np.zeros_like(image)
    return [
        ("block sum with an atomic", block_sum_atomic, (values, total), 3, THREADS, lambda: total[0] == values.sum()),
        (
            "two reductions in one kernel",
            sum_and_max,
            (values[:TILE], pair),
            1,
            THREADS,
            lambda: tuple(pair) == (values[:TILE].sum(), values[:TILE].max()),
        ),
        (
            "multi-tile running prefix",
            running_prefix,
            (long_values, sums, 20),
            1,
            THREADS,
            lambda: (sums == np.cumsum(long_values)).all(),
        ),
        (
            "warp reduce in a 256-thread block",
            warp_sums,
            (warp_values, warp_totals),
            1,
            256,
            lambda: np.allclose(warp_totals, warp_values.reshape(8, 32).sum(axis=1), rtol=1e-5),
        ),
        (
            "partial last tile with runtime n",
            copy_tail,
            (tail_source, tail_destination, n),
            2,
            THREADS,
            lambda: (tail_destination == tail_source).all(),
        ),
        ("2-D block tile", tile_2d, (image, image_copy), 1, (16, 8), lambda: (image_copy == image).all()),
    ]


def main(argv):
    launch = cuda.is_available()
    if "--launch" in argv and not launch:
        print("no GPU: cannot launch")
        return 1
    failed = 0
    for name, kernel, arguments, grid, block, check in trials():
        try:
            explanation = coop.explain(kernel, *arguments, grid=grid, block=block)
            calls = ", ".join(plan.operation for plan in explanation.plans)
            verdict = "explained"
            if launch:
                kernel[grid, block](*arguments)
                cuda.synchronize()
                verdict = "launched, matches NumPy" if check() else "launched, WRONG RESULT"
                failed += not check()
            print(f"ok   {name}: {len(explanation.plans)} call(s) [{calls}] for {explanation.arch}; {verdict}")
        except Exception as error:  # noqa: BLE001 -- report every trial, then fail
            failed += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}")
    print(f"{6 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
