"""The rows of the kernel-speed benchmark: one tile copy (load, then store with the
same algorithm) per family, algorithm, dtype, block size and items per thread.

The matrix is pruned to fit one device call: every algorithm at 256 threads, and
the block sizes 128 and 512 only for block direct and transpose (the two ends:
no scratch, and scratch with a barrier). Both the Python kernels and the CUDA C++
twins are built from this one list."""

from __future__ import annotations

import dataclasses

DTYPES = {"int32": "int", "float32": "float"}  # numpy name -> C++ type
ITEMS = (1, 4, 8, 16)
BLOCK_ALGORITHMS = ("direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced")
WARP_ALGORITHMS = ("direct", "striped", "vectorize", "transpose")
# Algorithms whose CUB specialization uses shared scratch; cuda.coop puts a
# barrier between a load and a store that reuse it (block: __syncthreads,
# warp: __syncwarp), and the twins do the same.
SCRATCH = {"block": {"transpose", "warp_transpose", "warp_transpose_timesliced"}, "warp": {"transpose"}}
WARP_THREADS = 32
DEFAULT_THREADS = 256
EXTRA_THREADS = {"direct": (128, 512), "transpose": (128, 512)}  # block family only


@dataclasses.dataclass(frozen=True)
class Config:
    family: str  # "block" or "warp": the group that loads and stores one tile
    algorithm: str
    dtype: str  # numpy name
    threads: int  # per block
    items: int  # per thread

    @property
    def name(self) -> str:
        """The twin kernel's symbol and the row's key."""
        return f"{self.family}_{self.algorithm}_{self.dtype}_{self.threads}x{self.items}"

    @property
    def block_tile(self) -> int:
        """Elements one block copies."""
        return self.threads * self.items

    @property
    def group_tile(self) -> int:
        """Elements one group (the block, or one warp) copies."""
        return (self.threads if self.family == "block" else WARP_THREADS) * self.items

    @property
    def scratch(self) -> bool:
        return self.algorithm in SCRATCH[self.family]

    @property
    def cub_algorithms(self) -> tuple[str, str]:
        """The CUB enumerators of the load and the store."""
        prefix = "BLOCK" if self.family == "block" else "WARP"
        suffix = self.algorithm.upper()
        return f"cub::{prefix}_LOAD_{suffix}", f"cub::{prefix}_STORE_{suffix}"


def all_configs() -> list[Config]:
    rows = []
    for algorithm in BLOCK_ALGORITHMS:
        for threads in sorted({DEFAULT_THREADS, *EXTRA_THREADS.get(algorithm, ())}):
            rows += [Config("block", algorithm, d, threads, i) for d in DTYPES for i in ITEMS]
    for algorithm in WARP_ALGORITHMS:
        rows += [Config("warp", algorithm, d, DEFAULT_THREADS, i) for d in DTYPES for i in ITEMS]
    return rows


def select(configs: list[Config], pattern: str | None) -> list[Config]:
    """Rows whose name contains every comma-separated part of `pattern`."""
    if not pattern:
        return configs
    parts = [part for part in pattern.split(",") if part]
    return [config for config in configs if all(part in config.name for part in parts)]
