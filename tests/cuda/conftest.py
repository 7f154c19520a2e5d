"""The cuda devices the tests run on: the emulated one (tests/cuda/emulator.py), registered for
the module using it, and a real GPU (CuPy) where present; `cuda` runs a test on each."""

from __future__ import annotations

import pytest

from tests.cuda.emulator import EmulatedBackend, registered
from tests.render import shim


@pytest.fixture(scope="module")
def backend() -> EmulatedBackend:
    return EmulatedBackend()


@pytest.fixture(scope="module")
def device(backend):
    """The cuda device on the emulated backend, registered as "cuda-emulated"."""
    if shim.COMPILER is None:
        pytest.skip("no C++ compiler (g++) for the shim")
    with registered(backend) as made:
        yield made


@pytest.fixture(params=["emulated", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda(request):
    """The cuda device a test runs on: the emulated one, and a real GPU where present."""
    if request.param == "emulated":
        return request.getfixturevalue("device")
    from tests.cuda.test_gpu import MISSING

    if MISSING is not None:
        pytest.skip(MISSING)
    from lazyinfini._device import get_device

    return get_device("cuda")


@pytest.fixture
def emulator(cuda, backend) -> EmulatedBackend | None:
    """The backend under `cuda` where it is the emulated one (which counts its compiles and
    launches, and holds DeviceArrays); None on a real GPU."""
    return backend if cuda.memory == backend.memory else None
