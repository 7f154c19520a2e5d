"""numpy's power takes shortcuts in two places, and lazyinfini takes each where numpy does:

- ndarray's `**` operator, for a float or complex array and exactly a Python int or float
  (fast_scalar_power): x ** 2 is square(x), x ** -1 reciprocal(x), x ** 0.5 sqrt(x);
- the float32 and float64 power loops, when they read the exponent as one value (a scalar, or
  one element broadcast): -1, 0, 0.5, 1 and 2 give 1 / x, 1, sqrt(x), x and x * x.

Their bits differ from the pow loop's (pow(-inf, 0.5) is +inf, sqrt(-inf) NaN; others by an ulp),
so every device and path (numpy's, compiled C) must give numpy's here, at every size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._api.powers import numpy_takes_power_shortcuts

VALUES = np.array([-3.5, -0.0, 0.0, 1e-310, 2.0, 1e200, np.inf, -np.inf, np.nan, 7.25])


def _ops(y) -> list[str]:
    return sorted(attrs["op"] for _, attrs in li.graph(y).nodes(data=True))


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, except that any NaN is a NaN; the sign of a zero counts."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("exponent, op", [(2, "square"), (-1, "reciprocal"), (0.5, "sqrt")])
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
    "make, ops",
    [
        (lambda x: x**2.0, ["buffer", "square"]),  # a float 2: the power loop's shortcut
        (lambda x: x ** np.int64(2), ["buffer", "square"]),
        (lambda x: x**True, ["buffer"]),  # a bool is 1: x itself
        (lambda x: np.power(x, 0.5), ["buffer", "sqrt"]),
        (lambda x: li.pow(x, -1), ["buffer", "reciprocal"]),
        (lambda x: li.pow(x, 0), ["full"]),
        (lambda x: x**3, ["buffer", "full", "pow"]),
        (lambda x: x**0.25, ["buffer", "full", "pow"]),
        (lambda x: x ** np.full(10, 2.0), ["buffer", "buffer", "pow"]),  # an array: the loop
        (lambda x: x ** li.full(10, 2.0), ["full", "buffer", "pow"]),
    ],
)
def test_the_power_loops_shortcuts_are_their_own_ops(make, ops):
    if not numpy_takes_power_shortcuts():
        pytest.skip("this numpy's power loop takes no shortcuts")
    x = li.asarray(VALUES)
    assert sorted(_ops(make(x))) == sorted(ops)


def test_half_floats_and_integers_keep_pow():
    """numpy's float16 and integer power loops take no shortcut (only the operator does)."""
    x = li.asarray(np.arange(5))
    assert _ops(x**3) == ["buffer", "full", "pow"]
    assert _ops(li.pow(x, 2)) == ["buffer", "full", "pow"]
    np.testing.assert_array_equal(np.asarray(x**3), np.arange(5) ** 3)
    assert "pow" in _ops(li.pow(li.asarray(VALUES.astype(np.float16)), 2.0))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "bfloat16"])
def test_the_operator_squares_as_numpys_does(dtype):
    # numpy's x ** 2 squares every dtype where it has gh-29388: a bool's square is int8 (its
    # power int64); elsewhere it squares floats only
    x_np = np.array([0, 1, 3, 1, 0]).astype(li.bfloat16 if dtype == "bfloat16" else dtype)
    want, got = x_np**2, li.asarray(x_np) ** 2
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


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


# The exponent as a program holds it: each form built by numpy (`xp` is np) or lazyinfini (li).
FORMS = {
    "python": lambda xp, v, dtype, shape: v,
    "numpy scalar": lambda xp, v, dtype, shape: dtype.type(v),
    "0-d array": lambda xp, v, dtype, shape: xp.asarray(v, dtype=dtype),
    "one element": lambda xp, v, dtype, shape: xp.asarray([v], dtype=dtype),
    "computed 0-d": lambda xp, v, dtype, shape: xp.asarray(v / 2, dtype=dtype) * 2,
    "computed one element": lambda xp, v, dtype, shape: xp.asarray([[v / 2]], dtype=dtype) * 2,
    "a column": lambda xp, v, dtype, shape: xp.full((shape[0], 1), v, dtype=dtype),
    "full": lambda xp, v, dtype, shape: xp.full(shape, v, dtype=dtype),
}
EXPONENTS = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, -0.5, 1.5, np.nan]


@pytest.fixture(scope="module", params=["reference", "cpu", "compiled"])
def device(request):
    if request.param != "compiled":
        yield request.param
        return
    from tests.conftest import cpu_variant

    yield from cpu_variant("cpu-compiled-powers", compile_min=0)


@settings(max_examples=40, deadline=None)
@given(
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    value=st.sampled_from(EXPONENTS),
    form=st.sampled_from(sorted(FORMS)),
    shape=st.sampled_from([(1,), (0,), (7, 1), (3, 5), (2, 0), (1, 600), (40, 300)]),
    seed=st.integers(0, 2**16),
)
def test_pow_gives_numpys_bits_for_every_form_of_exponent(device, dtype, value, form, shape, seed):
    rng = np.random.default_rng(seed)
    special = np.array([-np.inf, np.inf, -0.0, 0.0, np.nan, 1e-300, 4.0])
    x = np.concatenate([special, rng.standard_normal(max(0, np.prod(shape) - 7)) * 4])
    x = x[: np.prod(shape)].reshape(shape).astype(dtype)
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        want = np.asarray(np.power(x, FORMS[form](np, value, dtype, shape)))
        with li.options(device=device):
            lazy = li.pow(li.asarray(x), FORMS[form](li, value, dtype, shape))
            _same(np.asarray(lazy), want)
            operator = li.asarray(x) ** FORMS[form](li, value, dtype, shape)
            _same(np.asarray(operator), x ** FORMS[form](np, value, dtype, shape))
