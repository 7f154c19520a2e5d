"""numpy's functions, ufuncs and operators given arrays of the cuda device: what the call
converts (lists, scalars, ndarrays) and what numpy computes for it go where the data lives, and
the values are numpy's. Each runs on the emulated backend and on a GPU where present (the
`cuda` fixture, conftest.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyinfini as li

X = np.array([[1.0, np.nan, -np.inf, 2.5], [2.0, -0.0, 3.0, 4.0]])

CALLS = [
    ("take a list", lambda x: np.take(x, [0, 3, -1], axis=1)),
    ("where a Python scalar", lambda x: np.where(x > 1, x, 0.0)),
    ("where an ndarray", lambda x: np.where(x > 1, x, np.zeros(4))),
    ("nan_to_num", lambda x: np.nan_to_num(x)),
    ("append a list", lambda x: np.append(x, [1.0, 2.0])),
    ("searchsorted a list", lambda x: np.searchsorted(x[1, ::2], [0.5, 3.5])),
    ("iscomplex", lambda x: np.iscomplex(x)),
    ("norm", lambda x: np.linalg.norm(np.nan_to_num(x), 1, axis=1)),
    ("histogram with a range", lambda x: np.histogram(x, bins=4, range=(-2, 4))[0]),
    ("histogram without a range", lambda x: np.histogram(x[1], bins=3)[1]),
    ("unique", lambda x: np.unique(x[1])),
    ("argsort of complex (numpy runs it)", lambda x: np.argsort(x[1] * (1 - 1j))),
    ("a ufunc with a list", lambda x: np.maximum(x, [0.0, 5.0, 0.0, 5.0])),
    ("an operator with a list", lambda x: x * [1, 2, 3, 4]),
    ("a reflected operator with a list", lambda x: [1, 2, 3, 4] - x),
    # NOTE: numpy scalars are fills in no memory, as Python's: they raised "arrays in host
    # memory and in cuda memory meet"
    ("a numpy scalar", lambda x: x / np.sqrt(2.0)),
    ("a reflected numpy scalar", lambda x: np.float32(2) - x),
    ("a ufunc with a numpy scalar", lambda x: np.maximum(x, np.float64(1.5))),
    ("a numpy scalar a reduction gave", lambda x: x - np.nanmax(x)),
    ("a signed zero numpy scalar", lambda x: np.signbit(np.nan_to_num(x) * np.float64(-0.0))),
    ("ufunc.at, in place", lambda x: _added_at(x)),
    ("partition (CuPy's)", lambda x: np.partition(np.nan_to_num(x), 1, axis=1)[:, 1]),
    ("median", lambda x: np.median(x, axis=1)),
    ("quantiles", lambda x: np.quantile(np.nan_to_num(x), [0.25, 0.5], axis=0)),
    ("nanmean", lambda x: np.nanmean(x, axis=1)),
    ("nanmax and nanmin", lambda x: np.nanmax(x, axis=1) - np.nanmin(x[:, 2:], axis=0)),
    ("nanargmax", lambda x: np.nanargmax(x, axis=1)),
]


def _added_at(x):
    y = x * 1.0
    np.add.at(y, (np.array([0, 0, 1]), np.array([3, 3, 0])), 1.5)  # NOTE: written where y lives
    return y


@pytest.mark.filterwarnings("ignore:numpy")
@pytest.mark.parametrize("name, call", CALLS, ids=[c[0] for c in CALLS])
def test_numpy_calls_follow_the_data(cuda, name, call):
    # Before: the lists and scalars the twins converted, and numpy's results, went to the
    # host, where they met the device's arrays ("arrays in cuda memory and in host memory meet")
    got = call(li.asarray(X, device=cuda))
    with np.errstate(all="ignore"):
        want = call(X.copy())
    assert got.device == cuda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = np.from_dlpack(got.to_device(li.CPU))
    assert value.dtype == want.dtype
    np.testing.assert_array_equal(value, want)


def test_operators_and_namespace_functions_refuse_a_host_array(cuda):
    # Note (spec): arrays of two devices never meet; numpy's functions take any array-like
    x = li.asarray(X, device=cuda)
    for call in (lambda: x + np.ones(4), lambda: li.add(x, np.ones(4))):
        with pytest.raises(ValueError, match="meet"):
            call()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64", "bool"])
def test_integer_reciprocals_of_zero_are_numpys_on_the_device(cuda, dtype):
    # Before: 1.0 / x cast back to int8 on the device, where a cast saturates: the reciprocal
    # of 0 was 127 where numpy's is 0 on x86 (the emulated cuda fuzz's program)
    x = np.array([0, 1, 2, 0, 1, 3], dtype) if dtype == "bool" else np.array([0, 1, -1, 2, 5, 0])
    x = x.astype(dtype)
    got = np.reciprocal(li.asarray(x, device=cuda) * 1)
    with np.errstate(all="ignore"):
        want = np.reciprocal(x * 1)
    value = np.from_dlpack(got.to_device(li.CPU))
    assert value.dtype == want.dtype
    np.testing.assert_array_equal(value, want)
