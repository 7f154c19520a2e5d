"""Special values where numpy departs from the standard and lazyinfini follows the standard."""

import math

import numpy as np
import pytest

import lazyinfini as li

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize("executor", ["cpu", "reference"])
@pytest.mark.parametrize(
    "x1, x2, expected",
    [
        (INF, 2.0, INF),
        (INF, -2.0, -INF),
        (-INF, 2.0, -INF),
        (-INF, -2.0, INF),
        (1.0, -INF, -0.0),
        (-1.0, INF, -0.0),
        (1.0, INF, 0.0),
        (-1.0, -INF, 0.0),
        (INF, INF, NAN),
        (7.0, 2.0, 3.0),
        (-7.0, 2.0, -4.0),
    ],
)
def test_floor_divide_with_infinities(executor, x1, x2, expected):
    with li.options(executor=executor):
        a = li.asarray(np.array([x1, x1], np.float64))
        out = np.asarray(a // x2)
        inplace = li.asarray(np.array([x1], np.float32))
        inplace //= x2
    for value in (out[0], np.asarray(inplace)[0]):
        if math.isnan(expected):
            assert math.isnan(value)
        else:
            assert value == expected and math.copysign(1, value) == math.copysign(1, expected)


@pytest.mark.parametrize(
    "z, expected",
    [
        (complex(INF, 0.0), complex(INF, 0.0)),
        (complex(-INF, INF), complex(-1.0, 0.0)),
        (complex(-INF, NAN), complex(-1.0, 0.0)),
        (complex(NAN, 0.0), complex(NAN, 0.0)),
    ],
)
def test_complex_expm1_special_values(z, expected):
    out = complex(li.expm1(li.asarray(np.array(z, np.complex128))))
    for got, want in ((out.real, expected.real), (out.imag, expected.imag)):
        assert (math.isnan(got) and math.isnan(want)) or got == want


def test_complex_expm1_keeps_accuracy_near_zero():
    z = np.array([1e-10 + 1e-10j, 0.5 - 0.25j], np.complex128)
    np.testing.assert_allclose(np.asarray(li.expm1(li.asarray(z))), np.expm1(z), rtol=1e-14)


def test_no_floating_point_warnings(recwarn):
    x = li.asarray(np.array([0.0, -1.0, 1.0]))
    np.asarray(li.log(x) + x / 0 + li.sqrt(x))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("y", [0.5, 2.5, 1e300])
def test_complex_tanh_at_positive_infinity_is_one_plus_positive_zero(y):
    out = complex(li.tanh(li.asarray(np.array(complex(INF, y), np.complex128))))
    assert out.real == 1.0 and out.imag == 0.0 and math.copysign(1, out.imag) == 1.0
