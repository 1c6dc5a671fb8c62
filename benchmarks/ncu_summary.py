"""The metrics that explain a row's gap, cuda.coop's kernel beside its twin, from the raw CSV
that benchmarks/ncu_rows.sh has Nsight Compute write: time, DRAM and L2 traffic, achieved
occupancy, instructions, and the largest warp stall reasons. With the launches that
profile_workloads.py lists instead of rows, one table line per library's kernel.

    python3 benchmarks/ncu_summary.py NCU.csv ROWS_OR_LAUNCHES.json [--json OUT.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import pathlib
import re

METRICS = {
    "us": "gpu__time_duration.sum",
    "dram_GBps": "dram__bytes.sum.per_second",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "instructions": "inst_executed",
    "issue_active_pct": "sm__issue_active.avg.pct_of_peak_sustained_elapsed",
    "uniform_pipe_pct": "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed",
    "registers": "launch__registers_per_thread",
    "shared_static": "launch__shared_mem_per_block_static",
}
STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def read(path: pathlib.Path) -> tuple[list[str], dict, list[dict]]:
    """(header, units, one dict per profiled kernel); the lines before the header are the
    profiled program's and the profiler's own."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    rows = list(csv.reader(lines[start:]))
    header, units = rows[0], dict(zip(rows[0], rows[1]))
    return header, units, [dict(zip(header, row)) for row in rows[2:] if len(row) == len(header)]


def number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


# ncu's base units (--print-units base) into the summary's
SCALE = {"us": {"ns": 1e-3, "nsecond": 1e-3, "us": 1, "usecond": 1}, "dram_GBps": {"byte/s": 1e-9, "byte/second": 1e-9}}


def scaled(name: str, value: float | None, unit: str) -> float | None:
    if value is None or name not in SCALE:
        return value
    if unit not in SCALE[name]:
        raise ValueError(f"{METRICS[name]} in {unit!r}: not a unit this summary knows")
    return value * SCALE[name][unit]


def summary(kernel: dict, units: dict) -> dict:
    found = {
        name: scaled(name, number(kernel.get(metric, "")), units.get(metric, "")) for name, metric in METRICS.items()
    }
    stalls = {match.group(1): number(value) for key, value in kernel.items() if (match := STALL.match(key))}
    found["top_stalls"] = dict(sorted(((k, v) for k, v in stalls.items() if v), key=lambda kv: -kv[1])[:5])
    return found


def shown(value: float | None) -> str:
    return f"{'-':>12s}" if value is None else f"{value:12.5g}"


def labelled(launches: list, kernels: list, units: dict) -> list:
    """Each launch of profile_workloads.py beside its kernel's metrics, printed as a table."""
    if len(kernels) != len(launches):
        raise SystemExit(f"{len(kernels)} profiled kernels for {len(launches)} launches: expected one each")
    report = [
        {"label": launch["label"], "kernel": kernel["Kernel Name"], **summary(kernel, units)}
        for launch, kernel in zip(launches, kernels)
    ]
    width = max(len(entry["label"]) for entry in report)
    print(f"{'launch':{width}s} " + " ".join(f"{name:>12s}" for name in METRICS))
    for entry in report:
        print(f"{entry['label']:{width}s} " + " ".join(shown(entry[name]) for name in METRICS))
        print(f"{'':{width}s} stalls {entry['top_stalls']}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", type=pathlib.Path)
    parser.add_argument("rows", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    _, units, kernels = read(args.csv)
    rows = json.loads(args.rows.read_text())
    if rows and "label" in rows[0]:  # profile_workloads.py: one kernel per labelled launch
        report = labelled(rows, kernels, units)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
        return
    # profile_rows.py launches each row's coop kernel, then its twin: one row's coop
    # kernels all have the same name, so the launches pair up by their order
    if len(kernels) != 2 * len(rows):
        raise SystemExit(f"{len(kernels)} profiled kernels for {len(rows)} rows: expected two per row")
    report = []
    for row, coop, twin in zip(rows, kernels[0::2], kernels[1::2]):
        if (coop["Kernel Name"], twin["Kernel Name"]) != (row["coop"], row["twin"]):
            raise SystemExit(f"{row['row']}: profiled {coop['Kernel Name']} and {twin['Kernel Name']}")
        entry = {"row": row["row"], "coop": summary(coop, units), "twin": summary(twin, units)}
        report.append(entry)
        print(entry["row"])
        for name in METRICS:
            print(f"  {name:17s} coop {shown(entry['coop'][name])}  twin {shown(entry['twin'][name])}")
        print(f"  stalls coop {entry['coop']['top_stalls']}\n  stalls twin {entry['twin']['top_stalls']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
