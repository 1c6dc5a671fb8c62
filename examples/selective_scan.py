"""Mamba's selective-scan forward with one state per channel: for x of shape [batch, channels,
length], a step size delta of the same shape, a decay rate A per channel and input and output
projections B, C per (batch, position),

    a_t = exp(delta_t * A),  b_t = delta_t * B_t * x_t,  h_t = a_t * h_(t-1) + b_t,  y_t = C_t * h_t.

The recurrence is a scan of the pairs (a, b) under (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2).
One block per (batch, channel) row walks the row tile by tile: each thread composes the pairs of
its own items in order, the block takes an exclusive scan of those per-thread pairs with a pair
`prefix_op` that carries the running pair from tile to tile, and each thread replays its items
from the state its prefix leaves. Checked against the recurrence run step by step in float64.
benchmarks/workloads.py times the same kernel against torch."""

import math

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 8  # a tile of 1024 positions; two 16-byte loads per thread and array


@cuda.jit(device=True)
def affine(first, then):
    """The step `first` followed by the step `then`, as one step."""
    return first[0] * then[0], then[0] * first[1] + then[1]


class RunningPair:
    """The composed step of the tiles so far, in a two-item local array: called by the first
    warp with the tile's composed step, it returns the step before the tile (the tile's seed)."""

    def __init__(self, pair):
        self.pair = pair

    def __call__(self, tile_step):
        before = (self.pair[0], self.pair[1])
        self.pair[0], self.pair[1] = affine(before, tile_step)
        return before


def selective_scan_kernel(threads, items):
    """The kernel for blocks of `threads` threads of `items` positions each; a row's length
    must be a multiple of threads * items."""
    tile = threads * items

    @cuda.jit
    def selective_scan(x, delta, decay_rate, B, C, y, channels, length):
        block = coop.this_block()
        row = cuda.blockIdx.x  # (batch, channel), rows of x are contiguous
        batch = row // channels
        rate = decay_rate[row % channels]
        running = cuda.local.array(2, np.float32)
        running[0], running[1] = 1.0, 0.0  # the identity step
        seed = RunningPair(running)
        a, b = cuda.local.array(items, np.float32), cuda.local.array(items, np.float32)
        into_b, out_c = cuda.local.array(items, np.float32), cuda.local.array(items, np.float32)
        for start in range(0, length, tile):
            coop.load(block, delta, a, offset=row * length + start, algorithm="vectorize")
            coop.load(block, x, b, offset=row * length + start, algorithm="vectorize")
            coop.load(block, B, into_b, offset=batch * length + start, algorithm="vectorize")
            coop.load(block, C, out_c, offset=batch * length + start, algorithm="vectorize")
            for i in range(items):
                step = a[i]
                a[i] = math.exp(step * rate)
                b[i] = step * into_b[i] * b[i]
            mine_a, mine_b = a[0], b[0]  # this thread's items composed in order
            for i in range(1, items):
                mine_a, mine_b = affine((mine_a, mine_b), (a[i], b[i]))
            _, h = coop.exclusive_scan(block, (mine_a, mine_b), scan_op=affine, prefix_op=seed)
            for i in range(items):  # h: the state before this thread's first item
                h = a[i] * h + b[i]
                out_c[i] = out_c[i] * h
            coop.store(block, y, out_c, offset=row * length + start, algorithm="vectorize")

    return selective_scan


def inputs(batch, channels, length, seed=0):
    """float32 inputs as Mamba's are: a positive step size, a negative decay rate per channel."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, channels, length)).astype(np.float32)
    delta = rng.uniform(0.001, 0.1, (batch, channels, length)).astype(np.float32)
    decay_rate = -rng.uniform(0.5, 8.0, channels).astype(np.float32)
    B = rng.standard_normal((batch, length)).astype(np.float32)
    C = rng.standard_normal((batch, length)).astype(np.float32)
    return x, delta, decay_rate, B, C


def reference(x, delta, decay_rate, B, C):
    """The recurrence step by step, in float64."""
    x, delta, B, C = (array.astype(np.float64) for array in (x, delta, B, C))
    a = np.exp(delta * decay_rate.astype(np.float64)[None, :, None])
    b = delta * B[:, None, :] * x
    y, h = np.empty_like(x), np.zeros(x.shape[:2])
    for t in range(x.shape[2]):
        h = a[..., t] * h + b[..., t]
        y[..., t] = C[:, None, t] * h
    return y


def main(batch=2, channels=64, length=4 * THREADS * ITEMS):
    x, delta, decay_rate, B, C = inputs(batch, channels, length)
    y = np.zeros_like(x)
    kernel = selective_scan_kernel(THREADS, ITEMS)
    arguments = (x.ravel(), delta.ravel(), decay_rate, B.ravel(), C.ravel(), y.ravel(), channels, length)
    if not cuda.is_available():
        print(coop.explain(kernel, *arguments, grid=batch * channels, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    # device arrays: no copies in and out around the launch; y is the sixth argument
    on_device = [cuda.to_device(argument) if isinstance(argument, np.ndarray) else argument for argument in arguments]
    kernel[batch * channels, THREADS](*on_device)
    on_device[5].copy_to_host(y.ravel())
    expected = reference(x, delta, decay_rate, B, C)
    error = np.abs(y - expected).max() / np.abs(expected).max()
    assert error < 1e-4, error
    print(f"selective scan of {batch}x{channels} rows of {length}: max error {error:.2e} of the largest |y|")


if __name__ == "__main__":
    main()
