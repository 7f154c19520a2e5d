"""numpy's complex product of one element takes its plain loop (each product rounded) where the
call's form rules its SIMD loop (a fused multiply-add) out: written in place, or run through
numpy's iterator (a cast operand of two dimensions, operands of different dimensions). Each
form here gave other bits than numpy's before (in about half the products, on a CPU with FMA):
lazyinfini took the SIMD loop for every product (_api/complex_products.py)."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._api import complex_products

C64, C128, F32, F64 = np.complex64, np.complex128, np.float32, np.float64
_PARTS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -3.25]


def _values(shape, dtype, seed: int, count: int = 60) -> list[np.ndarray]:
    """`count` arrays of `shape`: random values, then every special part, then a product that
    underflows (a real operand's +0 imaginary part gives -0 - (-0) in the plain formula)."""
    rng = np.random.default_rng(seed)
    made = [rng.standard_normal(shape) + 1j * rng.standard_normal(shape) for _ in range(count)]
    made += [np.full(shape, complex(r, i)) for r in _PARTS for i in _PARTS]
    made.append(np.full(shape, complex(-(2.0**-100), -1.0)))
    if np.dtype(dtype).kind != "c":
        tiny = 2.0**-1000 if dtype == F64 else 2.0**-100
        made = [v.real for v in made[:-1]] + [np.full(shape, tiny)]
    return [np.asarray(v, dtype) for v in made]


def _same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (got, want)


def _new_out(xp, z, w):
    shape, dtype = np.broadcast_shapes(z.shape, w.shape), np.result_type(z.dtype, w.dtype)
    return np.empty(shape, dtype) if xp is np else li.empty(shape, dtype=dtype)


def _imul(z, w):
    z *= w
    return z


def _imul_itself(z, w):
    z *= z
    return z


def _ipow(z, w):
    z **= 2  # NOTE: numpy's square, in place
    return z


def _through_a_view(z, w):
    view = z[...]
    view *= w
    return z


FORMS = {
    "fresh": lambda xp, z, w: z * w,
    "reflected": lambda xp, z, w: w * z,
    "np.multiply": lambda xp, z, w: np.multiply(z, w),
    "in place": lambda xp, z, w: _imul(z, w),
    "in place, itself": lambda xp, z, w: _imul_itself(z, w),
    "square in place": lambda xp, z, w: _ipow(z, w),
    "through a view": lambda xp, z, w: _through_a_view(z, w),
    "out=x1": lambda xp, z, w: np.multiply(z, w, out=z),
    "out=x2": lambda xp, z, w: np.multiply(w, z, out=z),
    "np.square out=x": lambda xp, z, w: np.square(z, out=z),
    "out=new": lambda xp, z, w: np.multiply(z, w, out=_new_out(xp, z, w)),
}
# (z's shape and dtype, w's): z is the array written into, so it is the wider
OPERANDS = [
    ((1,), C128, (1,), C64),
    ((1, 1), C128, (1, 1), C64),
    ((1, 1), C64, (1, 1), C64),
    ((1, 1), C128, (), C128),
    ((1, 1), C128, (1,), C128),
    ((1, 1, 1), C128, (1,), C64),
    ((1, 1), C128, (1, 1), F64),  # NOTE: a real operand, cast: its imaginary part is +0
    ((1, 1), C64, (1, 1), F32),
    ((1, 1), C128, (1,), F32),
    ((3,), C128, (3,), C64),  # NOTE: longer: numpy's SIMD loop, kept as it was
    ((2, 2), C64, (1,), C64),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NOTE: inf * 0 parts
@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("operands", OPERANDS, ids=str)
def test_a_complex_product_of_each_form_gives_numpys_bits(operands, form):
    z_shape, z_dtype, w_shape, w_dtype = operands
    for z, w in zip(_values(z_shape, z_dtype, 1), _values(w_shape, w_dtype, 2), strict=True):
        want = FORMS[form](np, z.copy(), w)
        _same(FORMS[form](li, li.asarray(z.copy()), li.asarray(w)), want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("options", [{"fuse": False}, {"device": "reference"}])
def test_the_plain_formula_is_numpys_on_every_device(options):
    # NOTE: a product of parts (movements) and real products: no device fuses them into an FMA
    for z, w in zip(_values((1, 1), C128, 3), _values((1,), C128, 4), strict=True):
        with li.options(**options):
            _same(li.asarray(z) * li.asarray(w), z * w)
            _same(_imul(li.asarray(z.copy()), li.asarray(w)), _imul(z.copy(), w))


def test_a_longer_product_stays_one_multiply():
    z = li.asarray(np.ones((1, 2), C64))
    w = li.asarray(np.ones((1, 2), C128))
    ops = {attrs["op"] for _, attrs in li.graph(z * w).nodes(data=True)}
    assert "multiply" in ops and "complex" not in ops


def test_the_form_numpy_is_asked_about_once():
    z = li.asarray(np.ones((1, 1, 1, 1), C64))
    w = li.asarray(np.ones((1,), C128))
    complex_products._FORMS.clear()
    for _ in range(3):
        z * w
    assert len(complex_products._FORMS) == 1
    z * li.asarray(np.ones((1,), np.float64))  # NOTE: a real operand is asked about too
    assert len(complex_products._FORMS) == 2


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("scalar", [2.5, 1 - 3j, np.float64(2.5), np.complex64(1 - 3j), True])
@pytest.mark.parametrize("shape", [(1, 1), (1,), ()])
def test_a_product_with_a_scalar_gives_numpys_bits(shape, scalar):
    for z in _values(shape, C64, 5):
        _same(li.asarray(z) * scalar, np.asarray(z * scalar))
        _same(scalar * li.asarray(z), np.asarray(scalar * z))
        if shape:
            _same(_imul(li.asarray(z.copy()), scalar), _imul(z.copy(), scalar))
