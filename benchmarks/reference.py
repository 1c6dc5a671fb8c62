"""The inputs of a row and the check of both kernels' outputs before it is timed.

A copy must equal its input bitwise (random bits: NaNs and denormals included).
A reduction or scan of int32 (random bits) must equal the reference exactly (a batched
reduction: each batch, item b of every lane of a warp tile):
computed on uint32, sums wrap the same in any order. Of float32 (uniform in
[-1, 1), so that the order of the additions shows in the last bits), both kernels
must be within 2^-16 times the tile's sum of |x| of a float64 reference (room for
256 float32 roundings along a path of additions), and within 2^-20 times it of
each other. They should be bitwise equal, being the same CUB code adding in the
same order; whether they are is recorded, not required. A sorting row's output must equal
each tile sorted as CUB sorts it (radix order, stable), its stable argsort, its ranks, or
(top-k) the tile's largest keys as a set. A neighbour row's must equal, bitwise, each item's
difference to its neighbour or its flags, the grid's tiles forming a cycle (so the whole buffer
rolled by one item gives every neighbour, the tiles' own included): int32 on random bits (the
differences wrap), float32 uniform in [-1, 1) (one rounding, the same on both sides), and for
flags integers below configs.SMALL_VALUES, so that runs of equal items occur. A histogram
row's must equal each tile's bincount: uint8 samples are random bits, int32 ones are drawn
below their 64 bins. A run-length row's must equal, bitwise, the first window of each tile's
np.repeat(values, lengths): its runs are integers from 1 to configs.SMALL_VALUES - 1, values
and lengths alike (a zero length before a positive one traps)."""

from __future__ import annotations

import configs
import cupy as cp

REFERENCE_TOLERANCE = 2.0**-16
AGREEMENT_TOLERANCE = 2.0**-20


def random_bits(elements: int):
    """Random 32-bit words (as float32: NaNs and denormals included; the copy moves bits)."""
    return cp.random.randint(0, 1 << 32, size=elements, dtype=cp.int64).astype(cp.uint32)


def input_kind(config: configs.Config) -> str:
    """What the row's input buffers hold: "bits", "uniform", "small int32" / "small float32"
    (integers below configs.SMALL_VALUES, as that dtype) or "positive small int32" (from 1)."""
    if config.primitive == "run_length_decode":
        return f"positive small {config.dtype}"
    if config.primitive == "discontinuity" or (config.primitive == "histogram" and config.dtype != "uint8"):
        return f"small {config.dtype}"
    return "uniform" if not config.moves_bits and config.dtype == "float32" else "bits"


def fill(kind: str, buffer) -> None:
    """Fills a uint32 buffer with new input of `kind`."""
    if kind == "uniform":
        buffer.view(cp.float32)[...] = cp.random.uniform(-1, 1, size=buffer.size, dtype=cp.float32)
    elif "small " in kind:
        low = 1 if kind.startswith("positive ") else 0
        small = cp.random.randint(low, configs.SMALL_VALUES, size=buffer.size, dtype=cp.int32)
        buffer.view(kind.split()[-1])[...] = small.astype(kind.split()[-1])
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


def batch_sums(config: configs.Config, source):
    """(each warp tile's batch sums shaped (tiles, batches), their sums of |x| or None): batch b
    of a tile is item b of every lane, lane l's items at l x batches (a direct load)."""
    if config.dtype == "int32":
        lanes = source.view(cp.uint32).reshape(-1, configs.WARP_THREADS, config.items)
        return lanes.sum(axis=1, dtype=cp.uint32), None  # wrapping, as the device's
    lanes = source.view(cp.float32).astype(cp.float64).reshape(-1, configs.WARP_THREADS, config.items)
    return lanes.sum(axis=1), cp.abs(lanes).sum(axis=1)


def expected(config: configs.Config, source):
    """(the expected output shaped (tiles, outputs per tile), the tiles' sums of |x| or None)."""
    if config.primitive == "reduce_batched":
        return batch_sums(config, source)
    inclusive, values, scale = _tile_scans(config, source)
    if config.primitive == "reduce":
        return inclusive[:, -1:], scale
    if config.operation == "exclusive_sum":
        return inclusive - values, scale
    return inclusive, scale


def ordered_bits(keys):
    """The unsigned bits CUB's radix traits order keys by (uint32 as they are, float32 in its
    total order with -0.0 taken as +0.0): a stable sort by them is cub::BlockRadixSort's."""
    bits = keys.view(cp.uint32)
    if keys.dtype != cp.float32:
        return bits
    sign = cp.uint32(1 << 31)
    bits = cp.where(keys == 0, cp.uint32(0), bits)
    return cp.where(bits & sign, ~bits, bits ^ sign)


def sorted_tiles(config: configs.Config, source):
    """What a sorting row writes, shaped (tiles, group tile), and how many leading items of each
    tile count (all; the top-k's first k): keys (or the values that are their copies) sorted
    stably in radix order, merge sorts by value, ranks as int32."""
    keys = source.view(config.dtype).reshape(-1, config.group_tile)
    if config.primitive == "merge_sort":
        return cp.sort(keys, axis=1), config.group_tile
    if config.primitive == "radix_rank":
        digits = ordered_bits(keys) & cp.uint32((1 << configs.RANK_BITS) - 1)
        order = cp.argsort(digits, axis=1, kind="stable")
        ranks = cp.empty_like(order)
        cp.put_along_axis(ranks, order, cp.arange(config.group_tile)[None, :].repeat(order.shape[0], 0), axis=1)
        return ranks.astype(cp.int32), config.group_tile
    order = cp.argsort(ordered_bits(keys), axis=1, kind="stable")
    if config.primitive == "topk":  # the k largest, compared as sorted sets
        return cp.sort(cp.take_along_axis(keys, order[:, -configs.TOPK_K :], axis=1), axis=1), configs.TOPK_K
    return cp.take_along_axis(keys, order, axis=1), config.group_tile  # the keys, or their copies moved with them


def _check_sort(config: configs.Config, source, outputs: dict) -> list:
    """The sides whose output is not the sorted tiles (reference: sorted_tiles)."""
    reference, count = sorted_tiles(config, source)
    wrong = []
    for side, out in outputs.items():
        got = out.view(config.output_dtype).reshape(reference.shape[0], -1)[:, :count]
        if config.primitive == "topk":
            got = cp.sort(got, axis=1)
        if not cp.array_equal(got.view(cp.uint32), reference.view(cp.uint32)):
            wrong.append(side)
    return wrong


def neighbours(config: configs.Config, source):
    """What a neighbour or histogram row writes, as uint32 words: each item's difference to its
    left or right neighbour, its head flag, head | tail << 1, or each tile's bins in order."""
    items = source.view(config.dtype)
    if config.primitive == "histogram":
        return tile_bincounts(config, items).view(cp.uint32)
    before, after = cp.roll(items, 1), cp.roll(items, -1)
    if config.primitive == "adjacent_difference":
        if config.dtype == "int32":  # wrapping, as the device's
            items, before, after = (each.view(cp.uint32) for each in (items, before, after))
        return (items - (before if config.operation == "left" else after)).view(cp.uint32)
    heads = (before != items).astype(cp.int32)
    if config.operation == "heads_and_tails":
        heads |= (items != after).astype(cp.int32) << 1
    return heads.view(cp.uint32)


def tile_bincounts(config: configs.Config, samples):
    """Each block tile's histogram, int32, the tiles one after another; samples read as their
    unsigned bits and those not below the bins not counted."""
    tiles, bins = samples.size // config.block_tile, config.bins
    unsigned = samples.view(f"uint{8 * samples.dtype.itemsize}").astype(cp.int64)
    keys = cp.arange(samples.size, dtype=cp.int64) // config.block_tile * bins + unsigned
    keys = cp.where(unsigned < bins, keys, tiles * bins)  # past the last tile's bins: dropped below
    return cp.bincount(keys, minlength=tiles * bins + 1)[:-1].astype(cp.int32)


def decoded_windows(config: configs.Config, source):
    """What a run-length row writes, as uint32 words: each tile's first window of
    threads x decoded_items items of np.repeat(values, lengths), the tile's first half holding
    its runs' values and its second half their lengths (runs blocked: in memory order)."""
    tiles = source.view(config.dtype).reshape(-1, config.block_tile)
    runs = config.block_tile // 2
    values, lengths = tiles[:, :runs], tiles[:, runs:].astype(cp.int64)
    window = config.threads * config.decoded_items
    # Each tile's run ends, made increasing across tiles by a stride past any tile's total.
    stride = int(lengths.sum(axis=1).max()) + window + 1
    ends = (cp.cumsum(lengths, axis=1) + stride * cp.arange(tiles.shape[0])[:, None]).reshape(-1)
    wanted = (cp.arange(window)[None, :] + stride * cp.arange(tiles.shape[0])[:, None]).reshape(-1)
    run = cp.searchsorted(ends, wanted, side="right")  # the run holding each decoded index
    tile = cp.repeat(cp.arange(tiles.shape[0]), window)
    inside = run < (tile + 1) * runs  # an index at or past the tile's total decodes to 0
    decoded = cp.where(inside, values.reshape(-1)[cp.minimum(run, values.size - 1)], 0)
    return decoded.astype(config.output_dtype).view(cp.uint32)


def check(config: configs.Config, source, coop, twin) -> dict:
    """{"correct": bool, "why": when not, "bitwise_equal" and, for float32, "max_difference"
    (coop against twin, over the tile's sum of |x|)}. `source`, `coop` and `twin` are
    uint32 arrays; the outputs' first config.outputs(n) elements count."""
    count = config.outputs(config.elements(source.nbytes))
    outputs = {"coop": coop[:count], "twin": twin[:count]}
    result = {"bitwise_equal": bool(cp.array_equal(outputs["coop"], outputs["twin"]))}
    if config.sorts:
        wrong = _check_sort(config, source, outputs)
    elif config.primitive in ("adjacent_difference", "discontinuity", "histogram", "run_length_decode"):
        # not `expected`: that name is the function below
        words = (
            decoded_windows(config, source) if config.primitive == "run_length_decode" else neighbours(config, source)
        )
        wrong = [side for side, out in outputs.items() if not cp.array_equal(out, words)]
    elif config.moves_bits:
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
        against = "input" if config.moves_bits and not config.sorts else "reference"
        result["why"] = f"{' and '.join(wrong)} {'differ' if len(wrong) > 1 else 'differs'} from the {against}"
    elif result.get("max_difference", 0.0) > AGREEMENT_TOLERANCE:
        result["why"] = f"coop and twin differ by {result['max_difference']:.2e} of the tile's sum of |x|"
    result["correct"] = "why" not in result
    return result
