"""Never a wrong number on the GPU: signed zeros and complex special values.

The emulated device fills a 0-d value in as CuPy does (-0.0 becomes +0.0) and computes complex
functions at special values by the plain formulas (tests/cuda/cupy_math.py), so these tests
fail where a GPU would: the device must pass scalars by value and correct complex results in
special_values.py, as every device does.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._runtime.special_values import COMPLEX

INF, NAN = math.inf, math.nan
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, INF, -INF, NAN]
GRID = [complex(a, b) for a, b in itertools.product(PARTS, PARTS)]
FLOATS = [np.float16, li.bfloat16, np.float32, np.float64]


def same_bits(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Elementwise: equal with the signs of zeros, NaN where NaN (a NaN's sign is free); a
    finite nonzero value within a few ulps (CuPy's complex math is not numpy's to the last
    bit: a tolerance matter, not a special value)."""
    nan = np.isnan(got) & np.isnan(expected)
    same = (got == expected) & (np.signbit(got) == np.signbit(expected))
    ordinary = np.isfinite(expected) & (expected != 0)
    eps = np.finfo(expected.dtype).eps
    close = ordinary & (np.abs(got - expected) <= 8 * eps * np.abs(expected))
    return nan | same | close


def assert_same_complex(got, expected, what: str) -> None:
    ok = same_bits(got.real, expected.real) & same_bits(got.imag, expected.imag)
    bad = [(z, g, e) for z, g, e, k in zip(GRID, got, expected, ok) if not k]
    assert not bad, f"{what}: {len(bad)} differ, (z, got, host): {bad[:6]}"


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_functions_at_special_values_match_the_host(cuda, name, dtype):
    z = np.array(GRID, dtype)
    with np.errstate(all="ignore"):
        host = np.asarray(getattr(li, name)(li.asarray(z)))
        on_device = np.asarray(getattr(li, name)(li.asarray(z, device=cuda)))
    assert_same_complex(on_device, host, f"{name} {np.dtype(dtype).name}")


@pytest.mark.parametrize(
    "name, z, expected",
    [  # the standard's cases the official suite found failing on an H100
        ("acosh", complex(0.0, NAN), complex(NAN, math.pi / 2)),
        ("log", complex(INF, NAN), complex(INF, NAN)),
        ("log", complex(-INF, NAN), complex(INF, NAN)),
        ("log", complex(NAN, INF), complex(INF, NAN)),
        ("log", complex(-0.0, 0.0), complex(-INF, math.pi)),
        ("log1p", complex(INF, NAN), complex(INF, NAN)),
        ("log1p", complex(NAN, INF), complex(INF, NAN)),
        ("tanh", complex(0.0, INF), complex(0.0, NAN)),
        ("tanh", complex(0.0, NAN), complex(0.0, NAN)),
        ("expm1", complex(-INF, INF), complex(-1.0, 0.0)),
        ("sqrt", complex(NAN, INF), complex(INF, INF)),
    ],
)
@pytest.mark.parametrize("where", ["host", "device"])
def test_the_standards_complex_cases(cuda, where, name, z, expected):
    x = li.asarray(np.array([z]), device=cuda if where == "device" else None)
    with np.errstate(all="ignore"):
        got = np.asarray(getattr(li, name)(x))
    assert_same_complex(got, np.array([expected]), f"{name}({z})")


@pytest.mark.parametrize("dtype", FLOATS)
def test_negative_zero_scalars_keep_their_sign(cuda, dtype):
    x_np = np.array([-1.0, -2.0, 0.0, -0.0]).astype(dtype)
    x = li.asarray(x_np, device=cuda)
    y = np.asarray(x * 0.0 + (-0.0)).astype(np.float64)  # -0, -0, +0, -0 (numpy: the same)
    assert list(np.signbit(y)) == [True, True, False, True]
    assert np.signbit(np.asarray(li.full(3, -0.0, dtype=dtype, device=cuda)).astype(float)).all()
    for lo, hi in [(-0.0, -0.0), (-0.0, 0.0), (-1.0, -0.0)]:  # numpy's clip of signed zeros
        z = np.asarray(li.clip(x, lo, hi)).astype(np.float64)
        expected = np.clip(x_np.astype(np.float32), lo, hi).astype(np.float64)
        assert list(np.signbit(z)) == list(np.signbit(expected)), (lo, hi, z)


@pytest.mark.parametrize("name", ["sin", "tan", "asinh", "expm1", "sqrt", "round", "log1p"])
def test_functions_of_a_negative_zero_scalar(cuda, name):
    x = li.asarray(np.array([1.0, 2.0]), device=cuda)
    y = np.asarray(getattr(li, name)(x * -0.0))  # a Python -0.0: a fill of it
    assert np.signbit(y).all(), (name, y)


def test_repeat_with_an_array_of_repeats(cuda):
    x = li.asarray(np.array([True, False, True]), device=cuda)
    for repeats, expected in [([1], [1, 0, 1]), ([2, 0, 1], [1, 1, 1]), ([0], [])]:
        got = np.asarray(li.repeat(x, li.asarray(np.array(repeats), device=cuda)))
        assert got.dtype == np.bool_ and got.astype(int).tolist() == expected
    y = li.asarray(np.arange(6.0).reshape(2, 3), device=cuda)
    got = np.asarray(li.repeat(y, li.asarray(np.array([1, 2, 0]), device=cuda), axis=1))
    np.testing.assert_array_equal(got, np.repeat(np.arange(6.0).reshape(2, 3), [1, 2, 0], 1))


def test_a_fill_another_kernel_reads_is_still_passed_by_value(cuda):
    # x[()] = v, then x[()] == v: one fill (simplify merges the equal two) is the setitem's
    # input (copied to the device) and the comparison's load (passed by value) in one run
    # (the suite's test_setitem found it)
    for dtype, value in [(np.bool_, False), (np.float32, -0.0), (np.float16, -0.0)]:
        x = li.asarray(np.array(True if dtype is np.bool_ else 1.0, dtype), device=cuda)
        x[()] = value
        assert bool(x[()] == value)
        got = np.asarray(x)
        assert got == value and np.signbit(got.astype(np.float64)) == np.signbit(value)
    y = li.asarray(np.array([1.0, 2.0], np.float32), device=cuda)
    y[0] = -0.0
    assert np.signbit(np.asarray(y)).tolist() == [True, False]
