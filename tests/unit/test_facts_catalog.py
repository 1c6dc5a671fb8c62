"""The planner reads each operation's parameters from the engine's catalog, by
operand role and option kind, rather than from tables of its own."""

import types

import pytest

from cuda.coop._core.markers import Marker, all_markers
from cuda.coop.numba_mlir import _facts


def site_of(name: str):
    """The one thing needs_a_typed_payload reads of a call site: its marker."""
    return types.SimpleNamespace(marker=all_markers()[name])


def test_the_payload_and_memory_operands_come_from_their_roles():
    load, store, broadcast = (_facts.parameters(name) for name in ("load", "store", "broadcast"))
    assert (load.payload, load.memory, load.values) == ("items", "source", ())
    assert (store.payload, store.memory) == ("items", "destination")
    assert (broadcast.payload, broadcast.memory) == ("value", None)


def test_flags_cross_the_abi_as_values():
    assert _facts.parameters("segmented_reduce").values == ("flag",)


@pytest.mark.parametrize("name", ["scan", "inclusive_sum", "exclusive_sum", "inclusive_scan", "exclusive_scan"])
def test_a_scan_reads_its_value_and_returns_a_fresh_result(name):
    scan = _facts.parameters(name)
    assert (scan.payload, scan.results) == ("value", ("result",))


def test_reductions_return_a_value_rather_than_a_fresh_payload():
    for name in ("reduce", "sum", "segmented_reduce"):
        assert (_facts.parameters(name).payload, _facts.parameters(name).results) == ("value", ())
    assert _facts.parameters("reduce").options_of("operator") == ["binary_op"]
    assert _facts.parameters("segmented_reduce").options_of("operator") == ["binary_op"]


def test_the_scan_takes_its_mode_as_a_choice():
    assert _facts.option_kinds("scan")["mode"] == "choice"
    assert _facts.parameters("inclusive_scan").kinds.get("initial_value") is None


def test_options_are_grouped_by_kind():
    scan = _facts.parameters("exclusive_scan")
    assert scan.options_of("operator") == ["scan_op"]
    assert scan.options_of("scalar_output") == ["aggregate_output"]
    assert scan.options_of("payload_output") == []
    assert scan.prefix_states == {"prefix_op": "prefix_op_state"}
    assert _facts.option_kinds("load")["oob_default"] == "payload_scalar"


def test_the_catalog_is_read_once_per_operation():
    assert _facts.parameters("reduce") is _facts.parameters("reduce")


@pytest.mark.parametrize(
    "name, typed_later", [("load", False), ("store", False), ("reduce", True), ("inclusive_scan", True)]
)
def test_calls_without_a_memory_operand_wait_for_a_typed_payload(name, typed_later):
    assert _facts.needs_a_typed_payload(site_of(name)) is typed_later


def test_an_operation_the_engine_lacks_is_left_for_analyze_to_reject():
    # Every declared family has landed; one declared before it lands is marked like this.
    unimplemented = Marker("a_future_primitive", "future", implemented=False)
    assert _facts.needs_a_typed_payload(types.SimpleNamespace(marker=unimplemented))


@pytest.mark.parametrize("kind", ["operator", "predicate"])
def test_every_python_operator_object_is_spelled_in_the_catalog(kind):
    """One vocabulary: the coop tool takes `--binary-op np.maximum` because the catalog spells
    each Python object a kernel may pass, and names it as the planner does."""
    import builtins

    import numpy as np

    objects = _facts._OPERATORS if kind == "operator" else _facts._PREDICATES
    spellings = _facts._spellings(kind)
    for value, name in objects.items():
        if isinstance(value, np.ufunc):
            spelled = f"np.{value.__name__}"
        elif getattr(builtins, value.__name__, None) is value:
            spelled = value.__name__  # min, max
        else:
            spelled = f"operator.{value.__name__}"
        assert spellings.get(spelled) == name, f"{spelled} should name {name}"
