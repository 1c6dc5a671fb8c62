"""The coop kernels of the row workloads in workloads.py: the examples' own kernels (selective
scan, layer norm, row softmax, row cumsum), built for the shapes the workloads time. Nothing
here needs torch, CuPy or a GPU, so tests/compile/test_row_kernels.py plans, compiles and
links each of them for its workload's launch.

A block per row. Rows of 1024 floats take 128 threads of 8 and rows of 4096, 512 threads of
8: two 16-byte loads per thread, so twice the bytes in flight of 4 items per thread, and
fewer warps to combine (measured on the H200 against 256x4, 64x16, 32x32, 512x2 and 1024x1
for rows of 1024, 1024x4, 256x16 and 128x32 for rows of 4096: the fastest). Layer norm and
softmax load their items striped rather than vectorized: each warp-wide load then reads 128
contiguous bytes, which measured faster on the H200 (layer norm of 4096 columns 0.069 against
0.074 ms, softmax 0.066 against 0.068 ms). The selective
scan walks its rows in tiles of 128 threads of 8 positions: two 16-byte loads per thread and
array, and more positions per thread to compose before the block scan."""

from __future__ import annotations

import functools
import importlib.util
import pathlib

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"

SELECTIVE_SCAN_SHAPE = (128, 8)  # threads, items per thread
ROW_SHAPES = {1024: (128, 8), 4096: (512, 8)}  # columns -> threads, items per thread
SOFTMAX_COLUMNS = 1024
CUMSUM_SHAPE = (256, 4)  # a tile; the block loops over its row's tiles


@functools.cache
def example(name: str):
    """examples/<name>.py as a module (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"coop_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def selective_scan():
    return example("selective_scan").selective_scan_kernel(*SELECTIVE_SCAN_SHAPE)


@functools.cache
def layer_norm(columns: int, statistics: str = "shifted"):
    return example("layer_norm").layer_norm_kernel(*ROW_SHAPES[columns], statistics)


@functools.cache
def softmax(columns: int):
    return example("row_softmax").row_softmax_kernel(*ROW_SHAPES[columns])


@functools.cache
def cumsum():
    return example("row_cumsum").row_cumsum_kernel(*CUMSUM_SHAPE)


def launches() -> list[tuple[str, object, tuple, int, int]]:
    """(name, kernel, arguments, grid, block) of each workload kernel at a small grid (the grid
    is not compiled in), its arguments NumPy arrays of the dtypes the workloads pass."""
    rows = 4

    def floats(*shape):
        return np.zeros(shape, np.float32).ravel()

    found = []
    batch, channels, length = 1, 2, 2 * SELECTIVE_SCAN_SHAPE[0] * SELECTIVE_SCAN_SHAPE[1]
    scan_arguments = (
        floats(batch, channels, length),
        floats(batch, channels, length),
        floats(channels),
        floats(batch, length),
        floats(batch, length),
        floats(batch, channels, length),
        channels,
        length,
    )
    found.append(("selective_scan", selective_scan(), scan_arguments, batch * channels, SELECTIVE_SCAN_SHAPE[0]))
    for columns, (threads, _) in ROW_SHAPES.items():
        matrix, row = floats(rows, columns), floats(columns)
        for statistics in ("shifted", "welford", "two_pass"):
            kernel = layer_norm(columns, statistics)
            found.append((f"layer_norm_{statistics}_{columns}", kernel, (matrix, row, row, matrix), rows, threads))
    matrix = floats(rows, SOFTMAX_COLUMNS)
    found.append(("softmax", softmax(SOFTMAX_COLUMNS), (matrix, matrix), rows, ROW_SHAPES[SOFTMAX_COLUMNS][0]))
    columns = 4 * CUMSUM_SHAPE[0] * CUMSUM_SHAPE[1]
    matrix = floats(rows, columns)
    found.append(("cumsum", cumsum(), (matrix, matrix, columns), rows, CUMSUM_SHAPE[0]))
    return found
