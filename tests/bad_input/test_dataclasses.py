"""Bad-input catalogue, Python category: dataclass instances as kernel arguments
(coop.gpu_dataclass). Registration refuses what no kernel can take, naming the field and
what a field may hold; a launch refuses an instance that was never registered (or whose
field changed to such a kind) through the argument handler, as the kernel compiler calls it;
and a compile refuses a kernel that takes a registered instance without the handler."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from catalogue import Case, ids

pytest.importorskip("numba_cuda_mlir")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda.typing.typeof import typeof

import cuda.coop.numba_mlir as coop

ALLOWED = ("a field may hold", "__cuda_array_interface__", "a NumPy array", "a NumPy or Python scalar")


@dataclasses.dataclass
class Traits:
    scale: object
    data: object = None


@dataclasses.dataclass(slots=True)
class Slotted:
    scale: np.int32


@dataclasses.dataclass(slots=True, weakref_slot=True)
class SlottedWithWeakref:
    load: object


@dataclasses.dataclass
class Primitive:
    temp_storage_bytes: int
    temp_storage_alignment: int


def register(instance, **options):
    return lambda: coop.gpu_dataclass(instance, **options)


def launch_through_the_handler(make):
    """What a launch does with its argument: the compiler's typeof, then the handler."""

    def run():
        instance = make()
        coop.gpu_dataclass_argument_handler.prepare_args(typeof(instance), instance)

    return run


def never_registered():
    coop.gpu_dataclass(Traits(np.int32(1), np.zeros(4)))  # the class is known, not this instance
    return Traits(np.int32(1), np.zeros(4))


KEEP = []  # instances kept alive by a case


def changed_after_registration():
    instance = coop.gpu_dataclass(Traits(np.int32(1), np.zeros(4)))
    KEEP.append(instance)
    instance.data = "not an array"
    return instance


def kernel_without_the_handler():
    @cuda.jit
    def kernel(out, traits):
        out[0] = traits.scale

    return lambda: coop.explain(
        kernel, np.zeros(1, np.int32), coop.gpu_dataclass(Traits(np.int32(1), np.zeros(2))), grid=1, block=32
    )


def extent_from_an_argument_with_a_gpu_dataclass():
    @cuda.jit(extensions=[coop.gpu_dataclass_argument_handler])
    def kernel(traits, n):
        block = coop.this_block()
        items = coop.ThreadData(n)
        coop.load(block, traits.data, items)
        coop.store(block, traits.data, items)

    traits = coop.gpu_dataclass(Traits(np.int32(1), np.zeros(512, np.int32)))
    return lambda: coop.explain(kernel, traits, 4, grid=1, block=128)


CASES = [
    Case(
        "not_a_dataclass",
        "InvalidArgumentTypeError",
        ("coop.gpu_dataclass", "argument 'instance' is a dict", "expected a dataclass instance"),
        register({"scale": 1}),
    ),
    Case(
        "the_class_instead_of_an_instance",
        "InvalidArgumentTypeError",
        ("argument 'instance' is the class Traits", "coop.gpu_dataclass(Traits(...))"),
        register(Traits),
    ),
    Case(
        "a_string_field",
        "InvalidArgumentTypeError",
        ("field 'scale' of Traits holds a str", *ALLOWED),
        register(Traits("three")),
    ),
    Case(
        "a_list_field",
        "InvalidArgumentTypeError",
        ("field 'data' of Traits holds a list", *ALLOWED),
        register(Traits(np.int32(1), [1, 2, 3])),
    ),
    Case(
        "a_none_field",
        "InvalidArgumentTypeError",
        ("field 'data' of Traits holds a NoneType", *ALLOWED),
        register(Traits(np.int32(1))),
    ),
    Case(
        "a_nested_dataclass_field",
        "InvalidArgumentTypeError",
        ("field 'data' of Traits holds a Traits", *ALLOWED),
        register(Traits(np.int32(1), Traits(np.int32(2), np.zeros(2)))),
    ),
    Case(
        "an_object_array_field",
        "InvalidArgumentTypeError",
        ("field 'data' of Traits holds a ndarray of dtype object", *ALLOWED),
        register(Traits(np.int32(1), np.array([object()] * 3))),
    ),
    Case(
        "slots_without_a_weakref_slot",
        "InvalidArgumentTypeError",
        ("Slotted instances cannot be weakly referenced", "weakref_slot=True"),
        register(Slotted(np.int32(1))),
    ),
    Case(
        "slots_with_temp_storage_attributes",
        "InvalidArgumentTypeError",
        ("compute_temp_storage=True sets temp_storage_bytes_sum", "compute_temp_storage=False"),
        register(SlottedWithWeakref(Primitive(64, 16))),
    ),
    Case(
        "an_instance_never_registered_at_launch",
        "InvalidArgumentTypeError",
        ("a Traits instance reached a kernel launch without being registered", "coop.gpu_dataclass(instance)"),
        launch_through_the_handler(never_registered),
    ),
    Case(
        "a_field_changed_to_a_string_before_launch",
        "InvalidArgumentTypeError",
        ("field 'data' of Traits holds a str", *ALLOWED),
        launch_through_the_handler(changed_after_registration),
    ),
    Case(
        "a_kernel_without_the_handler",
        "InvalidArgumentError",
        (
            "kernel 'kernel_without_the_handler.<locals>.kernel', parameter 'traits'",
            "@cuda.jit(extensions=[coop.gpu_dataclass_argument_handler])",
        ),
        kernel_without_the_handler(),
    ),
    Case(
        "an_extent_from_an_argument_of_a_kernel_taking_a_gpu_dataclass",
        "UnsupportedOperationError",
        (
            "coop.ThreadData",
            "argument 'items_per_thread'",
            "cannot restart a launch that takes a gpu_dataclass ('traits')",
        ),
        extent_from_an_argument_with_a_gpu_dataclass(),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_dataclass_case(case):
    with pytest.raises(coop.CoopError) as caught:
        case.detail()
    assert type(caught.value).__name__ == case.error, f"{case.name}: {type(caught.value).__name__}: {caught.value}"
    case.check(str(caught.value))
