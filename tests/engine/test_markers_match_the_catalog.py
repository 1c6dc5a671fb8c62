"""The public markers and the engine's catalog describe the same calls: a marker's
parameters after the group are the catalog operation's operands (positional-only, in
the catalog's order) and options, plus the front end's explicit scratch; every catalog
option is reachable from Python; a choice's default is the catalog's."""

import inspect

import pytest

from cuda import coop
from cuda.coop import _engine
from cuda.coop._core.markers import all_markers

# The Python API's explicit scratch (TempStorage) and a StatefulFunction prefix_op's state operand:
# the front end's, not CUB parameters.
FRONT_END = {"temp_storage", "state"}
PRIMITIVES = sorted(
    name for name, marker in all_markers().items() if marker.implemented and marker.family not in ("groups", "storage")
)


def parameters_after_the_group(name):
    return list(inspect.signature(getattr(coop, name)).parameters.values())[1:]


@pytest.mark.parametrize("name", PRIMITIVES)
def test_operands_lead_positional_only_in_catalog_order(name):
    # A fresh payload the call returns is the front end's to allocate, not the user's to pass.
    operands = [
        operand["name"] for operand in _engine.operation(name)["operands"] if operand["role"] != "payload_result"
    ]
    positional = [p.name for p in parameters_after_the_group(name) if p.kind is p.POSITIONAL_ONLY]
    assert positional[: len(operands)] == operands


@pytest.mark.parametrize("name", PRIMITIVES)
def test_every_parameter_is_the_catalogs_and_every_option_is_reachable(name):
    operation = _engine.operation(name)
    known = {operand["name"] for operand in operation["operands"] if operand["role"] != "payload_result"}
    known |= {option["name"] for option in operation["options"]} | FRONT_END
    known |= {alias for option in operation["options"] for alias in option["aliases"]}
    names = {p.name for p in parameters_after_the_group(name)}
    assert names <= known, f"coop.{name} takes {sorted(names - known)}, which the catalog does not know"
    missing = {option["name"] for option in operation["options"]} - names
    assert not missing, f"coop.{name} cannot reach the catalog's options {sorted(missing)}"


@pytest.mark.parametrize("name", PRIMITIVES)
def test_choice_defaults_are_the_catalogs(name):
    options = {option["name"]: option for option in _engine.operation(name)["options"]}
    for parameter in parameters_after_the_group(name):
        option = options.get(parameter.name)
        if option is None or option["type"] != "choice" or parameter.default is inspect.Parameter.empty:
            continue
        assert parameter.default in (None, option["default"]), (parameter.name, parameter.default)
        assert option["default"] in option["choices"]


@pytest.mark.parametrize("name", PRIMITIVES)
def test_the_reference_documents_every_parameter_and_choice(name):
    """The API reference (the docs site renders these docstrings) names every parameter the
    catalog gives the call and every value a choice takes, so it cannot fall behind the catalog."""
    doc = getattr(coop, name).__doc__
    for parameter in parameters_after_the_group(name):
        assert f"{parameter.name}:" in doc, f"coop.{name}'s docstring does not describe '{parameter.name}'"
    for option in _engine.operation(name)["options"]:
        if option["type"] != "choice":
            continue
        missing = [choice for choice in option["choices"] if f'"{choice}"' not in doc]
        assert not missing, f"coop.{name}'s docstring does not name {option['name']} values {missing}"
