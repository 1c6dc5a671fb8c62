"""Where cuda.coop meets numba-cuda-mlir's dispatcher: the disk cache (`cache=True`)
with the planner registered, and the block a kernel declares. The one module that
touches the compiler's private dispatcher and cache classes (descriptor.MLIRDispatcher,
caching.MLIRCache, the registry the dispatcher consults); everything else uses the
public planner API. INTERNALS names the series checked against (tests/unit/
test_dispatch.py runs on each; CI runs it on 0.5.4 and 0.6.x); another series, or a
class missing an attribute this module needs, leaves the compiler as it is (no disk
cache while a planner is registered: correct, only slower) with one warning.

What numba-cuda-mlir does without this module, and why:
- it skips its disk cache for every kernel while any whole-function planner is
  registered, since a cached kernel skips the planner and the cache key knows
  nothing of it. Here the gate opens only for a dispatcher whose cache is CoopCache,
  whose key adds cuda.coop's and the compiler's versions, and whose entries carry
  what else the planner's output depends on (the provider toolkit's identity, the
  code of the user's operators), checked before an entry is used;
- a kernel whose planner asks for the launch is specialized on the whole launch
  (grid, block, shared memory, cluster) and never cached to disk. Two answers:
  * a kernel that declares its block (`coop.this_block(128)`, `(32, 4)`) needs
    nothing of the launch: the planner plans for the declared block, the kernel
    compiles once per argument types like any kernel, caches to disk, launches on the
    plain path (no launch-specialized dispatch), and a launch with another block is
    refused when it is configured (and when it compiles, for a launch configured
    before the first compile);
  * a kernel that does not stays launch-specialized (its plan follows each launch's
    block), but while cuda.coop's planners are the only ones registered and no
    argument extension reads the launch, a launch with a new grid or shared memory
    size reuses the compile of an earlier launch with the same block and cluster
    (filed under the new launch's key): one compile per block shape.

Rejected: replacing numba-cuda-mlir's launch-specialization key with the block alone
(what the plan depends on) for every kernel. The key is shared with every other
extension that reads the launch (a consteval or an argument extension may read the
grid), a cached entry would still need the launch in its key, and every launch would
still pay the launch-specialized dispatch (+11% host time per launch on the H200),
which only a declared block removes. Also rejected: deciding before a compile
whether a kernel has coop calls (scanning its bytecode and its helpers'): a helper
reached through an argument or an attribute would be missed and compile without the
planner; here the cache's key and checks decide, and the planner runs on every miss."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import os
import re
import threading
import warnings

from .._core.errors import CoopWarning
from .._core.version import package_version
from ._launch import METADATA_KEY, check_launch

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
    explain hook: called once per planned kernel)."""
    record = state.metadata.setdefault(METADATA_KEY, {})
    record["bundle"] = bundle.cache_key
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
    Creating the engine to ask costs tens of milliseconds (it stats every header), so
    a cache hit first tries toolkit_fingerprint."""
    from .._engine_session import engine

    return str(engine().toolkit["identity"])


def toolkit_files() -> list[str]:
    """The files that stand for the engine's toolkit: the libraries, and a versioned
    header of each include tree (a package upgrade rewrites them)."""
    from .._engine_session import engine

    toolkit = engine().toolkit
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
    """Without the engine: what it searches (its environment variables, the pip wheel
    roots and what they hold) and the stamps of `files`. Equal fingerprints mean the
    engine would find the same toolkit; a different one sends the check to
    toolkit_identity (an edit inside a header tree that leaves these files alone is
    seen by the provider cache, not here)."""
    from .._engine_session import wheel_roots
    from .._toolkit_locate import cuda_cccl_headers

    parts = [repr([os.environ.get(name, "") for name in _TOOLKIT_ENVIRONMENT]), repr(cuda_cccl_headers())]
    for root in wheel_roots():
        try:
            parts.append(repr((root, sorted(os.listdir(root)))))
        except OSError:
            parts.append(root)
    for path in files:
        try:
            stat = os.stat(path)
            parts.append(repr((path, stat.st_size, stat.st_mtime_ns, stat.st_ino)))
        except OSError:
            parts.append(repr((path, None)))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


# What the toolkit search reads (python/cuda/coop/_toolkit_locate.py: cuda-pathfinder also reads
# CONDA_PREFIX and the loader's path, and the cuda-cccl package's headers count).
_TOOLKIT_ENVIRONMENT = (
    "CUDA_COOP_CCCL_ROOT",
    "CUDA_COOP_CUDA_INCLUDE",
    "CUDA_COOP_NVJITLINK_LIBRARY",
    "CUDA_COOP_NVRTC_LIBRARY",
    "CUDA_COOP_WHEEL_ROOTS",
    "CUDA_HOME",
    "CUDA_PATH",
    "CONDA_PREFIX",
    "LD_LIBRARY_PATH",
)


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
            return (*key, _versions())

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


def _reuse_for_another_grid(dispatcher, args):
    """A launch-specialized kernel (no declared block) launched with another grid or
    dynamic shared memory size: when only cuda.coop reads its launch (nothing else that
    reads it is registered or attached), its plan depends on the block alone, so the
    compile of an earlier launch with the same block and cluster serves this one too,
    filed under this launch's key. Returns the dispatcher's compile answer, or None to
    compile as usual."""
    from numba_cuda_mlir import descriptor
    from numba_cuda_mlir._launch_config import _launch_config_key, _normalize_available_launch_config

    local = descriptor._compile_arg_types
    forced = getattr(local, "force_launch_config", False)
    if not (dispatcher._requires_launch_config or forced) or not _only_coop_reads_the_launch(dispatcher):
        return None
    launch = getattr(local, "launch_config", None) or getattr(local, "available_launch_config", None)
    launch = _normalize_available_launch_config(launch) if launch is not None else None
    if launch is None:
        return None
    key = _launch_config_key(launch)
    override = getattr(local, "types", None)
    argtypes = tuple(override) if override is not None else tuple(descriptor.typeof(arg) for arg in args)
    values = tuple(getattr(local, "values", tuple(args)))
    with dispatcher._launch_config_lock:
        argtypes = dispatcher._literalize_argtypes(argtypes, values, abi_arg_count=len(args))
        if dispatcher._find_launch_config_overload_locked(argtypes, key) is not None:
            return None  # compiled for this very launch: the compiler's own lookup serves it
        wanted = (dict(key)["block"], dict(key)["cluster"])
        for (signature, other), result in list(dispatcher._launch_config_overloads.items()):
            if signature == argtypes and (dict(other)["block"], dict(other)["cluster"]) == wanted:
                dispatcher._launch_config_overloads.setdefault((argtypes, key), result)
                dispatcher._launch_config_cache_hits[(argtypes, key)] += 1
                metadata = result.metadata
                return metadata["cubin"], metadata["func_name"], metadata.get("use_cooperative", False)
    return None


def _only_coop_reads_the_launch(dispatcher) -> bool:
    from numba_cuda_mlir import descriptor
    from numba_cuda_mlir._whole_function_planners import _planner_registry

    from ._inline import CoopHelperInliner
    from ._planner import CoopWholeFunctionPlanner

    ours = (CoopHelperInliner, CoopWholeFunctionPlanner)
    if any(planner not in ours for planner in _planner_registry._planners):
        return False
    return not descriptor._extensions_use_launch_config(dispatcher.extensions)


def _wrap_compile_impl(original):
    gated = _wrap_compile(original)

    def compile_once_per_block(self, args, *rest, **kwargs):
        reused = _reuse_for_another_grid(self, args)
        return reused if reused is not None else gated(self, args, *rest, **kwargs)

    compile_once_per_block.__wrapped__ = original
    return compile_once_per_block


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
            "_find_launch_config_overload_locked",
            "_compile_launch_config_signature",
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
    dispatcher._compile_impl = _wrap_compile_impl(dispatcher._compile_impl)
    dispatcher._compile_public = _wrap_compile(dispatcher._compile_public)
    dispatcher._configure_cached = _wrap_configure(dispatcher._configure_cached)
    dispatcher.enable_caching = _wrap_enable_caching(dispatcher.enable_caching)
    _operators.compile_operator = _recording_compile_operator(_operators.compile_operator)
    _planner._explain_recorders.append(_record_bundle)
    _installed = True
    return True


def compile_result_for(kernel, argtypes, launch: dict):
    """The compile result a launch of `kernel` with `argtypes` on `launch` ({"grid", "block",
    "sharedmem", "cluster"}) runs, compiled now if no launch has compiled it: the generic
    overload of a kernel that is not launch-specialized (a declared block, no coop at all),
    else the overload filed under the launch (an undeclared block)."""
    from numba_cuda_mlir._launch_config import _launch_config_key

    argtypes = tuple(argtypes)
    if not kernel._requires_launch_config:
        try:
            result = kernel.compile(argtypes)
        except RuntimeError as error:  # the planner asked for the launch: compile for it below
            if not kernel._requires_launch_config and "launch" not in str(error):
                raise
        else:
            declared = (result.metadata.get(METADATA_KEY) or {}).get("declared_block")
            if declared is not None:  # the generic overload serves its declared block only
                check_launch(kernel.py_func.__qualname__, declared, launch["block"])
            return result
    return kernel._compile_launch_config_signature(argtypes, _launch_config_key(launch))
