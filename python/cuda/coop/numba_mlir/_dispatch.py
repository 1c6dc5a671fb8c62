"""Where cuda.coop meets numba-cuda-mlir's dispatcher: the disk cache (`cache=True`)
with the planner registered, and the block a kernel's plan is made for. The one module
that touches the compiler's private dispatcher and cache classes (descriptor.MLIRDispatcher,
caching.MLIRCache, the registry the dispatcher consults); everything else uses the
public planner API. INTERNALS names the series checked against (tests/unit/
test_dispatch.py runs on each; CI runs it on 0.5.4 and 0.6.x); another series, or a
class missing an attribute this module needs, leaves the compiler as it is (no disk
cache while a planner is registered: correct, only slower) with one warning.

What numba-cuda-mlir does without this module, and why:
- it skips its disk cache for every kernel while any whole-function planner is
  registered, since a cached kernel skips the planner and the cache key knows
  nothing of it. Here the gate opens only for a dispatcher whose cache is CoopCache,
  whose key adds cuda.coop's and the compiler's versions (and the block shape, below),
  and whose entries carry what else the planner's output depends on (the provider
  toolkit's identity, the code of the user's operators), checked before an entry is used;
- a kernel whose planner asks for the launch is specialized on the whole launch
  (grid, block, shared memory, cluster), never cached to disk, dispatched through the
  launch-keyed path (+10 to 30% host time per launch) and announced with a
  NumbaPerformanceWarning. Two answers:
  * a kernel that declares its block (`coop.this_block(128)`, `(32, 4)`) needs
    nothing of the launch: the planner plans for the declared block, the kernel
    compiles once per argument types like any kernel, caches to disk, launches on the
    plain path, and a launch with another block is refused when it is configured
    (and when it compiles, for a launch configured before the first compile);
  * a kernel that does not gets a dispatcher of its own per block shape (and
    cluster): the first launch that needs a compile tries the kernel's generic compile
    with the planner told not to ask for the launch (_launch.PlanPerBlock); when it
    needs the block, the compile moves to a clone of the kernel's dispatcher whose
    options carry that launch's block and cluster, so the planner plans for it as if
    declared. The clone compiles once per argument types, caches to disk under a key
    with the block shape (a fresh process finds it before trying anything), and its
    native dispatcher is what the kernel's launchers launch: the kernel's readiness
    check (_get_ready_launch, replaced on that kernel only) finds the clone by the
    native dispatcher the launcher holds and its overload by argument types, in two
    dict lookups, as the plain path does. No launch specialization, so no warning.
  While another planner is registered, or an argument extension reads the launch,
  the kernel stays specialized on its whole launch, as the compiler makes it (their
  plan may read the grid).

Rejected: replacing numba-cuda-mlir's launch-specialization key with the block alone
for every kernel: the key is shared with every other extension that reads the launch,
a cached entry would still need the launch in its key, and every launch would still
pay the launch-specialized dispatch. Also rejected: deciding before a compile whether
a kernel has coop calls (scanning its bytecode and its helpers'): a helper reached
through an argument or an attribute would be missed; here the planner itself says so,
on the one compile that needs it."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
import os
import re
import threading
import warnings

from .._core.errors import CoopWarning, InvalidArgumentError
from .._core.version import package_version
from ._launch import LAUNCH_OPTION, METADATA_KEY, PlanPerBlock, check_launch, planning_per_block

INTERNALS = ((0, 5), (0, 7))  # [low, high): 0.5.4 and 0.6.0 read and tested

_gate = threading.local()  # .open: the compiling dispatcher's cache is CoopCache
_installed = False
_operators_seen = threading.local()


def _series(version: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def compiler_version() -> str:
    try:
        return importlib.metadata.version("numba-cuda-mlir")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


# -- the planner's side: what the result depends on ----------------------------------------


def _record_bundle(state, calls, bundle) -> None:
    """What a cached result of this compile depends on beyond its key (the planner's
    explain hook: called once per planned kernel). Only a compile whose result may go to
    the disk cache (the gate is open) records the toolkit and the operators."""
    record = state.metadata.setdefault(METADATA_KEY, {})
    record["bundle"] = bundle.cache_key
    if not getattr(_gate, "open", False):
        _operators_seen.functions = []
        return
    record["toolkit"] = toolkit_identity()
    record["toolkit_files"] = toolkit_files()
    record["toolkit_fingerprint"] = toolkit_fingerprint(record["toolkit_files"])
    seen = getattr(_operators_seen, "functions", [])
    _operators_seen.functions = []
    record["dependencies"] = [dependency(function) for function in seen]


def _recording_compile_operator(compile_operator):
    def compile_and_record(function, *args, **kwargs):
        _operators_seen.__dict__.setdefault("functions", []).append(function)
        return compile_operator(function, *args, **kwargs)

    compile_and_record.__wrapped__ = compile_operator
    return compile_and_record


def _code_digest(function) -> str:
    code = function.__code__
    parts = [code.co_code, repr(code.co_consts).encode(), repr(code.co_names).encode()]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def dependency(function):
    """(module, qualified name, digest of its code) of a user's operator; None when it
    cannot be found again by name (a function made inside another one)."""
    if "<locals>" in function.__qualname__ or "<lambda>" in function.__qualname__:
        return None
    return (function.__module__, function.__qualname__, _code_digest(function))


def dependency_unchanged(entry) -> bool:
    if entry is None:
        return False
    module_name, qualname, digest = entry
    try:
        value = importlib.import_module(module_name)
        for part in qualname.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return False
    value = getattr(value, "py_func", value)
    return hasattr(value, "__code__") and _code_digest(value) == digest


def toolkit_identity() -> str:
    """What, besides the plans, decides the providers' code: the toolkit the engine
    compiles with (NVRTC, nvJitLink, a digest of the CUDA and CCCL header trees).
    Creating the engine to ask costs milliseconds (it finds the toolkit, and stats every
    header unless an earlier process noted their digest), so a cache hit first tries
    toolkit_fingerprint. Neither library is loaded to answer."""
    from .._engine_session import engine

    return str(engine().toolkit_paths["identity"])


def toolkit_files() -> list[str]:
    """The files that stand for the engine's toolkit: the libraries, and a versioned
    header of each include tree (a package upgrade rewrites them)."""
    from .._engine_session import engine

    toolkit = engine().toolkit_paths
    cccl, cuda = toolkit["cccl_include"], toolkit["cuda_include"]
    return [
        toolkit["nvrtc_library"],
        toolkit["nvjitlink_library"],
        os.path.join(cccl, "cuda", "version"),
        os.path.join(cccl, "cub", "version.cuh"),
        os.path.join(cuda, "cuda.h"),
        os.path.join(cuda, "cuda_runtime_api.h"),
    ]


def toolkit_fingerprint(files) -> str:
    """Without the engine: what its toolkit search reads and the stamps of `files`
    (_toolkit_locate.fingerprint). Equal fingerprints mean the engine would find the same
    toolkit; a different one sends the check to toolkit_identity."""
    from .._toolkit_locate import fingerprint

    return fingerprint(files)


# -- the compiler's side -------------------------------------------------------------------


def typing_context_built() -> bool:
    """Whether the compiler's typing context has read its registries yet (True when unknown)."""
    from numba_cuda_mlir.descriptor import mlir_target

    return bool(getattr(mlir_target, "_typingctx_initialized", True))


class _GatedRegistry:
    """The dispatcher's view of the planner registry. Its disk-cache gate reads
    `_planners` (skip the cache when any planner is registered); that reads empty
    while a dispatcher with a CoopCache compiles on this thread. Everything else
    (the lock, has_planners for the launch path, apply) is the registry's."""

    def __init__(self, registry):
        self._registry = registry

    @property
    def _planners(self):
        return () if getattr(_gate, "open", False) else self._registry._planners

    def __getattr__(self, name):
        return getattr(self._registry, name)


def _cache_classes():
    from numba_cuda_mlir.caching import MLIRCache, MLIRCacheImpl

    class CoopCacheImpl(MLIRCacheImpl):
        """Entries also keep the dynamic shared memory the kernel needs (the compiler's own
        entries drop it) and the planner's record, checked before an entry is used."""

        def reduce(self, cres):
            payload = super().reduce(cres)
            payload["required_dynamic_shared_memory"] = cres.metadata.get("required_dynamic_shared_memory", 0)
            payload[METADATA_KEY] = cres.metadata.get(METADATA_KEY)
            return payload

        def rebuild(self, target_context, payload):
            record = payload.get(METADATA_KEY)
            if record is not None and not _record_still_valid(record):
                return None  # a miss: the kernel compiles again, and its entry is replaced
            result = super().rebuild(target_context, payload)
            result.metadata["required_dynamic_shared_memory"] = payload.get("required_dynamic_shared_memory", 0)
            result.metadata[METADATA_KEY] = record
            return result

        def check_cachable(self, cres):
            record = cres.metadata.get(METADATA_KEY) or {}
            if None in record.get("dependencies", ()):
                return False  # an operator that cannot be found by name cannot be checked
            return super().check_cachable(cres)

    class CoopCache(MLIRCache):
        """numba-cuda-mlir's cache, keyed also on cuda.coop's version and the
        compiler's: a planner of another version may plan differently."""

        _impl_class = CoopCacheImpl

        def __init__(self, py_func, targetoptions=None):
            # A snapshot: the planner bounds a launch's block (launch_bounds) in the
            # options of the compile, which kernel.compile() shares with the dispatcher.
            super().__init__(py_func, dict(targetoptions or {}))

        def _index_key(self, sig, codegen):
            key = super()._index_key(sig, codegen)
            launch = self._targetoptions.get(LAUNCH_OPTION)
            if launch is None:
                return (*key, _versions())
            return (*key, _versions(), ("block", launch["block"]), ("cluster", launch["cluster"]))

    return CoopCache


_versions_of_this_process = None


def _versions() -> tuple:
    """cuda.coop's and the compiler's versions, read once (package metadata is slow to find)."""
    global _versions_of_this_process
    if _versions_of_this_process is None:
        _versions_of_this_process = ("cuda.coop", package_version(), "numba-cuda-mlir", compiler_version())
    return _versions_of_this_process


def _record_still_valid(record) -> bool:
    if "toolkit" in record:
        files = record.get("toolkit_files")
        same_files = files is not None and toolkit_fingerprint(files) == record.get("toolkit_fingerprint")
        if not same_files and record["toolkit"] != toolkit_identity():
            return False
    return all(dependency_unchanged(entry) for entry in record.get("dependencies", ()))


CoopCache = None  # the class, once installed


def _declared_of(dispatcher):
    for result in list(dispatcher.overloads.values()):
        record = result.metadata.get(METADATA_KEY) or {}
        if record.get("declared_block") is not None:
            return tuple(record["declared_block"])
    return None


def _wrap_compile(original):
    def compile_through_the_gate(self, *args, **kwargs):
        opens = CoopCache is not None and isinstance(getattr(self, "_cache", None), CoopCache)
        was_open = getattr(_gate, "open", False)
        saved_bounds = self.targetoptions.get("launch_bounds")
        _gate.open = was_open or opens
        try:
            result = original(self, *args, **kwargs)
        finally:
            _gate.open = was_open
            if self.targetoptions.get("launch_bounds") != saved_bounds:
                self.targetoptions["launch_bounds"] = saved_bounds  # kernel.compile(): the planner's bound
        declared = _declared_of(self)
        if declared is not None and getattr(self, "_coop_declared_block", None) != declared:
            self._coop_declared_block = declared
            self._clear_configure_cache()  # launchers configured before this compile are checked again
            _check_this_launch(self, declared)
        return result

    compile_through_the_gate.__wrapped__ = original
    return compile_through_the_gate


def _only_coop_reads_the_launch(dispatcher) -> bool:
    from numba_cuda_mlir import descriptor
    from numba_cuda_mlir._whole_function_planners import _planner_registry

    from ._inline import CoopHelperInliner
    from ._planner import CoopWholeFunctionPlanner

    ours = (CoopHelperInliner, CoopWholeFunctionPlanner)
    if any(planner not in ours for planner in _planner_registry._planners):
        return False
    return not descriptor._extensions_use_launch_config(dispatcher.extensions)


# -- a dispatcher per block shape --------------------------------------------------------------

_REQUIRED_SHARED = "required_dynamic_shared_memory"


def _compiles_per_block(dispatcher) -> bool:
    """Whether launches of this kernel may be served by a dispatcher per block shape:
    it still compiles, is not already such a clone nor launch-specialized, and only
    cuda.coop reads its launch."""
    return (
        dispatcher._can_compile
        and LAUNCH_OPTION not in dispatcher.targetoptions
        and not dispatcher._requires_launch_config
        and _only_coop_reads_the_launch(dispatcher)
    )


def _block_shape(launch) -> tuple:
    """(block, cluster) of a launch, each normalized ((x, y, z), or None for no cluster)."""
    from numba_cuda_mlir._launch_config import _normalize_available_launch_config

    normalized = _normalize_available_launch_config(launch)
    return normalized["block"], normalized.get("cluster")


def _dispatcher_for_block(kernel, shape: tuple):
    """The kernel's clone for one (block, cluster): the same function and options, plus
    that launch in LAUNCH_OPTION (the planner reads its block and cluster only; the grid
    and shared memory are placeholders) and a CoopCache of its own when the kernel has
    one. Made on first use, then kept on the kernel."""
    clones = kernel.__dict__.setdefault("_coop_per_block", {})
    clone = clones.get(shape)
    if clone is None:
        block, cluster = shape
        options = dict(kernel.targetoptions)
        options[LAUNCH_OPTION] = {"grid": (1, 1, 1), "block": block, "sharedmem": 0, "cluster": cluster}
        clone = type(kernel)(kernel.py_func, targetoptions=options)
        if CoopCache is not None and isinstance(kernel._cache, CoopCache):
            clone.enable_caching()
        clones[shape] = clone
    return clone


def _loaded_from_disk(kernel, shape: tuple, argtypes) -> bool:
    """Loads the overload for `argtypes` into the kernel's clone for `shape` from the clone's
    disk cache, if the kernel caches to disk and an earlier process left it there (what the
    clone's compile would find first), without compiling anything on a miss."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.compiler import CompileResult
    from numba_cuda_mlir.descriptor import mlir_target
    from numba_cuda_mlir.numba_cuda import typing

    if CoopCache is None or not isinstance(kernel._cache, CoopCache):
        return False
    clone = _dispatcher_for_block(kernel, shape)
    mlir_target.ensure_initialized()
    found = clone._cache.load_overload(typing.signature(types.none, *argtypes), mlir_target.target_context)
    if found is None:
        return False
    clone._cache_hits[argtypes] += 1
    clone.overloads[argtypes] = CompileResult(found)
    return True


def _route_by_block(kernel) -> None:
    """From now on the kernel's launches go to its clones: the readiness check its launchers
    make before every launch (the plain path's, in cost) finds the clone by the native
    dispatcher the launcher holds (a launcher's block never changes, so the clone that
    native was handed out for is the one for its block: _prepared_clone files it) and the
    overload by argument types; None (a launcher still holding the kernel's own native
    dispatcher or one its clone has replaced (a literal argument's retry), or no overload
    yet) sends the launch through _prepare_for_launch, which compiles and hands out the
    clone's."""
    natives = kernel.__dict__.setdefault("_coop_per_block_natives", {})

    def ready(argtypes, available, configured, native, generation):
        clone = natives.get(native)
        if clone is None or configured is not None or native is not clone._c:  # the clone's was replaced
            return None
        result = clone.overloads.get(argtypes)
        if result is None:
            return None
        return native, None, None, result.metadata.get(_REQUIRED_SHARED, 0)

    kernel._get_ready_launch = ready


def _needs_its_block(kernel, shape, argtypes, compile_generic) -> bool:
    """Whether the kernel's plan depends on its launch's block: known, or found in the clone's
    disk cache (then nothing else runs), or else said by the planner during
    compile_generic() (the kernel's own compile, which has compiled it for every block when
    it returns). Routes the kernel's launches by block the first time it is True."""
    if "_get_ready_launch" in kernel.__dict__:
        return True
    if not _loaded_from_disk(kernel, shape, argtypes):
        try:
            with planning_per_block(kernel.py_func):
                compile_generic()
            return False
        except PlanPerBlock:
            pass
    _route_by_block(kernel)
    return True


def _prepared_clone(kernel, shape: tuple, args, values, argtypes) -> tuple:
    """What _prepare_for_launch answers for a launch served by the kernel's clone for
    `shape`: the clone's native dispatcher, no launch specialization, and the shared memory
    its overload needs (compiled now, under the launch's thread-local state, if it has none
    yet). Arguments the clone's compile asked to see as literals are the kernel's too: its
    launchers then look the overload up by the literal types, as the clone files it."""
    clone = _dispatcher_for_block(kernel, shape)
    check_reused_layouts(clone, tuple(argtypes))
    effective = clone._literalize_argtypes(tuple(argtypes), tuple(values), abi_arg_count=len(args))
    result = clone._compile_result_for(effective, None)  # an overload of the same dtypes and ranks, any layout
    if result is None:
        clone._compile_impl(list(args))
        effective = clone._literalize_argtypes(tuple(argtypes), tuple(values), abi_arg_count=len(args))
        result = clone._compile_result_for(effective, None)
    if result is None:
        raise RuntimeError("kernel precompilation completed without publishing a matching overload")
    if not clone._literal_arg_positions <= kernel._literal_arg_positions:
        kernel._literal_arg_positions = kernel._literal_arg_positions | clone._literal_arg_positions
    kernel.__dict__.setdefault("_coop_per_block_natives", {})[clone._c] = clone
    return clone._c, None, None, result.metadata.get(_REQUIRED_SHARED, 0)


def check_reused_layouts(dispatcher, argtypes) -> None:
    """Refuses a launch that numba-cuda-mlir's launcher would serve with a compile made for
    arrays of another layout, where that compile reads a contiguous array as one run.

    The launcher keys the kernels it has loaded by each array's dtype and rank, not its
    layout: a launch whose arrays differ from an earlier compile's only in layout runs that
    compile (the one for its own types, compiled here, is never launched). numba-cuda-mlir's
    own code reads every array through its strides, so that is harmless to it; a cooperative
    load or store planned for a C-contiguous array reads it as one run, and would read a
    strided view of it wrong (numba-cuda-mlir's dispatcher, too, reuses an overload of the
    same dtypes and ranks: _can_reuse_overload). A launch with a compile of its own types is
    served as before; a compile made for a view reads any array through its strides, so a
    contiguous array after a view is not refused. Such a compile is pinned to its arrays'
    layouts, and its translation relies on that: a C array's strides there come from its
    sizes (_array_arguments.py), for Python indexing too."""
    from numba_cuda_mlir import types

    from ._facts import view_dimensions

    if argtypes in dispatcher.overloads:
        return
    for compiled, result in list(dispatcher.overloads.items()):
        record = result.metadata.get(METADATA_KEY)  # None: a kernel without cooperative calls
        if not record or not record.get("reads_arrays_as_runs", True) or len(compiled) != len(argtypes):
            continue
        pairs = list(zip(compiled, argtypes))
        if not all(dispatcher._can_reuse_overload(old, new) for old, new in pairs):  # what the launch would run
            continue
        for position, (old, new) in enumerate(pairs):
            if isinstance(old, types.Array) and old.layout != new.layout and not view_dimensions(old):
                names = list(inspect.signature(dispatcher.py_func).parameters)
                name = names[position] if position < len(names) else f"#{position}"
                raise InvalidArgumentError(
                    f"kernel '{dispatcher.py_func.__qualname__}': argument '{name}' is {new}, and the kernel was "
                    f"compiled for {old} before. numba-cuda-mlir's launcher runs that compile for every array of the "
                    "same dtype and rank, whatever its layout, and its cooperative loads and stores read a "
                    "C-contiguous array as one run, so this array would be read wrong. Launch arrays of this layout "
                    "through a kernel of their own (cuda.jit(kernel.py_func)), or pass a contiguous copy"
                )


def _wrap_prepare(original):
    from numba_cuda_mlir.numba_cuda.core.compiler_lock import global_compiler_lock

    def prepare_per_block(self, args, values, argtypes, available, configured, *rest):
        check_reused_layouts(self, tuple(argtypes))
        if configured is not None or available is None or not _compiles_per_block(self):
            return original(self, args, values, argtypes, available, configured, *rest)
        with global_compiler_lock:
            shape = _block_shape(available)
            generic = []
            compile_generic = lambda: generic.append(
                original(self, args, values, argtypes, available, configured, *rest)
            )
            if not _needs_its_block(self, shape, tuple(argtypes), compile_generic):
                return generic[0]
            return _prepared_clone(self, shape, args, values, argtypes)

    prepare_per_block.__wrapped__ = original
    return prepare_per_block


def cache_hits(kernel) -> int:
    """Disk cache hits of a kernel and of its dispatchers per block shape."""
    clones = kernel.__dict__.get("_coop_per_block", {}).values()
    return sum(sum(each.stats.cache_hits.values()) for each in (kernel, *clones))


def compile_results(kernel) -> list:
    """Every compile result of a kernel: its generic overloads, its launch-specialized ones and
    those of its dispatchers per block shape (what a launch without a declared block runs)."""
    results = [*kernel.overloads.values(), *kernel._launch_config_compile_results()]
    for clone in kernel.__dict__.get("_coop_per_block", {}).values():
        results.extend(clone.overloads.values())
    return list({id(result): result for result in results}.values())


def _check_this_launch(dispatcher, declared) -> None:
    """A result loaded from disk skipped the planner and its check of the launch."""
    from numba_cuda_mlir import descriptor

    launch = getattr(descriptor._compile_arg_types, "available_launch_config", None)
    if launch is not None:
        check_launch(dispatcher.py_func.__qualname__, declared, launch["block"])


def _wrap_configure(original):
    def configure_and_check(self, launch_config_enabled, extension_key, griddim, blockdim, *rest):
        declared = getattr(self, "_coop_declared_block", None)
        if declared is not None:
            check_launch(self.py_func.__qualname__, declared, blockdim)
        return original(self, launch_config_enabled, extension_key, griddim, blockdim, *rest)

    configure_and_check.__wrapped__ = original
    return configure_and_check


def _wrap_enable_caching(original):
    def enable_coop_caching(self):
        original(self)
        self._cache = CoopCache(self.py_func, self.targetoptions)

    enable_coop_caching.__wrapped__ = original
    return enable_coop_caching


def _missing_internals():
    from numba_cuda_mlir import caching, descriptor

    needed = {
        descriptor: ["_planner_registry", "MLIRDispatcher", "_compile_arg_types", "_extensions_use_launch_config"],
        descriptor.MLIRDispatcher: [
            "_compile_impl",
            "_compile_public",
            "_configure_cached",
            "enable_caching",
            "_clear_configure_cache",
            "_literalize_argtypes",
            "_compile_launch_config_signature",
            "_prepare_for_launch",
            "_get_ready_launch",
            "_compile_result_for",
            "_can_reuse_overload",
            "_launch_config_compile_results",
        ],
        caching.MLIRCache: ["_index_key"],
        caching.MLIRCacheImpl: ["reduce", "rebuild", "check_cachable"],
    }
    return [
        f"{getattr(owner, '__name__', owner)}.{name}"
        for owner, names in needed.items()
        for name in names
        if not hasattr(owner, name)
    ]


def install() -> bool:
    """Installs the disk cache's gate, CoopCache and the declared-block check; False
    (with a warning) when the compiler is not one this module was checked against."""
    global _installed, CoopCache
    if _installed:
        return True
    version = compiler_version()
    low, high = INTERNALS
    missing = _missing_internals() if low <= _series(version) < high else ["(the series)"]
    if missing:
        warnings.warn(
            f"cuda.coop: numba-cuda-mlir {version} is not a version whose dispatcher cuda.coop was checked against "
            f"(missing: {', '.join(missing)}); kernels compile without the disk cache while cuda.coop is imported",
            CoopWarning,
            stacklevel=2,
        )
        return False
    from numba_cuda_mlir import descriptor

    from . import _operators, _planner

    CoopCache = _cache_classes()
    descriptor._planner_registry = _GatedRegistry(descriptor._planner_registry)
    dispatcher = descriptor.MLIRDispatcher
    dispatcher._compile_impl = _wrap_compile(dispatcher._compile_impl)
    dispatcher._compile_public = _wrap_compile(dispatcher._compile_public)
    dispatcher._prepare_for_launch = _wrap_prepare(dispatcher._prepare_for_launch)
    dispatcher._configure_cached = _wrap_configure(dispatcher._configure_cached)
    dispatcher.enable_caching = _wrap_enable_caching(dispatcher.enable_caching)
    _operators.compile_operator = _recording_compile_operator(_operators.compile_operator)
    _planner._explain_recorders.append(_record_bundle)
    _installed = True
    return True


def compile_result_for(kernel, argtypes, launch: dict):
    """The compile result a launch of `kernel` with `argtypes` on `launch` ({"grid", "block",
    "sharedmem", "cluster"}) runs, compiled now if no launch has compiled it: the generic
    overload of a kernel whose plan does not depend on the block (a declared block, no coop
    at all), else its dispatcher's for the launch's block shape, else (another planner
    reads the launch) the overload filed under the launch."""
    from numba_cuda_mlir._launch_config import _launch_config_key
    from numba_cuda_mlir.numba_cuda.core.compiler_lock import global_compiler_lock

    argtypes = tuple(argtypes)
    if _compiles_per_block(kernel):
        with global_compiler_lock:  # as a launch's _prepare_for_launch holds it
            shape = _block_shape(launch)
            generic = []
            if _needs_its_block(kernel, shape, argtypes, lambda: generic.append(kernel.compile(argtypes))):
                return _dispatcher_for_block(kernel, shape).compile(argtypes)
            return _checked_generic(kernel, generic[0], launch)
    if not kernel._requires_launch_config:
        try:
            result = kernel.compile(argtypes)
        except RuntimeError as error:  # the planner asked for the launch: compile for it below
            if not kernel._requires_launch_config and "launch" not in str(error):
                raise
        else:
            return _checked_generic(kernel, result, launch)
    return kernel._compile_launch_config_signature(argtypes, _launch_config_key(launch))


def _checked_generic(kernel, result, launch: dict):
    """The generic overload of a kernel that declares its block serves that block only."""
    declared = (result.metadata.get(METADATA_KEY) or {}).get("declared_block")
    if declared is not None:
        check_launch(kernel.py_func.__qualname__, declared, launch["block"])
    return result
