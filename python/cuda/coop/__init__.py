"""cuda.coop: CUB's cooperative primitives inside Python GPU kernels.

Every primitive takes the participating group first, then its data operands
(positional-only), then options (keyword-only). Calling one on the host raises
CoopCompilerContextRequiredError; inside a kernel compiled by a registered kernel
compiler each call becomes an inlined CUB specialization.
"""

from ._core.api.counting import (
    adjacent_difference,
    discontinuity,
    histogram,
    reduce_batched,
    run_length_decode,
    run_length_decode_into,
)
from ._core.api.data_movement import (
    exchange,
    load,
    shuffle,
    store,
)
from ._core.api.enums import (
    BlockHistogramAlgorithm,
    BlockLoadAlgorithm,
    BlockReduceAlgorithm,
    BlockScanAlgorithm,
    BlockStoreAlgorithm,
    WarpLoadAlgorithm,
    WarpStoreAlgorithm,
)
from ._core.api.groups import GroupDescriptor, this_block, this_cluster, this_grid, this_thread, this_warp
from ._core.api.reductions import (
    broadcast,
    exclusive_scan,
    exclusive_sum,
    inclusive_scan,
    inclusive_sum,
    reduce,
    scan,
    segmented_reduce,
    sum,
)
from ._core.api.sorting import (
    merge_sort_keys,
    merge_sort_pairs,
    radix_rank,
    radix_rank_keys,
    radix_sort_keys,
    radix_sort_pairs,
    topk_max_keys,
    topk_max_pairs,
    topk_min_keys,
    topk_min_pairs,
)
from ._core.api.stateful import StatefulFunction
from ._core.api.storage import TempStorage, ThreadData
from ._core.errors import (
    CacheError,
    CoopCompilerContextRequiredError,
    CoopError,
    CoopWarning,
    EscapingGroupDescriptorError,
    ForkedProcessError,
    IncompatibleCompilerError,
    InvalidArgumentError,
    InvalidArgumentTypeError,
    InvalidGroupError,
    PayloadInferenceError,
    ProviderCompileError,
    ToolkitError,
    UnknownNameError,
    UnsupportedOperationError,
)
from ._core.registration import auto_register as _auto_register
from ._core.registration import explain, register
from ._core.tracebacks import install as _install_traceback_hook


def __getattr__(name: str):
    # Read on first use: importlib.metadata would double the cost of `import cuda.coop`.
    if name == "__version__":
        from ._core.version import package_version

        return package_version()
    raise AttributeError(f"module 'cuda.coop' has no attribute {name!r}")


__all__ = [
    "BlockHistogramAlgorithm",
    "BlockLoadAlgorithm",
    "BlockReduceAlgorithm",
    "BlockScanAlgorithm",
    "BlockStoreAlgorithm",
    "CacheError",
    "CoopCompilerContextRequiredError",
    "CoopError",
    "CoopWarning",
    "EscapingGroupDescriptorError",
    "ForkedProcessError",
    "GroupDescriptor",
    "IncompatibleCompilerError",
    "InvalidArgumentError",
    "InvalidArgumentTypeError",
    "InvalidGroupError",
    "PayloadInferenceError",
    "ProviderCompileError",
    "StatefulFunction",
    "TempStorage",
    "ThreadData",
    "ToolkitError",
    "UnknownNameError",
    "UnsupportedOperationError",
    "WarpLoadAlgorithm",
    "WarpStoreAlgorithm",
    "adjacent_difference",
    "broadcast",
    "discontinuity",
    "exchange",
    "exclusive_scan",
    "exclusive_sum",
    "explain",
    "histogram",
    "inclusive_scan",
    "inclusive_sum",
    "load",
    "merge_sort_keys",
    "merge_sort_pairs",
    "radix_rank",
    "radix_rank_keys",
    "radix_sort_keys",
    "radix_sort_pairs",
    "reduce",
    "reduce_batched",
    "register",
    "run_length_decode",
    "run_length_decode_into",
    "scan",
    "segmented_reduce",
    "shuffle",
    "store",
    "sum",
    "this_block",
    "this_cluster",
    "this_grid",
    "this_thread",
    "this_warp",
    "topk_max_keys",
    "topk_max_pairs",
    "topk_min_keys",
    "topk_min_pairs",
]

_install_traceback_hook()
_auto_register()
