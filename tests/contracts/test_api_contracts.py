"""The public API as ../shared/API.md promises it, checked without any compiler."""

import ast
import importlib.metadata
import inspect
import pathlib
import subprocess
import sys

import pytest

from cuda import coop
from cuda.coop._core.markers import all_markers, marker_of

# Signatures exactly as API.md writes them: group first, operands positional-only, options keyword-only.
# The reductions add temp_storage= last (see _core/api/reductions.py for why).
SIGNATURES = {
    "load": "(group, source, items, /, *, algorithm='direct', valid_items=None, oob_default=None, offset=None, "
    "temp_storage=None)",
    "store": "(group, destination, items, /, *, algorithm='direct', valid_items=None, offset=None, temp_storage=None)",
    "exchange": (
        "(group, value, /, *, mode='striped_to_blocked', ranks=None, valid_flags=None, warp_time_slicing=False, "
        "temp_storage=None)"
    ),
    "shuffle": "(group, value, /, *, mode='down', distance=1, block_suffix_output=None, block_prefix_output=None)",
    "reduce": "(group, value, /, *, binary_op=None, broadcast=True, valid_items=None, algorithm=None, "
    "temp_storage=None)",
    "sum": "(group, value, /, *, broadcast=True, valid_items=None, algorithm=None, temp_storage=None)",
    "segmented_reduce": "(warp, value, flag, /, *, binary_op=None, flags='heads')",
    "scan": "(group, value, state=None, /, *, mode='exclusive', scan_op=None, initial_value=None, algorithm=None, "
    "temp_storage=None, prefix_op=None, aggregate_output=None, valid_items=None, block_prefix_callback_op=None)",
    "inclusive_sum": "(group, value, state=None, /, *, algorithm=None, temp_storage=None, prefix_op=None, "
    "aggregate_output=None, valid_items=None, block_prefix_callback_op=None)",
    "exclusive_sum": "(group, value, state=None, /, *, algorithm=None, temp_storage=None, prefix_op=None, "
    "aggregate_output=None, valid_items=None, block_prefix_callback_op=None)",
    "inclusive_scan": "(group, value, state=None, /, *, scan_op=None, algorithm=None, temp_storage=None, prefix_op=None, "
    "aggregate_output=None, valid_items=None, block_prefix_callback_op=None)",
    "exclusive_scan": "(group, value, state=None, /, *, scan_op=None, initial_value=None, algorithm=None, temp_storage=None, "
    "prefix_op=None, aggregate_output=None, valid_items=None, block_prefix_callback_op=None)",
    "broadcast": "(warp, value, src_lane, /)",
    "radix_sort_keys": "(group, keys, /, *, begin_bit=None, end_bit=None, descending=False, blocked_to_striped=False, "
    "radix_bits=None, memoize_outer_scan=None, inner_scan_algorithm=None, temp_storage=None)",
    "radix_sort_pairs": "(group, keys, values, /, *, begin_bit=None, end_bit=None, descending=False, "
    "blocked_to_striped=False, radix_bits=None, memoize_outer_scan=None, inner_scan_algorithm=None, "
    "temp_storage=None)",
    "radix_rank_keys": "(group, keys, /, *, begin_bit=None, end_bit=None, radix_bits=None, descending=False, "
    "exclusive_digit_prefix=None, algorithm='memoize', temp_storage=None)",
    "radix_rank": "(group, keys, /, *, begin_bit=None, end_bit=None, radix_bits=None, descending=False, "
    "exclusive_digit_prefix=None, algorithm='memoize', temp_storage=None)",
    "merge_sort_keys": "(group, keys, /, *, compare_op=None, descending=False, valid_items=None, oob_default=None, "
    "temp_storage=None)",
    "merge_sort_pairs": "(group, keys, values, /, *, compare_op=None, descending=False, valid_items=None, oob_default=None, "
    "temp_storage=None)",
    "topk_min_keys": "(group, keys, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None)",
    "topk_max_keys": "(group, keys, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None)",
    "topk_min_pairs": "(group, keys, values, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None)",
    "topk_max_pairs": "(group, keys, values, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None)",
    "adjacent_difference": "(group, values, /, *, direction='left', difference_op=None, valid_items=None, "
    "tile_predecessor_item=None, tile_successor_item=None, temp_storage=None)",
    "discontinuity": "(group, values, /, *, mode='heads', flag_op=None, tile_predecessor_item=None, "
    "tile_successor_item=None, temp_storage=None)",
    "histogram": "(group, samples, /, *, bins, bins_per_thread=1, counter_dtype=None, algorithm='atomic', "
    "temp_storage=None)",
    "run_length_decode": "(group, run_values, run_lengths, /, *, decoded_items_per_thread, decoded_window_offset=0, "
    "total_decoded_size=None, relative_offsets=None, decoded_offset_dtype=None, temp_storage=None)",
    "run_length_decode_into": "(group, run_values, run_lengths, destination, /, *, decoded_items_per_thread, "
    "destination_offset=0, relative_offsets=None, decoded_offset_dtype=None, temp_storage=None)",
    "reduce_batched": "(group, value, /, *, binary_op=None, output_layout='striped')",
    "this_block": "(block_shape=None, /)",
    "this_warp": "()",
    "this_thread": "()",
}

IMPLEMENTED = {
    *(
        "this_block",
        "this_warp",
        "this_thread",
        "this_cluster",
        "this_grid",
        "ThreadData",
        "TempStorage",
        "load",
        "store",
    ),
    *("reduce", "sum", "segmented_reduce", "scan", "inclusive_sum", "exclusive_sum", "inclusive_scan"),
    "exclusive_scan",
    *("broadcast", "exchange", "shuffle"),
    *("radix_sort_keys", "radix_sort_pairs", "radix_rank_keys", "merge_sort_keys", "merge_sort_pairs"),
    *("topk_min_keys", "topk_max_keys", "topk_min_pairs", "topk_max_pairs"),
    *("adjacent_difference", "discontinuity", "histogram", "reduce_batched", "run_length_decode"),
    "run_length_decode_into",
}
ALIASES = {"radix_rank": "radix_rank_keys"}  # the seed's earlier name: the same marker

ERRORS = [
    "CoopCompilerContextRequiredError",
    "InvalidGroupError",
    "PayloadInferenceError",
    "UnsupportedOperationError",
    "EscapingGroupDescriptorError",
    "ProviderCompileError",
    "IncompatibleCompilerError",
]


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_matches_the_api(name):
    signature = inspect.signature(getattr(coop, name)).replace(return_annotation=inspect.Signature.empty)
    assert str(signature) == SIGNATURES[name]


def test_storage_constructors():
    assert str(inspect.signature(coop.ThreadData)) == (
        "(items_per_thread, dtype=None, *, alignment=None, alignas=None)"
    )
    assert str(inspect.signature(coop.TempStorage.reserve)) == "(self, num_elems, dtype, /, *, alignment=None)"
    assert str(inspect.signature(coop.TempStorage)) == (
        "(size_in_bytes=None, *, alignment=None, auto_sync=None, sharing='shared')"
    )


GROUP_FACTORIES = ("this_block", "this_warp", "this_thread", "this_cluster", "this_grid")


@pytest.mark.parametrize("name", sorted(set(SIGNATURES) - set(GROUP_FACTORIES)))
def test_host_calls_are_refused(name):
    function = getattr(coop, name)
    arguments = [None] * sum(
        p.kind is p.POSITIONAL_ONLY and p.default is p.empty for p in inspect.signature(function).parameters.values()
    )
    keywords = {
        p.name: None
        for p in inspect.signature(function).parameters.values()
        if p.kind is p.KEYWORD_ONLY and p.default is p.empty
    }
    called = ALIASES.get(name, name)
    with pytest.raises(coop.CoopCompilerContextRequiredError, match=rf"coop\.{called}\(\) was called on the host"):
        function(*arguments, **keywords)


@pytest.mark.parametrize("construct", [lambda: coop.ThreadData(4), lambda: coop.TempStorage()])
def test_storage_on_the_host_is_refused(construct):
    with pytest.raises(coop.CoopCompilerContextRequiredError):
        construct()


def test_operands_cannot_be_named_and_options_cannot_be_positional():
    with pytest.raises(TypeError):
        coop.load(group=None, source=None, items=None)
    with pytest.raises(TypeError):
        coop.load(None, None, None, "direct")


@pytest.mark.parametrize("name", ERRORS)
def test_errors_share_one_base(name):
    assert issubclass(getattr(coop, name), coop.CoopError)


def test_markers_know_which_families_have_landed():
    markers = all_markers()
    assert {name for name, info in markers.items() if info.implemented} | {"ThreadData", "TempStorage"} == IMPLEMENTED
    assert marker_of(coop.load).family == "load_store"
    assert marker_of(coop.ThreadData).name == "ThreadData"
    assert {ALIASES.get(name, name) for name in SIGNATURES} <= set(markers)
    assert all(getattr(coop, alias) is getattr(coop, name) for alias, name in ALIASES.items())


def test_unknown_backend_names_the_argument():
    with pytest.raises(coop.InvalidArgumentError, match=r"coop\.register: argument 'name' = 'numba' .*numba-cuda-mlir"):
        coop.register("numba")


def test_importing_loads_no_compiler():
    code = "import sys; from cuda import coop; print('numba_cuda_mlir' in sys.modules, 'numba' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert output.split() == ["False", "False"]


def test_explain_needs_an_active_backend_kernel():
    with pytest.raises(coop.InvalidArgumentError, match=r"coop\.explain: argument 'kernel'"):
        coop.explain(object(), grid=1, block=32)


def test_the_stub_declares_every_public_name():
    stub = ast.parse((pathlib.Path(coop.__file__).parent / "__init__.pyi").read_text())
    declared = set()
    for node in stub.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(target.id for target in node.targets)
    assert {*coop.__all__, "__version__"} <= declared


def test_the_version_is_the_distributions():
    assert coop.__version__ == importlib.metadata.version("cuda-coop")


@pytest.mark.parametrize(
    ("hide", "missing"),
    [("numba_cuda_mlir", "import of numba_cuda_mlir halted"), ("numba_cuda_mlir.extending", "extending")],
)
def test_register_without_the_compiler_names_the_pip_command(hide, missing):
    """A compiler that cannot be imported, or that misses a piece of its own, is an
    IncompatibleCompilerError (an ImportError) naming the pip command, not a bare ModuleNotFoundError."""
    code = f"""
import sys
sys.modules[{hide!r}] = None  # as if not installed
from cuda import coop
try:
    coop.register("numba-cuda-mlir")
except coop.IncompatibleCompilerError as error:
    print(isinstance(error, ImportError), error)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True coop.register('numba-cuda-mlir'): the compiler cannot be imported")
    assert missing in done.stdout
    assert 'pip install "cuda-coop[cu13]"' in done.stdout


def test_the_qualified_stub_declares_its_own_names():
    import cuda.coop.numba_mlir as qualified

    stub = ast.parse((pathlib.Path(qualified.__file__).parent / "__init__.pyi").read_text())
    declared = {node.name for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    declared |= {node.target.id for node in stub.body if isinstance(node, ast.AnnAssign)}
    own = set(qualified.__all__) - set(coop.__all__)
    assert own <= declared


def test_group_descriptors_are_host_values_whose_members_need_a_kernel():
    warp, block = coop.this_warp(), coop.this_block((32, 4))
    assert (warp.kind, warp.static_size, block.static_size, block.block_dim) == ("warp", 32, 128, (32, 4, 1))
    assert coop.this_block().static_size is None and not coop.this_block().is_static
    eight = warp.group_by(8)
    assert (eight.kind, eight.static_size, eight.parent) == ("threads_within_warp", 8, warp)
    assert eight == coop.this_warp().group_by(8) and hash(eight) == hash(coop.this_warp().group_by(8))
    assert coop.this_block().group_by(2).kind == "warps_within_block"
    assert coop.this_thread().group_thread_count == 1
    assert repr(coop.this_warp().group_by(12, exhaustive=False)) == "coop.this_warp().group_by(12, exhaustive=False)"
    with pytest.raises(ValueError):
        coop.this_block().group_thread_count  # noqa: B018 (unknown before a launch)
    with pytest.raises(ValueError):
        warp.group_by(12)
    with pytest.raises(NotImplementedError):
        eight.group_by(2)
    for member in ("rank", "count", "rank_as", "count_as", "is_member", "sync", "sync_aligned"):
        with pytest.raises(coop.CoopCompilerContextRequiredError):
            getattr(warp, member)()
    with pytest.raises(coop.CoopCompilerContextRequiredError):
        coop.GroupDescriptor()
