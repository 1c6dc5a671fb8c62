"""Where a call is in the user's code, for messages: "copy_tile, kernel.py:12"."""

from __future__ import annotations

import os


def where(state, loc) -> str:
    name = state.func_id.func_qualname
    if loc is None or not getattr(loc, "filename", None):
        return name
    return f"{name}, {os.path.basename(loc.filename)}:{loc.line}"


def context(operation: str, state, loc) -> str:
    """How messages name a call: "coop.load (copy_tile, kernel.py:12)"."""
    return f"coop.{operation} ({where(state, loc)})"
