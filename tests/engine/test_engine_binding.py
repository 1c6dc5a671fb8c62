"""cuda.coop._engine over the real engine: planning and its errors, NVRTC compiles
through the disk cache, and a kernel compiled by nvcc linked with the providers by
nvJitLink. No GPU is needed."""

import importlib.metadata
import os
import subprocess
import sys
import threading
import time

import pytest

from cuda.coop import _engine, _engine_session, _toolkit_locate

ARCH = "sm_90"
LTOIR_MAGIC = b"\xed\x43\x4e\x7f"
NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
RUNTIME = _engine.OptionBinding.runtime()


def facts(operation, algorithm, group=None, dtype="float32", items=4, **options):
    bindings = {"algorithm": _engine.OptionBinding.fixed(algorithm), **options}
    return _engine.CallFacts(operation, group or _engine.block(128), dtype, items, bindings, "copy_tile (kernel.py:12)")


@pytest.fixture(scope="module")
def cache_home(tmp_path_factory):
    """Every Engine of this module caches under a fresh XDG_CACHE_HOME, read when it is created."""
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("xdg")
        patch.setenv("XDG_CACHE_HOME", str(home))
        patch.delenv("CUDA_COOP_ENABLE_CACHE", raising=False)
        patch.delenv("CUDA_COOP_SOURCE_DUMP_DIR", raising=False)
        yield home


@pytest.fixture(scope="module")
def tile_copy(cache_home):
    """A transposing load and store of partial tiles, compiled together: one NVRTC compile."""
    engine = _engine.Engine("test")
    plans = [
        engine.plan(facts("load", "transpose", valid_items=RUNTIME)),
        engine.plan(facts("store", "transpose", valid_items=RUNTIME)),
    ]
    return engine, plans, engine.compile(plans, ARCH)


@pytest.fixture(scope="module")
def kernel_fatbin(tile_copy, tmp_path_factory):
    """A CUDA C++ tile copy calling the providers through their declarations, as nvcc's LTO-IR."""
    if not os.access(NVCC, os.X_OK):
        pytest.skip(f"no nvcc at {NVCC}")
    engine, _, bundle = tile_copy
    load, store = bundle.providers
    assert [param.name for param in load.abi] == ["source", "items", "valid_items", "temp_storage"]
    assert [param.name for param in store.abi] == ["destination", "items", "valid_items", "temp_storage"]
    source = f"""#include <cuda/std/cstdint>
{load.declaration()}
{store.declaration()}
extern "C" __global__ void tile_copy(float* source, float* destination, long long valid) {{
  __shared__ __align__({max(load.scratch_alignment, store.scratch_alignment)})
      unsigned char scratch[{max(load.scratch_bytes_per_block, store.scratch_bytes_per_block)}];
  float items[4];
  int status = 0;
  {load.symbol}(&status, source, items, valid, scratch);
  __syncthreads();  // the store reuses the load's scratch
  {store.symbol}(&status, destination, items, valid, scratch);
}}
"""
    work = tmp_path_factory.mktemp("kernel")
    (work / "kernel.cu").write_text(source)
    include = "-I" + engine.toolkit["cccl_include"]
    command = [NVCC, "-std=c++17", f"-arch={ARCH}", "-rdc=true", "-dlto", "-fatbin", include, "kernel.cu"]
    subprocess.run([*command, "-o", "kernel.fatbin"], cwd=work, check=True, capture_output=True)
    return (work / "kernel.fatbin").read_bytes()


def test_plan_describes_the_specialization_and_its_abi():
    plan = _engine.Engine("test").plan(facts("load", "transpose", dtype="int32", items=2, valid_items=RUNTIME))
    assert (plan.operation, plan.family, plan.method, plan.algorithm) == ("load", "load_store", "Load", "transpose")
    assert plan.cub_type == "::cub::BlockLoad<::cuda::std::int32_t, 128, 2, ::cub::BLOCK_LOAD_TRANSPOSE, 1, 1>"
    assert plan.template_arguments[:4] == [
        ("T", "::cuda::std::int32_t"),
        ("BLOCK_DIM_X", "128"),
        ("ITEMS_PER_THREAD", "2"),
        ("ALGORITHM", "::cub::BLOCK_LOAD_TRANSPOSE"),
    ]
    assert "cub/block/block_load.cuh" in plan.headers
    assert [(param.name, param.kind) for param in plan.abi] == [
        ("source", "pointer"),
        ("items", "pointer"),
        ("valid_items", "value"),
        ("temp_storage", "pointer"),
    ]
    assert plan.abi[2].cpp_type == "::cuda::std::int64_t"
    # The dtype each value is typed with on the Python side comes from the plan.
    assert [param.value_dtype for param in plan.abi] == ["int32", "int32", "int64", "uint8"]
    assert (plan.needs_scratch, plan.scratch_instances, plan.reuse_barrier) == (True, 1, "block")
    assert (plan.dtype, plan.items_per_thread, plan.group_kind, plan.tile_capacity) == ("int32", 2, "block", 256)
    assert "valid_items=RUNTIME" in plan.key and len(plan.digest) == 64
    assert "BLOCK_LOAD_TRANSPOSE" in plan.describe()
    assert plan.facts.options["valid_items"] == RUNTIME


def test_warp_plan_has_one_scratch_per_logical_warp():
    group = _engine.warp((128, 1, 1), 8)
    assert (group.kind, group.block, group.width, group.threads, group.instances) == ("warp", (128, 1, 1), 8, 8, 16)
    plan = _engine.Engine("test").plan(facts("load", "transpose", group=group))
    assert (plan.group_kind, plan.scratch_instances, plan.reuse_barrier) == ("warp", 16, "warp")
    assert plan.cub_type.startswith("::cub::WarpLoad<")


def test_the_engine_says_which_values_cross_by_pointer():
    assert [_engine.passes_by_pointer(d) for d in ("float16", "bfloat16", "complex64", "complex128")] == [True] * 4
    assert not any(_engine.passes_by_pointer(d) for d in ("bool", "int8", "uint64", "float32", "float64"))
    with pytest.raises(_engine.EngineError, match="argument 'dtype' = 'float8'"):
        _engine.passes_by_pointer("float8")


def test_the_engine_widens_narrow_integers_to_32_bits():
    widened = [_engine.at_least_32_bits(d) for d in ("int8", "int16", "uint8", "uint16", "int64", "uint32", "float16")]
    assert widened == ["int32", "int32", "uint32", "uint32", "int64", "uint32", "float16"]
    with pytest.raises(_engine.EngineError, match="argument 'dtype' = 'int4'"):
        _engine.at_least_32_bits("int4")


def test_the_engine_says_how_much_shared_memory_a_block_has():
    assert _engine.max_shared_memory_per_block("sm_90") == 227 * 1024
    assert _engine.max_shared_memory_per_block("sm_75") == 64 * 1024
    assert _engine.max_shared_memory_per_block("sm_130") == 48 * 1024  # unknown: what every GPU gives
    with pytest.raises(_engine.EngineError, match="argument 'arch' = 'sm90'"):
        _engine.max_shared_memory_per_block("sm90")


def test_option_bindings():
    static = _engine.OptionBinding.fixed("transpose")
    assert (static.binding, static.value) == ("static", "transpose")
    assert (RUNTIME.binding, RUNTIME.value) == ("runtime", None)
    assert _engine.OptionBinding.omitted().binding == "omitted"
    assert static == _engine.OptionBinding.fixed("transpose") and static != RUNTIME


def test_catalog_exports_each_operations_operands_by_role():
    assert _engine.operation_operands("load") == [
        {"name": "source", "role": "source_array", "starts_as": ""},
        {"name": "items", "role": "payload_out", "starts_as": ""},
    ]
    assert [operand["role"] for operand in _engine.operation_operands("store")] == [
        "destination_array",
        "payload_in",  # read only: CUB gets a copy (the transposing algorithms rearrange it)
    ]
    assert _engine.operation_operands("reduce") == [{"name": "value", "role": "payload_in", "starts_as": ""}]
    assert [operand["role"] for operand in _engine.operation_operands("segmented_reduce")] == ["payload_in", "flag"]
    # A scan reads its value and writes a fresh result: the input is left unchanged.
    for scan in ("scan", "inclusive_sum", "exclusive_sum", "inclusive_scan", "exclusive_scan"):
        assert _engine.operation_operands(scan) == [
            {"name": "value", "role": "payload_in", "starts_as": ""},
            {"name": "result", "role": "payload_result", "starts_as": ""},
        ]
    # A fresh result the front end allocates; a shuffle's starts as a copy of its input.
    assert _engine.operation_operands("shuffle")[1] == {
        "name": "result",
        "role": "payload_result",
        "starts_as": "value",
    }


def test_a_result_some_options_do_not_return_says_under_which():
    values, heads, tails = _engine.operation_operands("discontinuity")
    assert "returned_when" not in values
    assert heads["returned_when"] == [("mode", "heads"), ("mode", "heads_and_tails")]
    assert tails["returned_when"] == [("mode", "tails"), ("mode", "heads_and_tails")]


def test_catalog_exports_operators_with_their_spellings():
    operators = {spec["name"]: spec for spec in _engine.builtin_operators()}
    assert set(operators) == {"sum", "mul", "min", "max", "bit_and", "bit_or", "bit_xor", "difference"}
    assert operators["sum"]["aliases"] == ["+", "add", "plus", "operator.add", "np.add", "numpy.add"]
    assert operators["bit_xor"]["integers_only"] and operators["min"]["needs_order"]
    # An adjacent difference's default; reductions and scans refuse it, since they regroup.
    assert operators["difference"]["aliases"] == [
        "-",
        "minus",
        "subtract",
        "operator.sub",
        "np.subtract",
        "numpy.subtract",
    ]
    assert operators["sum"]["associative"] and not operators["difference"]["associative"]


def test_an_operator_alias_plans_as_its_name():
    engine = _engine.Engine("test")
    spelled = engine.plan(facts("reduce", "raking", binary_op=_engine.OptionBinding.fixed("+")))
    named = engine.plan(facts("reduce", "raking", binary_op=_engine.OptionBinding.fixed("sum")))
    assert spelled.key == named.key and "binary_op=STATIC:sum" in spelled.key
    scanned = engine.plan(facts("inclusive_scan", "raking", scan_op=_engine.OptionBinding.fixed("maximum")))
    assert "scan_op=STATIC:max" in scanned.key


def test_the_operator_options_are_binary_op_and_scan_op():
    def operators(name):
        return [option["name"] for option in _engine.operation_options(name) if option["type"] == "operator"]

    assert operators("reduce") == operators("segmented_reduce") == ["binary_op"]
    assert operators("sum") == operators("inclusive_sum") == operators("exclusive_sum") == []
    assert operators("scan") == operators("inclusive_scan") == operators("exclusive_scan") == ["scan_op"]
    names = {option["name"] for scan in ("scan", "inclusive_scan") for option in _engine.operation_options(scan)}
    assert not names & {"op", "output", "block_aggregate"} and "aggregate_output" in names


def test_the_scan_takes_a_mode():
    options = {option["name"]: option for option in _engine.operation_options("scan")}
    assert (options["mode"]["choices"], options["mode"]["default"]) == (["exclusive", "inclusive"], "exclusive")
    engine = _engine.Engine("test")
    inclusive = engine.plan(facts("scan", "raking", mode=_engine.OptionBinding.fixed("inclusive")))
    assert "mode=STATIC:inclusive" in inclusive.key
    assert engine.plan(facts("scan", "raking")).key != inclusive.key


@pytest.mark.parametrize(
    "operation, options, named",
    [
        ("exclusive_scan", {"scan_op": "max"}, "argument 'initial_value' = omitted is not allowed"),
        ("scan", {"scan_op": "min"}, "argument 'initial_value' = omitted is not allowed"),
        ("inclusive_scan", {"initial_value": "0"}, "argument 'initial_value' = given is not allowed"),
        ("scan", {"mode": "inclusive", "initial_value": "0"}, "argument 'initial_value' = given"),
        ("scan", {"mode": "inclusive", "scan_op": "max", "initial_value": "0"}, "argument 'initial_value' = given"),
    ],
)
def test_a_scan_seeds_exactly_the_exclusive_scans_of_other_operators(operation, options, named):
    bindings = {name: _engine.OptionBinding.fixed(value) for name, value in options.items()}
    with pytest.raises(_engine.EngineError, match=named) as raised:
        _engine.Engine("test").plan(facts(operation, "raking", **bindings))
    assert raised.value.kind == "InvalidArgument"
    assert str(raised.value).startswith(f"{operation} (copy_tile (kernel.py:12)): ")


def test_an_exclusive_sum_starts_from_zero_and_another_operator_from_its_seed():
    engine = _engine.Engine("test")
    engine.plan(facts("exclusive_scan", "raking"))
    engine.plan(facts("scan", "raking"))
    seed = _engine.OptionBinding.fixed("-1")
    seeded = engine.plan(
        facts("exclusive_scan", "raking", scan_op=_engine.OptionBinding.fixed("max"), initial_value=seed)
    )
    assert "initial_value=STATIC:-1" in seeded.key


def test_catalog_exports_a_prefix_callbacks_state_parameter():
    options = {option["name"]: option for option in _engine.operation_options("exclusive_scan")}
    assert options["prefix_op"]["type"] == "prefix_callback"
    assert options["prefix_op"]["state_parameter"] == "prefix_op_state"
    assert {name for name, option in options.items() if option["state_parameter"] is not None} == {"prefix_op"}


def test_catalog_exports_an_operation_as_one_dict():
    scan = _engine.operation("inclusive_scan")
    assert (scan["name"], scan["family"], scan["returns_value"]) == ("inclusive_scan", "scan", False)
    assert scan["operands"] == _engine.operation_operands("inclusive_scan")
    assert scan["options"] == _engine.operation_options("inclusive_scan")
    assert _engine.operation("reduce")["returns_value"] is True


@pytest.mark.parametrize("lookup", [_engine.operation, _engine.operation_operands, _engine.operation_options])
def test_catalog_lookup_of_an_unknown_operation_names_the_known_ones(lookup):
    with pytest.raises(_engine.EngineError, match="argument 'operation' = 'sort' is not allowed") as raised:
        lookup("sort")
    assert raised.value.kind == "UnsupportedOperation"
    assert "load, store" in str(raised.value)


@pytest.mark.parametrize(
    "make_facts, kind, named",
    [
        (lambda: facts("load", "sideways"), "UnsupportedOperation", "'algorithm' = 'sideways'"),
        (lambda: facts("sort", "direct"), "UnsupportedOperation", "'operation' = 'sort'"),
        (lambda: facts("load", "direct", group=_engine.block(2048)), "InvalidGroup", "'block' = (2048,1,1)"),
        (lambda: facts("load", "direct", group=_engine.warp((20,), 8)), "InvalidGroup", "'block'"),
        (lambda: facts("load", "direct", items=0), "InvalidArgument", "'items_per_thread' = 0"),
        (lambda: facts("load", "direct", items=10000), "InvalidArgument", "'items_per_thread' = 10000"),
        (
            lambda: facts("load", "direct", offset=_engine.OptionBinding.fixed("-5")),
            "InvalidArgument",
            "'offset' = -5 is not allowed; expected an integer element offset >= 0",
        ),
        (lambda: facts("load", "direct", dtype="int128"), "InvalidArgument", "'dtype' = 'int128'"),
        (lambda: _engine.warp((1, 2, 3, 4)), "InvalidGroup", "'block' = (1,2,3,4)"),
    ],
)
def test_invalid_call_raises_engine_error_naming_the_argument(make_facts, kind, named):
    with pytest.raises(_engine.EngineError) as raised:
        _engine.Engine("test").plan(make_facts())
    assert raised.value.kind == kind
    assert named in str(raised.value)
    assert isinstance(raised.value, Exception)


def test_compile_returns_ltoir_and_scratch_layouts(tile_copy):
    _, plans, bundle = tile_copy
    assert bundle.ltoir.startswith(LTOIR_MAGIC)
    assert (bundle.arch, bundle.cache, len(bundle.providers)) == (ARCH, "miss", 2)
    assert bundle.compile_seconds > 0
    for plan, provider in zip(plans, bundle.providers):
        assert provider.cub_type == plan.cub_type
        assert provider.scratch_bytes > 0 and provider.scratch_alignment > 0
        assert provider.scratch_bytes_per_block == provider.scratch_bytes * provider.scratch_instances
        assert provider.reuse_barrier == "block"
        assert provider.declaration().startswith(f'extern "C" __device__ int {provider.symbol}(void* ret, ')
        assert provider.symbol in bundle.source


def test_compile_refuses_scratch_a_block_cannot_hold(cache_home):
    engine = _engine.Engine("test")
    big = engine.plan(facts("load", "transpose", group=_engine.block(1024), dtype="float64", items=40))
    with pytest.raises(_engine.EngineError, match=r"'scratch' = 327680 bytes per block .* on sm_90") as raised:
        engine.compile([big], ARCH)
    assert raised.value.kind == "InvalidArgument"


def test_static_infinities_compile_for_every_float_dtype(cache_home):
    engine = _engine.Engine("test")
    plans = []
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        for value in (float("-inf"), float("inf"), float("nan")):
            seed = _engine.OptionBinding.fixed(repr(value))  # how the planner spells a Python float
            options = {"scan_op": _engine.OptionBinding.fixed("max"), "initial_value": seed}
            scan = _engine.CallFacts("exclusive_scan", _engine.block(128), dtype, 2, options, "scan (kernel.py:3)")
            plans.append(engine.plan(scan))
    assert len(engine.compile(plans, ARCH).providers) == len(plans)


def test_emit_is_the_source_compile_builds(tile_copy):
    engine, plans, bundle = tile_copy
    assert engine.emit(plans, ARCH) == bundle.source


def test_a_new_engine_reads_the_disk_cache(tile_copy, cache_home):
    engine, plans, first = tile_copy
    assert engine.compile(plans, ARCH).cache == "memory_hit"
    fresh = _engine.Engine("test")
    second = fresh.compile(plans, ARCH)
    assert (second.cache, second.compile_seconds, second.cache_key) == ("disk_hit", 0, first.cache_key)
    assert second.ltoir == first.ltoir
    assert [p.scratch_bytes for p in second.providers] == [p.scratch_bytes for p in first.providers]
    stats = fresh.cache_stats()
    assert stats.enabled and stats.entries >= 1 and stats.bytes > len(first.ltoir)
    assert stats.directory.startswith(str(cache_home))


def test_nvcc_kernel_links_with_the_providers(tile_copy, kernel_fatbin):
    engine, _, bundle = tile_copy
    cubin = engine.link([("fatbin", kernel_fatbin), ("ltoir", bundle.ltoir)], ARCH)
    assert cubin.startswith(b"\x7fELF")


def test_link_without_the_providers_names_the_missing_symbol(tile_copy, kernel_fatbin):
    engine, _, bundle = tile_copy
    with pytest.raises(_engine.EngineError) as raised:
        engine.link([("fatbin", kernel_fatbin)], ARCH)
    assert raised.value.kind == "Link"
    assert bundle.providers[0].symbol in str(raised.value)


def test_link_rejects_an_unknown_input_kind(tile_copy):
    engine, _, bundle = tile_copy
    with pytest.raises(_engine.EngineError) as raised:
        engine.link([("ltoir", bundle.ltoir), ("elf", b"")], ARCH)
    assert raised.value.kind == "InvalidArgument"
    assert "inputs[1] kind" in str(raised.value)


def test_compile_releases_the_gil(cache_home, monkeypatch):
    # With the disk cache off a fresh engine must run NVRTC; this thread keeps waking up meanwhile.
    monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "0")
    engine = _engine.Engine("test")
    plan = engine.plan(facts("load", "warp_transpose", dtype="int64"))
    assert engine.toolkit["nvrtc_version"]  # located beforehand, so only NVRTC runs in the worker
    result = {}
    worker = threading.Thread(target=lambda: result.update(bundle=engine.compile([plan], ARCH)))
    wakeups = 0
    worker.start()
    while worker.is_alive():
        wakeups += 1
        time.sleep(0.001)
    worker.join()
    bundle = result["bundle"]
    # A warm precompiled header can bring NVRTC under 0.2 s; what matters is that it ran at all.
    assert bundle.cache == "disabled" and bundle.compile_seconds > 0.05
    # Holding the GIL through NVRTC would leave this thread a handful of wake-ups at most;
    # released, it wakes roughly once a millisecond (a quarter of that on a busy 2-core machine).
    assert wakeups > bundle.compile_seconds * 1000 / 4


def test_engine_version_is_the_package_version():
    assert _engine.engine_version() == importlib.metadata.version("cuda-coop")


def test_session_engine_is_created_once_across_threads(monkeypatch):
    monkeypatch.setattr(_engine_session, "_engine_instance", None)
    engines = []
    threads = [threading.Thread(target=lambda: engines.append(_engine_session.engine())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(engines) == 8 and all(engine is engines[0] for engine in engines)
    assert engines[0].backend == "numba_mlir"


def test_session_finds_nvidia_wheel_roots_on_sys_path(tmp_path, monkeypatch):
    (tmp_path / "site" / "nvidia").mkdir(parents=True)
    (tmp_path / "bare").mkdir()
    monkeypatch.setattr(sys, "path", ["", str(tmp_path / "site"), str(tmp_path / "bare"), str(tmp_path / "site")])
    assert _toolkit_locate.wheel_roots() == [str(tmp_path / "site" / "nvidia")]


def test_reductions_are_the_identity_on_one_thread():
    # What lets the planner replace a reduction on coop.this_thread() by its value, by catalog fact.
    names = ("reduce", "sum", "segmented_reduce", "inclusive_sum", "broadcast", "exchange", "load")
    assert [n for n in names if _engine.operation(n)["identity_on_one_thread"]] == ["reduce", "sum"]
