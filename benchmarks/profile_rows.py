"""One launch of each row's cuda.coop kernel and of its CUDA C++ twin, on the buffers the
kernel-speed benchmark uses, inside a profiler range: run under Nsight Compute
(`ncu --profile-from-start off`, as benchmarks/ncu_rows.sh does) it profiles exactly those
launches, coop's first, so a row's gap can be read in memory traffic, occupancy and stalls
rather than guessed from its SASS.

    python3 benchmarks/profile_rows.py --cubin twins.cubin --filter PATTERN --json ROWS.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")  # as kernel_speed.py

import configs
import coop_kernels
import cupy as cp
import reference

from cuda.coop.numba_mlir import _dispatch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cubin", type=pathlib.Path, required=True)
    parser.add_argument("--filter", required=True)
    parser.add_argument("--json", type=pathlib.Path, required=True, help="which kernel name is which row")
    parser.add_argument("--elements", type=int, default=1 << 27, help="4-byte words per buffer")
    args = parser.parse_args()
    module = cp.RawModule(path=str(args.cubin))
    source = reference.random_bits(args.elements)
    output = cp.empty(args.elements, cp.uint32)
    names = []
    for config in configs.select(configs.all_configs(), args.filter):
        kernel = coop_kernels.kernel_for(config)
        twin = module.get_function(config.name)
        grid = config.grid(source.nbytes)
        cluster = () if config.cluster is None else (0, 0, config.cluster)
        src, dst = source.view(config.dtype), output.view(config.output_dtype)

        launch = kernel[(grid, config.threads, *cluster)]
        launch(src, dst)  # compiles coop's kernel outside the profiled range
        cp.cuda.runtime.deviceSynchronize()
        cp.cuda.profiler.start()
        launch(src, dst)
        twin((grid,), (config.threads,), (src, dst))
        cp.cuda.runtime.deviceSynchronize()
        cp.cuda.profiler.stop()
        coop_name = _dispatch.compile_results(kernel)[0].metadata["func_name"]
        names.append({"row": config.name, "coop": coop_name, "twin": config.name})
        print(f"{config.name}: profiled", file=sys.stderr)
    args.json.write_text(json.dumps(names, indent=1))


if __name__ == "__main__":
    main()
