"""Stage 4a, plan: the engine's Plan of every call (the engine logs it: CUDA_COOP_LOG=plan)."""

from __future__ import annotations

import dataclasses

from .. import _engine
from .._core.errors import from_engine_error
from .._engine_session import engine
from ._facts import Call


@dataclasses.dataclass(frozen=True)
class PlannedCall:
    """A call with the engine's plan for it: what the bundle stage compiles."""

    call: Call
    plan: object  # _engine.Plan


def plan(calls) -> tuple[PlannedCall, ...]:
    """Each call planned on its own, in the order given."""
    if not calls:
        return ()  # a kernel of payloads and groups only: no engine to start
    session = engine()
    return tuple(PlannedCall(call, engine_call(session.plan, call.facts, calls=[call])) for call in calls)


def engine_call(function, *args, calls=()):
    """Runs an engine function; its errors become cuda.coop's, named as the user wrote the
    call ("coop.load (...)", where the engine says "load (...)"), and a bundle's compile
    error names the user's calls it was compiling."""
    try:
        return function(*args)
    except _engine.EngineError as error:
        public = from_engine_error(error)
        for call in calls:
            name = f"{call.facts.operation} ({call.facts.where})"
            if str(error).startswith(name):
                public = type(public)(f"coop.{error}")
        if calls and not any(call.facts.where and call.facts.where in str(error) for call in calls):
            sites = "; ".join(f"coop.{call.facts.operation} ({call.facts.where})" for call in calls)
            public = type(public)(f"compiling the providers of {sites}: {error}")
        raise public from None
