"""The emulated cuda device (tests/cuda/emulator.py), registered for the module using it."""

from __future__ import annotations

import pytest

from tests.cuda.emulator import EmulatedBackend, registered


@pytest.fixture(scope="module")
def backend() -> EmulatedBackend:
    return EmulatedBackend()


@pytest.fixture(scope="module")
def device(backend):
    """The cuda device on the emulated backend, registered as "cuda-emulated"."""
    with registered(backend) as made:
        yield made
