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


@pytest.fixture(scope="module")
def compiled_dask():
    """The dask device compiling every elementwise kernel, however small (its blocks' C path)."""
    pytest.importorskip("dask")
    import dataclasses

    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._runtime.dask.device import TARGET, dask_device

    target = dataclasses.replace(TARGET, name="dask-compiled", compile_min=0)
    register_device(dask_device("dask-compiled", target))
    yield "dask-compiled"
    DEVICES.pop("dask-compiled", None)
