"""Device timing as METHOD.md asks: CUDA events around each run, a spin kernel
queued first so that the host's launch cost (Python dispatch included) stays out
of the events, warm-up, the median of many runs, and inputs rotated among
buffers larger than L2. Also the device's measured copy bandwidth."""

from __future__ import annotations

import statistics

import cupy as cp

# Long enough to cover the host side of one launch through a Python dispatcher.
SPIN_NS = 100_000


class Timer:
    """Times launches on the current (legacy default) stream, each run between two
    events recorded while the GPU is still busy with the spin kernel queued before."""

    def __init__(self, spin, runs: int, warmup: int = 3):
        self.spin = spin  # the `spin` kernel of the twins' cubin (twins/spin.cuh)
        self.runs = runs
        self.warmup = warmup

    def interleaved(self, launches: dict, rotate: int) -> dict:
        """{name: [milliseconds]}: `runs` timings of each launch(buffer), the launches
        alternating run by run so that drift in clocks hits all alike; consecutive
        launches get consecutive buffers (mod `rotate`), so none reads what the one
        before left in L2."""
        counter = iter(range(1 << 62))
        for _ in range(self.warmup):
            for launch in launches.values():
                launch(next(counter) % rotate)
        pending = []
        for _ in range(self.runs):
            for name, launch in launches.items():
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                self.spin((1,), (1,), (cp.int64(SPIN_NS),))
                start.record()
                launch(next(counter) % rotate)
                stop.record()
                pending.append((name, start, stop))
        cp.cuda.runtime.deviceSynchronize()
        samples = {name: [] for name in launches}
        for name, start, stop in pending:
            samples[name].append(cp.cuda.get_elapsed_time(start, stop))
        return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float]) -> float:
    """Relative spread of the samples: (p75 - p25) / median."""
    quartiles = statistics.quantiles(values, n=4)
    return (quartiles[2] - quartiles[0]) / statistics.median(values)


def copy_bandwidth(timer: Timer, sources: list, destinations: list) -> dict:
    """Device-to-device cudaMemcpyAsync over the rotated buffers, counting the
    bytes read plus the bytes written, in GB/s (1e9 bytes)."""
    nbytes = sources[0].nbytes

    def launch(which: int) -> None:
        destinations[which].data.copy_from_device_async(sources[which].data, nbytes)

    samples = timer.interleaved({"memcpy": launch}, rotate=len(sources))["memcpy"]
    milliseconds = median(samples)
    return {"bytes": 2 * nbytes, "ms": milliseconds, "GBps": 2 * nbytes / milliseconds / 1e6, "spread": spread(samples)}
