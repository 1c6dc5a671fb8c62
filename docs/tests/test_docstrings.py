"""The API reference is complete: every public name is on the API page, and every
primitive that compiles has a full docstring (its arguments, what it returns, the
CUB call it maps to and an example, which test_samples.py runs)."""

from __future__ import annotations

import inspect
import pathlib
import re

import pytest

from cuda import coop
from cuda.coop._core.markers import marker_of

API_PAGE = pathlib.Path(__file__).resolve().parents[1] / "api.rst"
DOCUMENTED = set(re.findall(r"^\.\. auto(?:function|class|exception):: (\w+)", API_PAGE.read_text(), re.MULTILINE))
PRIMITIVES = sorted(name for name in coop.__all__ if marker_of(getattr(coop, name)) is not None)


@pytest.mark.parametrize("name", sorted(coop.__all__))
def test_every_public_name_is_on_the_api_page(name):
    assert name in DOCUMENTED, f"coop.{name} is not in docs/api.rst: add an autodoc entry for it"


@pytest.mark.parametrize("name", sorted(coop.__all__))
def test_every_public_name_has_a_docstring(name):
    assert inspect.getdoc(getattr(coop, name)), f"coop.{name} has no docstring"


@pytest.mark.parametrize("name", [name for name in PRIMITIVES if marker_of(getattr(coop, name)).implemented])
def test_every_working_primitive_has_a_full_docstring(name):
    value = getattr(coop, name)
    text = inspect.getdoc(value)
    parameters = [p for p in inspect.signature(value).parameters if p not in ("cls", "self")]
    sections = ["Example:"] + (["Args:"] if parameters else []) + ([] if inspect.isclass(value) else ["Returns:"])
    missing = [f"section {section!r}" for section in sections if section not in text]
    missing += [f"argument {p!r}" for p in parameters if not re.search(rf"^\s+{p}:", text, re.MULTILINE)]
    if marker_of(value).family not in ("groups", "storage") and "cub::" not in text:
        missing.append("the CUB call it maps to (cub::...)")
    assert not missing, f"the docstring of coop.{name} lacks: {', '.join(missing)}"
