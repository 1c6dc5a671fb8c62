"""The rows of the kernel-speed benchmark, one per family, algorithm, operation,
dtype, block size and items per thread. The families:

  block, warp                a tile copy: load, then store with the same algorithm
  block_reduce, warp_reduce  a direct load, then coop.sum; the group's first thread
                             writes the sum (one value per tile); "broadcast" rows
                             give the sum to every thread (coop.sum's default) and
                             the group's last thread writes it
  warps_reduce               the same over groups of two warps
                             (coop.this_block().group_by(2)), the sum in every member
  cluster_reduce             the same over clusters of two blocks (coop.this_cluster(),
                             launched with a cluster), the sum in every member
  block_scan, warp_scan      a direct load, coop.inclusive_sum or exclusive_sum into
                             a fresh payload, a direct store of it
  block_exchange,            a direct load, coop.exchange blocked_to_striped (block:
  warp_exchange              also with warp time slicing), a striped store: a copy
                             whose store is coalesced
  block_shuffle              a direct load, coop.shuffle up by one item, a direct store
  block_radix_sort           a direct load, coop.radix_sort_keys (a direct store of the
                             sorted keys) or coop.radix_sort_pairs with a copy of each key
                             as its value (a direct store of the sorted values)
  block_merge_sort,          a direct load, coop.merge_sort_keys ("less"), a direct store;
  warp_merge_sort            the warp rows sort each warp's tile
  block_radix_rank           a direct load, coop.radix_rank_keys of the low 4 bits, a direct
                             store of the int32 ranks
  block_topk                 a direct load, coop.topk_max_keys with k = 16, a direct store
                             (the first 16 keys of each tile are checked)
  block_adjacent_difference  a direct load, coop.adjacent_difference to the left with the
                             item before the tile (or to the right with the item after it),
                             a direct store; the grid's tiles form a cycle, so the first
                             tile's predecessor is the last item of the buffer
  block_discontinuity        a direct load, coop.discontinuity heads with the item before the
                             tile, or heads_and_tails with both neighbours (stored as one
                             int32 per item: head | tail << 1), a direct store
  block_histogram            a direct load of uint8 samples into 256 bins or int32 samples
                             into 64, coop.histogram (atomic or sort), a striped store of the
                             tile's bins (int32 counters, `bins` per tile)
  warp_reduce_batched        a direct load of each warp's tile (`items` per lane, one per
                             batch), coop.reduce_batched (sums, striped), each batch's sum
                             written by its lane: rows only where the CCCL in use has
                             cub::WarpReduceBatched (CCCL 3.5: CUDA_COOP_CCCL_ROOT)
  block_run_length_decode    two direct loads of int32 from the tile (each thread's `items`
                             run values, then their lengths, 1 to 63), coop.run_length_decode
                             of the stream's first window (twice `items` per thread), a direct
                             store of it: a tile's output is as long as its input

The matrix is pruned to fit one device call: every algorithm at 256 threads; the
block sizes 128 and 512 only for block direct and transpose copies (the two ends:
no scratch, and scratch with a barrier), for the default block reduce and scan
algorithm, for the neighbour families' first operation (left differences, heads) and
for atomic histograms and for run-length decoding (up to 8 runs per thread at 512 threads: 16
would not fit CUB's shared memory); exclusive scans at 256 threads only. Both the Python kernels and
the CUDA C++ twins are built from this one list."""

from __future__ import annotations

import dataclasses
import pathlib

DTYPES = {"int32": "int", "float32": "float"}  # numpy name -> C++ type
CPP_TYPES = {**DTYPES, "uint32": "unsigned int", "uint8": "unsigned char"}  # every dtype a row reads or writes
ITEMSIZE = {"int32": 4, "float32": 4, "uint32": 4, "uint8": 1}
SORT_DTYPES = ("uint32", "float32")  # the sorting families' keys
SORT_ITEMS = (4, 8, 16)
SORT_THREADS = (128, 256, 512)  # radix sorts
RANK_BITS = 4  # block_radix_rank: the digit, bits [0, 4) (CUB's default digit width)
TOPK_K = 16  # block_topk: the largest 16 keys of each tile
ITEMS = (1, 4, 8, 16)
WARP_THREADS = 32
DEFAULT_THREADS = 256
OTHER_THREADS = (128, 512)

BLOCK_ALGORITHMS = ("direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced")
WARP_ALGORITHMS = ("direct", "striped", "vectorize", "transpose")
# Algorithms whose CUB specialization uses shared scratch; cuda.coop puts a
# barrier between a load and a store that reuse it (block: __syncthreads,
# warp: __syncwarp), and the twins do the same.
SCRATCH = {"block": {"transpose", "warp_transpose", "warp_transpose_timesliced"}, "warp": {"transpose"}}
EXTRA_THREADS = {"direct": OTHER_THREADS, "transpose": OTHER_THREADS}  # block copies only

# The defaults (cuda.coop's and CUB's) first; they also run at OTHER_THREADS.
REDUCE_ALGORITHMS = ("warp_reductions", "raking", "raking_commutative_only")
SCAN_ALGORITHMS = ("raking", "raking_memoize", "warp_scans")
# operation -> its part of the row name; the first is the default, also at OTHER_THREADS
SCANS = {"inclusive_sum": "inclusive", "exclusive_sum": "exclusive"}
EXCHANGE_ALGORITHMS = ("", "timesliced")  # BlockExchange's WARP_TIME_SLICING off, on
WARPS_PER_GROUP = 2  # warps_reduce: this_block().group_by(2)
CLUSTER_BLOCKS = 2  # cluster_reduce: clusters of (2, 1, 1) blocks
# The neighbour families' operations (the first is the default, also at OTHER_THREADS).
DIRECTIONS = ("left", "right")  # block_adjacent_difference
FLAG_MODES = ("heads", "heads_and_tails")  # block_discontinuity
# block_histogram: the samples' dtype -> its bins. Bytes fill all 256; int32 samples are drawn
# below SMALL_VALUES (reference.py), which is also the discontinuity rows' value range, so that
# equal neighbours occur.
SMALL_VALUES = 64
HISTOGRAM_BINS = {"uint8": 256, "int32": SMALL_VALUES}
HISTOGRAM_ALGORITHMS = ("atomic", "sort")
# Items per thread by sample dtype: a byte tile holds at least 1024 samples, so its 256 int32
# counters fit in the output buffer (as many bytes as the input's).
HISTOGRAM_ITEMS = {"uint8": (8, 16, 32), "int32": (4, 8, 16)}
# warp_reduce_batched: the batches (items per lane) of its rows, at DEFAULT_THREADS; the header
# whose presence in the CCCL in use adds them.
BATCHES = (4, 8, 16, 32, 64)
BATCHED_HEADER = "cub/warp/warp_reduce_batched.cuh"
# block_run_length_decode: the decoded items per thread per run per thread (the window's length
# over the runs'), which makes a tile's output as long as its input (values and lengths).
DECODED_PER_RUN = 2
RUN_LENGTH_ITEMS = {128: ITEMS, 256: ITEMS, 512: (1, 4, 8)}
OPERATION_NAMES = {**SCANS, "pairs": "pairs", **{op: op for op in (*DIRECTIONS, *FLAG_MODES)}}


@dataclasses.dataclass(frozen=True)
class Config:
    family: str  # "block", "warp", "block_reduce", "warp_reduce", "block_scan", "warp_scan", ...
    algorithm: str  # "" where CUB has one implementation (warps, shuffles, untimesliced exchanges)
    dtype: str  # numpy name
    threads: int  # per block
    items: int  # per thread
    operation: str = "copy"  # "copy", "sum", a key of SCANS, "exchange" or "shuffle"
    broadcast: bool = False  # reductions: the result in every thread (else CUB's first thread only)

    @property
    def name(self) -> str:
        """The twin kernel's symbol and the row's key."""
        parts = (
            self.family,
            self.algorithm,
            f"{self.bins}bins" if self.bins else OPERATION_NAMES.get(self.operation, ""),
            "broadcast" if self.broadcast else "",
            self.dtype,
            f"{self.threads}x{self.items}",
        )
        return "_".join(part for part in parts if part)

    @property
    def group(self) -> str:
        """The group that owns one tile: "block" or "warp"."""
        return self.family.split("_")[0]

    @property
    def primitive(self) -> str:
        """What the kernel does with its tile: "copy", "reduce", "scan", "exchange" or "shuffle"."""
        return self.family.partition("_")[2] or "copy"

    @property
    def moves_bits(self) -> bool:
        """Whether the output is the input's bits rearranged (copies, exchanges, shuffles)."""
        return self.primitive in ("copy", "exchange", "shuffle")

    @property
    def sorts(self) -> bool:
        """A sorting family: its output is checked against a sort of each tile (reference.py)."""
        return self.primitive in ("radix_sort", "merge_sort", "radix_rank", "topk")

    @property
    def output_dtype(self) -> str:
        """The output's dtype: int32 ranks, flags and counters, else the input's."""
        return "int32" if self.operation == "rank" or self.primitive in ("discontinuity", "histogram") else self.dtype

    @property
    def bins(self) -> int:
        """A histogram's bins (0 for other families)."""
        return HISTOGRAM_BINS[self.dtype] if self.primitive == "histogram" else 0

    @property
    def bins_per_thread(self) -> int:
        """The counters each thread of a histogram holds: enough for every bin."""
        return -(-self.bins // self.threads)

    def elements(self, buffer_bytes: int) -> int:
        """The row's input elements in a buffer of `buffer_bytes`."""
        return buffer_bytes // ITEMSIZE[self.dtype]

    def grid(self, buffer_bytes: int) -> int:
        """Blocks of the launch over a buffer of `buffer_bytes`: one per tile."""
        return self.elements(buffer_bytes) // self.block_tile

    @property
    def block_tile(self) -> int:
        """Elements one block reads (a run-length row: its runs' values and their lengths)."""
        return self.threads * self.items * (2 if self.primitive == "run_length_decode" else 1)

    @property
    def decoded_items(self) -> int:
        """A run-length row's decoded items per thread (0 for other families)."""
        return DECODED_PER_RUN * self.items if self.primitive == "run_length_decode" else 0

    @property
    def group_tile(self) -> int:
        """Elements one group (the block, one warp, a group of warps, a cluster) reads."""
        threads = {
            "block": self.threads,
            "warp": WARP_THREADS,
            "warps": WARPS_PER_GROUP * WARP_THREADS,
            "cluster": CLUSTER_BLOCKS * self.threads,
        }[self.group]
        return threads * self.items

    @property
    def cluster(self) -> tuple | None:
        """The launch's cluster shape; None: a launch without one."""
        return (CLUSTER_BLOCKS, 1, 1) if self.group == "cluster" else None

    @property
    def scratch(self) -> bool:
        """Whether the load and the store of a copy use scratch, so that a barrier
        separates them. Reductions and scans load and store direct (no scratch):
        their primitive is the kernel's one scratch user and needs no barrier."""
        return self.primitive == "copy" and self.algorithm in SCRATCH[self.group]

    @property
    def cub_algorithms(self) -> tuple[str, str]:
        """The CUB enumerators of a copy's load and store."""
        prefix = self.group.upper()
        suffix = self.algorithm.upper()
        return f"cub::{prefix}_LOAD_{suffix}", f"cub::{prefix}_STORE_{suffix}"

    @property
    def cub_algorithm(self) -> str:
        """The CUB enumerator of a block reduction or scan."""
        return f"cub::BLOCK_{self.primitive.upper()}_{self.algorithm.upper()}"

    def outputs(self, elements: int) -> int:
        """Elements written for `elements` read: one per tile for a reduction (one per batch for a
        batched one), `bins` per tile for a histogram."""
        if self.primitive == "reduce":
            return elements // self.group_tile
        if self.primitive == "reduce_batched":
            return elements // self.group_tile * self.items
        if self.primitive == "histogram":
            return elements // self.block_tile * self.bins
        return elements

    def bytes_moved(self, elements: int) -> int:
        """Bytes read plus bytes written for `elements` of the row's dtype read."""
        return ITEMSIZE[self.dtype] * elements + ITEMSIZE[self.output_dtype] * self.outputs(elements)


def _block_rows(family: str, algorithms: tuple, operations: tuple) -> list[Config]:
    """Every algorithm and operation at DEFAULT_THREADS; the defaults (the first
    algorithm with the first operation) at OTHER_THREADS too."""
    rows = []
    for algorithm in algorithms:
        for operation in operations:
            defaults = algorithm == algorithms[0] and operation == operations[0]
            threads = sorted((DEFAULT_THREADS, *OTHER_THREADS)) if defaults else (DEFAULT_THREADS,)
            rows += [Config(family, algorithm, d, t, i, operation) for t in threads for d in DTYPES for i in ITEMS]
    return rows


def all_configs() -> list[Config]:
    rows = []
    for algorithm in BLOCK_ALGORITHMS:
        for threads in sorted({DEFAULT_THREADS, *EXTRA_THREADS.get(algorithm, ())}):
            rows += [Config("block", algorithm, d, threads, i) for d in DTYPES for i in ITEMS]
    for algorithm in WARP_ALGORITHMS:
        rows += [Config("warp", algorithm, d, DEFAULT_THREADS, i) for d in DTYPES for i in ITEMS]
    rows += _block_rows("block_reduce", REDUCE_ALGORITHMS, ("sum",))
    rows += _block_rows("block_scan", SCAN_ALGORITHMS, tuple(SCANS))
    rows += [Config("warp_reduce", "", d, DEFAULT_THREADS, i, "sum") for d in DTYPES for i in ITEMS]
    # The broadcast's cost: the default algorithm's rows again, the sum in every thread.
    rows += [
        Config("block_reduce", REDUCE_ALGORITHMS[0], d, DEFAULT_THREADS, i, "sum", broadcast=True)
        for d in DTYPES
        for i in ITEMS
    ]
    rows += [Config("warp_reduce", "", d, DEFAULT_THREADS, i, "sum", broadcast=True) for d in DTYPES for i in ITEMS]
    rows += [
        Config(family, "", d, DEFAULT_THREADS, i, "sum")
        for family in ("warps_reduce", "cluster_reduce")
        for d in DTYPES
        for i in ITEMS
    ]
    rows += [Config("warp_scan", "", d, DEFAULT_THREADS, i, scan) for scan in SCANS for d in DTYPES for i in ITEMS]
    if cccl_has_batched_reduce():
        rows += [Config("warp_reduce_batched", "", d, DEFAULT_THREADS, b, "batched") for d in DTYPES for b in BATCHES]
    for algorithm in EXCHANGE_ALGORITHMS:
        rows += [Config("block_exchange", algorithm, d, DEFAULT_THREADS, i, "exchange") for d in DTYPES for i in ITEMS]
    rows += [Config("warp_exchange", "", d, DEFAULT_THREADS, i, "exchange") for d in DTYPES for i in ITEMS]
    rows += [Config("block_shuffle", "", d, DEFAULT_THREADS, i, "shuffle") for d in DTYPES for i in ITEMS]
    return rows + sorting_configs() + neighbour_configs()


def cccl_has_batched_reduce() -> bool:
    """Whether the CCCL cuda.coop compiles against (CUDA_COOP_CCCL_ROOT, else the toolkit's; the
    twins are built against the same) has cub::WarpReduceBatched."""
    from cuda.coop._engine_session import engine

    return (pathlib.Path(engine().toolkit["cccl_include"]) / BATCHED_HEADER).is_file()


def sorting_configs() -> list[Config]:
    """The sorting families: radix sorts of uint32 and float32 keys at every block size and
    item count, merge sorts, ranks and top-k at DEFAULT_THREADS."""
    rows = [
        Config("block_radix_sort", "", d, t, i, operation)
        for operation in ("keys", "pairs")
        for d in SORT_DTYPES
        for t in SORT_THREADS
        for i in SORT_ITEMS
    ]
    rows += [
        Config(family, "", d, DEFAULT_THREADS, i, "keys")
        for family in ("block_merge_sort", "warp_merge_sort")
        for d in SORT_DTYPES
        for i in SORT_ITEMS[:2]
    ]
    rows += [Config("block_radix_rank", "", "uint32", DEFAULT_THREADS, i, "rank") for i in SORT_ITEMS]
    rows += [Config("block_topk", "", d, DEFAULT_THREADS, i, "topk") for d in SORT_DTYPES for i in SORT_ITEMS]
    return rows


def neighbour_configs() -> list[Config]:
    """The neighbour and counting families: adjacent differences (left, right) and
    discontinuities (heads, heads_and_tails) of int32 and float32 at every item count, the
    first operation also at OTHER_THREADS; histograms of uint8 samples into 256 bins and int32
    samples into 64, atomic and sort, the atomic ones also at OTHER_THREADS; run-length
    decoding of int32 runs at every block size (RUN_LENGTH_ITEMS)."""
    rows = _block_rows("block_adjacent_difference", ("",), DIRECTIONS)
    rows += _block_rows("block_discontinuity", ("",), FLAG_MODES)
    for algorithm in HISTOGRAM_ALGORITHMS:
        default = algorithm == HISTOGRAM_ALGORITHMS[0]
        threads = sorted((DEFAULT_THREADS, *OTHER_THREADS)) if default else (DEFAULT_THREADS,)
        rows += [
            Config("block_histogram", algorithm, d, t, i, "histogram")
            for t in threads
            for d in HISTOGRAM_BINS
            for i in HISTOGRAM_ITEMS[d]
        ]
    rows += [
        Config("block_run_length_decode", "", "int32", t, i, "decode")
        for t, items in RUN_LENGTH_ITEMS.items()
        for i in items
    ]
    return rows


def select(configs: list[Config], pattern: str | None) -> list[Config]:
    """Rows whose name contains every comma-separated part of one of the `|`-separated
    alternatives of `pattern` ("block,int32|topk")."""
    if not pattern:
        return configs
    alternatives = [[part for part in each.split(",") if part] for each in pattern.split("|")]
    return [config for config in configs if any(all(part in config.name for part in parts) for parts in alternatives)]
