"""Compile latency of a Python kernel with cuda.coop (a block's load + reduce + scan
+ store: coop.load, coop.sum, coop.inclusive_sum and coop.store; the load and
store transpose, so all four use scratch and cuda.coop places a barrier before
each but the first), each scenario split into cuda.coop's share (the planner's
wall time: planning, the engine, NVRTC or its cache, the rewrite) and the kernel
compiler's own (the rest of the first launch), against the same kernel written
without coop primitives (shared memory and barriers by hand):

  1. first launch in a fresh process, empty provider cache
  2. a second, different kernel (float32) in the same process: NVRTC's PCH at work
  3. first launch in a fresh process with a warm disk cache
  4. repeated launches of a compiled configuration: host time per launch, and
     whether anything was planned or compiled again; also of the coop kernel written
     with coop.this_block() (no declared block: served by its dispatcher for the
     launch's block shape); the coop and plain
     kernels through a launcher configured once (launch = kernel[grid, block], then
     launch(*arrays)) and bound once (coop.bind_launch, cuLaunchKernel), torch.softmax
     beside them when torch is there, and a profile of each kind of launch (where its
     host time goes)
  5. the same kernel launched with a second grid size (nothing compiles, with a
     declared block or without: the undeclared kernel's numbers beside it)
  6. a fresh process with warm provider and kernel disk caches (cache=True): the
     coop kernel's first launch, against the plain kernel's with cache=True, and the
     undeclared coop kernel's (its block shape seen by the earlier process)
  7. a kernel without coop calls, cache=True, in a second process with cuda.coop
     imported: loaded from the disk cache
and `import cuda.coop` alone (no compiler) in a fresh process.

Without a GPU, `--compile-only` measures scenarios 1 to 3 alone, each first launch
replaced by kernel.compile() for sm_90 (the same planner, engine and kernel compiler;
no context, no launch): cuda.coop's share and its stages, to compare a change before
and after on any machine.

The coop kernel declares its block (coop.this_block(THREADS)); the undeclared one
beside it compiles once per block shape and caches to disk too. Every scenario runs in a fresh Python
process (subprocess) with its own XDG_CACHE_HOME and NUMBA_CACHE_DIR.

    python3 benchmarks/compile_latency.py --json OUT.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS
BLOCKS = 8
ALGORITHM = "transpose"


def coop_kernel(declared: bool = True):
    """Each block scans its tile (inclusive sum, into a fresh payload) and writes the tile's sum.
    `declared`: the kernel declares its block (coop.this_block(THREADS)); without, it
    is compiled for each launch's block shape."""
    from numba_cuda_mlir import cuda

    from cuda import coop

    def tile(block, source, destination, totals):
        items = coop.ThreadData(ITEMS)
        start = cuda.blockIdx.x * TILE
        coop.load(block, source, items, algorithm=ALGORITHM, offset=start)
        total = coop.sum(block, items)
        scanned = coop.inclusive_sum(block, items)
        coop.store(block, destination, scanned, algorithm=ALGORITHM, offset=start)
        if cuda.threadIdx.x == 0:
            totals[cuda.blockIdx.x] = total

    tile = cuda.jit(device=True)(tile)  # inlines: it receives the group
    if declared:

        @cuda.jit
        def scan_tile(source, destination, totals):
            tile(coop.this_block(THREADS), source, destination, totals)

    else:

        @cuda.jit
        def scan_tile(source, destination, totals):
            tile(coop.this_block(), source, destination, totals)

    return scan_tile


def plain_kernel(dtype: str):
    """The same kernel without coop: each thread scans its ITEMS consecutive elements,
    then the threads' sums are scanned in shared memory (Hillis-Steele)."""
    import numpy as np
    from numba_cuda_mlir import cuda

    element = np.dtype(dtype).type

    @cuda.jit
    def scan_tile(source, destination, totals):
        partials = cuda.shared.array(THREADS, element)
        items = cuda.local.array(ITEMS, element)
        thread = cuda.threadIdx.x
        start = cuda.blockIdx.x * TILE + thread * ITEMS
        items[0] = source[start]
        for i in range(1, ITEMS):
            items[i] = items[i - 1] + source[start + i]
        partials[thread] = items[ITEMS - 1]
        cuda.syncthreads()
        distance = 1
        while distance < THREADS:
            value = partials[thread]
            if thread >= distance:
                value += partials[thread - distance]
            cuda.syncthreads()
            partials[thread] = value
            cuda.syncthreads()
            distance *= 2
        prefix = partials[thread] - items[ITEMS - 1]
        for i in range(ITEMS):
            destination[start + i] = items[i] + prefix
        if thread == 0:
            totals[cuda.blockIdx.x] = partials[THREADS - 1]

    return scan_tile


def problem(dtype: str):
    """((source, destination, totals) on the device, (the expected destination and
    totals)). Small integers, so that float32 sums are exact in any order."""
    import numpy as np
    from numba_cuda_mlir import cuda

    host = np.random.default_rng().integers(-1000, 1000, size=BLOCKS * TILE).astype(dtype)
    tiles = host.reshape(BLOCKS, TILE)
    expected = (np.cumsum(tiles, axis=1, dtype=dtype).ravel(), tiles.sum(axis=1, dtype=dtype))
    arrays = (cuda.to_device(host), cuda.device_array(BLOCKS * TILE, dtype), cuda.device_array(BLOCKS, dtype))
    return arrays, expected


class PlannerClock:
    """Wall time and runs of cuda.coop's planner, and the bundles it compiled
    (NVRTC seconds, cache outcome): cuda.coop's share of a compile. Wraps the
    planner's entry points from outside (no change to cuda.coop); the planner's
    time less the engine's is its Python analysis and rewrite of the IR."""

    def __init__(self):
        from cuda.coop.numba_mlir import _bundle, _plan, _planner

        self.seconds, self.runs, self.bundles, self.engine_s, self.engine_calls_s = 0.0, 0, [], 0.0, 0.0
        self.planner_stages = {}
        planner = _planner.CoopWholeFunctionPlanner
        original = planner.run

        def timed_run(instance):
            start = time.perf_counter()
            try:
                return original(instance)
            finally:
                self.seconds += time.perf_counter() - start
                self.runs += 1

        planner.run = timed_run
        engine = _plan.engine

        def timed_engine():  # the engine's creation, once per process: part of the planner's time
            start = time.perf_counter()
            try:
                return engine()
            finally:
                self.engine_s += time.perf_counter() - start

        _plan.engine = _bundle.engine = timed_engine
        engine_call = _plan.engine_call

        def timed_engine_call(function, *args, **kwargs):  # session.plan and session.compile
            start = time.perf_counter()
            try:
                return engine_call(function, *args, **kwargs)
            finally:
                self.engine_calls_s += time.perf_counter() - start

        _plan.engine_call = _bundle.engine_call = timed_engine_call
        _planner._explain_recorders.append(lambda state, calls, bundle: self.bundles.append(bundle))
        _planner._stage_recorders.append(self._add_stages)

    def _add_stages(self, state, seconds: dict) -> None:
        for stage, value in seconds.items():
            self.planner_stages[stage] = self.planner_stages.get(stage, 0.0) + value

    def stages(self) -> dict:
        """cuda.coop's share, stage by stage (seconds): the planner's own stages, with its
        bundle stage split into the engine's (Bundle.stages: toolkit, emit, cache_read,
        nvrtc_load, nvrtc_wait -- NVRTC busy with another compile of the process --, nvrtc,
        cache_write) and the Python around them (operators compiled, providers
        registered). No link stage: the kernel compiler links. No probe stage: scratch
        layouts come out of the bundle's NVRTC compile."""
        stages = {stage: value for stage, value in self.planner_stages.items() if stage != "bundle"}
        engine = {}
        for bundle in self.bundles:
            for stage, value in bundle.stages.items():
                engine[stage] = engine.get(stage, 0.0) + value
        stages.update(engine)
        stages["bundle_python"] = self.planner_stages.get("bundle", 0.0) - sum(engine.values())
        return stages

    def reading(self) -> dict:
        stages = self.stages()
        accounted = sum(stages.values())
        return {
            "coop_s": self.seconds,
            "engine_s": self.engine_s,  # creating the engine (first use in the process)
            "engine_calls_s": self.engine_calls_s,  # planning and compiling (NVRTC or cache) in the engine
            "planner_runs": self.runs,
            "nvrtc_s": sum(bundle.compile_seconds for bundle in self.bundles),
            "bundles": [{"cache": bundle.cache, "pch": bundle.used_pch} for bundle in self.bundles],
            "stages": stages,
            "stages_sum_s": accounted,
            "unaccounted_s": self.seconds - accounted,
            # the stages are the share within 5% (or 1 ms, for a share too small to split)
            "stages_account_for_share": abs(self.seconds - accounted) <= max(0.05 * self.seconds, 1e-3),
        }

    def reset(self) -> None:
        self.seconds, self.runs, self.bundles, self.engine_s, self.engine_calls_s = 0.0, 0, [], 0.0, 0.0
        self.planner_stages = {}


class KernelCompilerClock:
    """Seconds and runs of numba-cuda-mlir's compiler entry (front end, the planners,
    MLIR, NVVM, the link): what a launch that compiles spends compiling."""

    def __init__(self):
        from numba_cuda_mlir import mlir_compiler

        self.seconds, self.runs = 0.0, 0
        original = mlir_compiler.mlir_compiler_entry

        def timed_entry(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.runs += 1

        mlir_compiler.mlir_compiler_entry = timed_entry

    def reset(self) -> None:
        self.seconds, self.runs = 0.0, 0


def first_launch(kernel, problem, clock, grid: int = BLOCKS) -> dict:
    """Wall time of a launch that compiles, to the end of the kernel, split."""
    from numba_cuda_mlir import cuda

    arrays, expected = problem
    if clock:
        clock.reset()
    start = time.perf_counter()
    kernel[grid, THREADS](*arrays)
    cuda.synchronize()
    wall = time.perf_counter() - start
    got = [array.copy_to_host() for array in arrays[1:]]
    if (
        not (got[0][: grid * TILE] == expected[0][: grid * TILE]).all()
        or not (got[1][:grid] == expected[1][:grid]).all()
    ):
        raise SystemExit("wrong output")
    result = {"wall_s": wall}
    if clock:
        result.update(clock.reading())
        result["kernel_compiler_s"] = wall - result["coop_s"]
    return result


def first_compile(kernel, dtype: str, clock) -> dict:
    """first_launch without a GPU: the kernel compiled for its argument types (sm_90). The
    garbage collector waits until it is done: a full collection of a first compile's heap
    takes 0.1 s on a small machine and falls in whichever stage it likes, which would make a
    before/after comparison of the stages a lottery."""
    import gc

    from numba_cuda_mlir import types

    clock.reset()
    array = types.Array(getattr(types, dtype), 1, "C")
    gc.disable()
    start = time.perf_counter()
    try:
        kernel.compile((array, array, array))
    finally:
        wall = time.perf_counter() - start
        gc.enable()
    result = {"wall_s": wall, **clock.reading()}
    result["kernel_compiler_s"] = result["wall_s"] - result["coop_s"]
    return result


def compile_only_child(mode: str) -> dict:
    """One fresh process without a GPU: 'compile-only' (scenarios 1 and 2) or
    'compile-only-warm' (3)."""
    import numpy  # noqa: F401 -- before the clock of numba-cuda-mlir's import

    from cuda import coop  # noqa: F401  (activates the backend)
    from cuda.coop.numba_mlir._explain import _capability

    _capability()  # sm_90 without a device
    clock = PlannerClock()
    result = {"mode": mode, "first": first_compile(coop_kernel(), "int32", clock)}
    if mode == "compile-only":
        result["second"] = first_compile(coop_kernel(), "float32", clock)
    return result


def compile_only(repeat: int, out: pathlib.Path) -> None:
    """Scenarios 1 to 3 without a GPU (--compile-only), medians of `repeat` repetitions."""
    repetitions = []
    with tempfile.TemporaryDirectory() as work:
        for index in range(repeat):
            cache = pathlib.Path(work) / f"cache{index}"
            cold = run_child("compile-only", cache)
            warm = run_child("compile-only-warm", cache)
            repetitions.append(
                {
                    "1_fresh_empty_cache": cold["first"],
                    "2_second_kernel": cold["second"],
                    "3_fresh_warm_cache": warm["first"],
                }
            )
    summary = median_of(repetitions)
    out.write_text(json.dumps({"scenarios": summary, "repetitions": repetitions}, indent=1))
    print(
        f"compile only: (1) {summary['1_fresh_empty_cache']['coop_s']:.3f} s coop, "
        f"(2) {summary['2_second_kernel']['coop_s']:.3f} s coop, "
        f"(3) {summary['3_fresh_warm_cache']['coop_s'] * 1e3:.1f} ms coop -> {out}"
    )
    print("\n".join(stage_check(summary)))


def per_launch(kernels: dict, arrays, launches: int = 1000, batches: int = 10) -> dict:
    """Median host seconds per launch of each compiled kernel over `batches` x `launches`
    back-to-back launches (10,000 by default), the kernels taking turns batch by batch
    in an order that reverses every round, so that drift of the machine (clocks, other
    load) falls on every kernel alike instead of on whichever runs first. A kernel is
    launched as users write it, kernel[grid, block](*arrays)."""
    return per_call({name: _launch_of(kernel, arrays) for name, kernel in kernels.items()}, launches, batches)


def _launch_of(kernel, arrays):
    return lambda: kernel[BLOCKS, THREADS](*arrays)


def per_call(calls: dict, launches: int = 1000, batches: int = 10) -> dict:
    """per_launch's method for any calls that each launch once (a launcher configured once,
    torch's softmax)."""
    from numba_cuda_mlir import cuda

    times = {name: [] for name in calls}
    for call in calls.values():
        for _ in range(100):
            call()
    cuda.synchronize()
    for round_ in range(batches):
        order = list(calls.items()) if round_ % 2 == 0 else list(calls.items())[::-1]
        for name, call in order:
            start = time.perf_counter()
            for _ in range(launches):
                call()
            times[name].append((time.perf_counter() - start) / launches)
            cuda.synchronize()
    return {name: statistics.median(values) for name, values in times.items()}


def configured_once(kernels: dict, arrays) -> dict:
    """Each kernel's launcher configured once (launch = kernel[grid, block]) and then called
    (launch(*arrays)): what a launch costs without the dispatcher's configure step."""
    launchers = {name: kernel[BLOCKS, THREADS] for name, kernel in kernels.items()}
    return {
        f"{name}_configured_once": (lambda launcher=launcher: launcher(*arrays)) for name, launcher in launchers.items()
    }


def bound_launches(kernels: dict, arrays) -> dict:
    """Each kernel bound once (coop.bind_launch: its grid, block and argument types) and
    launched through cuLaunchKernel: the documented fast path for repeated launches."""
    from cuda.coop.numba_mlir import bind_launch

    bound = {name: bind_launch(kernel, BLOCKS, THREADS, *arrays) for name, kernel in kernels.items()}
    return {f"{name}_bound_launch": (lambda launch=launch: launch(*arrays)) for name, launch in bound.items()}


def torch_softmax():
    """torch.softmax of a small tensor on the device (host time per launch, what a user
    compares a launch with), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    tensor = torch.ones(BLOCKS, TILE, device="cuda")
    return lambda: torch.softmax(tensor, dim=1)


def triton_copy():
    """A Triton kernel copying the same small tensor a row per program (host time per
    launch of the kernel compiler users pick beside torch), or None without Triton."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None

    @triton.jit
    def copy_rows(source, destination, width: tl.constexpr):
        columns = tl.program_id(0) * width + tl.arange(0, width)
        tl.store(destination + columns, tl.load(source + columns))

    source = torch.ones(BLOCKS, TILE, device="cuda")
    destination = torch.empty_like(source)
    return lambda: copy_rows[(BLOCKS,)](source, destination, TILE)


def launch_profile(launch, launches: int = 2000, top: int = 15) -> list:
    """Where a launch's host time goes: cProfile over `launches` launches, the functions with
    the most own time, in microseconds per launch (cProfile's overhead inflates Python
    frames, not native ones: read the ranks and the shares, not the absolute sum)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    for _ in range(launches):
        launch()
    profile.disable()
    rows = []
    for (file, line, function), (_, calls, own, cumulative, _) in pstats.Stats(profile).stats.items():
        rows.append(
            {
                "function": f"{os.path.basename(file)}:{line}({function})",
                "calls_per_launch": calls / launches,
                "own_us": own / launches * 1e6,
                "cumulative_us": cumulative / launches * 1e6,
            }
        )
    return sorted(rows, key=lambda row: row["own_us"], reverse=True)[:top]


def disk_cache_hits(kernel) -> int:
    """The kernel's disk cache hits (a coop kernel's: its dispatchers' per block shape too)."""
    dispatch = sys.modules.get("cuda.coop.numba_mlir._dispatch")  # not imported by the plain processes
    return dispatch.cache_hits(kernel) if dispatch else sum(kernel.stats.cache_hits.values())


def child(mode: str) -> dict:
    """One fresh process: 'coop' (scenarios 1, 2, 4 and 5), 'coop-warm' (3), 'plain',
    'coop-cache' and 'plain-cache' (6 and 7: cache=True kernels, run twice on one
    kernel cache) or 'import-only'."""
    import numpy  # noqa: F401 -- before the clock of numba-cuda-mlir's import

    result = {"mode": mode}
    if mode == "import-only":
        start = time.perf_counter()
        from cuda import coop

        result["import_coop_only_s"] = time.perf_counter() - start
        return result
    start = time.perf_counter()
    from numba_cuda_mlir import cuda

    result["import_numba_cuda_mlir_s"] = time.perf_counter() - start
    clock = None
    if mode not in ("plain", "plain-cache"):
        start = time.perf_counter()
        from cuda import coop  # noqa: F401  (activates the backend)

        result["import_coop_s"] = time.perf_counter() - start
        clock = PlannerClock()
    compiler = KernelCompilerClock()

    start = time.perf_counter()
    problems = {dtype: problem(dtype) for dtype in ("int32", "float32")}
    cuda.synchronize()
    result["context_s"] = time.perf_counter() - start

    if mode in ("coop-cache", "plain-cache"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import cached_kernels

        names = ["coop_scan", "coop_scan_undeclared", "plain_scan"] if mode == "coop-cache" else ["plain_scan"]
        for name in names:
            kernel = getattr(cached_kernels, name)
            compiler.reset()
            result[name] = first_launch(kernel, problems["int32"], clock if name.startswith("coop") else None)
            result[name]["kernel_compiler_s"] = compiler.seconds
            result[name]["kernel_compiles"] = compiler.runs
            result[name]["cache_hit"] = disk_cache_hits(kernel) > 0
        return result

    def make(dtype: str):
        # the plain process never imports cuda.coop
        return plain_kernel(dtype) if mode == "plain" else coop_kernel()

    first = make("int32")
    result["first"] = first_launch(first, problems["int32"], clock)
    if mode == "coop-warm":
        return result
    result["second"] = first_launch(make("float32"), problems["float32"], clock)
    if mode == "plain":  # the plain kernel's launches in a process that never imported cuda.coop
        result["per_launch_s"] = per_launch({"plain": first}, problems["int32"][0])
    if mode == "coop":
        # 5: the same kernel with another grid; the undeclared kernel beside it
        undeclared = coop_kernel(declared=False)
        first_launch(undeclared, problems["int32"], clock)
        for name, kernel in (("new_grid", first), ("new_grid_undeclared", undeclared)):
            compiler.reset()
            result[name] = first_launch(kernel, problems["int32"], clock, grid=BLOCKS // 2)
            result[name]["kernel_compiler_s"] = compiler.seconds - result[name]["coop_s"]
            result[name]["kernel_compiles"] = compiler.runs
        plain = plain_kernel("int32")
        result["plain_in_process"] = first_launch(plain, problems["int32"], None)
        clock.reset()
        kernels = {"coop": first, "plain": plain, "coop_undeclared": undeclared}
        arrays = problems["int32"][0]
        calls = {name: _launch_of(kernel, arrays) for name, kernel in kernels.items()}
        calls.update(configured_once({"coop": first, "plain": plain}, arrays))
        calls.update(bound_launches({"coop": first, "plain": plain, "coop_undeclared": undeclared}, arrays))
        softmax = torch_softmax()
        if softmax is not None:
            calls["torch_softmax"] = softmax
        copy = triton_copy()
        if copy is not None:
            calls["triton_copy"] = copy
        result["per_launch_s"] = per_call(calls)
        result["launch_profile"] = {
            name: launch_profile(calls[name])
            for name in ("coop", "plain", "coop_undeclared", "coop_configured_once", "coop_bound_launch")
        }
        result["repeat_planner"] = clock.reading()
    return result


def run_child(mode: str, cache: pathlib.Path) -> dict:
    environment = dict(os.environ, XDG_CACHE_HOME=str(cache), NUMBA_CACHE_DIR=str(cache / "kernels"))
    environment["COOP_BENCH_WITH_COOP"] = "1" if mode == "coop-cache" else "0"
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [sys.executable, os.path.abspath(__file__), "--child", mode, "--json", out.name]
        start = time.perf_counter()
        subprocess.run(command, check=True, env=environment)
        result = json.loads(pathlib.Path(out.name).read_text())
    result["process_s"] = time.perf_counter() - start
    return result


def median_of(runs: list[dict]) -> dict:
    """Key by key, the median of the numbers in `runs` (the first run's other values)."""
    merged = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, bool):
            merged[key] = all(run[key] for run in runs)  # a check holds only if it held every time
        elif isinstance(value, (int, float)):
            merged[key] = statistics.median(run[key] for run in runs)
        elif isinstance(value, dict):
            merged[key] = median_of([run[key] for run in runs])
    return merged


def stage_check(summary: dict) -> list[str]:
    """Each compiling scenario's share split into its stages, one line each; a line starting
    with "!" where the stages do not account for the share within 5% in every repetition."""
    lines = []
    for name, scenario in summary.items():
        if not isinstance(scenario, dict) or "stages" not in scenario:
            continue
        parts = ", ".join(f"{stage} {seconds * 1e3:.1f}" for stage, seconds in scenario["stages"].items() if seconds)
        mark = " " if scenario["stages_account_for_share"] else "!"
        lines.append(
            f"{mark} {name}: coop {scenario['coop_s'] * 1e3:.1f} ms = {parts} ms "
            f"(unaccounted {scenario['unaccounted_s'] * 1e3:+.1f} ms)"
        )
    return lines


def scenarios(repetition: dict) -> dict:
    cold, warm, plain = repetition["cold"], repetition["warm"], repetition["plain"]
    cached, plain_cached = repetition["coop_cache"], repetition["plain_cache"]
    per_launch_s = cold["per_launch_s"]
    return {
        "1_fresh_empty_cache": {
            **cold["first"],
            "import_coop_s": cold["import_coop_s"],
            "plain_wall_s": plain["first"]["wall_s"],
        },
        "2_second_kernel": {**cold["second"], "plain_wall_s": plain["second"]["wall_s"]},
        "3_fresh_warm_cache": {
            **warm["first"],
            "import_coop_s": warm["import_coop_s"],
            "plain_wall_s": plain["first"]["wall_s"],
        },
        "4_repeated_launch": {
            "coop_us": per_launch_s["coop"] * 1e6,
            "plain_us": per_launch_s["plain"] * 1e6,
            "overhead": per_launch_s["coop"] / per_launch_s["plain"] - 1,
            # the coop kernel without a declared block (its dispatcher for the launch's block shape)
            "undeclared_coop_us": per_launch_s["coop_undeclared"] * 1e6,
            "undeclared_overhead": per_launch_s["coop_undeclared"] / per_launch_s["plain"] - 1,
            # the plain kernel in a process without cuda.coop (no planner registered: no readiness check per launch)
            "plain_without_coop_imported_us": plain["per_launch_s"]["plain"] * 1e6,
            "planner_runs": cold["repeat_planner"]["planner_runs"],
            "nvrtc_s": cold["repeat_planner"]["nvrtc_s"],
            # issue 23: a launcher configured once and called (launch = kernel[grid, block]; launch(*arrays)),
            # torch.softmax's and a Triton kernel's launches beside them (target: <= 15 us), and where a launch's time goes
            "configured_once_coop_us": per_launch_s["coop_configured_once"] * 1e6,
            "configured_once_plain_us": per_launch_s["plain_configured_once"] * 1e6,
            "bound_launch_coop_us": per_launch_s["coop_bound_launch"] * 1e6,
            "bound_launch_plain_us": per_launch_s["plain_bound_launch"] * 1e6,
            "bound_launch_undeclared_us": per_launch_s["coop_undeclared_bound_launch"] * 1e6,
            "torch_softmax_us": per_launch_s["torch_softmax"] * 1e6 if "torch_softmax" in per_launch_s else None,
            "triton_copy_us": per_launch_s["triton_copy"] * 1e6 if "triton_copy" in per_launch_s else None,
        },
        "4_launch_profile": cold["launch_profile"],
        "5_new_grid_size": {
            **{key: cold["new_grid"][key] for key in ("wall_s", "planner_runs", "kernel_compiler_s", "nvrtc_s")},
            "kernel_compiles": cold["new_grid"]["kernel_compiles"],
            "undeclared_wall_s": cold["new_grid_undeclared"]["wall_s"],
            "undeclared_planner_runs": cold["new_grid_undeclared"]["planner_runs"],
            "undeclared_kernel_compiler_s": cold["new_grid_undeclared"]["kernel_compiler_s"],
        },
        "6_fresh_warm_kernel_cache": {
            "wall_s": cached["coop_scan"]["wall_s"],
            "kernel_compiler_s": cached["coop_scan"]["kernel_compiler_s"],
            "planner_runs": cached["coop_scan"]["planner_runs"],
            "nvrtc_s": cached["coop_scan"]["nvrtc_s"],
            "cache_hit": cached["coop_scan"]["cache_hit"],
            "plain_cached_wall_s": plain_cached["plain_scan"]["wall_s"],
            "ratio_to_plain": cached["coop_scan"]["wall_s"] / plain_cached["plain_scan"]["wall_s"],
            # the kernel without a declared block, launched with the block the earlier process launched it with
            "undeclared_wall_s": cached["coop_scan_undeclared"]["wall_s"],
            "undeclared_kernel_compiles": cached["coop_scan_undeclared"]["kernel_compiles"],
            "undeclared_planner_runs": cached["coop_scan_undeclared"]["planner_runs"],
            "undeclared_cache_hit": cached["coop_scan_undeclared"]["cache_hit"],
        },
        "7_plain_kernel_cache_with_coop_imported": {
            "cache_hit": cached["plain_scan"]["cache_hit"],
            "wall_s": cached["plain_scan"]["wall_s"],
            "kernel_compiler_s": cached["plain_scan"]["kernel_compiler_s"],
        },
        "import_coop_only_s": repetition["import_only"]["import_coop_only_s"],
        "import_coop_after_compiler_s": cold["import_coop_s"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=pathlib.Path, required=True)
    parser.add_argument("--repeat", type=int, default=2, help="repetitions of every process (medians reported)")
    parser.add_argument("--compile-only", action="store_true", help="scenarios 1 to 3 without a GPU")
    parser.add_argument(
        "--child",
        choices=[
            "coop",
            "coop-warm",
            "plain",
            "coop-cache",
            "plain-cache",
            "import-only",
            "compile-only",
            "compile-only-warm",
        ],
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args()
    if args.child:
        run = compile_only_child if args.child.startswith("compile-only") else child
        args.json.write_text(json.dumps(run(args.child)))
        return
    if args.compile_only:
        compile_only(args.repeat, args.json)
        return
    repetitions = []
    with tempfile.TemporaryDirectory() as work:
        for index in range(args.repeat):
            cache = pathlib.Path(work) / f"cache{index}"
            cold = run_child("coop", cache)
            warm = run_child("coop-warm", cache)
            plain = run_child("plain", pathlib.Path(work) / f"plain-cache{index}")
            # 6 and 7: the first process fills the kernel cache, the second is measured
            kernel_cache = pathlib.Path(work) / f"kernel-cache{index}"
            run_child("coop-cache", kernel_cache)
            coop_cache = run_child("coop-cache", kernel_cache)
            plain_kernel_cache = pathlib.Path(work) / f"plain-kernel-cache{index}"
            run_child("plain-cache", plain_kernel_cache)
            plain_cache = run_child("plain-cache", plain_kernel_cache)
            import_only = run_child("import-only", pathlib.Path(work) / f"import{index}")
            repetitions.append(
                {
                    "cold": cold,
                    "warm": warm,
                    "plain": plain,
                    "coop_cache": coop_cache,
                    "plain_cache": plain_cache,
                    "import_only": import_only,
                }
            )
    per_repetition = [scenarios(repetition) for repetition in repetitions]
    summary = {
        name: median_of([each[name] for each in per_repetition])
        if isinstance(per_repetition[0][name], dict)
        else statistics.median(each[name] for each in per_repetition)
        for name in per_repetition[0]
    }
    document = {
        "kernel": (
            f"block load + sum + inclusive_sum + store, {ALGORITHM}, {THREADS} threads x {ITEMS} items, {BLOCKS} blocks"
        ),
        "scenarios": summary,
        "repetitions": per_repetition,
        "processes": repetitions,
    }
    args.json.write_text(json.dumps(document, indent=1))
    print(
        f"compile latency: (1) {summary['1_fresh_empty_cache']['coop_s']:.2f} s coop, "
        f"(2) {summary['2_second_kernel']['coop_s']:.3f} s coop, "
        f"(3) {summary['3_fresh_warm_cache']['coop_s'] * 1e3:.1f} ms coop, "
        f"(4) {summary['4_repeated_launch']['overhead']:+.1%} per launch, "
        f"(5) {summary['5_new_grid_size']['kernel_compiler_s'] * 1e3:.1f} ms compiling for a new grid, "
        f"(6) {summary['6_fresh_warm_kernel_cache']['wall_s'] * 1e3:.0f} ms from the kernel cache "
        f"({summary['6_fresh_warm_kernel_cache']['ratio_to_plain']:.2f}x plain), "
        f"(7) plain cache hit {summary['7_plain_kernel_cache_with_coop_imported']['cache_hit']}, "
        f"import cuda.coop {summary['import_coop_only_s'] * 1e3:.0f} ms -> {args.json}"
    )
    lines = stage_check(summary)
    print("\n".join(lines))
    if any(line.startswith("!") for line in lines):
        raise SystemExit("cuda.coop's share is not accounted for by its stages within 5% (lines marked !)")


if __name__ == "__main__":
    main()
