"""numpy's half float loops of the math functions (ops.HALF_MATH) are its own code, not its
float32 loop rounded: every finite float16 and bfloat16 value through each function gives
numpy's (and ml_dtypes') bits, on the C path's sizes and the numpy path's, fused or not."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._graph.ops import HALF_MATH, Op

HALVES = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
NAMES = {Op.ASIN: "arcsin", Op.ACOS: "arccos", Op.ATAN: "arctan", Op.ASINH: "arcsinh"}
NAMES |= {Op.ACOSH: "arccosh", Op.ATANH: "arctanh", Op.ATAN2: "arctan2", Op.POW: "power"}


def _every_value(dtype: np.dtype) -> np.ndarray:
    values = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    return values[np.isfinite(values.astype(np.float32))]


def _bits(x: np.ndarray) -> np.ndarray:
    """NaNs as one pattern (their payloads are not the point), the rest bit for bit."""
    x = np.asarray(x)
    nan = np.isnan(x.astype(np.float32))
    return np.where(nan, np.uint16(0x7E00), x.view(np.uint16))


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
@pytest.mark.parametrize("op", sorted(HALF_MATH, key=lambda o: o.label), ids=lambda o: o.label)
def test_every_half_value_through_numpys_math_function_gives_its_bits(op, dtype):
    ufunc = getattr(np, NAMES.get(op, op.label))
    x = np.tile(_every_value(dtype), 2)  # NOTE: past 65,536 values: the C path's size
    args = (x,) if ufunc.nin == 1 else (x, x[::-1].copy())
    with np.errstate(all="ignore"):
        want = ufunc(*args)
    if want.dtype != dtype:
        pytest.skip(f"numpy's {ufunc.__name__} of {dtype.name} gives {want.dtype.name}")
    for size in (x.size, 1000):  # NOTE: the C path's size, and the numpy path's
        lazy = [li.asarray(a[:size]) for a in args]
        with np.errstate(all="ignore"):
            got = np.asarray(ufunc(*lazy))
        np.testing.assert_array_equal(_bits(got), _bits(want[:size]), err_msg=f"size {size}")


def test_a_fused_chain_rounds_each_half_math_result_as_numpy():
    # NOTE: numpy's float16 exp(0.0246) is 1.025, the float32 exp rounded 1.024
    x = np.full(70_000, 0.0246, np.float16)
    want = np.exp(x) * np.float16(2) - np.float16(1)
    got = np.asarray(np.exp(li.asarray(x)) * np.float16(2) - np.float16(1))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_only_the_hosts_devices_run_half_math_in_the_half_dtype():
    # NOTE: a GPU's math functions are its own (libdevice): it keeps computing them in float32
    from lazyinfini._runtime.ufuncs import own_dtype

    node = li.exp(li.asarray(np.ones(3, np.float16)))._node
    assert own_dtype(node) and not own_dtype(node, numpy_loops=False)
    clipped = li.clip(li.asarray(np.ones(3, np.float16)), 0.0, 1.0)._node
    assert own_dtype(clipped, numpy_loops=False)  # NOTE: numpy's float16 ties, everywhere
