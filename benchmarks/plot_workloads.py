"""The workloads' plot: for each workload row of a workloads JSON (workloads.py), each
library's time over cuda.coop's (log scale; above 1, coop is faster; the nvcc twin's is
cuda.coop's overhead, its target 0.98) and each one's achieved bandwidth as a fraction of
the measured device-to-device copy (the memory-bound rows' target 0.90).

    python3 benchmarks/plot_workloads.py WORKLOADS.json OUT.png
"""

from __future__ import annotations

import argparse
import json
import pathlib

SIZE_KEYS = ("batch", "channels", "length", "rows", "columns")


def label(row: dict) -> str:
    size = "x".join(str(row[key]) for key in SIZE_KEYS if key in row)
    return f"{row['workload']}\n{size}"


def plot(document: dict, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in document["workloads"] if "of_copy" in row]
    libraries = sorted({library for row in rows for library in row["of_copy"]}, key=lambda name: name != "coop")
    figure, (ratios, bandwidth) = plt.subplots(2, 1, figsize=(max(10, 1.4 * len(rows)), 9))
    width = 0.8 / len(libraries)
    for index, library in enumerate(libraries):
        positions = [row_index + (index - len(libraries) / 2) * width for row_index in range(len(rows))]
        color = f"C{index}"  # one colour per library in both panels
        if library != "coop":
            ratios.bar(
                positions, [row["ratio"].get(library, float("nan")) for row in rows], width, color=color, label=library
            )
        bandwidth.bar(
            positions, [row["of_copy"].get(library, float("nan")) for row in rows], width, color=color, label=library
        )
    ratios.set_yscale("log")
    ratios.axhline(1.0, color="black", linewidth=0.8)
    ratios.axhline(0.98, color="black", linestyle=":", linewidth=0.8)
    ratios.set_ylabel("library time / cuda.coop time")
    ratios.set_title("Workloads: each library's time over cuda.coop's (above 1: cuda.coop is faster)")
    bandwidth.axhline(0.90, color="black", linestyle="--", linewidth=0.8)
    copy = document.get("copy_bandwidth", {}).get("GBps")
    bandwidth.set_ylabel("fraction of copy bandwidth")
    bandwidth.set_title(f"Achieved bandwidth over a device-to-device copy ({copy:.0f} GB/s)" if copy else "Bandwidth")
    for axis in (ratios, bandwidth):
        axis.set_xticks(range(len(rows)), [label(row) for row in rows], fontsize=7)
        axis.legend(fontsize=7)
    figure.suptitle(f"{document.get('device', '')}, Triton {document.get('triton') or 'absent'}")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", type=pathlib.Path)
    parser.add_argument("png", type=pathlib.Path)
    args = parser.parse_args()
    plot(json.loads(args.workloads.read_text()), args.png)
    print(f"plot -> {args.png}")


if __name__ == "__main__":
    main()
