"""Numbers: machine epsilon, magnitudes, exactness (which sums and products round nowhere)."""

from __future__ import annotations

import math

import numpy as np

import lazyinfini as li
from tests.fuzz.dtypes import FLOATS, MANTISSA, compute_dtype


def eps(dtype) -> float:
    """The gap after 1.0 in `dtype` (0 for integers and bool: their ops are exact)."""
    return float(li.finfo(dtype).eps) if dtype in FLOATS else 0.0


def wide(a) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(a).astype(np.float64)


def magnitude(a) -> float:
    """The largest finite |a| (0 for an empty or all non-finite array)."""
    w = np.abs(wide(a))
    w = w[np.isfinite(w)]
    return float(w.max()) if w.size else 0.0


def all_finite(a) -> bool:
    a = np.asarray(a)
    return a.dtype not in FLOATS or bool(np.isfinite(wide(a)).all())


def near_overflow(a) -> bool:
    """Finite values within 16x of the dtype's largest: another rounding may overflow there."""
    a = np.asarray(a)
    return a.dtype in FLOATS and magnitude(a) > float(li.finfo(a.dtype).max) / 16


def quantum_exponent(a) -> int:
    """The largest q with every finite a a multiple of 2**q (a large number when all are 0)."""
    w = wide(a)
    w = w[np.isfinite(w) & (w != 0)]
    if not w.size:
        return 1 << 20
    mantissa, exponent = np.frexp(w)
    digits = np.abs(mantissa * 2.0**53).astype(np.int64)
    trailing = np.log2(digits & -digits).astype(np.int64)
    return int((exponent - 53 + trailing).min())


def row_sums(a, axes) -> np.ndarray:
    """sum |a| over `axes` of the finite values, per result element."""
    w = np.abs(wide(a))
    return np.where(np.isfinite(w), w, 0).sum(axis=axes)


def exactly_summable(a, axes, acc=None) -> bool:
    """Every partial sum over `axes`, in any order, is exact in the accumulator's dtype `acc`
    (the compute dtype where not given)."""
    a = np.asarray(a)
    if a.dtype not in FLOATS:
        return True
    acc = compute_dtype(a.dtype) if acc is None else acc
    rows = row_sums(a, axes)
    largest = float(rows.max()) if rows.size else 0.0
    return (
        below_power(largest, MANTISSA[acc] + quantum_exponent(a))
        and largest < float(li.finfo(acc).max) / 4
    )


def below_power(x: float, exponent: int) -> bool:
    """x < 2**exponent, for any exponent."""
    return x == 0 or math.log2(x) < exponent


def exactly_multipliable(a, axes, acc=None) -> bool:
    """Every partial product over `axes` is an exact integer (or involves inf/NaN/0 the same)."""
    a = np.asarray(a)
    if a.dtype not in FLOATS:
        return True
    if quantum_exponent(a) < 0:
        return False
    w = np.abs(wide(a))
    bits = np.log2(np.where(np.isfinite(w) & (w > 1), w, 1)).sum(axis=axes)
    acc = compute_dtype(a.dtype) if acc is None else acc
    return bits.size == 0 or float(bits.max()) < MANTISSA[acc] - 1


def fits_int(values, dtype) -> bool:
    info = np.iinfo(dtype)
    w = wide(values)
    return bool(w.min() >= info.min and w.max() <= info.max)
