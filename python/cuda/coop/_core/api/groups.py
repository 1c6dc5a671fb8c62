"""Group descriptors: compile-time values naming which threads cooperate."""

from __future__ import annotations

from ..markers import host_call_error, marker


class GroupDescriptor:
    """What `this_block()` and `this_warp()` stand for inside a kernel: the threads
    that cooperate in a call. It never exists at run time: the planner resolves it
    against the launch and removes it. Make it in the kernel (or in a device
    function inlined into it); it may not be returned, stored in an array or passed
    to a call that is not a cooperative primitive (`EscapingGroupDescriptorError`)."""

    def __new__(cls, *args, **kwargs):
        raise host_call_error(cls.__name__)

    def group_by(self, n: int, /) -> GroupDescriptor:
        """Logical warps of `n` consecutive lanes of this warp.

        Args:
            n: a compile-time power of two, ``1 < n <= 32``.

        Returns:
            The group of the calling lane's logical warp, one of lanes
            ``0..n-1``, ``n..2n-1``, and so on, of its warp. Collectives of a
            logical warp are CUB's warp primitives with ``LOGICAL_WARP_THREADS = n``.

        Example:
            A sum over each group of 8 lanes::

                @cuda.jit
                def sums_of_eight(values, sums):
                    eight = coop.this_warp().group_by(8)
                    total = coop.sum(eight, values[cuda.threadIdx.x])
                    if cuda.threadIdx.x % 8 == 0:
                        sums[cuda.threadIdx.x // 8] = total

                values = np.ones(64, dtype=np.int32)
                sums = np.zeros(8, dtype=np.int32)
                sums_of_eight[1, 64](values, sums)
        """
        raise host_call_error("group_by")


@marker("groups", implemented=True)
def this_block(block_shape=None, /) -> GroupDescriptor:
    """The launching thread block, of any (x, y, z) shape; threads ranked x-major.

    The block's shape is taken from the launch (``kernel[grid, block]``): the
    kernel is compiled for it and bounded by it (its launch bounds), and a launch
    with another shape compiles another specialization.

    Args:
        block_shape: optional; an int or a tuple of 1 to 3 ints, compile-time
            constants, that declares the block the kernel is written for. A launch
            with another block is refused at compile time (`InvalidGroupError`),
            naming both.

    Returns:
        The block's group descriptor, for the primitives' first argument. The
        rank of thread ``(x, y, z)`` is ``x + y * X + z * X * Y``; tiles are
        spread over the threads in that order.

    Example:
        A 16 x 16 block, declared::

            @cuda.jit
            def tile_sum(image, sums):
                block = coop.this_block((16, 16))
                total = coop.sum(block, image[cuda.threadIdx.y, cuda.threadIdx.x])
                if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
                    sums[0] = total

            image = np.ones((16, 16), dtype=np.float32)
            sums = np.zeros(1, dtype=np.float32)
            tile_sum[1, (16, 16)](image, sums)
    """


@marker("groups", implemented=True)
def this_warp() -> GroupDescriptor:
    """The calling thread's warp: 32 lanes, CUB's warp primitives.

    Warp ``w`` of a block is the threads of x-major rank ``32 * w`` to ``32 * w +
    31``; the block must hold whole warps (its thread count a multiple of 32),
    else `InvalidGroupError`. Each warp of the block is its own group: a warp's
    collective needs every lane of that warp, not every thread of the block.
    `GroupDescriptor.group_by` divides it into logical warps.

    Returns:
        The warp's group descriptor.

    Example:
        One maximum per warp::

            @cuda.jit
            def warp_max(values, maxima):
                warp = coop.this_warp()
                largest = coop.reduce(warp, values[cuda.threadIdx.x], "max")
                if cuda.threadIdx.x % 32 == 0:
                    maxima[cuda.threadIdx.x // 32] = largest

            values = np.arange(128, dtype=np.int32)
            maxima = np.zeros(4, dtype=np.int32)
            warp_max[1, 128](values, maxima)
    """
