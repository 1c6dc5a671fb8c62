"""The inputs of a row and the check of both kernels' outputs before it is timed.

A copy must equal its input bitwise (random bits: NaNs and denormals included).
A reduction or scan of int32 (random bits) must equal the reference exactly:
computed on uint32, sums wrap the same in any order. Of float32 (uniform in
[-1, 1), so that the order of the additions shows in the last bits), both kernels
must be within 2^-16 times the tile's sum of |x| of a float64 reference (room for
256 float32 roundings along a path of additions), and within 2^-20 times it of
each other. They should be bitwise equal, being the same CUB code adding in the
same order; whether they are is recorded, not required."""

from __future__ import annotations

import configs
import cupy as cp

REFERENCE_TOLERANCE = 2.0**-16
AGREEMENT_TOLERANCE = 2.0**-20


def random_bits(elements: int):
    """Random 32-bit words (as float32: NaNs and denormals included; the copy moves bits)."""
    return cp.random.randint(0, 1 << 32, size=elements, dtype=cp.int64).astype(cp.uint32)


def input_kind(config: configs.Config) -> str:
    """What the row's input buffers hold: "bits" or "uniform"."""
    return "uniform" if not config.moves_bits and config.dtype == "float32" else "bits"


def fill(kind: str, buffer) -> None:
    """Fills a uint32 buffer with new input of `kind`."""
    if kind == "uniform":
        buffer.view(cp.float32)[...] = cp.random.uniform(-1, 1, size=buffer.size, dtype=cp.float32)
    else:
        buffer[...] = random_bits(buffer.size)


def _tile_scans(config: configs.Config, source):
    """(inclusive scan of each group tile, the tiles' values, the tiles' sums of |x|),
    shaped (tiles, group_tile): exact uint32 for int32, float64 for float32."""
    if config.dtype == "int32":
        values = source.view(cp.uint32)
        scanned = cp.cumsum(values, dtype=cp.uint32)
    else:
        values = source.view(cp.float32).astype(cp.float64)
        scanned = cp.cumsum(values)
    values = values.reshape(-1, config.group_tile)
    scanned = scanned.reshape(-1, config.group_tile)
    inclusive = scanned - (scanned[:, :1] - values[:, :1])  # the running sum restarts at each tile
    scale = cp.abs(values).sum(axis=1, keepdims=True) if config.dtype == "float32" else None
    return inclusive, values, scale


def shifted_up(config: configs.Config, source):
    """Each block tile shifted up by one item; its first item keeps its own value (a
    shuffle's result starts as a copy of its input)."""
    tiles = source.reshape(-1, config.block_tile)
    moved = tiles.copy()
    moved[:, 1:] = tiles[:, :-1]
    return moved.reshape(-1)


def expected(config: configs.Config, source):
    """(the expected output shaped (tiles, outputs per tile), the tiles' sums of |x| or None)."""
    inclusive, values, scale = _tile_scans(config, source)
    if config.primitive == "reduce":
        return inclusive[:, -1:], scale
    if config.operation == "exclusive_sum":
        return inclusive - values, scale
    return inclusive, scale


def check(config: configs.Config, source, coop, twin) -> dict:
    """{"correct": bool, "why": when not, "bitwise_equal" and, for float32, "max_difference"
    (coop against twin, over the tile's sum of |x|)}. `source`, `coop` and `twin` are
    uint32 arrays; the outputs' first config.outputs(n) elements count."""
    count = config.outputs(source.size)
    outputs = {"coop": coop[:count], "twin": twin[:count]}
    result = {"bitwise_equal": bool(cp.array_equal(outputs["coop"], outputs["twin"]))}
    if config.moves_bits:
        moved = shifted_up(config, source) if config.primitive == "shuffle" else source
        wrong = [side for side, out in outputs.items() if not cp.array_equal(out, moved)]
    else:
        reference, scale = expected(config, source)
        outputs = {side: out.reshape(reference.shape) for side, out in outputs.items()}
        if scale is None:
            wrong = [side for side, out in outputs.items() if not cp.array_equal(out, reference)]
        else:
            outputs = {side: out.view(cp.float32).astype(cp.float64) for side, out in outputs.items()}
            bound = REFERENCE_TOLERANCE * scale
            wrong = [side for side, out in outputs.items() if not bool((cp.abs(out - reference) <= bound).all())]
            result["max_difference"] = float((cp.abs(outputs["coop"] - outputs["twin"]) / scale).max())
    if wrong:
        against = "input" if config.moves_bits else "reference"
        result["why"] = f"{' and '.join(wrong)} {'differ' if len(wrong) > 1 else 'differs'} from the {against}"
    elif result.get("max_difference", 0.0) > AGREEMENT_TOLERANCE:
        result["why"] = f"coop and twin differ by {result['max_difference']:.2e} of the tile's sum of |x|"
    result["correct"] = "why" not in result
    return result
