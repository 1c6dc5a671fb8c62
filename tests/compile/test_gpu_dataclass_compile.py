"""Dataclass instances as kernel arguments (coop.gpu_dataclass), compiled for sm_90 without a
GPU: an instance's type from its fields, the registry holding instances weakly, the field
reads lowered into a cubin (the runtime tests' kernels, cooperative primitives on a
dataclass's array fields included), and the compiler's own launch path (typeof, the argument
handler, dispatch up to the driver) compiling once for two instances of one shape."""

import dataclasses
import gc
import importlib.util
import pathlib
import weakref

import numpy as np
import pytest
from launch_without_a_gpu import ArrayInterface, Launcher, no_driver
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop.numba_mlir as coop
from cuda.coop.numba_mlir import _dataclass, _dispatch
from cuda.coop.numba_mlir._explain import _capability

_PATH = pathlib.Path(__file__).parents[1] / "runtime" / "test_gpu_dataclass_runtime.py"
_SPEC = importlib.util.spec_from_file_location("gpu_dataclass_kernels", _PATH)
kernels = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(kernels)

I32 = types.Array(types.int32, 1, "C")


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


def launch(kernel, grid, block, *args) -> Launcher:
    """kernel[grid, block](*args) through the compiler's launch path, up to the driver."""
    with no_driver():
        configured = kernel.configure(grid, block, 0, 0, None)
        if not isinstance(configured._launcher, Launcher):
            configured._launcher = Launcher(configured._kernel_dispatcher, grid, block)
        return configured(*args)


def test_an_instance_types_as_its_fields():
    traits = coop.gpu_dataclass(kernels.Mixed(7, 0.5, True, np.float32(0.25)))
    ty = _dataclass.REGISTRY.types_by_class[kernels.Mixed][id(traits)]
    assert ty.fields == ("count", "factor", "flag", "half")
    assert ty.types == (types.int64, types.float64, types.boolean, types.float32)
    assert str(ty) == "gpu_dataclass Mixed(count: int64, factor: float64, flag: bool, half: float32)"
    assert cuda.jit(lambda x: None).typeof_pyval(traits) is ty


def test_array_fields_type_as_the_arrays_they_hold():
    traits = coop.gpu_dataclass(kernels.Buffers(np.zeros((4, 3), np.float64), ArrayInterface((8,)), 1.0))
    ty = _dataclass.REGISTRY.types_by_class[kernels.Buffers][id(traits)]
    assert ty.types[:2] == (types.Array(types.float64, 2, "C"), types.Array(types.int32, 1, "C"))


def test_instances_of_one_shape_share_one_type_and_the_registry_lets_them_go():
    first = coop.gpu_dataclass(kernels.Affine(np.int32(1), np.int32(2)))
    second = coop.gpu_dataclass(kernels.Affine(np.int32(3), np.int32(4)))
    wider = coop.gpu_dataclass(kernels.Affine(np.int64(3), np.int32(4)))
    registry = _dataclass.REGISTRY
    by_instance = registry.types_by_class[kernels.Affine]
    assert by_instance[id(first)] is by_instance[id(second)] is not by_instance[id(wider)]
    (key,) = [
        key
        for key in registry.types_by_signature
        if key[0] is kernels.Affine and by_instance[id(first)] is registry.types_by_signature[key]
    ]
    assert registry.signature_refcounts[key] == 2
    references = [weakref.ref(first), weakref.ref(second)]
    idents = [id(first), id(second)]
    del first, second
    gc.collect()
    assert all(reference() is None for reference in references)
    assert not any(ident in registry.types_by_class.get(kernels.Affine, {}) for ident in idents)
    assert key not in registry.types_by_signature and key not in registry.signature_refcounts
    assert id(wider) in registry.types_by_class[kernels.Affine]


def test_registering_again_after_a_field_changed_moves_the_instance_to_its_new_shape():
    traits = coop.gpu_dataclass(kernels.Affine(np.int32(1), np.int32(2)))
    before = _dataclass.REGISTRY.types_by_class[kernels.Affine][id(traits)]
    traits.scale = 2.5
    coop.gpu_dataclass(traits)
    after = _dataclass.REGISTRY.types_by_class[kernels.Affine][id(traits)]
    assert before.types == (types.int32, types.int32) and after.types == (types.float64, types.int32)
    assert list(_dataclass.REGISTRY.types_by_class[kernels.Affine]).count(id(traits)) == 1


def test_temp_storage_metadata_sums_the_fields_that_carry_it():
    @dataclasses.dataclass
    class Primitive:
        temp_storage_bytes: int
        temp_storage_alignment: int

    @dataclasses.dataclass
    class Traits:
        load: object
        scan: object
        scale: np.int32

    traits = coop.gpu_dataclass(Traits(Primitive(96, 16), Primitive(640, 8), np.int32(2)))
    assert (traits.temp_storage_bytes_sum, traits.temp_storage_bytes_max, traits.temp_storage_alignment) == (
        736,
        640,
        16,
    )
    ty = _dataclass.REGISTRY.types_by_class[Traits][id(traits)]
    assert ty.fields == ("scale",) and ty.host_fields == ("load", "scan")
    plain = coop.gpu_dataclass(kernels.Affine(np.int32(1), np.int32(1)))
    assert (plain.temp_storage_bytes_sum, plain.temp_storage_bytes_max, plain.temp_storage_alignment) == (0, 0, 1)
    untouched = coop.gpu_dataclass(kernels.Affine(np.int32(1), np.int32(1)), compute_temp_storage=False)
    assert not hasattr(untouched, "temp_storage_bytes_sum")


def test_a_frozen_dataclass_takes_the_metadata_too_and_a_slots_one_without_primitives_goes_without():
    tile = coop.gpu_dataclass(kernels.Tile(ArrayInterface((4,)), ArrayInterface((4,)), ArrayInterface((1,))))
    assert tile.temp_storage_bytes_sum == 0

    @dataclasses.dataclass(slots=True, weakref_slot=True)
    class Slotted:
        scale: np.int32

    slotted = coop.gpu_dataclass(Slotted(np.int32(2)))
    assert not hasattr(slotted, "temp_storage_bytes_sum")
    assert _dataclass.REGISTRY.types_by_class[Slotted][id(slotted)].types == (types.int32,)


def test_field_reads_lower_into_a_cubin():
    affine = coop.gpu_dataclass(kernels.Affine(np.int32(3), np.int32(7)))
    mixed = coop.gpu_dataclass(kernels.Mixed(7, 0.5, False, np.float32(0.25)))
    buffers = coop.gpu_dataclass(kernels.Buffers(np.zeros(8, np.float32), np.zeros(8, np.float32), np.float32(2)))
    outputs = (np.zeros(128, np.int32), np.zeros(128, np.float64))
    for kernel, args in [
        (kernels.affine_kernel(), (outputs[0], outputs[0], affine)),
        (kernels.mixed_kernel(), (outputs[1], mixed)),
        (kernels.buffers_kernel(), (buffers,)),
    ]:
        explanation = coop.explain(kernel, *args, grid=1, block=128)
        assert explanation.plans == [] and explanation.resources is not None


def test_coop_primitives_read_and_write_a_dataclass_s_array_fields():
    source = np.zeros(3 * kernels.THREADS * kernels.ITEMS, np.int32)
    tile = coop.gpu_dataclass(kernels.Tile(source, np.zeros_like(source), np.zeros(3, np.int32)))
    explanation = coop.explain(kernels.tile_kernel(), tile, grid=3, block=kernels.THREADS)
    operations = [plan.describe().splitlines()[0] for plan in explanation.plans]
    assert len(explanation.plans) == 4, operations
    assert explanation.resources is not None


def test_two_instances_of_one_shape_compile_once_through_the_launch_path(compiles):
    kernel = kernels.affine_kernel()
    values, out = ArrayInterface((128,)), ArrayInterface((128,))
    for scale, bias in ((3, 7), (5, -2)):
        launch(kernel, 1, 128, values, out, coop.gpu_dataclass(kernels.Affine(np.int32(scale), np.int32(bias))))
    assert len(compiles) == 1 and len(_dispatch.compile_results(kernel)) == 1
    launch(kernel, 1, 128, values, out, coop.gpu_dataclass(kernels.Affine(np.float32(1), np.int32(0))))
    assert len(compiles) == 2


def test_the_handler_passes_the_field_values_in_order():
    traits = coop.gpu_dataclass(kernels.Affine(np.int32(3), np.int32(7)))
    ty = cuda.jit(lambda x: None).typeof_pyval(traits)
    assert coop.gpu_dataclass_argument_handler.prepare_args(ty, traits) == (ty, (np.int32(3), np.int32(7)))
    assert coop.gpu_dataclass_argument_handler.prepare_args(I32, traits) == (I32, traits)


def test_a_kernel_of_primitives_takes_an_instance_through_the_launch_path(compiles):
    kernel = kernels.tile_kernel()
    n = 3 * kernels.THREADS * kernels.ITEMS
    for _ in range(2):
        tile = coop.gpu_dataclass(kernels.Tile(ArrayInterface((n,)), ArrayInterface((n,)), ArrayInterface((3,))))
        launch(kernel, 3, kernels.THREADS, tile)
    assert len(compiles) == 1 and len(_dispatch.compile_results(kernel)) == 1


def test_the_launch_path_refuses_a_kernel_without_the_handler_and_an_unregistered_instance():
    @cuda.jit
    def without_handler(values, out, traits):
        out[cuda.threadIdx.x] = values[cuda.threadIdx.x] + traits.bias

    arrays = (ArrayInterface((128,)), ArrayInterface((128,)))
    traits = coop.gpu_dataclass(kernels.Affine(np.int32(1), np.int32(2)))
    with pytest.raises(coop.InvalidArgumentError, match="parameter 'traits'.*gpu_dataclass_argument_handler"):
        launch(without_handler, 1, 128, *arrays, traits)
    with pytest.raises(coop.InvalidArgumentTypeError, match="without being registered"):
        launch(kernels.affine_kernel(), 1, 128, *arrays, kernels.Affine(np.int32(1), np.int32(2)))


def test_classes_of_the_same_field_types_never_share_a_kernel():
    """Two classes whose fields have the same types in the same order, names swapped: a kernel
    compiled for one must not be reused for the other (its `.first` would read the other's
    `.second`), so neither type converts to the other and each is a kernel of its own."""

    @dataclasses.dataclass
    class Ordered:
        first: np.int32
        second: np.int32

    @dataclasses.dataclass
    class Swapped:
        second: np.int32
        first: np.int32

    kernel = cuda.jit(lambda traits: None)
    ordered = kernel.typeof_pyval(coop.gpu_dataclass(Ordered(np.int32(1), np.int32(2))))
    swapped = kernel.typeof_pyval(coop.gpu_dataclass(Swapped(np.int32(1), np.int32(2))))
    assert ordered != swapped
    typing = kernel.targetdescr.typing_context
    assert typing.can_convert(swapped, ordered) is None and typing.can_convert(ordered, swapped) is None
