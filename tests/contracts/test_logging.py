"""cuda.coop logs through logging.getLogger("cuda.coop"): stages at DEBUG, a slow provider
compile at INFO; CUDA_COOP_LOG prints the stages it names on stderr with no configuration."""

import logging
import time

import pytest

from cuda.coop._core import log


@pytest.fixture
def restored_logger():
    """stage() adds a handler and lowers the level when CUDA_COOP_LOG asks; undo both."""
    level = log.logger.level
    yield log.logger
    log.logger.removeHandler(log._handler)
    log.logger.setLevel(level)


def test_a_slow_compile_says_what_it_compiled_at_info(caplog, monkeypatch):
    monkeypatch.delenv("CUDA_COOP_LOG", raising=False)
    with caplog.at_level(logging.INFO, logger="cuda.coop"):
        log.compiled("copy_tile", "kernel.py", ["coop.load", "coop.store"], "miss", 1.5)
    (record,) = caplog.records
    assert (record.name, record.levelno) == ("cuda.coop", logging.INFO)
    assert record.getMessage() == (
        "compiled 2 cooperative call(s) of copy_tile (kernel.py): coop.load, coop.store in 1.50 s (cache miss)"
    )


def test_a_quick_compile_is_debug_only(caplog, monkeypatch):
    monkeypatch.delenv("CUDA_COOP_LOG", raising=False)
    with caplog.at_level(logging.INFO, logger="cuda.coop"):
        log.compiled("copy_tile", "kernel.py", ["coop.load"], "disk", 0.0)
        log.compiling("copy_tile", "kernel.py", ["coop.load"], "sm_90")
    assert caplog.records == []
    with caplog.at_level(logging.DEBUG, logger="cuda.coop"):
        log.compiling("copy_tile", "kernel.py", ["coop.load"], "sm_90")
    assert [r.getMessage() for r in caplog.records] == [
        "compiling 1 cooperative call(s) of copy_tile (kernel.py): coop.load for sm_90"
    ]


def test_coop_log_prints_the_stages_it_names_on_stderr(capsys, monkeypatch, restored_logger):
    monkeypatch.setenv("CUDA_COOP_LOG", "compile")
    log.stage("compile", "one bundle")
    log.stage("plan", "a plan")  # not asked for
    assert capsys.readouterr().err == "[cuda.coop compile] one bundle\n"


def test_coop_log_prints_each_line_once_when_the_root_logger_has_a_handler(capsys, monkeypatch, restored_logger):
    """The kernel compiler calls logging.info, which gives the root logger a stderr handler."""
    monkeypatch.setenv("CUDA_COOP_LOG", "progress")
    root = logging.StreamHandler()  # stderr as captured now
    logging.getLogger().addHandler(root)
    try:
        log.compiled("copy_tile", "kernel.py", ["coop.load"], "miss", 2.0)
    finally:
        logging.getLogger().removeHandler(root)
    err = capsys.readouterr().err
    assert err.count("compiled 1 cooperative call(s) of copy_tile") == 1, err
    assert err.startswith("[cuda.coop progress] compiled")


def test_without_coop_log_nothing_reaches_stderr(capsys, monkeypatch, restored_logger):
    monkeypatch.delenv("CUDA_COOP_LOG", raising=False)
    log.stage("compile", "one bundle")
    log.compiled("copy_tile", "kernel.py", ["coop.load"], "miss", 2.0)  # INFO: below logging's default WARNING
    assert capsys.readouterr().err == ""


def test_a_compile_still_running_after_the_threshold_says_what_it_compiles_at_info(caplog, monkeypatch):
    monkeypatch.delenv("CUDA_COOP_LOG", raising=False)
    monkeypatch.setattr(log, "SLOW_COMPILE_SECONDS", 0.05)
    with caplog.at_level(logging.INFO, logger="cuda.coop"):
        log.compiling("copy_tile", "kernel.py", ["coop.load"], "sm_90")
        time.sleep(0.5)  # the engine compiles without the GIL: the timer's thread speaks meanwhile
        log.compiled("copy_tile", "kernel.py", ["coop.load"], "miss", 0.5)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.INFO,
            (
                "compiling 1 cooperative call(s) of copy_tile (kernel.py): coop.load for sm_90 "
                "(running for over 0.05 s: not in any cache, NVRTC compiles it)"
            ),
        ),
        (logging.INFO, "compiled 1 cooperative call(s) of copy_tile (kernel.py): coop.load in 0.50 s (cache miss)"),
    ]


def test_a_compile_over_before_the_threshold_never_announces_itself(caplog, monkeypatch):
    monkeypatch.delenv("CUDA_COOP_LOG", raising=False)
    monkeypatch.setattr(log, "SLOW_COMPILE_SECONDS", 0.2)
    with caplog.at_level(logging.INFO, logger="cuda.coop"):
        log.compiling("copy_tile", "kernel.py", ["coop.load"], "sm_90")
        log.compiled("copy_tile", "kernel.py", ["coop.load"], "memory", 0.0)
        time.sleep(0.4)
    assert caplog.records == []


def test_coop_log_progress_prints_the_announcement_without_logging_configuration(capfd, monkeypatch, restored_logger):
    monkeypatch.setenv("CUDA_COOP_LOG", "progress")
    monkeypatch.setattr(log, "SLOW_COMPILE_SECONDS", 0.0)
    log.compiling("copy_tile", "kernel.py", ["coop.load"], "sm_90")
    time.sleep(0.3)
    log.compiled("copy_tile", "kernel.py", ["coop.load"], "miss", 0.3)
    err = capfd.readouterr().err
    assert "[cuda.coop progress] compiling 1 cooperative call(s) of copy_tile (kernel.py): coop.load for sm_90 (" in err
    assert "[cuda.coop progress] compiled 1 cooperative call(s) of copy_tile (kernel.py): coop.load in 0.30 s" in err
