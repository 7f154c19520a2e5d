"""A device named as the FIRST lazyinfini call of a process: `device="cuda"` (and "cuda:0",
"dask"), creation functions' `device=`, `to_device`, `astype(device=)`, `li.options(device=)`
and `devices()` must find the device's loader without anything having imported the runtime
first. Each case runs in a fresh interpreter: a test process has imported it long before.

The GPU is the emulated one (tests/cuda/emulator.py) behind a stand-in `cupy` module that
counts one GPU: an import hook swaps the emulated backend in for CuPy's when the cuda backend
module loads, so nothing of lazyinfini is imported before the call under test."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from lazyinfini._runtime.cuda import EXTRA
from tests.render import shim
from tests.test_import_cost import _run  # NOTE: a program in a fresh interpreter

FIRST_CALLS = {
    "asarray cuda": 'li.asarray(np.arange(4.0), device="cuda")',
    "asarray cuda:0": 'li.asarray(np.arange(4.0), device="cuda:0")',
    "zeros": 'li.zeros(4, device="cuda")',
    "full": 'li.full((4,), 7.0, device="cuda")',
    "arange": 'li.arange(4.0, device="cuda:0")',
    "to_device": 'li.asarray(np.arange(4.0)).to_device("cuda")',
    "astype": 'li.astype(li.asarray(np.arange(4)), li.float64, device="cuda")',
    "from_dlpack": 'li.from_dlpack(np.arange(4.0), device="cuda")',
}

# A stand-in CuPy counting one GPU, and the emulated backend in place of CuPy's backend.
EMULATED_GPU = """
import importlib.abc
import importlib.util
import sys
import types

cupy = types.ModuleType("cupy")
cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
cupy.from_dlpack = lambda obj: obj
sys.modules["cupy"] = cupy


class Emulate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "lazyinfini._runtime.cuda.backend":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            from tests.cuda.emulator import EmulatedBackend

            module.CupyBackend = lambda cupy, index: EmulatedBackend()

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Emulate())
"""


@pytest.mark.parametrize("call", FIRST_CALLS.values(), ids=FIRST_CALLS.keys())
def test_without_cupy_the_first_call_names_the_extra(call):
    script = f"""
    import sys

    import numpy as np

    sys.modules["cupy"] = None  # NOTE: `import cupy` raises ImportError
    import lazyinfini as li

    try:
        {call}
    except ImportError as error:
        print(error)
    """
    assert EXTRA in _run(script)


def test_without_cupy_devices_lists_the_host_and_options_name_the_extra():
    script = """
    import sys

    sys.modules["cupy"] = None
    import lazyinfini as li

    print(li.__array_namespace_info__().devices())
    try:
        li.set_options(device="cuda")
    except ImportError as error:
        print(error)
    """
    out = _run(script)
    assert out.startswith("(Device('cpu'),)") and EXTRA in out


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
@pytest.mark.parametrize("call", FIRST_CALLS.values(), ids=FIRST_CALLS.keys())
def test_with_a_gpu_the_first_call_puts_the_array_there(call):
    script = EMULATED_GPU + textwrap.dedent(f"""
    import numpy as np
    import lazyinfini as li

    x = {call}
    y = x * 2 - 1
    print(x.device, y.device, x.device in li.__array_namespace_info__().devices())
    print(np.asarray(y).tolist())
    """)
    where, values = _run(script).splitlines()
    assert where == "cuda:0 cuda:0 True"
    if "zeros" in call:
        assert values == "[-1.0, -1.0, -1.0, -1.0]"
    elif "full" in call:
        assert values == "[13.0, 13.0, 13.0, 13.0]"
    else:
        assert values == "[-1.0, 1.0, 3.0, 5.0]"


def _on_gpu(calls: str, body: str = "") -> list[str]:
    """The lines a fresh interpreter with the emulated GPU prints for each result of `calls`
    (a tuple expression, after the line `body`; `x` is [0., 1., 2., 3.] there): its device and
    values."""
    script = textwrap.dedent("""
    import numpy as np
    import lazyinfini as li

    x = li.asarray(np.arange(4.0), device="cuda")
    {body}
    for y in {calls}:
        print(y.device, np.asarray(y).tolist())
    """)
    return _run(EMULATED_GPU + script.format(body=body, calls=calls)).splitlines()


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_numpys_first_calls_follow_the_data():
    # numpy's functions and ufuncs as the first calls on a GPU array, in a fresh interpreter:
    # the lists and scalars they convert go to the GPU (the device is found, not preloaded)
    calls = """(
        np.take(x, [3, 0]),
        np.where(x > 1, x, 0.0),
        x * [1, 2, 3, 4],
        np.maximum(x, [2, 0, 2, 0]),
    )"""
    assert _on_gpu(calls) == [
        "cuda:0 [3.0, 0.0]",
        "cuda:0 [0.0, 0.0, 2.0, 3.0]",
        "cuda:0 [0.0, 2.0, 6.0, 12.0]",
        "cuda:0 [2.0, 1.0, 2.0, 3.0]",
    ]


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_the_quick_paths_ndarrays_follow_the_data():
    # the numpy calls whose quick paths convert an ndarray (_numpy_twins/quick.py): it goes to
    # the GPU holding the other operand, as the twins put it
    calls = """(
        np.concatenate([np.zeros(2), x]),
        np.concatenate((x, np.ones(1)), axis=0),
        np.convolve(x, np.ones(2) / 2, mode="valid"),
        np.cumsum(x, axis=0),
    )"""
    assert _on_gpu(calls) == [
        "cuda:0 [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]",
        "cuda:0 [0.0, 1.0, 2.0, 3.0, 1.0]",
        "cuda:0 [0.5, 1.5, 2.5]",
        "cuda:0 [0.0, 1.0, 3.0, 6.0]",
    ]


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_the_integer_paths_are_numpys():
    # NOTE: an integer reciprocal (1 / 0 is inf cast to int8: a cuda cast saturates to 127,
    # numpy's on x86 gives 0), integers with a float, an integer division, a reshape and an
    # index array as the first calls on the GPU: this numpy's values, computed there
    a = np.array([[0, 1, -1], [2, -3, 0]], np.int8)
    with np.errstate(all="ignore"):
        numpys = [np.reciprocal(a), a * 2.5, a / (a + 4), a.reshape(-1), a[[0, 1], [2, 0]]]
    body = "i = li.asarray(np.array([[0, 1, -1], [2, -3, 0]], np.int8), device='cuda')"
    calls = "(np.reciprocal(i), i * 2.5, i / (i + 4), i.reshape(-1), i[np.arange(2), [2, 0]])"
    assert _on_gpu(calls, body) == [f"cuda:0 {n.tolist()}" for n in numpys]


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_devices_lists_it_and_the_options_default_to_it():
    script = EMULATED_GPU + textwrap.dedent("""
    import numpy as np
    import lazyinfini as li

    print(li.__array_namespace_info__().devices())
    with li.options(device="cuda"):
        x = li.ones(3)
        print(x.device, li.__array_namespace_info__().default_device())
    """)
    devices, made = _run(script).splitlines()
    assert devices == "(Device('cpu'), Device('cuda:0'))"
    assert made == "cuda:0 cuda:0"


def test_dask_as_the_first_call():
    pytest.importorskip("dask")
    script = """
    import numpy as np
    import lazyinfini as li

    x = li.asarray(np.arange(4.0), device="dask")
    print(x.device, (x + 1).device, np.asarray(li.sum(x + 1)).tolist())
    """
    assert _run(script).split() == ["dask", "dask", "10.0"]


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_a_first_one_element_complex_product_is_numpys():
    # NOTE: the first product of its form asks numpy which formula it takes (complex_products):
    # in a fresh interpreter, on the GPU, its bits are numpy's, as is bfloat16's sign(-0.0)
    script = EMULATED_GPU + textwrap.dedent("""
    import numpy as np
    import lazyinfini as li

    rng = np.random.default_rng(5)
    z = rng.standard_normal((40, 1, 1)) + 1j * rng.standard_normal((40, 1, 1))
    z = z.astype(np.complex64)
    w = rng.standard_normal((40, 1, 1)) + 1j * rng.standard_normal((40, 1, 1))
    on = [(li.asarray(a, device="cuda"), li.asarray(b, device="cuda")) for a, b in zip(z, w)]
    got = [np.asarray(a * b) for a, b in on]
    print(all(g.tobytes() == (a * b).tobytes() for g, a, b in zip(got, z, w)))
    h = li.asarray(np.array([-0.0, 2.0], li.bfloat16), device="cuda")
    print(np.signbit(np.asarray(li.sign(h * 1.0), np.float32)).tolist())
    """)
    assert _run(script).splitlines() == ["True", "[True, False]"]


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
def test_with_a_gpu_the_first_new_twins_follow_the_data():
    # NOTE: PARTITION and NANMAX nodes, a CHECK's error, a pad's fill and numpy 2's linalg
    # names as the first calls of a fresh interpreter, on the (emulated) GPU: numpy's values
    script = EMULATED_GPU + textwrap.dedent("""
    import numpy as np
    import lazyinfini as li

    a = np.array([[3.0, -1.0, np.nan, 2.5], [0.5, 4.0, -2.0, 1.0]])
    x = li.asarray(a, device="cuda")
    calls = (
        lambda v: np.median(v, axis=1),
        lambda v: np.nanmax(v, axis=1),
        lambda v: np.quantile(v[1], [0.25, 0.5]),
        lambda v: np.partition(v[1], 2)[2],
        lambda v: np.pad(v, 1, constant_values=-0.0)[0],
        lambda v: np.linalg.vector_norm(np.nan_to_num(v), axis=1),
    )
    for call in calls:
        y = call(x)
        print(y.device, np.asarray(y).tobytes() == call(a).tobytes())
    try:
        np.asarray(np.nanargmax(li.asarray(np.full((2, 2), np.nan), device="cuda"), axis=0))
    except ValueError as error:
        print(error)
    """)
    lines = _run(script).splitlines()
    assert lines[:-1] == ["cuda:0 True"] * 6
    assert lines[-1] == "All-NaN slice encountered"
