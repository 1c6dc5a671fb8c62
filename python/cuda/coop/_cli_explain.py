"""`coop explain OPERATION ...`: the plan and generated C++ of one call described by flags,
as the C++ tool's `coop explain` prints it, without a kernel or a GPU."""

from __future__ import annotations

import argparse

from ._core.errors import InvalidArgumentError

PARSER_TEXT = {
    "help": "print the plan and generated C++ for one call",
    "description": "Print the plan and generated C++ for one call, e.g. "
    "`coop explain load --group block:128 --dtype int32 --items 2 --algorithm transpose`.",
    "epilog": "Any other option of the operation follows as --name VALUE (a static value baked into the code) or "
    "--name alone (a runtime operand of the generated call): --algorithm transpose, --valid-items, --offset 0, "
    "--oob-default -1. A negative number after an option is its value.",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("operation", help="load, store, reduce, sum, inclusive_sum, ... (the Python names)")
    parser.add_argument("--group", required=True, help="block:X[,Y[,Z]], warp, warp:N, warps:N or cluster:N")
    parser.add_argument("--block", help="X[,Y[,Z]]: the block a warp or cluster group lives in (default 32)")
    parser.add_argument("--dtype", required=True, help="int8 ... uint64, float16, bfloat16, float32, ...")
    parser.add_argument("--items", type=int, default=1, help="items per thread (default 1)")
    parser.add_argument("--arch", default="sm_90", help="target architecture (default sm_90)")


def _options(operation: str, extra: list[str]) -> dict:
    """`--name [value]` pairs: a value that does not start with `--` (so -1 and -inf do) is static."""
    from . import _engine

    known = [option["name"] for option in _engine.operation_options(operation)]
    options, index = {}, 0
    while index < len(extra):
        token = extra[index]
        name = token[2:].replace("-", "_")
        if not token.startswith("--") or name not in known:
            allowed = ", ".join("--" + n.replace("_", "-") for n in known) or "none"
            raise InvalidArgumentError(
                f"coop explain {operation}: argument '{token}' is not allowed; expected one of: {allowed}"
            )
        value = extra[index + 1] if index + 1 < len(extra) and not extra[index + 1].startswith("--") else None
        options[name] = _engine.OptionBinding.runtime() if value is None else _engine.OptionBinding.fixed(value)
        index += 1 if value is None else 2
    return options


def explain(arguments: argparse.Namespace, extra: list[str]) -> str:
    from . import _engine
    from ._engine_session import engine

    facts = _engine.CallFacts(
        arguments.operation,
        _engine.parse_group(arguments.group, arguments.block, "coop explain"),  # the coop tool's reading
        arguments.dtype,
        arguments.items,
        _options(arguments.operation, extra),
    )
    session = engine()
    plan = session.plan(facts)
    session.require_supported_arch(arguments.arch, "python -m cuda.coop explain")  # what it prints must compile
    return (
        f"== plan ==\n{plan.describe()}\n== generated C++ ({arguments.arch}) ==\n{session.emit([plan], arguments.arch)}"
    )
