"""A kernel's array parameters as the launcher passes them, for a kernel with cooperative
calls: the descriptor's offset is 0, so it is not read from the kernel's parameters, and
in a compile pinned to its arrays' layouts a C-contiguous array's strides follow from its
sizes.

numba-cuda-mlir passes an array argument as a memref descriptor (allocated and aligned
pointers, offset, sizes, strides, in elements) and lowers `a[i]` and a provider call's
base pointer as `aligned + (offset + i * stride) * itemsize`, offset and stride runtime
values. Its launcher always passes offset 0: it hands the data pointer of the array (a
view's first element, a DLPack tensor's data plus byte offset) as the aligned pointer
(read in its kernel.cpp for both; coop.bind_launch writes the same descriptor). The
multiply-adds on launch constants that the offset costs every thread run on the SM's
uniform datapath, which in a kernel of short blocks is what a warp issues most (a block
discontinuity of 256x1 spent 65% of its issue slots on the uniform pipe, ncu on the H200).

The launcher reuses a compiled kernel for every array of the same dtype and rank, whatever
its layout, so the layout a kernel was typed with says nothing of a later launch's array,
and the strides stay runtime values; except in a compile whose cooperative calls read a
contiguous array as one run (_facts.Call.reads_memory_as_runs): a launch with arrays of
other layouts is refused before it can reuse that compile (_dispatch.check_reused_layouts;
coop.bind_launch checks a C array's strides), so an array typed C there is C-contiguous in
every launch it serves. Its strides are then the products of the sizes inside them, the
innermost 1 (a dimension of extent 0 or 1, whose stride NumPy leaves free, never scales a
valid index), and Python indexing multiplies by no stride read from the parameters.

Contract: fold(gpu_module, contiguous) replaces, in each kernel function whose parameter
list is one descriptor per array argument and one value per other argument, every use of
an array's offset with 0 and, for each argument flagged in contiguous(the kernel's name)
(one flag per argument, or empty), every use of its strides with the C-contiguous ones; it
returns how many parameters it replaced. A kernel of any other parameter list is left as
the compiler made it. _translation.py calls it where the compiler is a release whose
launcher was read (LAUNCHER_RELEASES)."""

from __future__ import annotations

FOLDED = "coop.array_offsets_folded"  # on the kernel function: rewritten once
# numba-cuda-mlir releases whose launcher passes every array with offset 0.
LAUNCHER_RELEASES = ("0.5.", "0.6.")


def fold(gpu_module, contiguous=lambda name: ()) -> int:
    from numba_cuda_mlir._mlir import ir

    folded = 0
    for function in gpu_module.regions[0].blocks[0].operations:
        attributes = function.operation.attributes
        if function.operation.name != "llvm.func" or "gpu.kernel" not in attributes or FOLDED in attributes:
            continue
        if "numba_cuda_mlir.orig_arg_types" not in attributes or not function.regions[0].blocks:
            continue
        descriptors = _descriptors(function, contiguous(ir.StringAttr(attributes["sym_name"]).value))
        if descriptors:
            folded += _replace(function, descriptors)
        attributes[FOLDED] = ir.UnitAttr.get()
    return folded


def _descriptors(function, contiguous):
    """(offset, sizes, strides, C-contiguous) of each array argument's descriptor, or None
    where the parameter list is not one descriptor (2 pointers, then an offset, sizes and
    strides of 64 bits) per array argument and one value per other argument. Flags for
    another number of arguments than the kernel declares flag none."""
    from numba_cuda_mlir._mlir import ir

    parameters = list(function.regions[0].blocks[0].arguments)
    declared = [ir.TypeAttr(t).value for t in function.operation.attributes["numba_cuda_mlir.orig_arg_types"]]
    if not contiguous or len(contiguous) != len(declared):
        contiguous = ()
    descriptors, position = [], 0
    for index, declared_type in enumerate(declared):
        if not isinstance(declared_type, ir.MemRefType):
            position += 1
            continue
        rank = declared_type.rank
        pointers, rest = parameters[position : position + 2], parameters[position + 2 : position + 3 + 2 * rank]
        if len(rest) != 1 + 2 * rank or [str(p.type) for p in pointers] != ["!llvm.ptr"] * 2:
            return None
        if not all(isinstance(p.type, ir.IntegerType) and p.type.width == 64 for p in rest):
            return None
        descriptors.append((rest[0], rest[1 : 1 + rank], rest[1 + rank :], bool(contiguous and contiguous[index])))
        position += 3 + 2 * rank
    return descriptors if position == len(parameters) else None


def _replace(function, descriptors) -> int:
    from numba_cuda_mlir._mlir import ir
    from numba_cuda_mlir._mlir.dialects import llvm

    entry = function.regions[0].blocks[0]
    replaced = 0
    with ir.InsertionPoint.at_block_begin(entry), function.location:
        i64 = ir.IntegerType.get_signless(64)
        zero = llvm.ConstantOp(res=i64, value=ir.IntegerAttr.get(i64, 0)).result
        for offset, sizes, strides, contiguous in descriptors:
            offset.replace_all_uses_with(zero)
            replaced += 1
            if not contiguous:
                continue
            inner = llvm.ConstantOp(res=i64, value=ir.IntegerAttr.get(i64, 1)).result  # from the last dimension out
            for dimension in range(len(sizes) - 1, -1, -1):
                strides[dimension].replace_all_uses_with(inner)
                replaced += 1
                if dimension:
                    inner = llvm.mul(inner, sizes[dimension], llvm.IntegerOverflowFlags.none)
    return replaced
