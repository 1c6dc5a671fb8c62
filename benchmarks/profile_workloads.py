"""One launch of each library's kernel of the chosen row workloads (workloads.py: layer norm,
softmax), inside a profiler range: run under Nsight Compute (`ncu --profile-from-start off`, as
benchmarks/ncu_rows.sh does with COOP_NCU_WORKLOADS) it profiles exactly those launches, so a
workload's gap to Triton or torch can be read in memory traffic, occupancy and stalls.

    python3 benchmarks/profile_workloads.py --only layer_norm,softmax --json LAUNCHES.json
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import cupy as cp
import torch
import workloads

SHAPES = {
    "layer_norm": [(shape, workloads.layer_norm_launches) for shape in workloads.LAYER_NORM_SHAPES],
    "softmax": [(workloads.SOFTMAX_SHAPE, workloads.softmax_launches)],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    parser.add_argument("--json", type=pathlib.Path, required=True, help="which profiled launch is which")
    args = parser.parse_args()
    labels = []
    for name in args.only.split(","):
        for (count, columns), launches_of in SHAPES[name]:
            launches, _, _ = launches_of(count, columns)
            for launch in launches.values():  # compiles outside the profiled range
                launch()
            torch.cuda.synchronize()
            cp.cuda.profiler.start()
            for library, launch in launches.items():
                launch()
                labels.append({"label": f"{name} [{count}, {columns}] {library}"})
            torch.cuda.synchronize()
            cp.cuda.profiler.stop()
            print(f"{name} [{count}, {columns}]: profiled {', '.join(launches)}", file=sys.stderr)
    args.json.write_text(json.dumps(labels, indent=1))


if __name__ == "__main__":
    main()
