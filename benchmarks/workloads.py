"""Real workloads against what users pick instead, on the same device and inputs: a per-row
sort of a [rows, 2048] float32 matrix and a per-row top-16 (values and their columns), each
one cuda.coop kernel with a block per row, against torch.sort(dim=-1) / torch.topk and
cupy.sort(axis=-1); and a 256-bin histogram of 1 GiB of bytes (uniform, and clustered as an
image's are), one cuda.coop kernel whose blocks loop over tiles, add up their block histograms
in a ThreadData and merge them with one atomic per bin, against torch.bincount, torch.histc and
cupy.bincount; and run-length decoding of 64 Mi runs (float32 values, int32 lengths of mean 5)
in two cuda.coop kernels (each tile's total, then, at the tiles' exclusive scan, every window of
the tile with coop.run_length_decode_into) against torch.repeat_interleave, told the output's
size and not. Every library's result is checked equal to coop's (the histograms: to a count
of each byte value made without a histogram) before it is timed (CUDA events, the median of the
runs after a warm-up). A ratio is the library's time over coop's: above 1, coop is faster.

The row workloads time the examples' kernels (row_kernels.py), a block per row, against what a
user writes instead: Mamba's selective scan ([8, 1024 or 2048, 2048 or 8192] float32) against
torch's log-space form (two cumsums; valid while exp(-cumsum(log a)) stays in float32's range,
which the inputs here keep) and, at the smallest size, the recurrence stepped in torch; layer
norm ([32768, 1024], [8192, 4096]: the example's shifted-sums kernel, its Welford form as
"coop_welford" and its two block sums as "coop_two_pass", with that one's own twin) against
torch.nn.functional.layer_norm; softmax
([32768, 1024]) against torch.softmax; cumsum along rows ([4096, 8192]) against torch.cumsum;
layer norm and softmax also against Triton kernels written here, where Triton imports; and
each against its nvcc twin (row_twins.py: the same CUB calls in CUDA C++). Each
result is checked against a float64 reference (its largest error over the reference's largest
magnitude, under a tolerance) before it is timed, and each row gives the bandwidth achieved
(the bytes the operation must read and write, over its time) as a fraction of a measured
device-to-device copy's.

    python3 benchmarks/workloads.py --json OUT.json [--rows 32768] [--runs 25]
        [--only row_sort,row_topk,byte_histogram,run_length_decode,selective_scan,layer_norm,softmax,cumsum]
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import pathlib
import statistics
import tempfile
import time

os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")  # one legacy default stream for everyone

import cupy as cp
import numpy as np
import row_kernels
import row_twins
import torch
from numba_cuda_mlir import cuda

from cuda import coop

try:
    import triton
    import triton.language as tl
except ImportError:  # Triton is compared where it is installed
    triton = None

THREADS, ITEMS = 256, 8
COLUMNS = THREADS * ITEMS
K = 16
BINS = 256
HISTOGRAM_THREADS, HISTOGRAM_ITEMS = BINS, 16  # a 16-byte vector load per thread and tile
HISTOGRAM_TILE = HISTOGRAM_THREADS * HISTOGRAM_ITEMS
HISTOGRAM_BYTES = 1 << 30
BLOCKS_PER_SM = 8  # 2048 threads: a full H200 SM
RLD_THREADS, RLD_RUNS, RLD_DECODED = 256, 4, 8  # runs per thread, items each thread decodes per window
RLD_TILE = RLD_THREADS * RLD_RUNS
RLD_RUNS_TOTAL = 64 << 20
SLOW_BUDGET_S = 10.0  # a library slower than this over its runs is timed on fewer (cupy.bincount's global atomics)


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


@cuda.jit
def byte_histogram(data, histogram, tiles):
    block = coop.this_block()
    total = coop.ThreadData(1, dtype=np.int32)  # thread t's bin: t (HISTOGRAM_THREADS == BINS)
    total[0] = 0
    for tile in range(cuda.blockIdx.x, tiles, cuda.gridDim.x):
        samples = coop.load(
            block, data, coop.ThreadData(HISTOGRAM_ITEMS), offset=tile * HISTOGRAM_TILE, algorithm="vectorize"
        )
        counts = coop.histogram(block, samples, bins=BINS)
        total[0] += counts[0]
    if total[0] != 0:
        cuda.atomic.add(histogram, cuda.threadIdx.x, total[0])


@cuda.jit
def tile_totals(lengths, totals):
    block = coop.this_block()
    sizes = coop.load(
        block, lengths, coop.ThreadData(RLD_RUNS), offset=cuda.blockIdx.x * RLD_TILE, algorithm="vectorize"
    )
    total = coop.sum(block, sizes)
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total


@cuda.jit
def decode_tiles(values, lengths, starts, output):
    block = coop.this_block()
    first = cuda.blockIdx.x * RLD_TILE
    runs = coop.load(block, values, coop.ThreadData(RLD_RUNS), offset=first, algorithm="vectorize")
    sizes = coop.load(block, lengths, coop.ThreadData(RLD_RUNS), offset=first, algorithm="vectorize")
    coop.run_length_decode_into(
        block, runs, sizes, output, decoded_items_per_thread=RLD_DECODED, destination_offset=starts[cuda.blockIdx.x]
    )


SPIN_CYCLES = 1_000_000  # ~0.5 ms of a busy GPU ahead of each timed launch
ROUNDS = 5  # turns the libraries of a row take at being timed


def timed(launch, runs: int, budget_s: float | None = None) -> list[float]:
    """Milliseconds of `launch()` in each of `runs` runs, after two warm-ups; with a budget,
    fewer runs (at least 3) where they would take longer than it. The GPU spins before each
    start event, so the host's work to launch (tens of microseconds for a Python kernel, a
    few for torch) overlaps the spin and the events time the GPU's work alone, for every
    library alike: a short kernel's time is its own, not its launch's (launch cost is
    measured apart, by compile_latency.py)."""
    for _ in range(2):
        launch()
    times = []
    started = time.perf_counter()
    for _ in range(runs):
        if budget_s is not None and len(times) >= 3 and time.perf_counter() - started > budget_s:
            break
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


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
    row = {"workload": name, "rows": rows, "columns": COLUMNS, **timed_row(launches, correct, runs)}
    print(f"{name} [{rows}, {COLUMNS}] float32: {shown(row)}")
    return row


def timed_row(launches: dict, correct: dict, runs: int, budget_s: float | None = None) -> dict:
    """{"correct", "ms", "ratio", "runs"}: the launches whose results are right timed (the
    median), each library's time over coop's, and the runs each was timed on. The libraries
    take turns, ROUNDS rounds of runs / ROUNDS runs each, so a drift of the GPU's clocks
    during the row weighs on every library alike rather than on whichever ran last."""
    samples = {library: [] for library in launches if correct[library]}
    for _ in range(ROUNDS):
        for library in samples:
            samples[library] += timed(launches[library], -(-runs // ROUNDS), budget_s)
    times = {library: statistics.median(each) for library, each in samples.items()}
    ratios = {library: ms / times["coop"] for library, ms in times.items() if library != "coop" and "coop" in times}
    return {
        "correct": correct,
        "ms": times,
        "ratio": ratios,
        "runs": {library: len(each) for library, each in samples.items()},
    }


def shown(row: dict) -> str:
    ratios = ", ".join(f"{library} {ratio:.2f}x" for library, ratio in row["ratio"].items())
    return f"coop {row['ms'].get('coop', float('nan')):.3f} ms; {ratios}; {row['correct']}"


def bytes_of(distribution: str, count: int):
    """`count` random bytes: "uniform" over 0-255, or "clustered" as an image's are (a normal
    around 96 with a standard deviation of 32, clipped: hot bins in the middle, the top ones
    nearly empty). The hottest bin holds 1.25% of the samples, 13.4 M of 1 GiB: below 2^24, so
    torch.histc's float32 counters still count it exactly."""
    if distribution == "uniform":
        return cp.random.randint(0, BINS, size=count, dtype=cp.int32).astype(cp.uint8)
    values = cp.random.standard_normal(count, dtype=cp.float32) * 32 + 96
    return cp.clip(cp.rint(values), 0, BINS - 1).astype(cp.uint8)


def histogram_launches(data, histogram, grid: int, tiles: int) -> dict:
    """{library: launch()}, each returning its 256 counters; coop's zeroes its counters first,
    as torch's and CuPy's calls allocate zeroed ones."""
    as_torch = torch.as_tensor(data, device="cuda")

    def coop_launch():
        histogram.fill(0)
        byte_histogram[grid, HISTOGRAM_THREADS](data, histogram, tiles)
        return histogram

    return {
        "coop": coop_launch,
        "torch_bincount": lambda: torch.bincount(as_torch, minlength=BINS),
        # histc counts in its input's dtype (bytes would wrap at 256): the float32 copy is part of the call
        "torch_histc": lambda: torch.histc(as_torch.float(), bins=BINS, min=0, max=BINS),
        "cupy_bincount": lambda: cp.bincount(data, minlength=BINS),
    }


def histogram_rows(runs: int) -> list[dict]:
    """The 256-bin histogram of HISTOGRAM_BYTES bytes, uniform and clustered."""
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    tiles = HISTOGRAM_BYTES // HISTOGRAM_TILE
    grid = min(tiles, sms * BLOCKS_PER_SM)
    histogram = cp.zeros(BINS, cp.int32)
    rows = []
    for distribution in ("uniform", "clustered"):
        data = bytes_of(distribution, HISTOGRAM_BYTES)
        expected = cp.stack([cp.count_nonzero(data == value) for value in range(BINS)]).astype(cp.int64)
        launches = histogram_launches(data, histogram, grid, tiles)
        correct, errors = {}, {}
        for library, launch in launches.items():
            try:
                correct[library] = bool(cp.array_equal(cp.asarray(launch()).astype(cp.int64), expected))
            except Exception as error:  # noqa: BLE001 -- a library that refuses the call is recorded, not timed
                correct[library], errors[library] = False, repr(error)[:500]
        row = {
            "workload": "byte_histogram",
            "distribution": distribution,
            "bytes": HISTOGRAM_BYTES,
            "bins": BINS,
            "grid": grid,
            "threads": HISTOGRAM_THREADS,
            "items_per_thread": HISTOGRAM_ITEMS,
            **timed_row(launches, correct, runs, SLOW_BUDGET_S),
            "errors": errors,
        }
        print(f"byte_histogram {HISTOGRAM_BYTES >> 20} MiB {distribution}, {BINS} bins: {shown(row)}")
        rows.append(row)
        del data
    return rows


def run_length_decode_row(runs: int) -> dict:
    """RLD_RUNS_TOTAL runs decoded: coop's two kernels (and the scan of the tiles' totals
    between them, which is part of its time) against torch.repeat_interleave."""
    tiles = RLD_RUNS_TOTAL // RLD_TILE
    values = cp.random.standard_normal(RLD_RUNS_TOTAL, dtype=cp.float32)
    lengths = cp.random.geometric(0.2, size=RLD_RUNS_TOTAL).astype(cp.int32)  # mostly short runs, some long
    size = int(lengths.sum(dtype=cp.int64))
    output = cp.empty(size, cp.float32)
    totals = cp.empty(tiles, cp.int64)
    values_t, lengths_t = torch.as_tensor(values, device="cuda"), torch.as_tensor(lengths, device="cuda")

    def coop_launch():
        tile_totals[tiles, RLD_THREADS](lengths, totals)
        starts = cp.cumsum(totals) - totals
        decode_tiles[tiles, RLD_THREADS](values, lengths, starts, output)
        return torch.as_tensor(output, device="cuda")

    launches = {
        "coop": coop_launch,
        "torch_repeat_interleave_sized": lambda: torch.repeat_interleave(values_t, lengths_t, output_size=size),
        "torch_repeat_interleave": lambda: torch.repeat_interleave(values_t, lengths_t),
    }
    expected = torch.repeat_interleave(values_t, lengths_t)
    correct = {library: bool(torch.equal(launch(), expected)) for library, launch in launches.items()}
    row = {
        "workload": "run_length_decode",
        "runs_decoded": RLD_RUNS_TOTAL,
        "items": size,
        "threads": RLD_THREADS,
        "runs_per_thread": RLD_RUNS,
        "decoded_items_per_thread": RLD_DECODED,
        **timed_row(launches, correct, runs),
    }
    print(f"run_length_decode {RLD_RUNS_TOTAL >> 20} Mi runs -> {size} items: {shown(row)}")
    return row


COPY_BYTES = 1 << 29
SCAN_BATCH, SCAN_CHANNELS, SCAN_LENGTHS = 8, (1024, 2048), (2048, 8192)
SEQUENTIAL_MAX_ELEMENTS = 8 * 1024 * 2048  # the torch loop over positions is timed at the smallest size only
LAYER_NORM_SHAPES = ((32768, 1024), (8192, 4096))
SOFTMAX_SHAPE = (32768, row_kernels.SOFTMAX_COLUMNS)
CUMSUM_SHAPE = (4096, 8192)
EPSILON = 1e-5
TOLERANCE = {"selective_scan": 1e-4, "layer_norm": 1e-5, "softmax": 1e-5, "cumsum": 1e-5}  # of the largest |expected|


def twin(name: str):
    """The nvcc twin of the workload kernel `name` (row_twins.py)."""
    return _twin_module().get_function(name)


@functools.cache
def _twin_module():
    """Every row twin, compiled by nvcc once per process and loaded."""
    cubin = pathlib.Path(tempfile.mkdtemp(prefix="coop-row-twins-")) / "rows.cubin"
    return cp.RawModule(path=str(row_twins.build(cubin)))


def copy_bandwidth(runs: int) -> dict:
    """A device-to-device copy of COPY_BYTES, the bytes read plus those written, in GB/s."""
    source = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device="cuda")
    destination = torch.empty_like(source)
    ms = statistics.median(timed(lambda: destination.copy_(source), runs))
    return {"bytes": 2 * COPY_BYTES, "ms": ms, "GBps": 2 * COPY_BYTES / ms / 1e6}


def checked_row(name: str, shape: dict, launches: dict, expected, moved: int, copy: dict, runs: int) -> dict:
    """Checks each launch's result against `expected` (float64) within the workload's tolerance,
    times those that pass, and adds the bandwidth each achieved: `moved` bytes over its time, as
    GB/s and as a fraction of the copy's."""
    scale = float(expected.abs().max())
    errors, correct = {}, {}
    for library, launch in launches.items():
        found = torch.as_tensor(launch(), device="cuda").reshape(expected.shape)
        errors[library] = float((found.double() - expected).abs().max()) / scale
        correct[library] = math.isfinite(errors[library]) and errors[library] <= TOLERANCE[name]
    row = {"workload": name, **shape, "errors": errors, **timed_row(launches, correct, runs, SLOW_BUDGET_S)}
    row["bytes_moved"] = moved
    row["GBps"] = {library: moved / ms / 1e6 for library, ms in row["ms"].items()}
    row["of_copy"] = {library: gbps / copy["GBps"] for library, gbps in row["GBps"].items()}
    fractions = ", ".join(f"{library} {fraction:.2f}" for library, fraction in row["of_copy"].items())
    print(f"{name} {shape}: {shown(row)}; of copy bandwidth: {fractions}")
    return row


def scan_inputs(batch: int, channels: int, length: int) -> tuple:
    """x, delta, A (the decay rate per channel), B, C on the device, float32: steps small enough
    that the log-space form's exp(-cumsum(delta A)) stays near e^43 at most over 8192 positions
    (float32 ends at e^88), so that form is valid and its result can be checked."""
    generator = torch.Generator(device="cuda").manual_seed(0)

    def uniform(low, high, *shape):
        return torch.rand(shape, device="cuda", generator=generator) * (high - low) + low

    x = torch.randn(batch, channels, length, device="cuda", generator=generator)
    delta = uniform(0.0005, 0.01, batch, channels, length)
    rate = -uniform(0.1, 1.0, channels)
    B = torch.randn(batch, length, device="cuda", generator=generator)
    C = torch.randn(batch, length, device="cuda", generator=generator)
    return x, delta, rate, B, C


def scan_steps(x, delta, rate, B, C) -> tuple:
    return torch.exp(delta * rate[:, None]), delta * B[:, None, :] * x


def scan_sequential(x, delta, rate, B, C):
    """The recurrence stepped over positions with torch ops (in the inputs' dtype)."""
    a, b = scan_steps(x, delta, rate, B, C)
    h = torch.zeros(x.shape[:2], dtype=x.dtype, device=x.device)
    y = torch.empty_like(x)
    for t in range(x.shape[2]):
        h = torch.addcmul(b[..., t], a[..., t], h)
        y[..., t] = h
    return y * C[:, None, :]


def scan_log_space(x, delta, rate, B, C):
    """h_t = P_t * sum over s <= t of b_s / P_s, P_t = exp(cumsum(log a)) = exp(cumsum(delta A))."""
    decay = torch.cumsum(delta * rate[:, None], dim=-1)
    b = delta * B[:, None, :] * x
    return C[:, None, :] * torch.exp(decay) * torch.cumsum(b * torch.exp(-decay), dim=-1)


def selective_scan_row(batch: int, channels: int, length: int, runs: int, copy: dict) -> dict:
    x, delta, rate, B, C = scan_inputs(batch, channels, length)
    expected = scan_sequential(*(tensor.double() for tensor in (x, delta, rate, B, C)))
    y = torch.empty_like(x)
    flat = [cp.asarray(tensor.reshape(-1)) for tensor in (x, delta, rate, B, C, y)]
    kernel, threads = row_kernels.selective_scan(), row_kernels.SELECTIVE_SCAN_SHAPE[0]

    def coop_launch():
        kernel[batch * channels, threads](*flat, channels, length)
        return y

    twin_y = torch.empty_like(x)
    twin_arguments = (*flat[:5], cp.asarray(twin_y.reshape(-1)), np.int32(channels), np.int32(length))

    twin_kernel = twin("selective_scan")

    def twin_launch():
        twin_kernel((batch * channels,), (threads,), twin_arguments)
        return twin_y

    launches = {
        "coop": coop_launch,
        "nvcc_twin": twin_launch,
        "torch_log_space": lambda: scan_log_space(x, delta, rate, B, C),
    }
    if x.numel() <= SEQUENTIAL_MAX_ELEMENTS:
        launches["torch_sequential"] = lambda: scan_sequential(x, delta, rate, B, C)
    moved = 4 * (3 * x.numel() + 2 * B.numel() + rate.numel())  # x, delta, y; B, C; A
    shape = {"batch": batch, "channels": channels, "length": length}
    return checked_row("selective_scan", shape, launches, expected, moved, copy, runs)


if triton is not None:

    @triton.jit
    def triton_softmax(source, result, columns, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64) * columns
        where = tl.arange(0, BLOCK)
        inside = where < columns
        values = tl.load(source + row + where, mask=inside, other=-float("inf"))
        exponentials = tl.exp(values - tl.max(values, axis=0))
        tl.store(result + row + where, exponentials / tl.sum(exponentials, axis=0), mask=inside)

    @triton.jit
    def triton_layer_norm(source, gamma, beta, result, columns, epsilon, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64) * columns
        where = tl.arange(0, BLOCK)
        inside = where < columns
        values = tl.load(source + row + where, mask=inside, other=0.0)
        centered = tl.where(inside, values - tl.sum(values, axis=0) / columns, 0.0)
        inverse_deviation = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / columns + epsilon)
        scale = tl.load(gamma + where, mask=inside, other=0.0)
        shift = tl.load(beta + where, mask=inside, other=0.0)
        tl.store(result + row + where, centered * inverse_deviation * scale + shift, mask=inside)


def triton_warps(columns: int) -> int:
    return min(16, max(4, columns // 256))


def layer_norm_launches(count: int, columns: int) -> tuple:
    """(launches by library, the float64 expected result, the bytes moved) of a layer norm
    of [count, columns]."""
    matrix = torch.randn(count, columns, device="cuda") * 3 + 10  # a mean far from 0
    gamma = torch.rand(columns, device="cuda") + 0.5
    beta = torch.randn(columns, device="cuda")
    expected = torch.nn.functional.layer_norm(matrix.double(), (columns,), gamma.double(), beta.double(), EPSILON)
    result, triton_result = torch.empty_like(matrix), torch.empty_like(matrix)
    threads = row_kernels.ROW_SHAPES[columns][0]
    flat = [cp.asarray(tensor.reshape(-1)) for tensor in (matrix, gamma, beta, result)]

    def coop_launch(statistics="shifted"):
        row_kernels.layer_norm(columns, statistics)[count, threads](*flat)
        return result

    def triton_launch():
        warps = triton_warps(columns)
        triton_layer_norm[(count,)](
            matrix, gamma, beta, triton_result, columns, EPSILON, BLOCK=columns, num_warps=warps
        )
        return triton_result

    def twin_launch(name):
        """The nvcc twin `name` on the same inputs, into a result of its own."""
        kernel, twin_result = twin(name), torch.empty_like(matrix)
        arguments = (*flat[:3], cp.asarray(twin_result.reshape(-1)), np.float32(EPSILON))

        def launch():
            kernel((count,), (threads,), arguments)
            return twin_result

        return launch

    launches = {
        "coop": coop_launch,
        "coop_welford": lambda: coop_launch("welford"),  # the example's robust form: not the twin's
        "nvcc_twin": twin_launch(f"layer_norm_{columns}"),
        "coop_two_pass": lambda: coop_launch("two_pass"),  # Triton's formulation: two block sums
        "nvcc_twin_two_pass": twin_launch(f"layer_norm_two_pass_{columns}"),
        "torch": lambda: torch.nn.functional.layer_norm(matrix, (columns,), gamma, beta, EPSILON),
    }
    if triton is not None:
        launches["triton"] = triton_launch
    return launches, expected, 4 * (2 * matrix.numel() + 2 * columns)


def layer_norm_row(count: int, columns: int, runs: int, copy: dict) -> dict:
    launches, expected, moved = layer_norm_launches(count, columns)
    return checked_row("layer_norm", {"rows": count, "columns": columns}, launches, expected, moved, copy, runs)


def softmax_launches(count: int, columns: int) -> tuple:
    """(launches by library, the float64 expected result, the bytes moved) of a row softmax
    of [count, columns]."""
    matrix = torch.randn(count, columns, device="cuda")
    expected = torch.softmax(matrix.double(), dim=-1)
    result, triton_result = torch.empty_like(matrix), torch.empty_like(matrix)
    kernel, threads = row_kernels.softmax(columns), row_kernels.ROW_SHAPES[columns][0]
    flat = [cp.asarray(tensor.reshape(-1)) for tensor in (matrix, result)]

    def coop_launch():
        kernel[count, threads](*flat)
        return result

    def triton_launch():
        triton_softmax[(count,)](matrix, triton_result, columns, BLOCK=columns, num_warps=triton_warps(columns))
        return triton_result

    twin_result = torch.empty_like(matrix)
    twin_arguments = (flat[0], cp.asarray(twin_result.reshape(-1)))

    twin_kernel = twin("softmax")

    def twin_launch():
        twin_kernel((count,), (threads,), twin_arguments)
        return twin_result

    launches = {"coop": coop_launch, "nvcc_twin": twin_launch, "torch": lambda: torch.softmax(matrix, dim=-1)}
    if triton is not None:
        launches["triton"] = triton_launch
    return launches, expected, 4 * 2 * matrix.numel()


def softmax_row(runs: int, copy: dict) -> dict:
    count, columns = SOFTMAX_SHAPE
    launches, expected, moved = softmax_launches(count, columns)
    return checked_row("softmax", {"rows": count, "columns": columns}, launches, expected, moved, copy, runs)


def cumsum_row(runs: int, copy: dict) -> dict:
    count, columns = CUMSUM_SHAPE
    matrix = torch.randn(count, columns, device="cuda")
    result = torch.empty_like(matrix)
    expected = torch.cumsum(matrix.double(), dim=1)
    kernel, threads = row_kernels.cumsum(), row_kernels.CUMSUM_SHAPE[0]
    flat = [cp.asarray(tensor.reshape(-1)) for tensor in (matrix, result)]

    def coop_launch():
        kernel[count, threads](*flat, columns)
        return result

    twin_result = torch.empty_like(matrix)
    twin_arguments = (flat[0], cp.asarray(twin_result.reshape(-1)), np.int32(columns))

    twin_kernel = twin("cumsum")

    def twin_launch():
        twin_kernel((count,), (threads,), twin_arguments)
        return twin_result

    launches = {"coop": coop_launch, "nvcc_twin": twin_launch, "torch": lambda: torch.cumsum(matrix, dim=1)}
    moved = 4 * 2 * matrix.numel()
    return checked_row("cumsum", {"rows": count, "columns": columns}, launches, expected, moved, copy, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=pathlib.Path, required=True)
    parser.add_argument("--rows", type=int, default=32768)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument(
        "--only",
        help="comma-separated workloads: row_sort, row_topk, byte_histogram, run_length_decode, selective_scan, layer_norm, softmax, "
        "cumsum (default: all)",
    )
    args = parser.parse_args()
    copy = {}  # measured once, before the first workload that reports bandwidth

    def measured_copy() -> dict:
        if not copy:
            copy.update(copy_bandwidth(args.runs))
            print(f"device-to-device copy: {copy['GBps']:.0f} GB/s")
        return copy

    workloads = {
        "row_sort": lambda: [row_sort(args.rows, args.runs)],
        "row_topk": lambda: [row_topk(args.rows, args.runs)],
        "byte_histogram": lambda: histogram_rows(args.runs),
        "run_length_decode": lambda: [run_length_decode_row(args.runs)],
        "selective_scan": lambda: [
            selective_scan_row(SCAN_BATCH, channels, length, args.runs, measured_copy())
            for channels in SCAN_CHANNELS
            for length in SCAN_LENGTHS
        ],
        "layer_norm": lambda: [layer_norm_row(*shape, args.runs, measured_copy()) for shape in LAYER_NORM_SHAPES],
        "softmax": lambda: [softmax_row(args.runs, measured_copy())],
        "cumsum": lambda: [cumsum_row(args.runs, measured_copy())],
    }
    chosen = args.only.split(",") if args.only else list(workloads)
    unknown = [name for name in chosen if name not in workloads]
    if unknown:
        parser.error(f"unknown workloads {unknown}: choose from {', '.join(workloads)}")
    rows = [row for name in chosen for row in workloads[name]()]
    results = {"device": torch.cuda.get_device_name(), "triton": triton.__version__ if triton else None}
    if copy:
        results["copy_bandwidth"] = copy
    args.json.write_text(json.dumps({**results, "workloads": rows}, indent=1))


if __name__ == "__main__":
    main()
