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
        dtype: a NumPy dtype or its name (``np.float32``, ``"int64"``), or a
            kernel array argument's ``.dtype`` (``source.dtype``); left
            out, it is inferred from the first primitive that fills it (`load`'s
            source) or from the values written to it. Two uses that disagree are
            a `PayloadInferenceError`. An aligned NumPy structured dtype of
            scalar fields (``np.dtype([...], align=True)``) makes items that are
            records, read and written by field (``items[i].key``); see the
            operators guide for the calls that take them.
        alignment: a minimum alignment of its storage in bytes, a compile-time
            power of two (``vectorize`` loads need the payload aligned to their
            vector width, which cuda.coop arranges by itself).
        alignas: another name for `alignment` (the seed's qualified spelling);
            give one of the two.

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

    def __new__(cls, items_per_thread, dtype=None, *, alignment=None, alignas=None):
        raise host_call_error("ThreadData")


class TempStorage:
    """Block shared memory for the scratch of the primitives that name it with
    ``temp_storage=``.

    Without it each call's scratch comes from one shared backing that cuda.coop
    sizes for the largest user and reuses, placing a barrier (``__syncthreads``
    for a block, ``__syncwarp`` for a warp) before a call whose scratch another
    call used. An explicit `TempStorage` chooses its capacity, its alignment, how
    its users share it and who places the barriers. Make it in the kernel; every
    argument is a compile-time constant. Its attributes ``size_in_bytes``,
    ``alignment``, ``auto_sync`` and ``sharing`` read in the kernel as the
    constants it was made with (``None`` where left out).

    Args:
        size_in_bytes: its capacity in bytes, a compile-time int ``>= 1``;
            ``None`` (the default) sizes it for its users. A capacity smaller
            than its users need is refused at compile time
            (`InvalidArgumentError`), naming the call that needs more and how
            much. Past 48 KiB (all of the kernel's scratch together) the backing
            moves to dynamic shared memory, which the launch reserves by itself.
        alignment: a minimum alignment in bytes, a compile-time power of two;
            the planner raises it where a user needs more. ``None``: what the
            users need.
        auto_sync: who separates its users with barriers. ``None`` (the
            default): the planner places a barrier only before a call whose
            scratch an earlier call (or the same call, in a loop) may still be
            using. ``True``: a barrier of the call's group (``__syncthreads``,
            or ``__syncwarp`` for a warp) follows every call that names it
            and uses scratch (storage-free algorithms such as a ``direct``
            load ignore the descriptor). ``False``: none; the caller places its own barriers
            (``cuda.syncthreads()``) between users that overlap.
        sharing: ``"shared"`` (the default): every call naming it uses the same
            region, overlapping (its size is the largest user's);
            ``"exclusive"``: each call site gets its own slice (its size is the
            sum), so users never wait for one another; a call site in a loop
            reuses its own slice. Trimmed and lowercased; ``"reuse"`` is an older
            spelling of ``"shared"``.

    Its method `reserve` takes typed arrays for the kernel's own use out of it.
    Indexing it (``storage[i]``, ``storage[i] = v``) reads and writes the bytes
    of its whole region as uint8, over its primitives' scratch (it needs
    `size_in_bytes`); the kernel places the barriers between those uses.

    Example:
        A load and a store that each keep their own scratch, so no barrier
        separates them::

            @cuda.jit
            def copy_tile(source, destination):
                block = coop.this_block()
                scratch = coop.TempStorage(sharing="exclusive", alignment=16)
                items = coop.ThreadData(4)
                coop.load(block, source, items, algorithm="transpose", temp_storage=scratch)
                coop.store(block, destination, items, algorithm="transpose", temp_storage=scratch)

            source = np.arange(512, dtype=np.int32)
            destination = np.zeros_like(source)
            copy_tile[1, 128](source, destination)
    """

    __coop_marker__ = Marker("TempStorage", "storage", True)

    def __new__(cls, size_in_bytes=None, *, alignment=None, auto_sync=None, sharing="shared"):
        raise host_call_error("TempStorage")

    def reserve(self, num_elems, dtype, /, *, alignment=None):
        """A shared array of `num_elems` items of `dtype` for the kernel's own use,
        in this TempStorage's region, before the scratch of the primitives that name
        it: no primitive's scratch overlaps it, and two reservations never overlap,
        so what the block keeps there survives the calls in between. It counts
        toward a declared ``size_in_bytes``, and moves to dynamic shared memory with
        the rest of the backing past 48 KiB. Like any shared array it starts
        uninitialized; the kernel orders its own reads and writes with barriers.

        Args:
            num_elems: a compile-time int ``>= 1`` (or a kernel argument: the
                kernel is then specialized on its value).
            dtype: a constant NumPy or Numba dtype (not bfloat16).
            alignment: a minimum alignment in bytes, a compile-time power of
                two; at least the dtype's own.

        Returns:
            A 1-D C-contiguous shared array of `dtype`.

        Not on a TempStorage with ``auto_sync=True`` (its barriers after every
        call would order the kernel's uses of the array too).

        Example:
            Values kept across a load that reuses the same storage::

                @cuda.jit
                def keep(source, destination, kept):
                    storage = coop.TempStorage()
                    saved = storage.reserve(128, np.int32)
                    saved[cuda.threadIdx.x] = source[cuda.threadIdx.x]
                    block = coop.this_block()
                    items = coop.ThreadData(4)
                    coop.load(block, source, items, algorithm="transpose", temp_storage=storage)
                    coop.store(block, destination, items, algorithm="transpose", temp_storage=storage)
                    cuda.syncthreads()
                    kept[cuda.threadIdx.x] = saved[127 - cuda.threadIdx.x]

                source = np.arange(512, dtype=np.int32)
                destination = np.zeros_like(source)
                kept = np.zeros(128, dtype=np.int32)
                keep[1, 128](source, destination, kept)
        """
        raise host_call_error("TempStorage.reserve")
