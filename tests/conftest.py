"""Tests compile real kernels (front end, NVRTC, nvJitLink) without a GPU.

The engine is a process singleton that reads XDG_CACHE_HOME when it is first
created, so the provider cache is pointed at a session temporary directory before
any test compiles: the tests neither read nor fill the user's cache."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def isolated_provider_cache(tmp_path_factory):
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved
