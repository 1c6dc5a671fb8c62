"""A kernel's array parameters as the launcher passes them, for a kernel with cooperative
calls: the descriptor's offset is 0, so it is not read from the kernel's parameters.

numba-cuda-mlir passes an array argument as a memref descriptor (allocated and aligned
pointers, offset, sizes, strides, in elements) and lowers `a[i]` and a provider call's
base pointer as `aligned + (offset + i * stride) * itemsize`, offset and stride runtime
values. Its launcher always passes offset 0: it hands the data pointer of the array (a
view's first element, a DLPack tensor's data plus byte offset) as the aligned pointer
(read in its kernel.cpp for both; coop.bind_launch writes the same descriptor). The
multiply-adds on launch constants that the offset costs every thread run on the SM's
uniform datapath, which in a kernel of short blocks is what a warp issues most (a block
discontinuity of 256x1 spent 65% of its issue slots on the uniform pipe, ncu on the H200).

The strides stay runtime values, even for an array typed C-contiguous: the launcher
reuses a compiled kernel for every array of the same dtype and rank, whatever its
layout, so the layout a kernel was typed with says nothing of a later launch's array.

Contract: fold(gpu_module) replaces, in each kernel function whose parameter list is one
descriptor per array argument and one value per other argument, every use of an array's
offset with 0, and returns how many it replaced; a kernel of any other parameter list is
left as the compiler made it. _translation.py calls it where the compiler is a release
whose launcher was read (LAUNCHER_RELEASES)."""

from __future__ import annotations

FOLDED = "coop.array_offsets_folded"  # on the kernel function: rewritten once
# numba-cuda-mlir releases whose launcher passes every array with offset 0.
LAUNCHER_RELEASES = ("0.5.", "0.6.")


def fold(gpu_module) -> int:
    from numba_cuda_mlir._mlir import ir

    folded = 0
    for function in gpu_module.regions[0].blocks[0].operations:
        attributes = function.operation.attributes
        if function.operation.name != "llvm.func" or "gpu.kernel" not in attributes or FOLDED in attributes:
            continue
        if "numba_cuda_mlir.orig_arg_types" not in attributes or not function.regions[0].blocks:
            continue
        offsets = _offsets(function)
        if offsets:
            folded += _replace(function, offsets)
        attributes[FOLDED] = ir.UnitAttr.get()
    return folded


def _offsets(function):
    """The offset parameter of each array argument, or None where the parameter list is
    not one descriptor (2 pointers, then an offset, sizes and strides of 64 bits) per
    array argument and one value per other argument."""
    from numba_cuda_mlir._mlir import ir

    parameters = list(function.regions[0].blocks[0].arguments)
    declared = [ir.TypeAttr(t).value for t in function.operation.attributes["numba_cuda_mlir.orig_arg_types"]]
    offsets, position = [], 0
    for declared_type in declared:
        if not isinstance(declared_type, ir.MemRefType):
            position += 1
            continue
        rank = declared_type.rank
        pointers, rest = parameters[position : position + 2], parameters[position + 2 : position + 3 + 2 * rank]
        if len(rest) != 1 + 2 * rank or [str(p.type) for p in pointers] != ["!llvm.ptr"] * 2:
            return None
        if not all(isinstance(p.type, ir.IntegerType) and p.type.width == 64 for p in rest):
            return None
        offsets.append(rest[0])
        position += 3 + 2 * rank
    return offsets if position == len(parameters) else None


def _replace(function, offsets) -> int:
    from numba_cuda_mlir._mlir import ir
    from numba_cuda_mlir._mlir.dialects import llvm

    entry = function.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(entry), function.location:
        i64 = ir.IntegerType.get_signless(64)
        zero = llvm.ConstantOp(res=i64, value=ir.IntegerAttr.get(i64, 0)).result
        for offset in offsets:
            offset.replace_all_uses_with(zero)
    return len(offsets)
