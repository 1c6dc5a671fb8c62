"""Fills cuda.coop's provider disk cache for the kernel-speed rows in parallel, so
the timed process spends its compile time in the kernel compiler, not in NVRTC:
one compile_for_launch per row, spread over worker processes that never touch
the GPU (they compile for sm_90, as on the H200).

    python3 benchmarks/prewarm.py [--workers N] [--filter PATTERN]   # parent
    python3 benchmarks/prewarm.py --shard I/N [--filter PATTERN]       # one worker
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import configs

ARCH = (9, 0)
BUFFER_BYTES = 4 << 27  # kernel_speed.py's buffers; the grid only shapes the launch config, not the code


def compile_rows(rows: list[configs.Config]) -> None:
    import numpy as np
    from numba_cuda_mlir import tools

    tools._cached_cc = ARCH  # compile for the H200 without opening a CUDA context
    import coop_kernels

    from cuda.coop.numba_mlir._explain import compile_for_launch

    for config in rows:
        kernel = coop_kernels.kernel_for(config)
        source = kernel.typeof_pyval(np.zeros(1, dtype=config.dtype))
        destination = kernel.typeof_pyval(np.zeros(1, dtype=config.output_dtype))
        compile_for_launch(
            kernel, [source, destination], config.grid(BUFFER_BYTES), config.threads, cluster=config.cluster
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--shard", help="I/N: compile rows I, I+N, I+2N, ... and exit")
    parser.add_argument("--filter")
    args = parser.parse_args()
    rows = configs.select(configs.all_configs(), args.filter)
    if args.shard:
        index, count = map(int, args.shard.split("/"))
        compile_rows(rows[index::count])
        return
    start = time.perf_counter()
    workers = max(1, min(args.workers, len(rows)))
    command = [sys.executable, os.path.abspath(__file__), *(["--filter", args.filter] if args.filter else [])]
    children = [subprocess.Popen([*command, "--shard", f"{i}/{workers}"]) for i in range(workers)]
    failed = sum(child.wait() != 0 for child in children)
    print(f"prewarm: {len(rows)} rows in {workers} workers, {time.perf_counter() - start:.1f} s, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
