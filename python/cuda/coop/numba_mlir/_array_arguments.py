"""A kernel's array arguments as the launcher passes them, for a kernel with cooperative
calls: the descriptor's offset is 0 and a contiguous array's strides follow from its
shape, so neither is read from the kernel's parameters.

numba-cuda-mlir passes an array argument as a memref descriptor (allocated and aligned
pointers, offset, sizes, strides, in elements) and lowers `a[i]` as
`aligned + (offset + i * stride) * itemsize`, with offset and stride runtime values, even
for an array typed C-contiguous. Its launcher always passes offset 0 (it hands the data
pointer itself as the aligned pointer) and refuses a non-contiguous array for a kernel
typed 'C'. The multiply-adds on launch constants that this costs every thread run on
the SM's uniform datapath; in a kernel whose blocks are short (one item per thread)
they are most of what a warp issues: a block discontinuity of 256x1 spent 65% of its
issue slots on the uniform pipe (ncu on the H200), 0.90 of its nvcc twin's speed.

The planner records the kernel's argument types (recorded); the kernel's translation then
replaces, in the kernel function only, each array's offset with 0 and, for a 'C' or 'F'
array, each stride with the product of the sizes inside it (the innermost stride 1).
Where a dimension's extent is 1 or 0 its stride never scales a valid index, so a
contiguous array with an odd stride there reads the same. Anything the rewrite cannot
match exactly (a kernel name that does not end in the recorded argument types, a
parameter list of another shape) is left as the compiler made it.

Contract: recorded(state) is what the rewrite needs to know of the compile (None: nothing
to rewrite, or a numba-cuda-mlir release whose launcher was not read, LAUNCHER_RELEASES);
fold(gpu_module, recorded) rewrites; _translation.py calls both."""

from __future__ import annotations

FOLDED = "coop.array_arguments_folded"  # on the kernel function: rewritten once
# numba-cuda-mlir releases whose launcher passes every array with offset 0 (read in its
# kernel.cpp; coop.bind_launch writes the same descriptor).
LAUNCHER_RELEASES = ("0.5.", "0.6.")


def recorded(state):
    """(the mangled argument types, which end the kernel's name; per argument, (layout, rank)
    of an array, None for any other), or None where there is nothing to rewrite."""
    from importlib.metadata import version

    from numba_cuda_mlir.numba_cuda import itanium_mangler, types

    if not version("numba-cuda-mlir").startswith(LAUNCHER_RELEASES):
        return None
    layouts = tuple(
        (argument.layout, argument.ndim) if isinstance(argument, types.Array) else None for argument in state.args
    )
    return (itanium_mangler.mangle_args(state.args), layouts) if any(layouts) else None


def fold(gpu_module, recorded) -> int:
    """Rewrites the kernel whose name ends in the recorded argument types; returns the
    number of descriptor parameters it no longer reads."""
    from numba_cuda_mlir._mlir import ir

    mangled, layouts = recorded
    folded = 0
    for function in gpu_module.regions[0].blocks[0].operations:
        attributes = function.operation.attributes
        if function.operation.name != "llvm.func" or "gpu.kernel" not in attributes or FOLDED in attributes:
            continue
        if not ir.StringAttr(attributes["sym_name"]).value.endswith(mangled):
            continue
        slots = _descriptor_slots(function, layouts)
        if slots is not None:
            folded += _replace(function, slots)
        attributes[FOLDED] = ir.UnitAttr.get()
    return folded


def _descriptor_slots(function, layouts):
    """[(layout, offset slot, size slots, stride slots)] of the kernel's array parameters,
    or None where its parameter list is not one descriptor per array and one value per
    other argument."""
    from numba_cuda_mlir._mlir import ir

    parameters = list(function.regions[0].blocks[0].arguments)
    declared = [ir.TypeAttr(t).value for t in function.operation.attributes["numba_cuda_mlir.orig_arg_types"]]
    if len(declared) != len(layouts):
        return None
    slots, position = [], 0
    for declared_type, layout in zip(declared, layouts):
        if layout is None:
            if isinstance(declared_type, ir.MemRefType):
                return None
            position += 1
            continue
        if not isinstance(declared_type, ir.MemRefType) or declared_type.rank != layout[1]:
            return None
        rank = layout[1]
        pointers, rest = parameters[position : position + 2], parameters[position + 2 : position + 3 + 2 * rank]
        if len(rest) != 1 + 2 * rank or [str(p.type) for p in pointers] != ["!llvm.ptr"] * 2:
            return None
        if not all(isinstance(p.type, ir.IntegerType) and p.type.width == 64 for p in rest):
            return None
        slots.append((layout[0], rest[0], rest[1 : 1 + rank], rest[1 + rank :]))
        position += 3 + 2 * rank
    return slots if position == len(parameters) else None


def _replace(function, slots) -> int:
    """Replaces every use of the offsets and contiguous strides; returns how many."""
    from numba_cuda_mlir._mlir import ir
    from numba_cuda_mlir._mlir.dialects import llvm

    entry = function.regions[0].blocks[0]
    replaced = 0
    with ir.InsertionPoint.at_block_begin(entry), function.location:
        i64 = ir.IntegerType.get_signless(64)
        zero = llvm.ConstantOp(res=i64, value=ir.IntegerAttr.get(i64, 0)).result
        one = llvm.ConstantOp(res=i64, value=ir.IntegerAttr.get(i64, 1)).result
        for layout, offset, sizes, strides in slots:
            offset.replace_all_uses_with(zero)
            replaced += 1
            if layout not in ("C", "F"):
                continue
            # from the innermost dimension out: C's last, F's first
            order = range(len(sizes) - 1, -1, -1) if layout == "C" else range(len(sizes))
            inner, inner_size = one, None
            for dimension in order:
                stride = inner if inner_size is None else llvm.mul(inner, inner_size, llvm.IntegerOverflowFlags.none)
                strides[dimension].replace_all_uses_with(stride)
                replaced += 1
                inner, inner_size = stride, sizes[dimension]
    return replaced
