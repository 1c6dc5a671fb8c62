"""cuda.coop.numba_mlir._dispatch, the one module that reaches into numba-cuda-mlir's
dispatcher: it installs on the installed compiler (CI runs this on 0.5.4 and 0.6.x),
its gate opens the disk cache only while a CoopCache dispatcher compiles, and its
entries keep what the compiler's own drop."""

from types import SimpleNamespace

from numba_cuda_mlir import descriptor
from numba_cuda_mlir._whole_function_planners import _planner_registry

from cuda import coop  # noqa: F401 -- activates the backend
from cuda.coop.numba_mlir import _dispatch


def test_installed_on_this_compiler():
    assert _dispatch._missing_internals() == []
    assert _dispatch.install() is True
    assert isinstance(descriptor._planner_registry, _dispatch._GatedRegistry)
    low, high = _dispatch.INTERNALS
    assert low <= _dispatch._series(_dispatch.compiler_version()) < high


def test_the_gate_hides_the_planners_only_while_open():
    gated = descriptor._planner_registry
    assert list(gated._planners) == list(_planner_registry._planners) != []
    assert gated.has_planners and gated._lock is _planner_registry._lock
    _dispatch._gate.open = True
    try:
        assert not gated._planners
        assert gated.has_planners  # launches still take the readiness path (required shared memory)
    finally:
        _dispatch._gate.open = False
    assert list(gated._planners) == list(_planner_registry._planners)


def test_entries_keep_the_required_shared_memory_and_the_planners_record(monkeypatch):
    from numba_cuda_mlir.caching import MLIRCacheImpl

    monkeypatch.setattr(MLIRCacheImpl, "reduce", lambda self, cres: {"base": True})
    monkeypatch.setattr(MLIRCacheImpl, "rebuild", lambda self, tc, payload: SimpleNamespace(metadata={}))
    impl_class = _dispatch.CoopCache._impl_class
    impl = impl_class.__new__(impl_class)
    record = {"declared_block": (128, 1, 1), "dependencies": []}
    cres = SimpleNamespace(metadata={"required_dynamic_shared_memory": 65536, _dispatch.METADATA_KEY: record})
    payload = impl.reduce(cres)
    assert payload["required_dynamic_shared_memory"] == 65536
    rebuilt = impl.rebuild(None, payload)
    assert rebuilt.metadata["required_dynamic_shared_memory"] == 65536
    assert rebuilt.metadata[_dispatch.METADATA_KEY] == record


def test_an_entry_is_refused_when_an_operator_or_the_toolkit_changed(monkeypatch):
    def combine(a, b):
        return a + b

    monkeypatch.setattr(_dispatch, "toolkit_identity", lambda: "this toolkit")
    monkeypatch.setattr(_dispatch, "toolkit_fingerprint", lambda files: "other stamps")  # the engine decides
    entry = (__name__, "combine_for_test", _dispatch._code_digest(combine))
    monkeypatch.setitem(globals(), "combine_for_test", combine)
    assert _dispatch._record_still_valid({"toolkit": "this toolkit", "dependencies": [entry]})
    assert not _dispatch._record_still_valid({"toolkit": "another toolkit", "dependencies": [entry]})
    changed = (entry[0], entry[1], "another digest")
    assert not _dispatch._record_still_valid({"toolkit": "this toolkit", "dependencies": [changed]})
    assert _dispatch.dependency(combine) is None  # made inside a function: cannot be found by name again


def test_the_toolkit_fingerprint_follows_the_files_and_the_search(tmp_path, monkeypatch):
    library = tmp_path / "libnvrtc.so"
    library.write_bytes(b"1")
    before = _dispatch.toolkit_fingerprint([str(library)])
    assert _dispatch.toolkit_fingerprint([str(library)]) == before
    library.write_bytes(b"22")
    assert _dispatch.toolkit_fingerprint([str(library)]) != before
    after = _dispatch.toolkit_fingerprint([str(library)])
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", str(tmp_path))
    assert _dispatch.toolkit_fingerprint([str(library)]) != after
