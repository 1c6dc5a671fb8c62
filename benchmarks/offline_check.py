"""What can be checked without a GPU: the twins generate and compile for sm_90,
every row's Python kernel compiles for its launch (compile_for_launch), and the
SASS of both kernels side by side (instructions, registers, BAR, LDL/STL, CALL,
global access widths), flagging rows where cuda.coop's kernel has local memory, calls,
a different barrier count or different global access widths than its twin, and
ending with the range of the instruction-count difference per family.

    python3 benchmarks/offline_check.py [--filter PATTERN] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile

import configs
import numpy as np
import prewarm
import sass
import twins
from numba_cuda_mlir import tools


def flags(coop: dict, twin: dict) -> list[str]:
    found = []
    if coop["LDL"] or coop["STL"]:
        found.append("local memory")
    if coop["CALL"]:
        found.append("call")
    if coop["BAR"] != twin["BAR"]:
        found.append(f"BAR {coop['BAR']} vs {twin['BAR']}")
    if coop["global_widths"] != twin["global_widths"]:
        found.append(f"global accesses {coop['global_widths']} vs {twin['global_widths']}")
    return found


def registers(resources) -> int:
    """Registers per thread, -1 where the cubin does not say."""
    return resources.registers if resources is not None else -1


def instruction_differences(report: list) -> dict:
    """{family: (least, most) coop instructions less the twin's}."""
    differences = {}
    for entry in report:
        difference = entry["coop"]["instructions"] - entry["twin"]["instructions"]
        low, high = differences.get(entry["family"], (difference, difference))
        differences[entry["family"]] = (min(low, difference), max(high, difference))
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    rows = configs.select(configs.all_configs(), args.filter)
    tools._cached_cc = prewarm.ARCH  # no device: compile for the H200
    import coop_kernels

    from cuda.coop._engine_session import engine
    from cuda.coop.numba_mlir import _resources
    from cuda.coop.numba_mlir._explain import compile_for_launch

    with tempfile.TemporaryDirectory() as work:
        cubin = pathlib.Path(work) / "twins.cubin"
        # against the CCCL the engine compiles with, as benchmarks/run.sh builds them
        _, seconds = twins.build(rows, cubin, cubin.with_suffix(".cu"), engine().toolkit["cccl_include"])
        print(f"twins: {len(rows)} kernels compiled for {twins.ARCH} in {seconds:.1f} s")
        twin_code = sass.disassemble(cubin) if sass.cuobjdump() else ""
        twin_cubin = cubin.read_bytes()
    if not twin_code:
        print("cuobjdump not found: compiling the Python kernels without SASS")
    twin_sass = sass.split_functions(twin_code)
    width = max(len(config.name) for config in rows)
    report, failed = [], 0
    for config in rows:
        kernel = coop_kernels.kernel_for(config)
        source = kernel.typeof_pyval(np.zeros(1, dtype=config.dtype))
        destination = kernel.typeof_pyval(np.zeros(1, dtype=config.output_dtype))
        try:
            grid = config.grid(prewarm.BUFFER_BYTES)
            result = compile_for_launch(kernel, [source, destination], grid, config.threads, cluster=config.cluster)
        except Exception as error:  # noqa: BLE001 -- reported per row
            failed += 1
            print(f"{config.name:{width}s} FAILED: {error}")
            continue
        if not twin_sass:
            print(f"{config.name:{width}s} compiled")
            continue
        coop = sass.counts(sass.disassemble(result.metadata["cubin"]))
        twin = sass.counts(twin_sass[config.name])
        coop["registers"] = registers(_resources.of_kernel(result.metadata["cubin"], result.metadata["func_name"]))
        twin["registers"] = registers(_resources.of_kernel(twin_cubin, config.name))
        found = flags(coop, twin)
        report.append({"name": config.name, "family": config.family, "coop": coop, "twin": twin, "flags": found})
        print(
            f"{config.name:{width}s} instructions {coop['instructions']:4d} vs {twin['instructions']:4d}  "
            f"registers {coop['registers']:3d} vs {twin['registers']:3d}  "
            f"BAR {coop['BAR']} vs {twin['BAR']}  {'; '.join(found) or 'same shape'}"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    for family, (low, high) in instruction_differences(report).items():
        print(f"{family}: coop has {low:+d} to {high:+d} instructions against its twin")
    flagged = sum(bool(entry["flags"]) for entry in report)
    print(f"{len(rows) - failed} compiled, {failed} failed; {flagged} rows flagged")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
