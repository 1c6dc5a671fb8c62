"""Real workloads against what users pick instead, on the same device and inputs: a per-row
sort of a [rows, 2048] float32 matrix and a per-row top-16 (values and their columns), each
one cuda.coop kernel with a block per row, against torch.sort(dim=-1) / torch.topk and
cupy.sort(axis=-1). Every library's result is checked equal to coop's before it is timed
(CUDA events, the median of the runs after a warm-up). A ratio is the library's time over
coop's: above 1, coop is faster.

    python3 benchmarks/workloads.py --json OUT.json [--rows 32768] [--runs 25]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics

os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")  # one legacy default stream for everyone

import cupy as cp
import numpy as np
import torch
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 256, 8
COLUMNS = THREADS * ITEMS
K = 16


@cuda.jit
def sort_rows(matrix, result):
    block = coop.this_block()
    start = cuda.blockIdx.x * COLUMNS
    keys = coop.ThreadData(ITEMS)
    coop.load(block, matrix, keys, algorithm="warp_transpose", offset=start)
    ordered = coop.radix_sort_keys(block, keys, blocked_to_striped=True)  # striped: a coalesced store
    coop.store(block, result, ordered, algorithm="striped", offset=start)


@cuda.jit
def topk_rows(matrix, best, where):
    block = coop.this_block()
    row = cuda.blockIdx.x
    keys = coop.ThreadData(ITEMS)
    coop.load(block, matrix, keys, algorithm="warp_transpose", offset=row * COLUMNS)
    columns = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        columns[i] = cuda.threadIdx.x * ITEMS + i
    chosen, found = coop.topk_max_pairs(block, keys, columns, k=K)
    coop.store(block, best, chosen, offset=row * K, valid_items=K)
    coop.store(block, where, found, offset=row * K, valid_items=K)


def timed(launch, runs: int) -> float:
    """Median milliseconds of `launch()` over `runs` runs, after two warm-ups."""
    for _ in range(2):
        launch()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def row_sort(rows: int, runs: int) -> dict:
    matrix = cp.random.standard_normal((rows, COLUMNS), dtype=cp.float32)
    result = cp.empty_like(matrix)
    flat, out = matrix.reshape(-1), result.reshape(-1)
    as_torch = torch.as_tensor(matrix, device="cuda")
    launches = {
        "coop": lambda: sort_rows[rows, THREADS](flat, out),
        "torch": lambda: torch.sort(as_torch, dim=-1),
        "cupy": lambda: cp.sort(matrix, axis=-1),
    }
    launches["coop"]()
    cp.cuda.runtime.deviceSynchronize()
    expected = launches["cupy"]()
    correct = {"coop": bool(cp.array_equal(result, expected)), "cupy": True}
    correct["torch"] = bool(torch.equal(launches["torch"]().values, torch.as_tensor(result, device="cuda")))
    correct["cupy"] = correct["coop"]  # cupy's sort is the reference coop's result is checked against
    return report("row_sort", rows, launches, correct, runs)


def row_topk(rows: int, runs: int) -> dict:
    matrix = cp.random.standard_normal((rows, COLUMNS), dtype=cp.float32)
    best, where = cp.empty((rows, K), cp.float32), cp.empty((rows, K), cp.int32)
    flat = matrix.reshape(-1)
    as_torch = torch.as_tensor(matrix, device="cuda")
    launches = {
        "coop": lambda: topk_rows[rows, THREADS](flat, best.reshape(-1), where.reshape(-1)),
        "torch": lambda: torch.topk(as_torch, K, dim=-1, sorted=False),
    }
    launches["coop"]()
    cp.cuda.runtime.deviceSynchronize()
    expected = cp.sort(cp.partition(matrix, COLUMNS - K, axis=1)[:, -K:], axis=1)
    chosen = cp.sort(best, axis=1)
    correct = {
        "coop": bool(cp.array_equal(chosen, expected))
        and bool(cp.array_equal(cp.take_along_axis(matrix, where.astype(cp.int64), axis=1), best))
    }
    values, _ = launches["torch"]()
    correct["torch"] = bool(torch.equal(torch.sort(values, dim=-1).values, torch.as_tensor(chosen, device="cuda")))
    return report("row_topk", rows, launches, correct, runs)


def report(name: str, rows: int, launches: dict, correct: dict, runs: int) -> dict:
    """Times the launches whose results are right; ratios are each library's time over coop's."""
    times = {library: timed(launch, runs) for library, launch in launches.items() if correct[library]}
    ratios = {library: ms / times["coop"] for library, ms in times.items() if library != "coop" and "coop" in times}
    row = {"workload": name, "rows": rows, "columns": COLUMNS, "correct": correct, "ms": times, "ratio": ratios}
    shown = ", ".join(f"{library} {ratio:.2f}x" for library, ratio in ratios.items())
    print(f"{name} [{rows}, {COLUMNS}] float32: coop {times.get('coop', float('nan')):.3f} ms; {shown}; {correct}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=pathlib.Path, required=True)
    parser.add_argument("--rows", type=int, default=32768)
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    rows = [row_sort(args.rows, args.runs), row_topk(args.rows, args.runs)]
    args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(), "workloads": rows}, indent=1))


if __name__ == "__main__":
    main()
