"""fork() after a kernel compile: numba-cuda-mlir's compiler threads do not survive it, and a
kernel compile in the child then hangs forever inside the kernel compiler (with or without
cuda.coop). Every compile cuda.coop sees (the planner's hook, coop.explain) notes the process
it runs in; one in a process forked from a process that had compiled raises instead of hanging.

The process id says it: a forked child has another one than the parent whose compile was noted,
so no at-fork hook is needed, and a child that never compiles pays nothing."""

from __future__ import annotations

import os

from .._core.errors import ForkedProcessError

_compiled_in: int | None = None  # the process whose kernel compiler cuda.coop saw compile


def check_and_note_compile(what: str) -> None:
    """Raises ForkedProcessError naming `what` ("coop.explain", "kernel 'copy'") in a process
    forked after a kernel compile; otherwise notes that this process's kernel compiler runs."""
    global _compiled_in
    if _compiled_in is not None and _compiled_in != os.getpid():
        raise ForkedProcessError(
            f"{what}: this process was forked from process {_compiled_in} after the kernel compiler "
            "(numba-cuda-mlir) had compiled a kernel there; its compiler threads do not survive fork(), so a "
            "kernel compile here would hang forever. Start worker processes with the 'spawn' start method: "
            'multiprocessing.get_context("spawn") (or ProcessPoolExecutor(mp_context=that context)), or fork '
            "before the first kernel compile"
        )
    _compiled_in = os.getpid()
