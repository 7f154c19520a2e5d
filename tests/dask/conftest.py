"""Fixtures of the dask device's tests (tests/conftest.py unregisters the device after each
module)."""

from __future__ import annotations

import pytest


@pytest.fixture
def synchronous():
    """dask's synchronous scheduler, and numpy inputs in chunks of 2 along every axis."""
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "synchronous", "lazyinfini.chunks": 2}):
        yield
