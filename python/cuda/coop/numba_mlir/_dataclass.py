"""Dataclass instances as kernel arguments: `gpu_dataclass(instance)` registers an
instance, and a kernel compiled with `extensions=[gpu_dataclass_argument_handler]`
takes it as one argument whose fields are attributes inside the kernel
(`traits.scale`, `traits.data[i]`).

This module is the only one that knows how numba-cuda-mlir passes such a value:
- its type is a `GpuDataclass`, the compiler's named-tuple type keyed by the class and
  its fields' types, so two instances of the same shape share one compiled kernel, and
  the compiler's own named-tuple typing and lowering give the attribute reads;
- `typeof` knows each registered class; the argument handler's `prepare_args` turns the
  instance into the tuple of its field values (a FieldValues, which keeps the type),
  which the launcher flattens and copies as it does plain arguments (a NumPy array goes
  to the device and back);
- the registry holds each instance weakly: a dead instance drops out, and with the last
  instance of a shape its type goes too.

Fields that carry temp-storage metadata (`temp_storage_bytes`, `temp_storage_alignment`:
a primitive object of a two-phase API) are host-side: they stay out of the kernel and,
with `compute_temp_storage=True`, sum into the instance's `temp_storage_bytes_sum`,
`temp_storage_bytes_max` and `temp_storage_alignment`."""

from __future__ import annotations

import dataclasses
import threading
import weakref

from numba_cuda_mlir import models
from numba_cuda_mlir.extending import register_model, typeof_impl
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.typing.typeof import Purpose, typeof

from .._core.errors import InvalidArgumentError, InvalidArgumentTypeError, UnsupportedOperationError

ALLOWED = (
    "a device array (numba-cuda-mlir's, or any object with __cuda_array_interface__ such as a "
    "torch tensor), a NumPy array (copied to the device and back, as a plain kernel argument is), "
    "a NumPy or Python scalar (bool, int, float, complex), or an object with temp_storage_bytes "
    "and temp_storage_alignment (host-side temp-storage metadata)"
)
METADATA = ("temp_storage_bytes_sum", "temp_storage_bytes_max", "temp_storage_alignment")


class GpuDataclass(types.NamedTuple):
    """A registered dataclass in a kernel: a named tuple of its kernel fields, keyed by the
    class, the fields' names and types, and the names of its host-side fields (which the
    kernel cannot read; they are in the name so an error about them shows why)."""

    def __init__(self, cls, fields, field_types, host_fields=()):
        self.types = tuple(field_types)
        self.count = len(self.types)
        self.fields = tuple(fields)
        self.host_fields = tuple(host_fields)
        self.instance_class = cls
        described = ", ".join(f"{name}: {ty}" for name, ty in zip(self.fields, self.types))
        host = f"; host-side: {', '.join(self.host_fields)}" if self.host_fields else ""
        types.Type.__init__(self, f"gpu_dataclass {cls.__qualname__}({described}{host})")

    @property
    def key(self):
        return self.instance_class, self.fields, self.types, self.host_fields


class UnusableGpuDataclass(types.Opaque):
    """An instance of a registered class that cannot be passed (not registered, or a field
    changed to a kind the kernel cannot take): the argument handler raises its message at
    launch, the planner at compile when the handler is missing."""

    def __init__(self, cls, message):
        self.instance_class = cls
        self.message = message
        super().__init__(f"unusable gpu_dataclass {cls.__qualname__}")

    @property
    def key(self):
        return self.instance_class, self.message


register_model(GpuDataclass)(models.TupleModel)


class FieldValues(tuple):
    """An instance's kernel field values as the argument handler hands them on. The
    launcher rebuilds a tuple with `type(arg)(*values)` when it copies NumPy fields to the
    device and types the rebuilt one again: a subclass per GpuDataclass (`kind`), which the
    compiler's typeof knows, keeps the named type through that (a plain tuple would become
    an anonymous one)."""

    kind: GpuDataclass
    _fields: tuple[str, ...] = ()  # a namedtuple's marker: rebuilt from *values

    def __new__(cls, *values):
        return super().__new__(cls, values)

    @classmethod
    def of(cls, kind: GpuDataclass) -> type[FieldValues]:
        made = kind.__dict__.get("values_class")  # made once per type, and gone with it
        if made is None:
            name = f"{kind.instance_class.__name__}FieldValues"
            made = kind.values_class = type(name, (cls,), {"kind": kind, "_fields": kind.fields})
        return made


@typeof_impl.register(FieldValues)
def _typeof_field_values(values, context):
    kind = type(values).kind
    field_types = tuple(_field_type(value) for value in values)
    if field_types == kind.types:
        return kind
    return GpuDataclass(kind.instance_class, kind.fields, field_types, kind.host_fields)


@dataclasses.dataclass(frozen=True)
class Signature:
    """What a compiled kernel depends on: the kernel fields' names and types, in order, and
    the host-side fields' names."""

    cls: type
    fields: tuple[tuple[str, types.Type], ...]
    host_fields: tuple[str, ...]

    @property
    def key(self) -> tuple:
        return (self.cls, self.fields, self.host_fields)

    def type(self) -> GpuDataclass:
        names = tuple(name for name, _ in self.fields)
        return GpuDataclass(self.cls, names, tuple(ty for _, ty in self.fields), self.host_fields)


class Registry:
    """The registered instances, held weakly. `types_by_class[cls][id(instance)]` is an
    instance's type; `types_by_signature[key]` the type of each shape in use and
    `signature_refcounts[key]` the live instances of it (key[0] is the class). A dead
    instance is released by its weak reference's callback."""

    def __init__(self):
        self.types_by_class: dict[type, dict[int, GpuDataclass]] = {}
        self.types_by_signature: dict[tuple, GpuDataclass] = {}
        self.signature_refcounts: dict[tuple, int] = {}
        self._signatures: dict[int, tuple] = {}  # id(instance) -> its signature key
        self._watchers: dict[int, weakref.ref] = {}
        self._typed_classes: set[type] = set()
        self._lock = threading.RLock()

    def register(self, instance, signature: Signature) -> GpuDataclass:
        ident = id(instance)
        with self._lock:
            if self._signatures.get(ident) == signature.key:
                return self.types_by_class[signature.cls][ident]
            self._drop(signature.cls, ident)
            kind = self.types_by_signature.get(signature.key)
            if kind is None:
                kind = self.types_by_signature[signature.key] = signature.type()
            self.signature_refcounts[signature.key] = self.signature_refcounts.get(signature.key, 0) + 1
            self.types_by_class.setdefault(signature.cls, {})[ident] = kind
            self._signatures[ident] = signature.key
            if ident not in self._watchers:
                self._watchers[ident] = weakref.ref(instance, self._released(signature.cls, ident))
            if signature.cls not in self._typed_classes:
                typeof_impl.register(signature.cls)(_typeof_instance)
                self._typed_classes.add(signature.cls)
            return kind

    def is_registered(self, instance) -> bool:
        watcher = self._watchers.get(id(instance))
        return watcher is not None and watcher() is instance

    def _released(self, cls, ident):
        def release(reference):
            with self._lock:
                if self._watchers.get(ident) is reference:
                    del self._watchers[ident]
                    self._drop(cls, ident)

        return release

    def _drop(self, cls, ident) -> None:
        key = self._signatures.pop(ident, None)
        if key is None:
            return
        by_instance = self.types_by_class.get(cls, {})
        by_instance.pop(ident, None)
        if not by_instance:
            self.types_by_class.pop(cls, None)
        remaining = self.signature_refcounts[key] - 1
        if remaining:
            self.signature_refcounts[key] = remaining
        else:
            del self.signature_refcounts[key]
            del self.types_by_signature[key]


REGISTRY = Registry()
# The names NVIDIA's registry test reads.
_GPU_DATACLASS_TYPES_BY_CLASS = REGISTRY.types_by_class
_GPU_DATACLASS_TYPES_BY_SIGNATURE = REGISTRY.types_by_signature
_GPU_DATACLASS_SIGNATURE_REFCOUNTS = REGISTRY.signature_refcounts


def gpu_dataclass(instance, /, *, compute_temp_storage=True):
    """Registers a dataclass instance as a kernel argument and returns it.

    A kernel compiled with ``@cuda.jit(extensions=[gpu_dataclass_argument_handler])``
    takes the instance as one argument, and reads its fields as attributes:
    ``traits.scale``, ``traits.data[i]``. A field may hold a device array
    (numba-cuda-mlir's, or any object with ``__cuda_array_interface__``, such as a
    torch tensor), a NumPy array (copied to the device before the launch and back after
    it, as a plain NumPy argument is) or a NumPy or Python scalar. Instances whose
    fields have the same types share one compiled kernel.

    The registry holds the instance weakly: it must be weak-referenceable (a
    ``slots=True`` dataclass needs ``weakref_slot=True``), and its registration ends
    when it dies. A field may be reassigned after registration; the next launch types
    the new value.

    A field holding an object with ``temp_storage_bytes`` and ``temp_storage_alignment``
    (a primitive object of a two-phase API) stays on the host: the kernel cannot read
    it. With ``compute_temp_storage`` (the default) the instance gets
    ``temp_storage_bytes_sum`` and ``temp_storage_bytes_max`` (the sum and the largest
    of those fields' bytes, 0 without any) and ``temp_storage_alignment`` (the largest
    alignment, 1 without any), on the host (a ``slots=True`` instance without such
    fields is left as it is).

    Args:
        instance: An instance of a ``@dataclasses.dataclass`` class.
        compute_temp_storage: Whether to set the three temp-storage attributes.

    Returns:
        The instance itself, registered.

    Raises:
        InvalidArgumentTypeError: ``instance`` is not a dataclass instance, cannot be
            weakly referenced, or has a field of a kind the kernel cannot take.

    Example::

        import dataclasses
        from cuda.coop import numba_mlir as coop_mlir

        @dataclasses.dataclass
        class Traits:
            scale: np.int32
            data: np.ndarray

        @cuda.jit(extensions=[coop_mlir.gpu_dataclass_argument_handler])
        def scale_in_place(traits):
            i = cuda.grid(1)
            if i < traits.data.size:
                traits.data[i] *= traits.scale

        traits = coop_mlir.gpu_dataclass(Traits(np.int32(3), np.arange(128, dtype=np.int32)))
        scale_in_place[1, 128](traits)
    """
    cls = _dataclass_class(instance)
    _check_weakly_referenceable(instance, cls)
    if compute_temp_storage:
        _set_temp_storage(instance, cls)
    signature = signature_of(instance)
    if isinstance(signature, str):
        raise InvalidArgumentTypeError(signature)
    REGISTRY.register(instance, signature)
    return instance


def _dataclass_class(instance) -> type:
    if isinstance(instance, type) and dataclasses.is_dataclass(instance):
        raise InvalidArgumentTypeError(
            f"coop.gpu_dataclass: argument 'instance' is the class {instance.__qualname__}; "
            f"expected an instance of it: coop.gpu_dataclass({instance.__qualname__}(...))"
        )
    if not dataclasses.is_dataclass(instance):
        raise InvalidArgumentTypeError(
            f"coop.gpu_dataclass: argument 'instance' is a {type(instance).__qualname__}; "
            "expected a dataclass instance (of a class decorated with @dataclasses.dataclass)"
        )
    return type(instance)


def _check_weakly_referenceable(instance, cls) -> None:
    try:
        weakref.ref(instance)
    except TypeError:
        raise InvalidArgumentTypeError(
            f"coop.gpu_dataclass: {cls.__qualname__} instances cannot be weakly referenced, and the "
            "registry holds instances weakly: declare it @dataclass(slots=True, weakref_slot=True), "
            "or without slots"
        ) from None


def _is_host_metadata(value) -> bool:
    return hasattr(value, "temp_storage_bytes") and hasattr(value, "temp_storage_alignment")


def _set_temp_storage(instance, cls) -> None:
    sizes, alignments = [], []
    for field in dataclasses.fields(instance):
        value = getattr(instance, field.name)
        if _is_host_metadata(value):
            sizes.append(int(value.temp_storage_bytes))
            alignments.append(int(value.temp_storage_alignment))
    totals = (sum(sizes), max(sizes, default=0), max(alignments, default=1))
    try:
        for name, total in zip(METADATA, totals):
            object.__setattr__(instance, name, total)  # frozen dataclasses too
    except AttributeError:
        if not sizes:  # a slots instance without temp-storage fields: nothing to report
            return
        raise InvalidArgumentTypeError(
            f"coop.gpu_dataclass: compute_temp_storage=True sets {', '.join(METADATA)} on the instance, "
            f"and a {cls.__qualname__} (slots=True) has no room for them: declare them as fields, "
            "or pass compute_temp_storage=False"
        ) from None


def signature_of(instance) -> Signature | str:
    """The instance's signature from its fields' current values, or the message saying
    which field the kernel cannot take."""
    cls = type(instance)
    fields, host = [], []
    for field in dataclasses.fields(instance):
        value = getattr(instance, field.name)
        if _is_host_metadata(value):
            host.append(field.name)
            continue
        ty = _field_type(value)
        if ty is None:
            return (
                f"coop.gpu_dataclass: field '{field.name}' of {cls.__qualname__} holds {_described(value)}; "
                f"a field may hold {ALLOWED}"
            )
        fields.append((field.name, ty))
    return Signature(cls, tuple(fields), tuple(host))


def _described(value) -> str:
    kind = type(value).__qualname__
    dtype = getattr(value, "dtype", None)
    return f"a {kind} of dtype {dtype}" if dtype is not None and hasattr(value, "shape") else f"a {kind}"


def _field_type(value) -> types.Type | None:
    try:
        ty = typeof(value, Purpose.argument)
    except (ValueError, TypeError):
        return None
    if isinstance(ty, types.Array):
        return ty if isinstance(ty.dtype, (types.Number, types.Boolean)) else None
    if isinstance(ty, (types.Number, types.Boolean)):
        return types.unliteral(ty)
    return None


def _typeof_instance(instance, context):
    """The compiler's typeof of an instance of a registered class. An argument whose type
    cannot be given still gets one (UnusableGpuDataclass): the compiler turns a typeof
    error into its own "could not get type", which would hide the reason."""
    if context.purpose != Purpose.argument:
        return None
    cls = type(instance)
    if not REGISTRY.is_registered(instance):
        return UnusableGpuDataclass(
            cls,
            f"a {cls.__qualname__} instance reached a kernel launch without being registered (or its "
            "registration ended): pass coop.gpu_dataclass(instance) and keep the instance alive",
        )
    signature = signature_of(instance)
    if isinstance(signature, str):
        return UnusableGpuDataclass(cls, signature)
    return REGISTRY.register(instance, signature)


class GpuDataclassArgumentHandler:
    """The kernel compiler's argument handler (``extensions=[...]``) for registered
    dataclass instances: it passes an instance as the tuple of its kernel fields' values,
    which the launcher flattens and copies as it does plain arguments."""

    def prepare_args(self, ty, val, stream=None, retr=None):
        if isinstance(ty, UnusableGpuDataclass):
            raise InvalidArgumentTypeError(ty.message)
        if isinstance(ty, GpuDataclass) and not isinstance(val, tuple):
            return ty, FieldValues.of(ty)(*(getattr(val, name) for name in ty.fields))
        return ty, val

    def __repr__(self) -> str:
        return "cuda.coop.numba_mlir.gpu_dataclass_argument_handler"


gpu_dataclass_argument_handler = GpuDataclassArgumentHandler()


def check_kernel_arguments(state) -> None:
    """A kernel taking a registered dataclass needs the argument handler: without it the
    launcher would be handed the instance itself. Raised at compile, naming the parameter."""
    extensions = state.metadata.get("targetoptions", {}).get("extensions") or ()
    names = state.func_id.arg_names
    for position, ty in enumerate(state.args):
        if not isinstance(ty, (GpuDataclass, UnusableGpuDataclass)):
            continue
        parameter = names[position] if position < len(names) else f"#{position}"
        where = f"kernel '{state.func_id.func_qualname}', parameter '{parameter}'"
        if isinstance(ty, UnusableGpuDataclass):
            raise InvalidArgumentTypeError(f"{where}: {ty.message}")
        if not any(extension is gpu_dataclass_argument_handler for extension in extensions):
            raise InvalidArgumentError(
                f"{where}: a gpu_dataclass {ty.instance_class.__qualname__} needs the kernel compiled "
                "with @cuda.jit(extensions=[coop.gpu_dataclass_argument_handler]) "
                "(from cuda.coop.numba_mlir)"
            )


def refuse_literal_retry(state, context: str, argument: str) -> None:
    """A value the planner needs at compile time taken from a kernel argument restarts the
    launch with that argument as a literal; numba-cuda-mlir (0.5, 0.6) cannot restart a
    launch one of whose arguments flattens into several (its issue #60), which a
    gpu_dataclass does. Refused here, naming both, instead of its TypeError at launch."""
    records = [name for name, ty in zip(state.func_id.arg_names, state.args) if isinstance(ty, GpuDataclass)]
    if records:
        raise UnsupportedOperationError(
            f"{context}: argument '{argument}' comes from a kernel argument, which the kernel would be "
            f"specialized on by restarting the launch, and numba-cuda-mlir cannot restart a launch that "
            f"takes a gpu_dataclass ('{records[0]}'): give '{argument}' as a constant (a number or a "
            "global), or pass the gpu_dataclass's fields as plain arguments"
        )
