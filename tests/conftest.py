import os

# NOTE: SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn's
# array_api_dispatch needs it too; this file is imported before any test module, so set it here
# for tests/integration (a value set by the caller wins).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # NOTE: under CI the examples are the same every run, so a landing never hangs on luck;
    # developers' runs explore new ones (HYPOTHESIS_MAX_EXAMPLES=1000 to search harder).
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("ci")

# NOTE: the suite runs the schedule cache's compiled scan (lazyinfini/_realize/native.py), which the
# first materialization builds in a background thread: wait for it here, so every test runs the
# same scan (the Python one where none can be built; LAZYINFINI_NATIVE=0 forces it).
import lazyinfini._realize.cache  # noqa: E402, F401 (starts the scan's build)
from lazyinfini._realize import native as _native  # noqa: E402

_native.wait()


@pytest.fixture(autouse=True, scope="module")
def _device_registry_restored():
    """A module that loads a device on first use (the dask device: docs/distributed.md,
    tests/dask) leaves the registry as it found it: other modules loop over every registered
    device, and `devices()` lists the ones loaded."""
    from lazyinfini._device import DEVICES

    before = set(DEVICES)
    yield
    for name in set(DEVICES) - before:
        del DEVICES[name]


@pytest.fixture(autouse=True)
def _c_path_left_on():
    """A test that makes the compiler look missing turns the C path off for the process
    (cpu._C_OFF, warned once): it must undo that, or every later test runs numpy's path and
    the C path's coverage is silently lost (test_rearrange_plan's once did)."""
    from lazyinfini._runtime import cpu

    was_on = not cpu._C_OFF
    yield
    if was_on and cpu._C_OFF:
        cpu._C_OFF.clear()
        cpu._PATHS.clear()
        pytest.fail("the test left the C path off (cpu._C_OFF): monkeypatch it")


@pytest.fixture(scope="module")
def compiled_device():
    """The cpu device compiling every elementwise kernel, however small (the C path's tests)."""
    yield from cpu_variant("cpu-compiled", compile_min=0)


def cpu_variant(name: str, **changes):
    """For a fixture: the cpu device with its Target changed by `changes`, registered as `name`
    while the fixture yields that name."""
    import dataclasses

    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._runtime import cpu

    target = dataclasses.replace(DEVICES["cpu"].target, name=name, **changes)
    register_device(cpu.host_device(name, target))
    yield name
    DEVICES.pop(name, None)
