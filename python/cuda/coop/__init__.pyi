# Typed stubs of the public API. Operands are positional-only, options keyword-only;
# every primitive takes its group first. The docstrings are the runtime markers'
# (python/cuda/coop/_core/api/), which the API reference (docs/api.rst) is built from.
from collections.abc import Callable
from enum import IntEnum
from typing import Any, Literal, Self, TypeAlias, overload

from numpy.typing import DTypeLike

__version__: str

class CoopError(Exception): ...
class CoopCompilerContextRequiredError(CoopError, TypeError): ...
class InvalidGroupError(CoopError, ValueError): ...
class PayloadInferenceError(CoopError, TypeError): ...
class UnsupportedOperationError(CoopError, NotImplementedError): ...
class EscapingGroupDescriptorError(CoopError, TypeError): ...
class UnknownNameError(CoopError, AttributeError): ...
class ProviderCompileError(CoopError, RuntimeError): ...
class ForkedProcessError(CoopError, RuntimeError): ...
class IncompatibleCompilerError(CoopError, ImportError): ...
class InvalidArgumentError(CoopError, ValueError): ...
class InvalidArgumentTypeError(InvalidArgumentError, TypeError): ...
class ToolkitError(CoopError, RuntimeError): ...
class CacheError(CoopError, RuntimeError): ...
class CoopWarning(UserWarning): ...

Level: TypeAlias = Literal["thread", "gpu_thread", "warp", "block", "cluster", "grid"]

class GroupDescriptor:
    kind: Literal["thread", "warp", "threads_within_warp", "block", "warps_within_block"]
    static_size: int
    group_thread_count: int
    block_dim: tuple[int, int, int]
    exhaustive: bool
    is_static: bool
    is_current: bool
    def group_by(self, n: int, /, *, exhaustive: bool = True) -> GroupDescriptor: ...
    def rank(self, level: Level = "thread") -> int: ...
    def count(self, level: Level = "thread") -> int: ...
    def rank_as(self, dtype: DTypeLike | type[int] | None = None, level: Level = "thread") -> int: ...
    def count_as(self, dtype: DTypeLike | type[int] | None = None, level: Level = "thread") -> int: ...
    def is_member(self) -> int: ...
    def sync(self) -> None: ...
    def sync_aligned(self) -> None: ...

class ThreadDataLike:
    items_per_thread: int
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> Any: ...
    def __setitem__(self, index: int, value: Any) -> None: ...

class ThreadData:
    def __new__(
        cls,
        items_per_thread: int,
        dtype: DTypeLike | None = None,
        *,
        alignment: int | None = None,
        alignas: int | None = None,
    ) -> ThreadDataLike: ...

class TempStorage:
    size_in_bytes: int | None
    alignment: int | None
    auto_sync: bool | None
    sharing: Literal["shared", "exclusive"]
    def __new__(
        cls,
        size_in_bytes: int | None = None,
        *,
        alignment: int | None = None,
        auto_sync: bool | None = None,
        sharing: Literal["shared", "exclusive", "reuse"] = "shared",
    ) -> Self: ...
    def reserve(self, num_elems: int, dtype: DTypeLike, /, *, alignment: int | None = None) -> Array: ...

Array: TypeAlias = Any  # a device array or a kernel's local/shared array
Payload: TypeAlias = Any  # ThreadData, a local array of compile-time length, or a scalar
Operator: TypeAlias = str | Callable[[Any, Any], Any]
Predicate: TypeAlias = (
    Literal["less", "greater", "less_equal", "greater_equal"] | Callable[[Any, Any], Any]
)  # a strict "less"
LoadStoreAlgorithm: TypeAlias = Literal[
    "direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"
]

class BlockLoadAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5

class BlockStoreAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5

class WarpLoadAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3

class WarpStoreAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3

class BlockScanAlgorithm(IntEnum):
    RAKING = 0
    RAKING_MEMOIZE = 1
    WARP_SCANS = 2
    WARP_SCAN = 2

class BlockReduceAlgorithm(IntEnum):
    RAKING_COMMUTATIVE_ONLY = 0
    RAKING = 1
    WARP_REDUCTIONS = 2

class BlockHistogramAlgorithm(IntEnum):
    SORT = 0
    ATOMIC = 1

class StatefulFunction:
    op: Any
    dtype: DTypeLike
    name: str | None
    def __init__(self, op: Any, dtype: DTypeLike, name: str | None = None) -> None: ...

def this_block(block_shape: int | tuple[int, ...] | None = None, /) -> GroupDescriptor: ...
def this_warp() -> GroupDescriptor: ...
def this_thread() -> GroupDescriptor: ...
def this_cluster() -> GroupDescriptor: ...
def this_grid() -> GroupDescriptor: ...
def load(
    group: GroupDescriptor,
    source: Array,
    items: Payload,
    /,
    *,
    algorithm: LoadStoreAlgorithm | BlockLoadAlgorithm | BlockStoreAlgorithm = "direct",
    valid_items: int | None = None,
    oob_default: Any = None,
    offset: int | None = None,
    temp_storage: TempStorage | None = None,
) -> None: ...
def store(
    group: GroupDescriptor,
    destination: Array,
    items: Payload,
    /,
    *,
    algorithm: LoadStoreAlgorithm | BlockLoadAlgorithm | BlockStoreAlgorithm = "direct",
    valid_items: int | None = None,
    offset: int | None = None,
    temp_storage: TempStorage | None = None,
) -> None: ...
def exchange(
    group: GroupDescriptor,
    value: Payload,
    /,
    *,
    mode: Literal[
        "striped_to_blocked",
        "blocked_to_striped",
        "warp_striped_to_blocked",
        "blocked_to_warp_striped",
        "scatter_to_blocked",
        "scatter_to_striped",
        "scatter_to_striped_guarded",
        "scatter_to_striped_flagged",
    ] = "striped_to_blocked",
    ranks: Payload | None = None,
    valid_flags: Payload | None = None,
    warp_time_slicing: bool = False,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
@overload
def shuffle(
    group: GroupDescriptor,
    value: Payload,
    /,
    *,
    mode: Literal["up", "down"] = "down",
    distance: int = 1,
    block_suffix_output: Payload | None = None,
    block_prefix_output: Payload | None = None,
) -> Payload: ...
@overload
def shuffle(group: GroupDescriptor, value: Any, /, *, mode: Literal["offset", "rotate"], distance: int = 1) -> Any: ...
def reduce(
    group: GroupDescriptor,
    value: Payload,
    /,
    *,
    binary_op: Operator | None = None,
    broadcast: bool = True,
    valid_items: int | None = None,
    algorithm: Literal["warp_reductions", "raking", "raking_commutative_only"] | None = None,
    temp_storage: TempStorage | None = None,
) -> Any: ...
def sum(
    group: GroupDescriptor,
    value: Payload,
    /,
    *,
    broadcast: bool = True,
    valid_items: int | None = None,
    algorithm: Literal["warp_reductions", "raking", "raking_commutative_only"] | None = None,
    temp_storage: TempStorage | None = None,
) -> Any: ...
def segmented_reduce(
    warp: GroupDescriptor,
    value: Any,
    flag: Any,
    /,
    *,
    binary_op: Operator | None = None,
    flags: Literal["heads", "tails"] = "heads",
) -> Any: ...
def scan(
    group: GroupDescriptor,
    value: Payload,
    state: Payload | None = None,
    /,
    *,
    mode: Literal["exclusive", "inclusive"] = "exclusive",
    scan_op: Operator | None = None,
    initial_value: Any = None,
    algorithm: Literal["raking", "raking_memoize", "warp_scans"] | None = None,
    temp_storage: TempStorage | None = None,
    prefix_op: Callable[[Any], Any] | None = None,
    aggregate_output: Payload | None = None,
    valid_items: int | None = None,
    block_prefix_callback_op: Callable[[Any], Any] | None = None,
) -> Payload: ...
def inclusive_sum(
    group: GroupDescriptor,
    value: Payload,
    state: Payload | None = None,
    /,
    *,
    algorithm: Literal["raking", "raking_memoize", "warp_scans"] | None = None,
    temp_storage: TempStorage | None = None,
    prefix_op: Callable[[Any], Any] | None = None,
    aggregate_output: Payload | None = None,
    valid_items: int | None = None,
    block_prefix_callback_op: Callable[[Any], Any] | None = None,
) -> Payload: ...
def exclusive_sum(
    group: GroupDescriptor,
    value: Payload,
    state: Payload | None = None,
    /,
    *,
    algorithm: Literal["raking", "raking_memoize", "warp_scans"] | None = None,
    temp_storage: TempStorage | None = None,
    prefix_op: Callable[[Any], Any] | None = None,
    aggregate_output: Payload | None = None,
    valid_items: int | None = None,
    block_prefix_callback_op: Callable[[Any], Any] | None = None,
) -> Payload: ...
def inclusive_scan(
    group: GroupDescriptor,
    value: Payload,
    state: Payload | None = None,
    /,
    *,
    scan_op: Operator | None = None,
    algorithm: Literal["raking", "raking_memoize", "warp_scans"] | None = None,
    temp_storage: TempStorage | None = None,
    prefix_op: Callable[[Any], Any] | None = None,
    aggregate_output: Payload | None = None,
    valid_items: int | None = None,
    block_prefix_callback_op: Callable[[Any], Any] | None = None,
) -> Payload: ...
def exclusive_scan(
    group: GroupDescriptor,
    value: Payload,
    state: Payload | None = None,
    /,
    *,
    scan_op: Operator | None = None,
    initial_value: Any = None,
    algorithm: Literal["raking", "raking_memoize", "warp_scans"] | None = None,
    temp_storage: TempStorage | None = None,
    prefix_op: Callable[[Any], Any] | None = None,
    aggregate_output: Payload | None = None,
    valid_items: int | None = None,
    block_prefix_callback_op: Callable[[Any], Any] | None = None,
) -> Payload: ...
def broadcast(warp: GroupDescriptor, value: Any, src_lane: int, /) -> Any: ...
def radix_sort_keys(
    group: GroupDescriptor,
    keys: Payload,
    /,
    *,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    descending: bool = False,
    blocked_to_striped: bool = False,
    radix_bits: int | None = None,
    memoize_outer_scan: bool | None = None,
    inner_scan_algorithm: Literal["warp_scans", "raking", "raking_memoize"] | None = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def radix_sort_pairs(
    group: GroupDescriptor,
    keys: Payload,
    values: Payload,
    /,
    *,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    descending: bool = False,
    blocked_to_striped: bool = False,
    radix_bits: int | None = None,
    memoize_outer_scan: bool | None = None,
    inner_scan_algorithm: Literal["warp_scans", "raking", "raking_memoize"] | None = None,
    temp_storage: TempStorage | None = None,
) -> tuple[Payload, Payload]: ...
def radix_rank_keys(
    group: GroupDescriptor,
    keys: Payload,
    /,
    *,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    radix_bits: int | None = None,
    descending: bool = False,
    exclusive_digit_prefix: Payload | None = None,
    algorithm: Literal["memoize", "basic", "match"] = "memoize",
    temp_storage: TempStorage | None = None,
) -> Payload: ...

radix_rank = radix_rank_keys

def merge_sort_keys(
    group: GroupDescriptor,
    keys: Payload,
    /,
    *,
    compare_op: Predicate | None = None,
    descending: bool = False,
    valid_items: int | None = None,
    oob_default: Any = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def merge_sort_pairs(
    group: GroupDescriptor,
    keys: Payload,
    values: Payload,
    /,
    *,
    compare_op: Predicate | None = None,
    descending: bool = False,
    valid_items: int | None = None,
    oob_default: Any = None,
    temp_storage: TempStorage | None = None,
) -> tuple[Payload, Payload]: ...
def topk_min_keys(
    group: GroupDescriptor,
    keys: Payload,
    /,
    k: int,
    *,
    valid_items: int | None = None,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def topk_max_keys(
    group: GroupDescriptor,
    keys: Payload,
    /,
    k: int,
    *,
    valid_items: int | None = None,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def topk_min_pairs(
    group: GroupDescriptor,
    keys: Payload,
    values: Payload,
    /,
    k: int,
    *,
    valid_items: int | None = None,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    temp_storage: TempStorage | None = None,
) -> tuple[Payload, Payload]: ...
def topk_max_pairs(
    group: GroupDescriptor,
    keys: Payload,
    values: Payload,
    /,
    k: int,
    *,
    valid_items: int | None = None,
    begin_bit: int | None = None,
    end_bit: int | None = None,
    temp_storage: TempStorage | None = None,
) -> tuple[Payload, Payload]: ...
def adjacent_difference(
    group: GroupDescriptor,
    values: Payload,
    /,
    *,
    direction: Literal["left", "right"] = "left",
    difference_op: Operator | None = None,
    valid_items: int | None = None,
    tile_predecessor_item: Any = None,
    tile_successor_item: Any = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def discontinuity(
    group: GroupDescriptor,
    values: Payload,
    /,
    *,
    mode: Literal["heads", "tails", "heads_and_tails"] = "heads",
    flag_op: Predicate | None = None,
    tile_predecessor_item: Any = None,
    tile_successor_item: Any = None,
    temp_storage: TempStorage | None = None,
) -> Payload | tuple[Payload, Payload]: ...
def histogram(
    group: GroupDescriptor,
    samples: Payload,
    /,
    *,
    bins: int,
    bins_per_thread: int = 1,
    counter_dtype: Any = None,
    algorithm: Literal["atomic", "sort"] = "atomic",
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def run_length_decode(
    group: GroupDescriptor,
    run_values: Payload,
    run_lengths: Payload,
    /,
    *,
    decoded_items_per_thread: int,
    decoded_window_offset: int = 0,
    total_decoded_size: Payload | None = None,
    relative_offsets: Payload | None = None,
    decoded_offset_dtype: Any = None,
    temp_storage: TempStorage | None = None,
) -> Payload: ...
def run_length_decode_into(
    group: GroupDescriptor,
    run_values: Payload,
    run_lengths: Payload,
    destination: Array,
    /,
    *,
    decoded_items_per_thread: int,
    destination_offset: int = 0,
    relative_offsets: Array | None = None,
    decoded_offset_dtype: Any = None,
    temp_storage: TempStorage | None = None,
) -> int: ...
def reduce_batched(
    group: GroupDescriptor,
    value: Payload,
    /,
    *,
    binary_op: Operator | None = None,
    output_layout: Literal["striped", "blocked"] = "striped",
) -> Payload: ...
def register(name: Literal["numba-cuda-mlir"], /) -> None: ...
def explain(kernel: Any, /, *args: Any, grid: Any = None, block: Any = None, cluster: Any = None) -> Any: ...
