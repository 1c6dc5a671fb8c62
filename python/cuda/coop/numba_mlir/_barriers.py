"""Barriers the kernel compiler has no call for, as intrinsics that emit the NVVM
operation itself: a named barrier over some of a block's threads (a group of
warps waits on one of its own, as its reductions do) and the barrier of a thread
block cluster (sm_90+). Group members' `sync()` lowers to these."""

from __future__ import annotations

from numba_cuda_mlir import types
from numba_cuda_mlir.extending import intrinsic


@intrinsic
def named_barrier(typingctx, barrier, threads):
    """`bar.sync barrier, threads`: waits until `threads` threads (a multiple of 32) have
    arrived at barrier `barrier` (1 to 15; 0 is __syncthreads')."""
    if not (isinstance(barrier, types.Integer) and isinstance(threads, types.Integer)):
        return None

    def codegen(builder, target, args, kwargs):
        from numba_cuda_mlir._mlir.dialects import nvvm
        from numba_cuda_mlir._mlir.extras import types as T
        from numba_cuda_mlir.lowering_utilities import convert

        barrier_id, count = (convert(builder.load_var(arg), T.i32(), signed=False) for arg in args)
        nvvm.barrier(barrier_id=barrier_id, number_of_threads=count)
        builder.store_var(target, None)

    return types.void(barrier, threads), codegen


@intrinsic
def cluster_barrier(typingctx):
    """Every thread of every block of the cluster arrives and waits, with release and
    acquire semantics for memory (shared memory of the cluster's blocks included)."""

    def codegen(builder, target, args, kwargs):
        from numba_cuda_mlir._mlir.dialects import nvvm

        nvvm.cluster_arrive(aligned=True)
        nvvm.cluster_wait(aligned=True)
        builder.store_var(target, None)

    return types.void(), codegen
