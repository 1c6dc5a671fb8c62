"""Prints the bad-input catalogue's table after a run: per category (the test module
that holds its cases), the cases tried, clear (passed) and unclear (failed)."""

from __future__ import annotations

import collections

_CATEGORIES = {
    "test_cli.py": "CLI",
    "test_kernels.py": "Python",
    "test_cache_faults.py": "cache",
    "test_environment.py": "environment",
    "test_interrupts.py": "interrupt",
    "test_fork.py": "Python",
    "test_dataclasses.py": "Python",
}
_results: dict = collections.defaultdict(collections.Counter)


def pytest_runtest_logreport(report):
    category = _CATEGORIES.get(report.nodeid.split("::")[0].rsplit("/", 1)[-1])
    if category is None or "[" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _results[category]["tried"] += 1
        _results[category]["clear" if report.passed else "unclear"] += 1


def pytest_terminal_summary(terminalreporter):
    if not _results:
        return
    terminalreporter.write_line("bad-input catalogue: category, tried, clear, unclear")
    for category in ("CLI", "Python", "cache", "environment", "interrupt"):
        counts = _results.get(category)
        if counts:
            terminalreporter.write_line(
                f"  {category:<12} {counts['tried']:>4} {counts['clear']:>5} {counts['unclear']:>7}"
            )
