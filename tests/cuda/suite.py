"""A pytest plugin running the official Array API suite (data-apis/array-api-tests) with the
cuda device as lazyinfini's default device: every array the suite makes lives there, and every
program computes there.

    PYTHONPATH=<this checkout> ARRAY_API_TESTS_MODULE=lazyinfini \\
        python -m pytest array_api_tests -p tests.cuda.suite ...

LAZYINFINI_SUITE_DEVICE picks the device: "emulated" (the default: tests/cuda/emulator.py, the
device's own code on the CPU, kernels compiled by g++ under the shim) or "cuda" (a GPU and
CuPy). LAZYINFINI_SHIM_DIR keeps the shim's compiled kernels between runs.
"""

from __future__ import annotations

import os
import sys

_HELD: dict = {}


def pytest_configure(config) -> None:
    import lazyinfini as li

    name = os.environ.get("LAZYINFINI_SUITE_DEVICE", "emulated")
    if name == "emulated":
        from tests.cuda.emulator import EmulatedBackend, registered
        from tests.render import shim

        if os.environ.get("LAZYINFINI_SHIM_DIR"):
            shim._FOLDER = os.environ["LAZYINFINI_SHIM_DIR"]
            os.makedirs(shim._FOLDER, exist_ok=True)
        backend = EmulatedBackend()
        held = registered(backend, "cuda-emulated")
        held.__enter__()
        _HELD.update(backend=backend, held=held)
        name = "cuda-emulated"
    li.set_options(device=name)  # NOTE: raises naming what is missing (CuPy, a GPU)
    _HELD["name"] = name


def pytest_report_header(config) -> str:
    return f"lazyinfini default device: {_HELD.get('name')}"


def pytest_unconfigure(config) -> None:
    backend = _HELD.pop("backend", None)
    if backend is not None:
        print(
            f"\nemulated cuda device: {backend.compiles} units compiled, "
            f"{len(backend.launches)} launches",
            file=sys.stderr,
        )
        _HELD.pop("held").__exit__(None, None, None)
