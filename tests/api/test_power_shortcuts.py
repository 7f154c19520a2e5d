"""x ** 2 and x ** -1 of a float or complex array are numpy's square and reciprocal, as
ndarray's operator makes them (numpy's fast_scalar_power): numpy's bits, and a product the C
kernels compile instead of a borrowed pow. x ** 0.5 stays numpy's power loop."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li

VALUES = np.array([-3.5, -0.0, 0.0, 1e-310, 2.0, 1e200, np.inf, -np.inf, np.nan, 7.25])


def _ops(y) -> list[str]:
    return sorted(attrs["op"] for _, attrs in li.graph(y).nodes(data=True))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("exponent, op", [(2, "square"), (-1, "reciprocal")])
def test_numpys_operator_shortcuts(dtype, exponent, op):
    x_np = VALUES.astype(dtype)
    if np.dtype(dtype).kind == "c":
        x_np = x_np + 1j * x_np[::-1]
    x = li.asarray(x_np)
    y = x**exponent
    assert _ops(y) == ["buffer", op]
    with np.errstate(all="ignore"):
        want = x_np**exponent
    np.testing.assert_array_equal(np.asarray(y), want)
    x **= exponent
    assert _ops(x) == ["buffer", op]
    np.testing.assert_array_equal(np.asarray(x), want)


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x**2.0,  # a float 2: numpy's power
        lambda x: x ** np.int64(2),  # a numpy integer: power
        lambda x: x**True,  # a bool is no exact int
        lambda x: np.power(x, 2),  # the ufunc itself: power
        lambda x: li.pow(x, 2),  # the namespace's pow
        lambda x: x**3,
        lambda x: x**0.5,
    ],
)
def test_other_exponents_are_pow(make):
    x = li.asarray(VALUES)
    assert "pow" in _ops(make(x))


def test_integer_arrays_keep_pow():
    x = li.asarray(np.arange(5))
    assert _ops(x**2) == ["buffer", "full", "pow"]
    np.testing.assert_array_equal(np.asarray(x**2), np.arange(5) ** 2)


def test_a_squared_difference_compiles_without_a_borrowed_loop():
    """k-means' ((points[:, None] - centers[None]) ** 2): a compiled product, where numpy's pow
    loop was called on blocks of 512."""
    a = li.asarray(np.random.default_rng(0).standard_normal((12000, 1, 2)))
    b = li.asarray(np.random.default_rng(1).standard_normal((1, 3, 2)))
    text = li.explain((a - b) ** 2)
    assert "path compiled C" in text and "node square" in text and "node pow" not in text


def test_the_standards_special_values_hold():
    x = li.asarray(np.array([-0.0, 0.0, -np.inf, np.inf, np.nan]))
    np.testing.assert_array_equal(np.asarray(x**2), [0.0, 0.0, np.inf, np.inf, np.nan])
    reciprocal = np.asarray(x**-1)
    np.testing.assert_array_equal(reciprocal, [-np.inf, np.inf, -0.0, 0.0, np.nan])
    assert np.signbit(reciprocal[2]) and not np.signbit(reciprocal[3])
