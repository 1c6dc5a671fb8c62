"""cuda.coop's logger, `logging.getLogger("cuda.coop")`.

The engine prints the pipeline stages CUDA_COOP_LOG names (plan, compile, cache) once,
on its side. This logger carries what only the Python side knows, at the "progress"
stage: which kernel's calls a bundle compiles (DEBUG) and, for a compile long enough to
notice (over SLOW_COMPILE_SECONDS), what it compiles as soon as it has run that long and how
long it took when it ends (INFO), for the application's own logging configuration. CUDA_COOP_LOG=<stage>[,...] prints a stage's records on stderr
without any logging configuration."""

from __future__ import annotations

import logging
import sys
import threading

logger = logging.getLogger("cuda.coop")

SLOW_COMPILE_SECONDS = 1.0  # below this a compile is not worth a line


def _stages() -> list[str]:
    from .. import _engine  # the one parser of CUDA_COOP_LOG, which warns once about unknown words

    return _engine.log_stages()


class _StageHandler(logging.Handler):
    """Prints a record on stderr when CUDA_COOP_LOG names its stage. CUDA_COOP_LOG is read per
    record (as the engine does), and stderr is looked up per record so redirection works."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("[cuda.coop %(coop_stage)s] %(message)s"))

    def filter(self, record):
        return getattr(record, "coop_stage", None) in _stages()

    def emit(self, record):
        try:
            sys.stderr.write(self.format(record) + "\n")
        except (OSError, ValueError):  # a closed or broken stderr: logging's usual report
            self.handleError(record)


_handler = _StageHandler()


def stage(name: str, text: str, level: int = logging.DEBUG) -> None:
    """Logs `text` for pipeline stage `name` ("plan", "compile", "cache"). A stage CUDA_COOP_LOG
    names is printed by its handler alone and does not propagate: a root logger that something
    configured meanwhile (the kernel compiler calls logging.info, which runs basicConfig) would
    print each line a second time."""
    if name in _stages():
        _handler.handle(logger.makeRecord(logger.name, level, "", 0, text, None, None, extra={"coop_stage": name}))
        return
    logger.log(level, text, extra={"coop_stage": name})


def _subject(kernel: str, file: str, operations: list[str]) -> str:
    return f"{len(operations)} cooperative call(s) of {kernel} ({file}): {', '.join(operations)}"


_pending = threading.local()  # this thread's compile not yet over: its announcement timer


def _cancel_pending() -> None:
    timer = getattr(_pending, "timer", None)
    if timer is not None:
        timer.cancel()
        _pending.timer = None


def compiling(kernel: str, file: str, operations: list[str], arch: str) -> None:
    """Before a bundle compiles: whether it is a cache hit is known only afterwards, so DEBUG now,
    and INFO once it has run SLOW_COMPILE_SECONDS (a timer that compiled() cancels; the engine
    compiles without the GIL, so the timer's thread gets to speak)."""
    text = f"compiling {_subject(kernel, file, operations)} for {arch}"
    stage("progress", text)
    _cancel_pending()
    slow = f"{text} (running for over {SLOW_COMPILE_SECONDS:g} s: not in any cache, NVRTC compiles it)"
    timer = threading.Timer(max(SLOW_COMPILE_SECONDS, 0.0), stage, ("progress", slow, logging.INFO))
    timer.daemon = True
    _pending.timer = timer
    timer.start()


def compile_failed() -> None:
    """A compile that raised says nothing more: its pending announcement must not follow the error."""
    _cancel_pending()


def compiled(kernel: str, file: str, operations: list[str], cache: str, seconds: float) -> None:
    """After a bundle compiles: INFO when NVRTC took long enough for a person to wonder why."""
    _cancel_pending()
    level = logging.INFO if seconds > SLOW_COMPILE_SECONDS else logging.DEBUG
    stage("progress", f"compiled {_subject(kernel, file, operations)} in {seconds:.2f} s (cache {cache})", level)
