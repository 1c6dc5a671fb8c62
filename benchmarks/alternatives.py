"""What users pick instead of cuda.coop for a row's work, timed beside it: the same
segmented reduction or inclusive scan of the same tiles written with PyTorch
(`torch.sum` / `torch.cumsum` along the tile axis) and with CuPy (`cupy.sum` /
`cupy.cumsum`), each one library call into a preallocated output. A ratio above 1
means the coop kernel is that many times faster. Rows without such a call (copies,
exchanges, shuffles, exclusive scans, whose library spelling is two kernels, and
broadcasts, whose output is the same as the plain sum's) have none. Triton is not
compared: it has no library call for these; it would need a kernel of ours."""

from __future__ import annotations

import configs
import cupy as cp
import reference
import timing

try:
    import torch
except ImportError:  # a machine without torch times CuPy only
    torch = None


def _compared(config: configs.Config) -> bool:
    if config.broadcast or config.threads != configs.DEFAULT_THREADS:
        return False
    return config.operation == "sum" or config.operation == "inclusive_sum"


def launches(config: configs.Config, sources: list, outputs: list) -> dict:
    """{library: launch(i)}: the row's work on the tiles of sources[i] into outputs[i]."""
    if not _compared(config):
        return {}
    tile = config.group_tile
    dtype = cp.dtype(config.dtype)
    tiles = [source.view(dtype).reshape(-1, tile) for source in sources]
    summing = config.operation == "sum"
    if summing:  # one value per tile
        results = [output.view(dtype)[: tiles[0].shape[0]] for output in outputs]
    else:
        results = [output.view(dtype).reshape(-1, tile) for output in outputs]
    cupy_call = cp.sum if summing else cp.cumsum
    found = {"cupy": lambda i: cupy_call(tiles[i], axis=1, dtype=dtype, out=results[i])}
    if torch is not None:
        # Zero-copy views of the same buffers; both libraries launch on the legacy default stream.
        torch_tiles = [torch.as_tensor(each, device="cuda") for each in tiles]
        torch_results = [torch.as_tensor(each, device="cuda") for each in results]
        torch_dtype, torch_call = torch_tiles[0].dtype, torch.sum if summing else torch.cumsum
        found["torch"] = lambda i: torch_call(torch_tiles[i], dim=1, dtype=torch_dtype, out=torch_results[i])
    return found


def check(config: configs.Config, launch, sources: list, outputs: list, expected) -> bool:
    """Whether a library's output on sources[0] matches cuda.coop's (`expected`, the
    coop kernel's output buffer): exactly for int32, to float32 rounding for float32."""
    outputs[0].fill(0)
    launch(0)
    cp.cuda.runtime.deviceSynchronize()
    count = config.outputs(sources[0].size)
    got, want = outputs[0].view(config.dtype)[:count], expected.view(config.dtype)[:count]
    if config.dtype == "int32":
        return bool(cp.array_equal(got, want))
    scale = float(cp.abs(sources[0].view(config.dtype)).reshape(-1, config.group_tile).sum(axis=1).max())
    return bool(cp.abs(got - want).max() <= reference.REFERENCE_TOLERANCE * max(scale, 1.0))


def rates(samples: dict, coop_ms: float) -> dict:
    """{library}_ms and {library}_ratio (its time / coop's) for each library timed."""
    found = {}
    for library in ("torch", "cupy"):
        if library in samples:
            found[f"{library}_ms"] = timing.median(samples[library])
            found[f"{library}_ratio"] = found[f"{library}_ms"] / coop_ms
    return found
