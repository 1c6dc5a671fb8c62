"""How the SASS of cuda.coop's kernels moved between two benchmark results: per
operation, the instruction count of each row's coop kernel in the newer result
minus the older's, and their local-memory traffic (LDL + STL). It shows what a
change to the generated code cost in instructions, e.g. fresh scan payloads
against the in-place scans before them.

    python3 benchmarks/sass_drift.py OLDER.json NEWER.json [--operations inclusive_sum exclusive_sum]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics


def coop_counts(path: pathlib.Path) -> dict:
    """{row name: (operation, coop SASS counts)} of the rows that carry SASS counts."""
    rows = json.loads(path.read_text())["kernel_speed"]["rows"]
    return {row["name"]: (row["operation"], row["sass"]["coop"]) for row in rows if (row.get("sass") or {}).get("coop")}


def drift(older: dict, newer: dict, operations) -> dict:
    """{operation: (rows, min, median, max instruction delta, local memory before, after)}."""
    by_operation = {}
    for name, (operation, counts) in newer.items():
        if name in older and (not operations or operation in operations):
            by_operation.setdefault(operation, []).append((older[name][1], counts))
    summary = {}
    for operation, pairs in sorted(by_operation.items()):
        deltas = [new["instructions"] - old["instructions"] for old, new in pairs]
        local = [sum(counts["LDL"] + counts["STL"] for counts in side) for side in zip(*pairs)]
        summary[operation] = (len(pairs), min(deltas), statistics.median(deltas), max(deltas), *local)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("older", type=pathlib.Path)
    parser.add_argument("newer", type=pathlib.Path)
    parser.add_argument("--operations", nargs="*", default=())
    args = parser.parse_args()
    print(f"{'operation':16s} rows  instructions (newer - older): min median max  local memory: older newer")
    for operation, (rows, low, middle, high, before, after) in drift(
        coop_counts(args.older), coop_counts(args.newer), set(args.operations)
    ).items():
        print(f"{operation:16s} {rows:4d}  {low:+4d} {middle:+6.1f} {high:+4d}  {before:6d} {after:6d}")


if __name__ == "__main__":
    main()
