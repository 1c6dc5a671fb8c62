"""`python -m cuda.coop`: the `coop` command itself (console() below), so the two are one
command with one vocabulary: the C++ tool shipped in the wheel where it has one, and the
Python commands where it has none."""

from ._cli import console

console()
