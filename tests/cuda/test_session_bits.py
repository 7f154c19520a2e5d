"""What numpy computes differently for one element, and bfloat16's sign of zero, on the cuda
device: a one-element complex product in the forms numpy runs with its plain loop (written in
place, through numpy's iterator) is recorded as that formula over the parts, and bfloat16
sign(-0.0) keeps the zero (ml_dtypes' loop). Bit for bit the reference device's, on the
emulated device and on a GPU where present (the `cuda` fixture, conftest.py)."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from tests.cuda.programs import assert_same_bits, put


def _parts(count: int, seed: int) -> list[complex]:
    rng = np.random.default_rng(seed)
    special = [complex(-(2.0**-100), -1.0), complex(np.inf, np.nan), complex(-0.0, 1.5)]
    return [complex(*rng.standard_normal(2) * 3) for _ in range(count)] + special


def _in_place(z, w):
    z *= w
    return z


C64, C128, MUL = np.complex64, np.complex128, np.multiply
FORMS = {
    "(1, 1) complex64 * (1, 1) complex128": ((1, 1), C64, (1, 1), C128, MUL),
    "(1, 1) * (1,)": ((1, 1), C128, (1,), C128, MUL),
    "(1,) *= (1,)": ((1,), C128, (1,), C128, _in_place),
    "(1, 1) complex128 * (1, 1) float64": ((1, 1), C128, (1, 1), np.float64, MUL),
}


def test_one_element_complex_products_are_numpys_on_the_device(cuda):
    wrong = []
    for name, (z_shape, z_dtype, w_shape, w_dtype, form) in FORMS.items():
        for z_value, w_value in zip(_parts(20, 1), _parts(20, 2), strict=True):
            z = np.full(z_shape, z_value, z_dtype)
            w = np.full(w_shape, w_value if np.dtype(w_dtype).kind == "c" else 2.0**-1000, w_dtype)
            with np.errstate(all="ignore"):
                want = np.asarray(form(z.copy(), w))
            with li.options(device=cuda.name):
                got = np.asarray(form(put(cuda, z), put(cuda, w)))
            if got.tobytes() != want.tobytes():
                wrong.append(f"{name}: {z_value} * {w_value}: {got} != {want}")
    assert not wrong, wrong[:5]


def test_bfloat16_sign_keeps_a_zero_on_the_device(cuda):
    x = np.array([-0.0, 0.0, -2.0, 3.0, np.nan], li.bfloat16)
    want = np.sign(x)
    with li.options(device=cuda.name):
        got = np.asarray(li.sign(put(cuda, x) * 1.0))  # NOTE: a fused kernel's expression
    assert_same_bits(got, want)
    assert np.signbit(np.asarray(got, np.float32)[0])
