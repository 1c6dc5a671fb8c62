"""The report: merges the kernel-speed and compile-latency JSON with the
environment, prints the table and its summary lines (last, so the end of the
output carries them), and writes results.json and results.png under --out and a
lean copy (no per-run samples) as benchmarks/results/<date>_<gpu>_<versions>.json.

    python3 benchmarks/report.py --speed S.json --latency L.json --out DIR [--results DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib

import environment

TARGETS = {
    "geomean": 0.98,  # twin time / coop time, per family
    "row": 0.95,  # every row
    "of_copy": 0.90,  # the tile copy against the measured copy bandwidth
    "second_kernel_s": 0.4,  # (2) coop's share
    "warm_cache_s": 0.030,  # (3) coop's share
    "launch_overhead": 0.10,  # (4) against the kernel without coop
}
REPRESENTATIVE = "block_transpose_int32_256x4"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def sass_cell(counts: dict | None) -> str:
    if not counts:
        return "-"
    local = counts["LDL"] + counts["STL"]
    registers = f" R{counts['registers']}" if counts.get("registers") else ""  # results before 2026-12-03 lack them
    return f"{counts['instructions']:3d}{registers} B{counts['BAR']} L{local} C{counts['CALL']}"


def speed_table(speed: dict) -> list[str]:
    width = max((len(row["name"]) for row in speed["rows"]), default=3)
    header = f"{'row':{width}s} {'coop us':>8s} {'twin us':>8s} {'twin/coop':>9s} {'coop GB/s':>9s} {'of copy':>7s}"
    lines = [f"{header}  {'SASS coop (instrs Regs Bar Local Call)':>22s} | twin"]
    for row in speed["rows"]:
        if "ratio" not in row:
            why = row.get("error") or f"WRONG OUTPUT: {row.get('why')}"
            lines.append(f"{row['name']:{width}s} {why[:300]}")
            continue
        counts = row.get("sass") or {}
        lines.append(
            f"{row['name']:{width}s} {row['coop_ms'] * 1e3:8.1f} {row['twin_ms'] * 1e3:8.1f} {row['ratio']:9.3f}"
            f" {row['coop_GBps']:9.0f} {row['coop_of_copy']:7.1%}  {sass_cell(counts.get('coop')):>22s}"
            f" | {sass_cell(counts.get('twin'))}"
        )
    return lines


def speed_summary(speed: dict) -> list[str]:
    summary, rows = speed["summary"], {row["name"]: row for row in speed["rows"]}
    copy_bw = speed["copy_bandwidth"]
    at_end = f"{copy_bw.get('GBps_at_end', float('nan')):.0f} GB/s at the end of the run"
    lines = [
        f"copy bandwidth (cudaMemcpy D2D, read + write, {copy_bw['bytes'] >> 20} MiB): {copy_bw['GBps']:.0f} GB/s ({at_end})",
        f"rows: {summary['rows']}, wrong outputs: {len(summary['wrong'])} {summary['wrong'] or ''}".rstrip(),
        f"noise (a twin against itself, median row): {summary['noise']:.2%}",
    ]
    if not summary["geomean"]:
        return [*lines, "kernel speed: no row was timed"]
    of_copy = summary.get("of_copy_median", {})
    for family, value in summary["geomean"].items():
        bandwidth = f"; coop at {of_copy[family]:.0%} of copy bandwidth (median row)" if family in of_copy else ""
        lines.append(
            f"{family}: geomean twin/coop {value:.3f} (target >= {TARGETS['geomean']}): "
            f"{verdict(value >= TARGETS['geomean'])}{bandwidth}"
        )
    sums = [row for row in speed["rows"] if row.get("dtype") == "float32" and row.get("operation", "copy") != "copy"]
    if sums:
        same = sum(bool(row.get("bitwise_equal")) for row in sums)
        others = [row["name"] for row in sums if not row.get("bitwise_equal")]
        named = f" (not: {', '.join(others[:8])}{', ...' if len(others) > 8 else ''})" if others else ""
        lines.append(f"float32 reductions and scans: coop and twin bitwise equal in {same}/{len(sums)} rows{named}")
    below = summary["below_0_95"]
    named = ", ".join(below[:8]) + (", ..." if len(below) > 8 else "")
    lines.append(
        f"lowest row: {summary['min_row']} {summary['min_ratio']:.3f}; rows below {TARGETS['row']}: "
        f"{len(below)} {f'({named}) ' if below else ''}{verdict(not below)}"
    )
    representative = rows.get(REPRESENTATIVE, {})
    if "coop_of_copy" in representative:
        lines.append(
            f"tile copy ({REPRESENTATIVE}): {representative['coop_GBps']:.0f} GB/s = "
            f"{representative['coop_of_copy']:.1%} of copy (target >= {TARGETS['of_copy']:.0%}): "
            f"{verdict(representative['coop_of_copy'] >= TARGETS['of_copy'])}; "
            f"best row {summary['best_of_copy_row']} {summary['best_of_copy']:.1%}"
        )
        counts = representative.get("sass") or {}
        for side in ("coop", "twin"):
            if counts.get(side):
                c = counts[side]
                lines.append(
                    f"  SASS {side}: {c['instructions']} instructions, LDL {c['LDL']} STL {c['STL']} BAR {c['BAR']} "
                    f"CALL {c['CALL']}, global {c['global_widths']}"
                )
    for family, libraries in summary.get("alternatives_geomean", {}).items():
        spelled = ", ".join(f"{library} {ratio:.2f}x coop's time" for library, ratio in libraries.items())
        lines.append(f"{family} against what users pick instead (geomean): {spelled}")
    lines.append(
        f"kernel-speed compiles: {summary['compile_seconds']:.1f} s of first launches, "
        f"{summary['bundle_misses']} NVRTC misses after the prewarm"
    )
    return lines


def latency_summary(latency: dict) -> list[str]:
    s = latency["scenarios"]

    def split(x: dict) -> str:
        text = (
            f"first launch {x['wall_s']:.3f} s = kernel compiler {x['kernel_compiler_s']:.3f} s + cuda.coop "
            f"{x['coop_s']:.3f} s (engine {x['engine_calls_s']:.3f} s, NVRTC {x['nvrtc_s']:.3f} s); "
            f"without coop {x['plain_wall_s']:.3f} s"
        )
        if "import_coop_s" in x:
            text += f"; import cuda.coop before it {x['import_coop_s']:.3f} s"
        return text

    one, two, three, four = (
        s[k] for k in ("1_fresh_empty_cache", "2_second_kernel", "3_fresh_warm_cache", "4_repeated_launch")
    )
    lines = [f"compile latency of {latency['kernel']}:", f"(1) fresh process, empty cache: {split(one)}"]
    ok = two["coop_s"] <= TARGETS["second_kernel_s"]
    target = f"coop share target <= {TARGETS['second_kernel_s']} s"
    lines.append(f"(2) second kernel, same process: {split(two)}; {target}: {verdict(ok)}")
    ok = three["coop_s"] <= TARGETS["warm_cache_s"]
    target = f"coop share target <= {TARGETS['warm_cache_s'] * 1e3:.0f} ms"
    lines.append(f"(3) fresh process, warm cache: {split(three)}; {target}: {verdict(ok)}")
    ok = four["overhead"] <= TARGETS["launch_overhead"] and four["planner_runs"] == 0
    per_launch = f"{four['coop_us']:.1f} us with coop, {four['plain_us']:.1f} us without ({four['overhead']:+.1%}"
    lines.append(
        f"(4) repeated launch: {per_launch}, target within {TARGETS['launch_overhead']:.0%}); "
        f"planner runs {four['planner_runs']:.0f}, NVRTC {four['nvrtc_s']:.3f} s: {verdict(ok)}"
    )
    if "specialized_plain_us" in four:
        lines.append(
            f"    the kernel without coop specialized on its launch configuration: {four['specialized_plain_us']:.1f} us "
            f"({four['specialization_overhead']:+.1%}), the kernel compiler's launch-specialized dispatch"
        )
    return lines


FAMILY_COLORS = {
    "block": "tab:blue",
    "warp": "tab:orange",
    "block_reduce": "tab:green",
    "warp_reduce": "tab:olive",
    "block_scan": "tab:purple",
    "warp_scan": "tab:pink",
}


def plot_speed(axes, speed: dict) -> None:
    """Twin/coop and the fraction of copy bandwidth per row, coloured by family
    (the legend gives each family's geomean)."""
    from matplotlib.patches import Patch

    rows = [row for row in speed["rows"] if "ratio" in row]
    if not rows:
        return
    positions = range(len(rows))
    colors = [FAMILY_COLORS.get(row["family"], "tab:gray") for row in rows]
    axes[0].bar(positions, [row["ratio"] for row in rows], color=colors)
    for target, style in ((TARGETS["geomean"], "--"), (TARGETS["row"], ":")):
        axes[0].axhline(target, color="black", linestyle=style, linewidth=0.8)
    axes[0].set_ylabel("twin time / coop time")
    axes[0].set_title("Kernel speed: CUDA C++ twin time over cuda.coop time (>= 1: coop as fast)")
    axes[0].set_ylim(0.8, max(1.12, max(row["ratio"] for row in rows) + 0.06))  # the legend goes above the bars
    families = speed["summary"]["geomean"]
    handles = [
        Patch(color=FAMILY_COLORS.get(f, "tab:gray"), label=f"{f} (geomean {g:.3f})") for f, g in families.items()
    ]
    axes[0].legend(handles=handles, fontsize=7, ncol=len(handles), loc="upper center")
    axes[1].bar(positions, [row["coop_of_copy"] for row in rows], color=colors)
    axes[1].plot(positions, [row["twin_of_copy"] for row in rows], "k.", markersize=3)
    axes[1].axhline(TARGETS["of_copy"], color="black", linestyle="--", linewidth=0.8)
    axes[1].set_ylabel("fraction of copy bandwidth")
    title = (
        f"Achieved bandwidth (bytes read + written) over cudaMemcpy D2D ({speed['copy_bandwidth']['GBps']:.0f} GB/s)"
    )
    axes[1].set_title(f"{title}: bars coop, dots twin")
    for axis in axes:
        axis.set_xticks(positions, [row["name"] for row in rows], rotation=90, fontsize=5)
        axis.set_xlim(-1, len(rows))


def plot_latency(axis, latency: dict) -> None:
    labels, compiler, coop, plain = [], [], [], []
    for name, values in sorted(latency["scenarios"].items()):
        if isinstance(values, dict) and "coop_s" in values:  # scenarios of one first launch
            labels.append(name)
            compiler.append(values["kernel_compiler_s"])
            coop.append(values["coop_s"])
            plain.append(values["plain_wall_s"])
    axis.barh(labels, compiler, label="kernel compiler (link of the providers' LTO-IR included)")
    axis.barh(labels, coop, left=compiler, label="cuda.coop (planner, engine, NVRTC/cache)")
    axis.plot(plain, labels, "kD", label="the same kernel without coop")
    axis.set_xlabel(f"seconds to the end of the first launch of {latency['kernel']}")
    axis.legend()


def plot(speed: dict | None, latency: dict | None, path: pathlib.Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no PNG"
    rows = len(speed["rows"]) if speed else 0
    width = max(14, 0.09 * rows)  # room for every row's name
    figure, axes = plt.subplots(3, 1, figsize=(width, 14), gridspec_kw={"height_ratios": [3, 3, 2]})
    if speed:
        plot_speed(axes[:2], speed)
    if latency:
        plot_latency(axes[2], latency)
    figure.tight_layout()
    figure.savefig(path, dpi=130)
    return f"plot -> {path}"


def lean(document: dict) -> dict:
    """The document without per-run samples and raw process records."""
    result = copy.deepcopy(document)
    for row in (result.get("kernel_speed") or {}).get("rows", []):
        row.pop("samples", None)
    (result.get("compile_latency") or {}).pop("processes", None)
    return result


def load(path: pathlib.Path | None) -> dict | None:
    return json.loads(path.read_text()) if path and path.exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speed", type=pathlib.Path)
    parser.add_argument("--latency", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--results", type=pathlib.Path, help="folder for the lean copy")
    args = parser.parse_args()
    speed, latency = load(args.speed), load(args.latency)
    document = {"environment": environment.collect(), "targets": TARGETS, "kernel_speed": speed}
    document["compile_latency"] = latency
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(document, indent=1))
    notes = [plot(speed, latency, args.out / "results.png")]
    if args.results:
        args.results.mkdir(parents=True, exist_ok=True)
        target = args.results / f"{environment.tag(document['environment'])}.json"
        target.write_text(json.dumps(lean(document), indent=1) + "\n")
        notes.append(f"results -> {target}")
    env = document["environment"]
    lines = [] if not speed else speed_table(speed) + [""]
    lines.append(
        f"{env['gpu']} ({env['sm_count']} SMs), driver {env['driver']}, nvcc {env['nvcc']}, NVRTC {env['nvrtc']}, "
        f"CCCL {env['cccl']}, numba-cuda-mlir {env['numba_cuda_mlir']}, cuda.coop {env['cuda_coop']}, {env['date']}"
    )
    lines += speed_summary(speed) if speed else ["kernel speed: no results"]
    lines += latency_summary(latency) if latency else ["compile latency: no results"]
    print("\n".join(notes + lines))


if __name__ == "__main__":
    main()
