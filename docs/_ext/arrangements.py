"""SVG pictures of how a tile is spread over the threads of a group: blocked,
striped and warp-striped. Plain SVG text, no plotting library: each picture shows
the tile in memory (one cell per element, coloured by the thread that holds it)
above each thread's items.

    python3 docs/_ext/arrangements.py OUT_DIR
"""

from __future__ import annotations

import pathlib
import sys

THREADS, ITEMS, WARP = 8, 4, 4  # a small block: 8 threads in 2 warps of 4 lanes, 4 items each
TILE = THREADS * ITEMS
CELL, GAP = 26, 6
COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"]


def blocked(thread: int, item: int) -> int:
    return thread * ITEMS + item


def striped(thread: int, item: int) -> int:
    return item * THREADS + thread


def warp_striped(thread: int, item: int) -> int:
    warp, lane = divmod(thread, WARP)
    return warp * WARP * ITEMS + item * WARP + lane


ARRANGEMENTS = {
    "blocked": (blocked, "thread t holds tile elements t*4 .. t*4+3"),
    "striped": (striped, "thread t holds tile elements t, t+8, t+16, t+24"),
    "warp_striped": (warp_striped, "each warp takes a run of 16 elements; lane l of it holds l, l+4, l+8, l+12"),
}


def _cell(x: float, y: float, text: str, color: str, label: str) -> str:
    return (
        f'<g><title>{label}</title><rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{color}" '
        f'stroke="white" stroke-width="1.5"/><text x="{x + CELL / 2}" y="{y + CELL / 2 + 4}" '
        f'text-anchor="middle" font-size="13" fill="white">{text}</text></g>'
    )


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = 14) -> str:
    return f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="{size}" fill="#333">{text}</text>'


def svg(name: str) -> str:
    """One picture: the tile in memory on top, each thread's items below it."""
    place, caption = ARRANGEMENTS[name]
    left, top, spacing = 50, 38, 10
    group = ITEMS * CELL + spacing  # one thread's items, and the space after them
    width = left + max(TILE * CELL, THREADS * group) + 10
    rows_top = top + CELL + 58
    height = rows_top + CELL + 10
    owner = {place(t, i): (t, i) for t in range(THREADS) for i in range(ITEMS)}
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" font-family="sans-serif" role="img" aria-label="{name.replace("_", "-")} arrangement">'
        ),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        _text(left, 18, f"{name.replace('_', '-')}: {caption}", size=16),
        _text(left - 8, top + CELL / 2 + 4, "tile", "end"),
        _text(left - 8, rows_top + CELL / 2 + 4, "items", "end"),
    ]
    for element in range(TILE):
        thread, item = owner[element]
        label = f"tile[{element}] is items[{item}] of thread {thread}"
        parts.append(_cell(left + element * CELL, top, str(element), COLORS[thread], label))
    for thread in range(THREADS):
        x = left + thread * group
        warp_mark = f" (warp {thread // WARP})" if name == "warp_striped" else ""
        parts.append(_text(x, rows_top - 8, f"thread {thread}{warp_mark}", size=12))
        for item in range(ITEMS):
            element = place(thread, item)
            label = f"items[{item}] of thread {thread} is tile[{element}]"
            parts.append(_cell(x + item * CELL, rows_top, str(element), COLORS[thread], label))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_all(directory: pathlib.Path) -> list[pathlib.Path]:
    written = []
    for name in ARRANGEMENTS:
        path = directory / f"{name}.svg"
        text = svg(name)
        if not path.exists() or path.read_text() != text:  # unchanged pictures keep their time stamps
            path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for path in write_all(out):
        print(path)
