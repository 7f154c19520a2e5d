"""Loading the cuda device: registered by name, loaded on first use; `import lazyinfini` and
computing on the host never import CuPy; without CuPy or without a GPU, asking for the device
raises an ImportError saying which is missing."""

from __future__ import annotations

import sys
import types

import pytest

from lazyinfini._device import ALIASES, LOADERS, check_device
from lazyinfini._runtime.cuda import EXTRA, load_device
from tests.test_import_cost import _run  # NOTE: a program in a fresh interpreter


def test_the_device_is_registered_to_load_on_first_use():
    assert LOADERS["cuda:0"].func is load_device and LOADERS["cuda:0"].args == ("cuda:0",)
    assert ALIASES["cuda"] == "cuda:0"


def test_computing_on_the_host_never_imports_cupy():
    script = """
    import sys

    class Refuse:  # any import of CuPy fails the run
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "cupy":
                raise AssertionError(f"imported {name}")

    sys.meta_path.insert(0, Refuse())
    import lazyinfini as li

    y = li.sum(li.clip(li.asarray([1.0, 5.0]) - 2, 0, 1))
    li.explain(y)
    print(float(y))
    """
    assert _run(script).strip() == "1.0"


def test_without_cupy_asking_for_the_device_names_the_extra():
    script = """
    import sys

    sys.modules["cupy"] = None  # NOTE: `import cupy` raises ImportError
    import lazyinfini as li

    try:
        li.options(device="cuda").__enter__()
    except ImportError as error:
        print(error)
    """
    assert EXTRA in _run(script)


def _no_devices():
    raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")


@pytest.mark.parametrize("count", [lambda: 0, _no_devices], ids=["zero", "driver error"])
def test_with_cupy_but_no_gpu_asking_for_the_device_says_so(monkeypatch, count):
    cupy = types.ModuleType("cupy")  # NOTE: only what loading reads
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=count))
    cupy.from_dlpack = lambda obj: obj
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    with pytest.raises(ImportError, match="no CUDA GPU was found"):
        load_device()
    with pytest.raises(ImportError, match="asarray: device 'cuda' is unavailable: no CUDA GPU"):
        check_device("asarray", "cuda")


def test_with_cupy_installed_and_no_gpu_asking_for_the_device_says_so():
    cupy = pytest.importorskip("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # NOTE: CuPy's CUDARuntimeError: no driver
        count = 0
    if count:
        pytest.skip("a GPU is present: tests/cuda/test_gpu.py runs there")
    with pytest.raises(ImportError, match="asarray: device 'cuda' is unavailable: no CUDA GPU"):
        check_device("asarray", "cuda")


def test_each_gpu_is_a_device_of_its_own_memory(monkeypatch):
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 2))
    cupy.from_dlpack = lambda obj: obj
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr("lazyinfini._runtime.cuda._BACKENDS", {})
    namespace = property(lambda self: types.SimpleNamespace())  # NOTE: array_api_compat.cupy's
    monkeypatch.setattr("lazyinfini._runtime.cuda.backend.CupyBackend.namespace", namespace)
    first, second = (load_device(n) for n in ("cuda:0", "cuda:1"))
    assert (first.name, second.name) == ("cuda:0", "cuda:1")
    assert first.memory == "cuda:0" != second.memory == "cuda:1"
    assert first.dlpack == (2, 0) and second.dlpack == (2, 1)
    assert all(LOADERS[f"cuda:{i}"]().name == f"cuda:{i}" for i in (0, 1))
    with pytest.raises(ImportError, match="there is no GPU 2: CuPy counts 2"):
        load_device("cuda:2")
