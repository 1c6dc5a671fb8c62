"""The bad-input catalogue: every bad input or fault we know of, the one error (or
warning) class a user sees for it, and the words its message must hold.

One module per category holds its cases in a module-level list `CASES` and one test
parametrized over it: `test_cli.py` (the coop command), `test_kernels.py`, `test_fork.py`
and `test_dataclasses.py` (Python kernels; a compile after fork(); dataclass instances as
kernel arguments), `test_cache_faults.py` (a provider cache that cannot
be used), `test_environment.py` (environment variables) and `test_interrupts.py` (Ctrl-C
during a compile). A fixed bad input is added here as a
case, never only as a bug fix. `conftest.py` prints the table per category after a
run: tried, clear (the case passed: one clear message), unclear (it failed)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Case:
    name: str  # unique within its category; the test id
    error: str  # what the user sees: an error or warning class name (CLI: "exit 2 InvalidArgumentError")
    fragments: tuple[str, ...]  # words the message must contain
    detail: object = None  # what the category's test runs: argv, a kernel, a fault to set up, ...

    def check(self, text: str) -> None:
        missing = [fragment for fragment in self.fragments if fragment not in text]
        assert not missing, f"{self.name}: the message lacks {missing}:\n{text}"


def ids(cases) -> list[str]:
    names = [case.name for case in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return names
