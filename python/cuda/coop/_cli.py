"""`python -m cuda.coop`: doctor, cache stats|clear and explain, over the same engine the
kernels use. The `coop` console script (console() below) runs the C++ tool shipped in the
wheel (cuda/coop/bin/coop), which also compiles and links, with the toolkit pieces
cuda-pathfinder found named to it; and this module where the wheel has no C++ tool.

As the C++ tool does, bad input exits with status 2 and one line
`coop: <ErrorClass>: message`; a toolkit or cache fault exits with 1."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ._core.errors import (
    CoopError,
    InvalidArgumentError,
    InvalidGroupError,
    UnsupportedOperationError,
    from_engine_error,
)
from ._core.version import package_version

_BAD_INPUT = (InvalidArgumentError, InvalidGroupError, UnsupportedOperationError)


class _Parser(argparse.ArgumentParser):
    """argparse prints usage and exits on bad input; coop reports it as every other error."""

    def error(self, message):
        raise InvalidArgumentError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    from . import _cli_explain

    parser = _Parser(
        prog="coop",
        description="cuda.coop: CUB's cooperative primitives inside Python GPU kernels.",
        epilog="compile and link: the `coop` command of a wheel that ships the C++ tool.",
    )
    parser.add_argument("--version", action="version", version=f"cuda.coop {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    doctor = commands.add_parser("doctor", help="which NVRTC, nvJitLink, headers, cache and compiler are in use")
    doctor.add_argument("--json", action="store_true", help="print one JSON document")
    cache = commands.add_parser("cache", help="inspect or clear the persistent provider cache")
    cache_commands = cache.add_subparsers(dest="cache_command", required=True, metavar="{stats,clear}")
    for name, text in (("stats", "entries and bytes in the cache"), ("clear", "remove every entry")):
        cache_commands.add_parser(name, help=text).add_argument("--json", action="store_true", help="print as JSON")
    _cli_explain.add_arguments(commands.add_parser("explain", **_cli_explain.PARSER_TEXT))
    return parser


def _run(arguments: argparse.Namespace, extra: list[str]) -> int:
    if arguments.command == "explain":
        from . import _cli_explain

        print(_cli_explain.explain(arguments, extra), end="")
        return 0
    if extra:
        raise InvalidArgumentError(f"coop {arguments.command}: unrecognized arguments: {' '.join(extra)}")
    if arguments.command == "doctor":
        from . import _doctor

        return _doctor.run(as_json=arguments.json)
    return _cache_stats(arguments.json) if arguments.cache_command == "stats" else _cache_clear(arguments.json)


def _cache_stats(as_json: bool) -> int:
    from ._engine_session import engine

    stats = engine().cache_stats()
    if as_json:
        print(json.dumps({k: getattr(stats, k) for k in ("directory", "enabled", "entries", "bytes")}, indent=2))
        return 0
    disabled = "" if stats.enabled else " (disabled by CUDA_COOP_ENABLE_CACHE)"
    print(f"cache directory: {stats.directory}{disabled}\nentries: {stats.entries}\nbytes: {stats.bytes}")
    return 0


def _cache_clear(as_json: bool) -> int:
    from ._engine_session import engine

    report = engine().cache_clear()
    failed = report["failed"]
    message = ""
    if failed:
        message = (
            f"coop cache clear: could not remove {len(failed)} file(s) from '{report['directory']}'; "
            "remove them by hand:" + "".join(f"\n  '{f['path']}': {f['reason']}" for f in failed)
        )
    if as_json:
        document = dict(report)
        if message:
            document["error"] = {"kind": "CacheError", "message": message}
        print(json.dumps(document, indent=2))
        return 1 if message else 0
    removed = report["removed"]
    print(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {report['directory']}")
    if message:
        print(f"coop: CacheError: {message}", file=sys.stderr)
        return 1
    return 0


def _public(error: Exception) -> CoopError:
    from . import _engine

    return from_engine_error(error) if isinstance(error, _engine.EngineError) else error


def _report(error: CoopError, as_json: bool) -> int:
    status = 2 if isinstance(error, _BAD_INPUT) else 1
    kind, message = type(error).__name__, str(error)
    if status == 2:  # an argument error is one line even when a value holds a line break
        message = message.replace("\n", "\\n")
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    else:
        print(f"coop: {kind}: {message}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    """Runs one coop command; returns its exit status."""
    arguments = None
    try:
        arguments, extra = _parser().parse_known_args(argv)
        return _run(arguments, extra)
    except Exception as error:
        public = _public(error)
        if not isinstance(public, CoopError):
            raise
        return _report(public, as_json=getattr(arguments, "json", False))


def tool_path() -> str | None:
    """The C++ coop tool inside the installed package, or None (a source tree, or a wheel built
    without CLI11)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "coop")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def tool_environment() -> dict[str, str]:
    """The environment for the C++ tool: this one, plus a CUDA_COOP_* variable naming each piece
    cuda-pathfinder found (one the user set stays as it is), so that the tool compiles with what
    the kernels compile with."""
    from ._toolkit_locate import PIECES, locate

    environment = dict(os.environ)
    for field, piece in locate().items():
        environment.setdefault(PIECES[field][1], piece.path)
    return environment


def _python_doctor(argv: list[str]) -> bool:
    # Python's doctor also says where each piece came from (a wheel, conda, CUDA_HOME, ...).
    return bool(argv) and argv[0] == "doctor" and set(argv[1:]) <= {"--json"}


def console() -> None:
    """The `coop` console script. With the C++ tool in the wheel, it runs every command but a
    well-formed `coop doctor` (Python's, which names each piece's origin): explain, compile, link,
    cache and their errors are then the C++ tool's, word for word. Without it, Python's commands."""
    argv = sys.argv[1:]
    tool = tool_path()
    if tool is not None and not _python_doctor(argv):
        os.execve(tool, [tool, *argv], tool_environment())
    sys.exit(main(argv))
