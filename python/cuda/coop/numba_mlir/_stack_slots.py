"""A kernel's fixed-size stack slots at the top of its entry block, where LLVM front ends
put them, for a kernel with cooperative calls.

numba-cuda-mlir creates its stack slots (a `range` loop's iterator state, local arrays)
and cuda.coop its record slots (a tuple reduced or scanned) just before the entry block's
terminator, after the cooperative calls the block makes. With a record of more than 8
bytes among them, nvJitLink's optimizer does not promote the loop iterators' slots in
time to learn a loop's trip count: the loop over a thread's items before a three-field
tuple reduction stays rolled (unrolled by 4 with a runtime exit), the items are indexed
through select chains, and layer norm's Welford kernel at 512x8 took 951
SASS instructions with 32 ISETP.EQ chains. With every fixed-size slot at the top (the
`alloca`s and the constants giving their counts, in their order), the same kernel has
none, as the two-field one never had (found by relinking the kernel's LTO-IR by hand).

Contract: hoist(gpu_module) rewrites the module's kernel functions and returns how many
slots it moved; _translation.py calls it for a kernel the planner changed."""

from __future__ import annotations

import itertools


def hoist(gpu_module) -> int:
    moved = 0
    for function in gpu_module.regions[0].blocks[0].operations:
        attributes = function.operation.attributes
        if function.operation.name == "llvm.func" and "gpu.kernel" in attributes and function.regions[0].blocks:
            moved += _hoist_entry_slots(function.regions[0].blocks[0])
    return moved


def _hoist_entry_slots(entry) -> int:
    """Moves the entry block's `alloca`s of constant count, after the constants they count
    with, to the top of the block, keeping their order."""
    slots, counts = [], []
    for operation in entry.operations:
        if operation.operation.name != "llvm.alloca":
            continue
        owner = getattr(operation.operation.operands[0].owner, "operation", None)  # None: a block argument
        if owner is None or owner.name != "llvm.mlir.constant" or owner.block != entry:
            continue
        if all(owner != seen for seen in counts):
            counts.append(owner)
        slots.append(operation.operation)
    ordered = counts + slots
    if not ordered:
        return 0
    first = next(iter(entry.operations)).operation
    if ordered[0] != first:
        ordered[0].move_before(first)
    for previous, operation in itertools.pairwise(ordered):
        operation.move_after(previous)
    return len(slots)
