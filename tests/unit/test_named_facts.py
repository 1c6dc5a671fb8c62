"""Named dtypes and extents (CallFacts.dtypes, .extents): the extension carries them and
exports which parameters the catalog types by them, and the planner fills them from the
arrays passed. No landed family declares one yet, so the filling is tested on the
declarations the catalog would export (the engine's own tests plan such operations)."""

import types

import pytest

from cuda.coop import _engine
from cuda.coop._core.errors import InvalidArgumentError, PayloadInferenceError
from cuda.coop.numba_mlir import _facts, _payloads

WHERE = "sort_pairs (kernel.py:7)"

# What the catalog exports for radix sort's values (ValueT[N]) and a histogram's counters (CounterT[bins]).
PAIRS_AND_COUNTERS = types.SimpleNamespace(
    named_dtypes={"values": "ValueT", "histogram": "CounterT"}, named_extents={"histogram": "bins"}
)


def array(dtype, extent, label="array"):
    return _payloads.Payload(None, extent, None, dtype, label=label)


def test_callfacts_carry_named_dtypes_and_extents():
    facts = _engine.CallFacts(
        "load", _engine.block(128), "int32", 4, dtypes={"ValueT": "float16"}, extents={"bins": 256}
    )
    assert (facts.dtypes, facts.extents) == ({"ValueT": "float16"}, {"bins": 256})
    assert (_engine.CallFacts("load", _engine.block(128), "int32", 4).dtypes, facts.payload) == ({}, "array")


def test_a_named_dtype_must_be_a_dtype_name():
    with pytest.raises(_engine.EngineError, match=r"argument 'dtypes\['ValueT'\]' = 'half' is not allowed"):
        _engine.CallFacts("load", _engine.block(128), "int32", 4, dtypes={"ValueT": "half"})


def test_the_engine_refuses_a_named_fact_the_operation_does_not_read():
    engine = _engine.Engine("test")
    facts = _engine.CallFacts("load", _engine.block(128), "int32", 4, where=WHERE, extents={"bins": 16})
    with pytest.raises(_engine.EngineError, match="argument 'extents' = 'bins' .* no named extent: load has none"):
        engine.plan(facts)


def test_of_the_landed_operations_only_exchange_flags_take_a_named_dtype():
    for name in ("load", "store", "exchange", "reduce", "inclusive_scan", "shuffle"):
        spec = _engine.operation(name)
        named = {p["name"]: p.get("named_dtype") for p in (*spec["operands"], *spec["options"]) if "named_dtype" in p}
        assert named == ({"valid_flags": "ValidFlagT"} if name == "exchange" else {}), name
        assert not any("named_extent" in parameter for parameter in (*spec["operands"], *spec["options"])), name
        declared = _facts.parameters(name)
        expected = {"valid_flags": "ValidFlagT"} if name == "exchange" else {}
        assert (declared.named_dtypes, declared.named_extents, declared.named_operands) == (expected, {}, ())


def test_each_name_gets_the_dtype_and_length_of_its_array():
    arrays = {
        "values": (array("float16", 4), "array"),
        "histogram": (array("uint32", 256), "array"),
    }
    dtypes, extents = _facts.named_facts(PAIRS_AND_COUNTERS, arrays, WHERE)
    assert dtypes == {"ValueT": "float16", "CounterT": "uint32"}
    assert extents == {"bins": 256}


def test_parameters_not_given_fill_nothing():
    assert _facts.named_facts(PAIRS_AND_COUNTERS, {}, WHERE) == ({}, {})


def test_arrays_typed_by_one_name_must_agree():
    declared = types.SimpleNamespace(named_dtypes={"values": "ValueT", "values_out": "ValueT"}, named_extents={})
    arrays = {"values": (array("float16", 4), "array"), "values_out": (array("float32", 4), "array")}
    with pytest.raises(InvalidArgumentError, match="'values_out' gives ValueT = float32 but 'values' gives float16"):
        _facts.named_facts(declared, arrays, WHERE)


def test_a_named_extent_is_the_length_of_an_array_not_a_value():
    arrays = {"histogram": (array("uint32", 1), "scalar")}
    with pytest.raises(InvalidArgumentError, match="'histogram' is one value per thread; expected an array .*bins"):
        _facts.named_facts(PAIRS_AND_COUNTERS, arrays, WHERE)


def test_a_named_dtype_needs_a_typed_array():
    with pytest.raises(PayloadInferenceError, match="the dtype of payload 'vals' is unknown"):
        _facts.named_facts(PAIRS_AND_COUNTERS, {"values": (array(None, 4, "vals"), "array")}, WHERE)
