"""The planner's modules form layers: every import (at the top of a module or inside
a function) points down, so no module needs one above it to load or to run. The
launch being compiled lives in _launch, below every stage; _dispatch, which knows the
compiler's internals, sits on top."""

import ast
import pathlib

import pytest

from cuda.coop import numba_mlir

PACKAGE = pathlib.Path(numba_mlir.__file__).parent
STAGES = ("_find", "_groups", "_payloads", "_facts", "_selectors", "_plan", "_bundle", "_storage", "_rewrite")


def imports_of(path: pathlib.Path, modules) -> set:
    """The package's modules `path` imports, wherever in it the import is."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module.split(".")[0]] if node.module else [alias.name for alias in node.names]
            found.update(name for name in names if name in modules)
    return found - {path.stem}


@pytest.fixture(scope="module")
def graph():
    modules = {path.stem: path for path in PACKAGE.glob("*.py")}
    return {name: imports_of(path, modules) for name, path in modules.items()}


def cycle(graph):
    """One import cycle as a list of modules (its first repeated at the end), or None."""
    done, path = set(), []

    def visit(module):
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        path.append(module)
        for imported in sorted(graph[module]):
            found = visit(imported)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module)
        if found:
            return found
    return None


def test_no_module_of_the_planner_imports_one_that_imports_it_back(graph):
    found = cycle(graph)
    assert found is None, "import cycle: " + " -> ".join(found)


def test_the_check_sees_a_cycle_through_a_function_level_import(tmp_path):
    (tmp_path / "_a.py").write_text("from . import _b\n")
    (tmp_path / "_b.py").write_text("from ._c import thing\n")
    (tmp_path / "_c.py").write_text("import os\n\n\ndef later():\n    from . import _a\n")
    modules = {path.stem: path for path in tmp_path.glob("*.py")}
    graph = {name: imports_of(path, modules) for name, path in modules.items()}
    assert graph == {"_a": {"_b"}, "_b": {"_c"}, "_c": {"_a"}}
    assert cycle(graph) == ["_a", "_b", "_c", "_a"]


def test_the_launch_is_below_every_stage_and_the_dispatcher_above(graph):
    assert not graph["_launch"] & {*STAGES, "_planner", "_dispatch"}
    assert "_launch" in graph["_groups"] and "_launch" in graph["_planner"]
    assert not any("_dispatch" in graph[stage] for stage in (*STAGES, "_planner"))
