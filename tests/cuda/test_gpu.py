"""The checks only a real GPU (CuPy) can make, against the reference device: float32 subnormals
kept and no fused multiply-add, DLPack producers adopted. The checks it shares with the emulated
device run on both (test_emulated.py, the `cuda` fixture); `MISSING` says why neither runs on a
GPU here, and `bfloat16_arrays` whether this CuPy holds bfloat16. Skipped without CuPy and a GPU
(`-m gpu` selects these tests on a machine with one)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import lazyinfini as li
from tests.cuda.programs import assert_same_bits, on_device


def _missing() -> str | None:
    """Why these tests cannot run here (None: a GPU and CuPy are present)."""
    try:
        import cupy
    except ImportError:
        return 'CuPy is not installed (pip install "lazyinfini[cuda]")'
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # NOTE: CuPy's CUDARuntimeError: no driver
        return f"no CUDA GPU ({error})"
    return None if count else "no CUDA GPU"


MISSING = _missing()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


@pytest.fixture(scope="module")
def device():
    from lazyinfini._device import get_device

    return get_device("cuda")


def bfloat16_arrays() -> bool:
    """Whether CuPy holds bfloat16 arrays (CuPy 14 with ml_dtypes; earlier ones cannot)."""
    import cupy

    try:
        cupy.empty(1, ml_dtypes.bfloat16)
    except Exception:
        return False
    return True


def test_float32_subnormals_are_kept_and_products_never_fused(device):
    tiny = np.array([1e-40, -3e-39, 2e-45], np.float32)  # subnormal float32 values
    assert_same_bits(on_device(lambda x: x * 1.0 + 0.0, [tiny], device), tiny)
    # (1 + 2**-23)**2 - (1 + 2**-22) is 0 rounded twice, 2**-46 in one fused multiply-add
    one_ulp = np.array([1 + 2**-23], np.float32)
    fused = on_device(lambda a, c: a * a - c, [one_ulp, np.float32([1 + 2**-22])], device)
    assert fused.tolist() == [0.0]


def test_arrays_come_from_and_go_to_dlpack_producers(device):
    import cupy

    data = cupy.arange(6, dtype=cupy.float32)
    x = li.asarray(data)  # NOTE: taken as it is, no copy
    assert x.device == device and x._node.arg.data.data.ptr == data.data.ptr
    np.testing.assert_array_equal(np.asarray(x + 1), np.arange(1, 7, dtype=np.float32))
