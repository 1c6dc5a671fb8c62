"""Per-thread payloads and explicit shared scratch."""

from __future__ import annotations

from ..markers import Marker, host_call_error


class ThreadData:
    """A fixed per-thread array of `items_per_thread` values: a primitive's payload.

    It becomes a local array of the thread (registers, once the compiler has
    unrolled the loops over it); ``items[i]`` reads and writes item ``i``.

    Args:
        items_per_thread: a compile-time int ``>= 1``, or a kernel argument: the
            kernel is then specialized on its value at launch.
        dtype: a NumPy dtype or its name (``np.float32``, ``"int64"``); left
            out, it is inferred from the first primitive that fills it (`load`'s
            source) or from the values written to it. Two uses that disagree are
            a `PayloadInferenceError`.
        alignment: a minimum alignment of its storage in bytes, a compile-time
            power of two (``vectorize`` loads need the payload aligned to their
            vector width, which cuda.coop arranges by itself).

    Example:
        Items of a given dtype, filled by the thread::

            @cuda.jit
            def flags(values, counts):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                flag = coop.ThreadData(4, np.int32)
                for i in range(4):
                    flag[i] = 1 if items[i] > 0 else 0
                count = coop.sum(block, flag)
                if cuda.threadIdx.x == 0:
                    counts[0] = count

            values = np.linspace(-1, 1, 512).astype(np.float64)
            counts = np.zeros(1, dtype=np.int32)
            flags[1, 128](values, counts)
    """

    __coop_marker__ = Marker("ThreadData", "storage", True)

    def __new__(cls, items_per_thread, dtype=None, *, alignment=None):
        raise host_call_error("ThreadData")


class TempStorage:
    """Block shared memory for the scratch of the primitives that name it with
    ``temp_storage=``.

    Without it each call's scratch comes from one shared backing that cuda.coop
    sizes for the largest user and reuses, placing a barrier (``__syncthreads``
    for a block, ``__syncwarp`` for a warp) before a call whose scratch another
    call used. An explicit `TempStorage` chooses how its users share it.

    Args:
        sharing: ``"reuse"`` (default): its users overlap (its size is the
            largest scratch) and a barrier separates them; ``"exclusive"``: each
            call site gets its own slice (its size is the sum), so no barrier is
            needed between them (only before a call in a loop reuses its own slice).

    Example:
        Two reductions in a row with no barrier between them::

            @cuda.jit
            def min_and_max(values, result):
                block = coop.this_block()
                scratch = coop.TempStorage(sharing="exclusive")
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                smallest = coop.reduce(block, items, "min", temp_storage=scratch)
                largest = coop.reduce(block, items, "max", temp_storage=scratch)
                if cuda.threadIdx.x == 0:
                    result[0] = smallest
                    result[1] = largest

            values = np.random.default_rng(1).standard_normal(512).astype(np.float32)
            result = np.zeros(2, dtype=np.float32)
            min_and_max[1, 128](values, result)
    """

    __coop_marker__ = Marker("TempStorage", "storage", True)

    def __new__(cls, *, sharing="reuse"):
        raise host_call_error("TempStorage")
