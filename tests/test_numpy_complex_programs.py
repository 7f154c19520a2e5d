"""The differential fuzz of numpy programs (test_numpy_programs.py) over complex arrays: numpy's
calls on complex64 and complex128 values (NaN, infinite and signed-zero parts; C, Fortran,
transposed and reversed layouts), their parts (read, and written through), products and
sums, on ndarrays and on lazyinfini arrays of them, must give numpy's dtypes, shapes and
bits. It found functions of a
part of a reversed array (`np.tan(z[::-1].real)`: numpy's part is a view, whose strides pick
numpy's loop) and a ravel of a reversed array (numpy's copies it forwards) giving other bits.

A program stops where a call would read a numpy scalar: numpy's scalar arithmetic multiplies
complex numbers by another formula than its array loops (docs/numpy.md), and lazyinfini's
0-d results are arrays. LAZYINFINI_FUZZ_EXAMPLES sets the number of programs (default 300)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.test_numpy_programs import _same as _same_real
from tests.test_numpy_programs import differences

COUNT = int(os.environ.get("LAZYINFINI_FUZZ_EXAMPLES", "300"))
SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0])


def _input(rng) -> np.ndarray:
    shape = tuple(int(n) for n in rng.integers(1, 12, rng.integers(1, 4)))
    parts = [rng.standard_normal(shape) * 3 for _ in range(2)]
    if rng.integers(3) == 0:  # NOTE: NaN, infinite and signed-zero parts
        for part in parts:
            if rng.integers(2):
                part[rng.random(shape) < 0.2] = SPECIAL[rng.integers(len(SPECIAL))]
    z = (parts[0] + 1j * parts[1]).astype([np.complex64, np.complex128][rng.integers(2)])
    layout = rng.integers(4)
    if layout == 1:
        return np.asfortranarray(z)
    if layout == 2 and z.ndim > 1:
        return z.T.copy().T
    return z[::-1] if layout == 3 else z


def _in_place(z):
    z = np.copy(z)
    z *= 1 - 2j
    z[..., :1] += 3
    return z


def _through_parts(z):
    z = np.copy(z)
    z.real[z.imag > 0] = -0.0  # NOTE: writes through numpy's views of the parts
    imag = np.imag(z)
    imag *= 2
    z.imag[..., ::-2] = z.real[..., ::-2]
    return z


def _part_then_write(z):
    z = np.copy(z)
    part = z.imag  # NOTE: numpy's view: the write below shows through it
    z[..., :1] *= 2
    return part


def _product_in_place(z, w):
    z = np.copy(z)
    z *= w  # NOTE: numpy's plain formula where z has one element (complex_products.py)
    return z


def _square_in_place(z):
    z = np.copy(z)
    z **= 2
    return z


UNARY = {
    "negative": lambda z, axis: -z,
    "conj": lambda z, axis: np.conj(z),
    "conj_method": lambda z, axis: z.conj(),
    "abs": lambda z, axis: np.abs(z),
    "real": lambda z, axis: z.real,
    "imag": lambda z, axis: z.imag,
    "np.real": lambda z, axis: np.real(z),
    "angle": lambda z, axis: np.angle(z),
    "exp": lambda z, axis: np.exp(z),
    "log": lambda z, axis: np.log(z),
    "sqrt": lambda z, axis: np.sqrt(z),
    "square": lambda z, axis: np.square(z),
    "product": lambda z, axis: z * z,
    "power_2": lambda z, axis: z**2,
    "power_3": lambda z, axis: np.power(z, 3),
    "power_half": lambda z, axis: z**0.5,
    "one_over": lambda z, axis: 1 / z,
    "reciprocal": lambda z, axis: np.reciprocal(z),
    "sin": lambda z, axis: np.sin(z),
    "tanh": lambda z, axis: np.tanh(z),
    "expm1": lambda z, axis: np.expm1(z),
    "log10": lambda z, axis: np.log10(z),
    "sign": lambda z, axis: np.sign(z),
    "isnan": lambda z, axis: np.isnan(z),
    "isfinite": lambda z, axis: np.isfinite(z),
    "complex64": lambda z, axis: z.astype(np.complex64),
    "complex128": lambda z, axis: z.astype(np.complex128),
    "T": lambda z, axis: z.T,
    "reversed": lambda z, axis: z[::-1],
    "cumsum": lambda z, axis: np.cumsum(z, axis=axis % z.ndim),
    "cumprod": lambda z, axis: np.cumprod(z / 3, axis=axis % z.ndim),
    "ravel": lambda z, axis: z.ravel(),
    "copy_F": lambda z, axis: z.copy(order="F"),
    "diff": lambda z, axis: np.diff(z, axis=axis % z.ndim),
    "scale": lambda z, axis: z * 2.5,
    "shift_imag": lambda z, axis: z + 1j,
    "times_complex": lambda z, axis: z * (2 - 1j),
    "complex_over": lambda z, axis: (1 + 2j) / z,
    "nan_to_num": lambda z, axis: np.nan_to_num(z),
    "where_real": lambda z, axis: np.where(z.real > 0, z, 0),
    "masked": lambda z, axis: z[np.abs(z) > 2],
    "roll": lambda z, axis: np.roll(z, 2, axis=axis % z.ndim),
    "flip": lambda z, axis: np.flip(z, axis % z.ndim),
    "phase": lambda z, axis: np.exp(1j * z.real),
    "outer": lambda z, axis: np.outer(z[:4], z[:3]),
    "round": lambda z, axis: np.round(z),
    "squared_norm": lambda z, axis: (z * z.conj()).real,
    "tan_of_part": lambda z, axis: np.tan(z[::-1].imag),
    "arcsinh_of_part": lambda z, axis: np.arcsinh(z.real[..., ::-1]),
    "part_of_a_fill": lambda z, axis: z * np.full(z.shape, 1.5 - 2j).imag,
    "part_of_a_like": lambda z, axis: np.full_like(z, 2 - 1j).real + z.real,
    "in_place": lambda z, axis: _in_place(z),
    "part_then_write": lambda z, axis: _part_then_write(z),
    "through_parts": lambda z, axis: _through_parts(z),
}
BINARY = {
    "add": lambda z, w: z + w,
    "subtract": lambda z, w: z - w,
    "multiply": lambda z, w: z * w,
    "divide": lambda z, w: z / w,
    "power": lambda z, w: np.power(z, w / 4),
    "equal": lambda z, w: z == w,
    "greater": lambda z, w: z > w,  # NOTE: numpy's lexicographic order
    "less_equal": lambda z, w: np.less_equal(z, w),
    "ordered_mask": lambda z, w: z[z >= w.real],
    "less_than_a_number": lambda z, w: z < 0.5 - 1j,
    "maximum": lambda z, w: np.maximum(z, w),
    "minimum_of_a_number": lambda z, w: np.minimum(z, 0.5j),
    "not_equal": lambda z, w: z != w,
    "where": lambda z, w: np.where(np.abs(z) > 1, z, w),
    "stack": lambda z, w: np.stack([z, w]),
    "concatenate": lambda z, w: np.concatenate([z, w]),
    "plus_real": lambda z, w: z + w.real,
    "times_imag": lambda z, w: z * w.imag,
    "over_real": lambda z, w: z / w.real,
    "hypot_of_parts": lambda z, w: np.hypot(z.real, w.imag),
    "arctan2_of_parts": lambda z, w: np.arctan2(z.imag, w.real),
    "from_parts": lambda z, w: z.real + 1j * w.imag,
    "mixed": lambda z, w: z.astype(np.complex64) * w,
    "product_in_place": _product_in_place,
    "product_of_more_dims": lambda z, w: z * w[None],  # NOTE: numpy's iterator at one element
    "square_in_place": lambda z, w: _square_in_place(z),
}
REDUCE = {
    "sum": lambda z, axis, keep: np.sum(z, axis=axis, keepdims=keep),
    "mean": lambda z, axis, keep: np.mean(z, axis=axis, keepdims=keep),
    "prod": lambda z, axis, keep: np.prod(z / 3, axis=axis, keepdims=keep),
    "var": lambda z, axis, keep: np.var(z, axis=axis, keepdims=keep),
    "std": lambda z, axis, keep: z.std(axis=axis, keepdims=keep),
    "any": lambda z, axis, keep: np.any(z, axis=axis),
    "all": lambda z, axis, keep: z.all(axis=axis),
    "count_nonzero": lambda z, axis, keep: np.count_nonzero(z, axis=axis),
    "nansum": lambda z, axis, keep: np.nansum(z, axis=axis),
    "sum_of_squares": lambda z, axis, keep: (z * z).sum(axis=axis),
    "max_abs": lambda z, axis, keep: np.abs(z).max(axis=axis),
    "norm": lambda z, axis, keep: np.linalg.norm(z, axis=-1 if axis is None else axis),
    "mean128": lambda z, axis, keep: z.mean(axis=axis, dtype=np.complex128),
    "trace": lambda z, axis, keep: np.trace(z) if z.ndim >= 2 else z,
    "power_sum": lambda z, axis, keep: (z.conj() * z).sum(axis=axis),
    "cumsum_flat": lambda z, axis, keep: np.cumsum(z),
}


def _complex(v):
    """A value as a complex operand (a real or bool result of an earlier step, cast)."""
    return v if v.dtype.kind == "c" else v.astype(np.complex128)


def _step(rng, values: list):
    """The next value, or None where it would read a numpy scalar (the program stops)."""
    a = values[rng.integers(len(values))]
    kind = rng.integers(3)
    if kind == 1:
        same = [b for b in values if b.shape == a.shape]
        b = same[rng.integers(len(same))]
        name = list(BINARY)[rng.integers(len(BINARY))]
        return None if _scalar(a, b) else BINARY[name](_complex(a), _complex(b))
    if kind == 0 and a.ndim:
        name = list(UNARY)[rng.integers(len(UNARY))]
        return None if _scalar(a) else UNARY[name](_complex(a), int(rng.integers(4)))
    axis = None if not a.ndim or rng.integers(3) == 0 else int(rng.integers(a.ndim))
    name = list(REDUCE)[rng.integers(len(REDUCE))]
    return None if _scalar(a) else REDUCE[name](_complex(a), axis, bool(rng.integers(2)))


def _scalar(*values) -> bool:
    return any(isinstance(v, np.generic) for v in values)


def _program(seed: int, wrap, outputs: list | None = None, steps: int = 7) -> list:
    """Program `seed`'s outputs on inputs `wrap(z)`, into `outputs` (so a caller sees the steps
    done before one raised), at most `steps` steps."""
    rng = np.random.default_rng(seed)
    values = [wrap(_input(rng)) for _ in range(rng.integers(1, 3))]
    outputs = [] if outputs is None else outputs
    for _ in range(min(rng.integers(2, 7), steps)):
        value = _step(rng, values)
        if value is None:
            break
        values.append(value)
        outputs.append(value)
    return outputs


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.dtype.kind != "c" or got.dtype != want.dtype or got.shape != want.shape:
        return _same_real(got, want)
    return all(
        _same_real(np.ascontiguousarray(part(got)), np.ascontiguousarray(part(want)))
        for part in (np.real, np.imag)
    )


def _failures(seed: int) -> list[str]:
    return differences(seed, _program, lambda z: z, _same)


@pytest.mark.parametrize("block", range(2))
def test_random_complex_numpy_programs_give_numpys_bits(block):
    failures = []
    for seed in range(block, COUNT, 2):
        failures += _failures(seed)
    assert not failures, failures
