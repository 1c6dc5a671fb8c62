"""Kernel speed: each row of configs.py as a Python kernel with cuda.coop and as
its CUDA C++ twin (twins.py), on the same device buffers and grid. Checks both
outputs (reference.py: a copy against its input, a reduction or scan against a
reference and the two kernels against each other), then times them interleaved
(timing.py) and writes JSON with the medians, the ratio twin/coop (>= 1: coop as
fast), the achieved bandwidth against the measured copy bandwidth, and SASS counts.

    python3 benchmarks/kernel_speed.py --cubin twins.cubin --json OUT.json [--sass-dir DIR]
        [--filter PATTERN] [--runs 25] [--elements 2**27] [--buffers 3] [--twin-first]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import pathlib
import sys
import time

# cupy arrays carry a stream in __cuda_array_interface__; by default the
# dispatcher synchronizes it on every launch, which would stall the queue the
# timer keeps busy. Everything here runs on the one legacy default stream.
os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")

import alternatives
import configs
import coop_kernels
import cupy as cp
import reference
import sass
import timing

from cuda.coop.numba_mlir import _dispatch, _planner, _resources

REPRESENTATIVE = "block_transpose_int32_256x4"
POISON = 0xA5A5A5A5


class Bundles:
    """Records each bundle the planner compiles (cache outcome, NVRTC seconds)."""

    def __init__(self):
        self.seen = []
        _planner._explain_recorders.append(lambda state, calls, bundle: self.seen.append(bundle))

    def take(self) -> list:
        taken, self.seen = self.seen, []
        return taken


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def the_cubin(kernel) -> bytes | None:
    overloads = _dispatch.compile_results(kernel)
    return overloads[0].metadata.get("cubin") if len(overloads) == 1 else None


def the_registers(kernel) -> int | None:
    """Registers per thread of the kernel's one overload (occupancy: 65536 per SM)."""
    overloads = _dispatch.compile_results(kernel)
    if len(overloads) != 1 or overloads[0].metadata.get("cubin") is None:
        return None
    found = _resources.of_kernel(overloads[0].metadata["cubin"], overloads[0].metadata.get("func_name", ""))
    return found.registers if found is not None else None


def sass_counts(rows, kernels, cubin, sass_dir: pathlib.Path | None) -> None:
    """Adds coop and twin SASS counts and registers to each row; writes the SASS of both
    kernels under sass_dir for the representative row and every row below 0.95."""
    if sass.cuobjdump() is None:
        print("cuobjdump not found: no SASS counts", file=sys.stderr)
        return
    twins = sass.split_functions(sass.disassemble(cubin))
    twin_cubin = pathlib.Path(cubin).read_bytes()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        jobs = {
            row["name"]: pool.submit(sass.disassemble, code)
            for row in rows
            if row["name"] in kernels and (code := the_cubin(kernels[row["name"]])) is not None
        }
        coop = {name: job.result() for name, job in jobs.items()}
    for row in rows:
        name = row["name"]
        row["sass"] = {
            "coop": sass.counts(coop[name]) if name in coop else None,
            "twin": sass.counts(twins[name]) if name in twins else None,
        }
        if row["sass"]["coop"] is not None:
            row["sass"]["coop"]["registers"] = the_registers(kernels[name])
        if row["sass"]["twin"] is not None:
            found = _resources.of_kernel(twin_cubin, name)
            row["sass"]["twin"]["registers"] = found.registers if found is not None else None
        if sass_dir is not None and (name == REPRESENTATIVE or row.get("ratio", 1) < 0.95):
            sass_dir.mkdir(parents=True, exist_ok=True)
            (sass_dir / f"{name}.coop.sass").write_text(coop.get(name, ""))
            (sass_dir / f"{name}.twin.sass").write_text(twins.get(name, ""))


class Bench:
    """Measures rows on shared buffers: `sources` and `outputs` are lists of uint32
    arrays (viewed as each row's dtype), rotated among by the timer."""

    def __init__(self, module, sources, outputs, copy_GBps, timer, twin_first=False):
        self.module, self.sources, self.outputs = module, sources, outputs
        self.copy_GBps, self.timer = copy_GBps, timer
        self.twin_first = twin_first  # the twin launched before the coop kernel in each round
        self.bundles = Bundles()
        self.input_kind = "bits"  # what the sources hold (main fills them with random bits)

    def fresh_input(self, config: configs.Config) -> None:
        """A new input in the first source for the check; every source refilled when
        the row needs another kind of input (uniform floats for float32 sums)."""
        kind = reference.input_kind(config)
        for source in self.sources if kind != self.input_kind else self.sources[:1]:
            reference.fill(kind, source)
        self.input_kind = kind

    def measure(self, config: configs.Config):
        """(the coop kernel, the row's results)."""
        kernel = coop_kernels.kernel_for(config)
        twin = self.module.get_function(config.name)
        grid = config.grid(self.sources[0].nbytes)
        src = [s.view(config.dtype) for s in self.sources]
        dst = [d.view(config.output_dtype) for d in self.outputs]

        cluster = () if config.cluster is None else (0, 0, config.cluster)  # stream, shared memory, cluster

        def coop_launch(i, output=None):
            kernel[(grid, config.threads, *cluster)](src[i], dst[i if output is None else output])

        def twin_launch(i, output=None):
            twin((grid,), (config.threads,), (src[i], dst[i if output is None else output]))

        row = {
            "name": config.name,
            "family": config.family,
            "algorithm": config.algorithm,
            "operation": config.operation,
            "dtype": config.dtype,
            "threads": config.threads,
            "items": config.items,
            "grid": grid,
            **self.checked(config, coop_launch, twin_launch),
        }
        if row["correct"]:
            others = alternatives.launches(config, src, dst)
            checked = {
                name: alternatives.check(config, launch, src, dst, self.coop_output) for name, launch in others.items()
            }
            row["alternatives_correct"] = checked
            timed = {name: launch for name, launch in others.items() if checked[name]}  # a wrong one is not timed
            pair = {"coop": coop_launch, "twin": twin_launch}
            launches = {**(dict(reversed(pair.items())) if self.twin_first else pair), **timed}
            samples = self.timer.interleaved(launches, rotate=len(self.sources))
            row.update(self.rates(config, samples))
            row.update(alternatives.rates(samples, row["coop_ms"]))
        return kernel, row

    def checked(self, config: configs.Config, coop_launch, twin_launch) -> dict:
        """Both kernels once on a fresh input into poisoned outputs (coop's launch
        compiles), and the check of their outputs (reference.py)."""
        self.fresh_input(config)
        self.outputs[0].fill(POISON)
        self.outputs[1].fill(POISON)
        start = time.perf_counter()
        coop_launch(0, output=0)
        cp.cuda.runtime.deviceSynchronize()
        first_launch = time.perf_counter() - start
        twin_launch(0, output=1)
        cp.cuda.runtime.deviceSynchronize()
        self.coop_output = self.outputs[0].copy()  # what the libraries' outputs are checked against
        built = self.bundles.take()
        return {
            **reference.check(config, self.sources[0], self.outputs[0], self.outputs[1]),
            "first_launch_s": first_launch,
            "bundle_cache": [bundle.cache for bundle in built],
            "nvrtc_s": sum(bundle.compile_seconds for bundle in built),
        }

    def rates(self, config: configs.Config, samples: dict) -> dict:
        """Medians, twin/coop, bandwidths and spreads of the timed runs."""
        coop_ms, twin_ms = timing.median(samples["coop"]), timing.median(samples["twin"])
        moved = config.bytes_moved(config.elements(self.sources[0].nbytes))
        twin_samples = samples["twin"]
        return {
            "coop_ms": coop_ms,
            "twin_ms": twin_ms,
            "ratio": twin_ms / coop_ms,
            "coop_GBps": moved / coop_ms / 1e6,
            "twin_GBps": moved / twin_ms / 1e6,
            "coop_of_copy": moved / coop_ms / 1e6 / self.copy_GBps,
            "twin_of_copy": moved / twin_ms / 1e6 / self.copy_GBps,
            "coop_spread": timing.spread(samples["coop"]),
            "twin_spread": timing.spread(twin_samples),
            # the twin against itself (even runs against odd runs): the noise floor of a ratio
            "twin_self_ratio": timing.median(twin_samples[0::2]) / timing.median(twin_samples[1::2]),
            "samples": samples,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cubin", type=pathlib.Path, required=True)
    parser.add_argument("--json", type=pathlib.Path, required=True)
    parser.add_argument("--sass-dir", type=pathlib.Path)
    parser.add_argument("--filter")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--elements", type=int, default=1 << 27, help="4-byte words per buffer")
    parser.add_argument("--buffers", type=int, default=3, help="input/output pairs the runs rotate among")
    parser.add_argument(
        "--twin-first",
        action="store_true",
        help="launch the twin before the coop kernel in each round: a ratio that moves with the order is the "
        "measurement's, not the kernels'",
    )
    args = parser.parse_args()

    rows = configs.select(configs.all_configs(), args.filter)
    elements = args.elements
    for config in rows:  # whole tiles, and the outputs fit the output buffers
        read = config.elements(4 * elements)
        assert read % config.block_tile == 0, f"{config.name}: {read} elements are not whole tiles"
        written = config.outputs(read) * configs.ITEMSIZE[config.output_dtype]
        assert written <= 4 * elements, f"{config.name}: {written} bytes of output do not fit"
    module = cp.RawModule(path=str(args.cubin))

    sources = [reference.random_bits(elements) for _ in range(args.buffers)]
    outputs = [cp.empty(elements, cp.uint32) for _ in range(args.buffers)]
    l2_bytes = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    print(f"buffers: {args.buffers} x 2 x {sources[0].nbytes >> 20} MiB (L2: {l2_bytes >> 20} MiB)", flush=True)

    timer = timing.Timer(module.get_function("spin"), args.runs)
    copy = timing.copy_bandwidth(timer, sources, outputs)
    print(f"copy bandwidth (cudaMemcpy D2D, read + write): {copy['GBps']:.0f} GB/s", flush=True)

    bench = Bench(module, sources, outputs, copy["GBps"], timer, args.twin_first)
    kernels, results = {}, []
    for index, config in enumerate(rows):
        try:
            kernels[config.name], row = bench.measure(config)
        except Exception as error:  # noqa: BLE001 -- a row that fails to compile or launch: recorded, the others go on
            row = {"name": config.name, "family": config.family, "correct": False, "error": repr(error)[:2000]}
        results.append(row)
        if "ratio" in row:
            status = (
                f"{row['ratio']:.3f}  {row['coop_of_copy']:.0%} of copy (first launch {row['first_launch_s']:.2f} s)"
            )
        else:
            status = row.get("error") or f"WRONG OUTPUT: {row.get('why')}"
        print(f"[{index + 1}/{len(rows)}] {config.name}: {status}")
        sys.stdout.flush()
        if index % 16 == 15:  # a partial document, in case the run is cut short
            write(args, copy, results)
    copy["GBps_at_end"] = timing.copy_bandwidth(timer, sources, outputs)["GBps"]  # drift over the run
    sass_counts(results, kernels, args.cubin, args.sass_dir)
    timed = write(args, copy, results)
    print(f"kernel speed: {timed}/{len(results)} rows timed -> {args.json}")


def write(args, copy: dict, results: list) -> int:
    """Writes the document (summary and rows); returns the number of timed rows."""
    timed = [row for row in results if "ratio" in row]
    families = list(dict.fromkeys(row["family"] for row in timed))  # in the order of configs.py
    summary = {
        "rows": len(results),
        "wrong": [row["name"] for row in results if not row["correct"]],
        # rows whose outputs pass the check but differ in their bits (only float32 sums can)
        "not_bitwise": [row["name"] for row in results if row["correct"] and not row["bitwise_equal"]],
        "geomean": {family: geomean([r["ratio"] for r in timed if r["family"] == family]) for family in families},
        "geomean_all": geomean([r["ratio"] for r in timed]),
        "of_copy_median": {
            family: timing.median([r["coop_of_copy"] for r in timed if r["family"] == family]) for family in families
        },
        "min_row": min(timed, key=lambda r: r["ratio"])["name"] if timed else None,
        "min_ratio": min((r["ratio"] for r in timed), default=float("nan")),
        "below_0_95": [r["name"] for r in timed if r["ratio"] < 0.95],
        "best_of_copy": max((r["coop_of_copy"] for r in timed), default=float("nan")),
        "best_of_copy_row": max(timed, key=lambda r: r["coop_of_copy"])["name"] if timed else None,
        "representative": REPRESENTATIVE,
        "noise": sorted(abs(1 - r["twin_self_ratio"]) for r in timed)[len(timed) // 2] if timed else float("nan"),
        "compile_seconds": sum(r.get("first_launch_s", 0) for r in results),
        "bundle_misses": sum(cache == "miss" for r in results for cache in r.get("bundle_cache", [])),
        # what users pick instead: its time over coop's (above 1: coop is faster), by family and library
        "alternatives_geomean": {
            family: {
                library: geomean(ratios)
                for library in ("torch", "cupy")
                if (
                    ratios := [
                        r[f"{library}_ratio"] for r in timed if r["family"] == family and f"{library}_ratio" in r
                    ]
                )
            }
            for family in families
            if any("torch_ratio" in r or "cupy_ratio" in r for r in timed if r["family"] == family)
        },
    }
    document = {
        "copy_bandwidth": copy,
        "elements": args.elements,
        "buffers": args.buffers,
        "runs": args.runs,
        "spin_ns": timing.SPIN_NS,
        "summary": summary,
        "rows": results,
    }
    args.json.write_text(json.dumps(document, indent=1))
    return len(timed)


if __name__ == "__main__":
    main()
