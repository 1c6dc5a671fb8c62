"""`coop explain OPERATION ...`: the plan and generated C++ of one call described by flags,
as the C++ tool's `coop explain` prints it, without a kernel or a GPU."""

from __future__ import annotations

import argparse
import re

from ._core.errors import InvalidArgumentError

PARSER_TEXT = {
    "help": "print the plan and generated C++ for one call",
    "description": "Print the plan and generated C++ for one call, e.g. "
    "`coop explain load --group block:128 --dtype int32 --items 2 --algorithm transpose`.",
    "epilog": "Any other option of the operation follows as --name VALUE (a static value baked into the code) or "
    "--name alone (a runtime operand of the generated call): --algorithm transpose, --valid-items, --offset 0, "
    "--oob-default -1. A negative number after an option is its value.",
}
_GROUP = re.compile(r"block:(\d+)(?:,(\d+))?(?:,(\d+))?|warp(?::(\d+))?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("operation", help="load, store, reduce, sum, inclusive_sum, ... (the Python names)")
    parser.add_argument("--group", required=True, help="block:X[,Y[,Z]], warp or warp:N")
    parser.add_argument("--block", help="X[,Y[,Z]]: the block a warp group lives in (warp groups only)")
    parser.add_argument("--dtype", required=True, help="int8 ... uint64, float16, bfloat16, float32, ...")
    parser.add_argument("--items", type=int, default=1, help="items per thread (default 1)")
    parser.add_argument("--arch", default="sm_90", help="target architecture (default sm_90)")


def _dims(text: str, flag: str) -> list[int]:
    if not re.fullmatch(r"\d+(,\d+){0,2}", text):
        raise InvalidArgumentError(
            f"coop explain: argument '{flag}' = '{text}' is not allowed; expected X[,Y[,Z]] with positive integers"
        )
    return [int(part) for part in text.split(",")]


def _group(arguments: argparse.Namespace):
    from . import _engine

    match = _GROUP.fullmatch(arguments.group)
    if match is None:
        raise InvalidArgumentError(
            f"coop explain: argument '--group' = '{arguments.group}' is not allowed; "
            "expected block:X[,Y[,Z]], warp or warp:N"
        )
    if arguments.group.startswith("block"):
        if arguments.block is not None:
            raise InvalidArgumentError("coop explain: argument '--block' is not allowed with a block group")
        return _engine.block(*(int(d) for d in match.groups()[:3] if d is not None))
    if arguments.block is None:
        raise InvalidArgumentError(
            f"coop explain: argument '--block' is missing; a warp group ('{arguments.group}') needs the block's shape"
        )
    return _engine.warp(_dims(arguments.block, "--block"), int(match[4] or 32))


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
        _group(arguments),
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
