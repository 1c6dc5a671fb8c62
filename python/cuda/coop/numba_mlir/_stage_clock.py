"""Seconds per stage of one planner run: what cuda.coop's share of a kernel's compile
is made of (find, groups, facts, plan, bundle, record, storage, rewrite), handed to
the planner's stage recorders (the compile-latency benchmark) so that no stage hides
in a total. The bundle stage's engine part is split further by the engine itself
(Bundle.stages: toolkit, emit, cache read, NVRTC load, NVRTC wait, NVRTC, cache write)."""

from __future__ import annotations

import contextlib
import time


class StageClock:
    def __init__(self):
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, stage: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start
