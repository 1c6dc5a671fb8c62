"""Is a row's gap the code or the launch? Times, interleaved on the kernel-speed buffers,
each row's cuda.coop kernel launched by the kernel compiler's dispatcher, the very same
cubin launched by CuPy as its twin is, and the nvcc twin. A gap that stays when CuPy
launches the coop cubin is in the code; one that goes away is in the launch path.

    python3 benchmarks/launch_path.py --cubin twins.cubin --filter PATTERN [--runs 25] [--json OUT.json]

(benchmarks/launch_path.sh runs it on the lent GPU.)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import tempfile

os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")  # as kernel_speed.py

import configs
import coop_kernels
import cupy as cp
import numpy as np
import reference
import timing

from cuda.coop.numba_mlir import _dispatch


def memref(array) -> tuple:
    """A 1-D array as the kernel compiler passes it: a memref descriptor (allocated and
    aligned pointers, offset, size, stride in items)."""
    return (array, array, np.int64(0), np.int64(array.size), np.int64(1))


def measure(config, module, sources, outputs, timer, work: pathlib.Path) -> dict:
    """The row's three launches timed interleaved, after checking that CuPy's launch of the
    coop cubin writes what the dispatcher's does."""
    kernel = coop_kernels.kernel_for(config)
    twin = module.get_function(config.name)
    grid = config.grid(sources[0].nbytes)
    src = [s.view(config.dtype) for s in sources]
    dst = [d.view(config.output_dtype) for d in outputs]
    outputs[0].fill(0)
    kernel[grid, config.threads](src[0], dst[0])  # compiles
    cp.cuda.runtime.deviceSynchronize()
    (result,) = _dispatch.compile_results(kernel)
    path = work / f"{config.name}.cubin"
    path.write_bytes(result.metadata["cubin"])
    same_cubin = cp.RawModule(path=str(path)).get_function(result.metadata["func_name"])
    launches = {
        "dispatcher": lambda i: kernel[grid, config.threads](src[i], dst[i]),
        "cupy": lambda i: same_cubin((grid,), (config.threads,), (*memref(src[i]), *memref(dst[i]))),
        "twin": lambda i: twin((grid,), (config.threads,), (src[i], dst[i])),
    }
    expected = outputs[0].copy()  # compared as bits: a float NaN equals itself
    outputs[0].fill(0)
    launches["cupy"](0)
    cp.cuda.runtime.deviceSynchronize()
    assert bool((outputs[0] == expected).all()), f"{config.name}: the cubin launched by CuPy wrote other outputs"
    samples = timer.interleaved(launches, rotate=len(sources))
    ms = {name: timing.median(values) for name, values in samples.items()}
    return {
        "name": config.name,
        **{f"{name}_ms": value for name, value in ms.items()},
        "twin_over_dispatcher": ms["twin"] / ms["dispatcher"],
        "twin_over_cupy": ms["twin"] / ms["cupy"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cubin", type=pathlib.Path, required=True)
    parser.add_argument("--filter", required=True)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--elements", type=int, default=1 << 27)
    parser.add_argument("--buffers", type=int, default=3)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    module = cp.RawModule(path=str(args.cubin))
    sources = [reference.random_bits(args.elements) for _ in range(args.buffers)]
    outputs = [cp.empty(args.elements, cp.uint32) for _ in range(args.buffers)]
    timer = timing.Timer(module.get_function("spin"), args.runs)
    results = []
    with tempfile.TemporaryDirectory() as work:
        for config in configs.select(configs.all_configs(), args.filter):
            if config.cluster is not None:
                continue  # CuPy's RawKernel launches no clusters
            row = measure(config, module, sources, outputs, timer, pathlib.Path(work))
            results.append(row)
            print(
                f"{config.name:50s} dispatcher {row['dispatcher_ms'] * 1e3:8.1f} us  cupy {row['cupy_ms'] * 1e3:8.1f} us  "
                f"twin {row['twin_ms'] * 1e3:8.1f} us  twin/dispatcher {row['twin_over_dispatcher']:.3f}  "
                f"twin/cupy {row['twin_over_cupy']:.3f}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
