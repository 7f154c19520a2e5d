"""numpy's element-wise functions that are not ufuncs: clip, round, isclose, nan_to_num, the
real/imag family, and the comparisons that answer with one Python bool.

numpy's ufuncs (np.exp, np.abs, np.sign, np.maximum, ...) reach Array.__array_ufunc__ instead.
allclose, array_equal and array_equiv return a Python bool, as numpy does: they compute.
"""

from __future__ import annotations

import builtins
import cmath

import numpy as np

from .. import _dtypes
from .._api import elementwise as _elementwise
from .._api.checks import check_int
from .._api.creation import asarray, copy_node, zeros
from .._api.data_types import astype, finfo
from .._api.manipulation import broadcast_shapes
from .._api.utility import all as _all
from .._api.views import link
from .._array import Array
from .._graph import caller_source
from . import creation as _likes
from .arguments import NOT_GIVEN, Fallback, array, given, real_only, result_dtype

_REAL_SCALARS = (int, float)
_QUICK_BOUNDS = frozenset((float, type(None)))
# NOTE: not bfloat16: numpy's clip of an ml_dtypes bfloat16 array answers in float32
_QUICK_DTYPES = frozenset((_dtypes.float16, _dtypes.float32, _dtypes.float64))


def _is_scalar(value) -> bool:
    """A Python number: weak in numpy's promotion (NEP 50)."""
    return isinstance(value, (int, float, complex)) and not isinstance(value, np.generic)


# -- clip -------------------------------------------------------------------------------------
def clip(a, a_min=NOT_GIVEN, a_max=NOT_GIVEN, *, min=NOT_GIVEN, max=NOT_GIVEN):
    if _quick_bound(a_min) and _quick_bound(a_max) and not given(min):
        # NOTE: the common call, a float array between Python floats (or small ints, exact in
        # every float dtype): the bounds are weak and keep its dtype, as the general path below
        # finds (~6 us less a call)
        if isinstance(a, Array) and a.dtype in _QUICK_DTYPES and not given(max):
            return _elementwise.clip(a, a_min, a_max)
    low, high = _clip_bounds(a_min, a_max, min, max)
    x = array(a)
    low, high = _clip_bound(x, "min", low), _clip_bound(x, "max", high)
    dtype = result_dtype(x, *(b for b in (low, high) if b is not None))
    x = real_only("clip", array(x, dtype))  # NOTE: numpy orders complex numbers
    # Note: Python bounds stay weak (they take x's dtype, as in numpy); others are cast to it.
    low, high = (b if b is None or _is_scalar(b) else array(b, dtype) for b in (low, high))
    if dtype == _dtypes.bool:
        # numpy's clip is minimum(maximum(x, min), max); the namespace's clip takes no bools
        x = x if low is None else _elementwise.maximum(x, low)
        return x if high is None else _elementwise.minimum(x, high)
    return _elementwise.clip(x, low, high)


def _quick_bound(bound) -> bool:
    """A Python float, None, or an int that float16 holds exactly (|int| <= 2048)."""
    kind = type(bound)
    return kind in _QUICK_BOUNDS or kind is int and -2048 <= bound <= 2048


def _clip_bound(x: Array, name: str, bound):
    """A bound as numpy's clip reads it: an array-like or a number; None for a Python int past
    an integer x's range that clips nothing."""
    if isinstance(bound, (str, bytes)):
        raise TypeError(f"clip: {name} must be a number or an array, got {bound!r}")
    if type(bound) is builtins.bool and x.dtype != _dtypes.bool:
        bound = int(bound)  # numpy's: a number (the namespace's clip takes no bool bound)
    if type(bound) is int and x.dtype in _dtypes.INTEGER:
        return _int_bound(x.dtype, name, bound)
    return bound


def _int_bound(dtype: np.dtype, name: str, bound: int) -> int | None:
    """Note (numpy): numpy 2's clip drops a Python int bound past an integer x's range that
    clips nothing (a min below it, a max above it), and raises OverflowError for one that
    would clip everything (a min above it, a max below it), as its arithmetic does."""
    low, high = _dtypes.RANGES[dtype]
    if low <= bound <= high:
        return bound
    if (bound < low) == (name == "min"):
        return None
    raise OverflowError(_out_of_bounds(bound, dtype))


def _out_of_bounds(value: int, dtype: np.dtype) -> str:
    """numpy's OverflowError message for a Python int an integer `dtype` cannot hold (past a
    C long, its conversion's)."""
    if not -(2**63) <= value < 2**63:
        return "Python int too large to convert to C long"
    return f"Python integer {value} out of bounds for {dtype.name}"


def _clip_bounds(a_min, a_max, min, max):
    """numpy's rules for clip's two spellings of its bounds."""
    if not given(a_min) and not given(a_max):
        return (min if given(min) else None), (max if given(max) else None)
    if not given(a_min) or not given(a_max):
        missing = "a_min" if not given(a_min) else "a_max"
        raise TypeError(f"clip() missing 1 required positional argument: '{missing}'")
    if given(min) or given(max):
        raise ValueError(
            "Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided "
            "is forbidden."
        )
    return a_min, a_max


# -- round ------------------------------------------------------------------------------------
def round(a, decimals=0):
    x = array(a)
    decimals = check_int("round", "decimals", decimals)
    if x.dtype == _dtypes.bool or (decimals and x.dtype in _dtypes.COMPLEX):
        raise Fallback(f"round of {x.dtype.name} to {decimals} decimals")
    if x.dtype in _dtypes.INTEGER and decimals >= 0:
        return asarray(x, copy=True)  # numpy's copy: a write into it leaves x
    if decimals == 0:
        return _elementwise.round(x)
    # Note: numpy's order of operations, so the bits agree: x * 10**d, rint, / 10**d, into a
    # new array in order "A" (F where x is F-contiguous, else C: PyArray_Round), not a ufunc's
    # order "K": a later sum adds in it. A copy of x in that order (dropped where x is laid out
    # so already: _schedule/orders.py) lays the chain out so.
    x = copy_node(x, "A", caller_source())
    if x.dtype in _dtypes.INTEGER:
        # numpy divides in float64, rounds, multiplies back and casts to the integer dtype
        scale = _power_of_ten(-decimals)
        scaled = _elementwise.round(_elementwise.divide(astype(x, _dtypes.float64), scale))
        return astype(_elementwise.multiply(scaled, scale), x.dtype)
    scale = _power_of_ten(builtins.abs(decimals))
    if decimals > 0:
        return _elementwise.divide(_elementwise.round(_elementwise.multiply(x, scale)), scale)
    return _elementwise.multiply(_elementwise.round(_elementwise.divide(x, scale)), scale)


def _power_of_ten(n: int) -> float:
    """10**n as numpy's round computes it (exact up to 1e22, then repeated products)."""
    if n < 9:
        return float(10**n)
    result = 1e9
    for _ in range(n - 9):
        result *= 10.0
    return result


# -- closeness --------------------------------------------------------------------------------
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not (isinstance(rtol, _REAL_SCALARS) and isinstance(atol, _REAL_SCALARS)):
        raise Fallback("array rtol or atol")
    x, y = _close_operands(a, b)
    if _is_scalar(y):
        tolerance, finite = atol + rtol * builtins.abs(y), cmath.isfinite(y)
    else:
        tolerance = _elementwise.add(atol, _elementwise.multiply(rtol, _elementwise.abs(y)))
        finite = _elementwise.isfinite(y)
    difference = _elementwise.abs(_elementwise.subtract(x, y))
    result = _elementwise.logical_and(_elementwise.less_equal(difference, tolerance), finite)
    result = _elementwise.logical_or(result, _elementwise.equal(x, y))
    if equal_nan:
        both = _elementwise.logical_and(_nan(x), _nan(y))
        result = _elementwise.logical_or(result, both)
    return result


def _close_operands(a, b):
    """numpy's isclose operands: y inexact (abs of the smallest integer overflows), then both
    promoted; Python numbers stay weak."""
    x = a if _is_scalar(a) else array(a)
    if _is_scalar(b):
        y = float(b) if isinstance(b, int) else b
    else:
        y = array(b)
        y = array(y, result_dtype(y, 1.0))
    dtype = result_dtype(x, y)
    return tuple(v if _is_scalar(v) else array(v, dtype) for v in (x, y))


def _nan(v):
    return cmath.isnan(v) if _is_scalar(v) else _elementwise.isnan(v)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(_all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    x, y = array(a1), array(a2)
    if x.shape != y.shape:
        return False
    return builtins.bool(_all(_equal(x, y, equal_nan)))


def array_equiv(a1, a2):
    x, y = array(a1), array(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return builtins.bool(_all(_equal(x, y, False)))


def _equal(x: Array, y: Array, equal_nan: bool) -> Array:
    dtype = result_dtype(x, y)
    x, y = array(x, dtype), array(y, dtype)
    same = _elementwise.equal(x, y)
    if equal_nan and dtype in _dtypes.REAL_FLOATING + _dtypes.COMPLEX:
        both = _elementwise.logical_and(_elementwise.isnan(x), _elementwise.isnan(y))
        same = _elementwise.logical_or(same, both)
    return same


# -- nan_to_num -------------------------------------------------------------------------------
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    v = array(x)
    if v.dtype not in _dtypes.REAL_FLOATING + _dtypes.COMPLEX:
        return v
    if v.dtype in _dtypes.COMPLEX:
        raise Fallback("nan_to_num of complex input")
    info = finfo(v.dtype)
    high, low = (info.max if posinf is None else posinf), (info.min if neginf is None else neginf)
    is_nan, is_inf = _elementwise.isnan(v), _elementwise.isinf(v)
    positive = _elementwise.greater(v, 0)
    result = _elementwise.where(is_nan, _value(nan, v.dtype), v)
    result = _elementwise.where(
        _elementwise.logical_and(is_inf, positive), _value(high, v.dtype), result
    )
    result = _elementwise.where(
        _elementwise.logical_and(is_inf, _elementwise.logical_not(positive)),
        _value(low, v.dtype),
        result,
    )
    if not copy and isinstance(x, Array):
        x._write(result._n, "nan_to_num")  # numpy writes in place (through views) and returns x
        return x
    return result


def _value(value, dtype):
    """A replacement value cast as numpy's copyto does (unsafe casting)."""
    if not _is_scalar(value) and not isinstance(value, np.generic):
        raise Fallback("array replacement values")
    with np.errstate(over="ignore"):
        return array(np.asarray(value).astype(dtype))


# -- real and imaginary parts -----------------------------------------------------------------
def real(val):
    x = array(val)
    return _part(x, _elementwise.real(x)) if x.dtype in _dtypes.COMPLEX else x  # numpy's: x


def imag(val):
    x = array(val)
    if x.dtype not in _dtypes.COMPLEX:
        return _real_answer(x, 0, x.dtype)
    return _part(x, _elementwise.imag(x))


def _part(x: Array, part: Array) -> Array:
    """numpy's z.real or z.imag: a view of z (a write into z is seen through it, and a write
    through it changes z)."""
    return link(x, part)


def iscomplex(x):
    v = array(x)
    if v.dtype in _dtypes.COMPLEX:
        return _elementwise.not_equal(_elementwise.imag(v), 0)
    return zeros(v.shape, dtype=_dtypes.bool)  # NOTE: numpy's is C-ordered (np.zeros)


def isreal(x):
    v = array(x)
    if v.dtype in _dtypes.COMPLEX:
        return _elementwise.equal(_elementwise.imag(v), 0)
    return _real_answer(v, True, _dtypes.bool)


def _real_answer(x: Array, value, dtype) -> Array:
    """numpy's answer for a real x (its imaginary part's zeros, and tests of them): an array
    numpy makes like x in order "A" (F where x is F-contiguous, else C), which has its say in
    a later ufunc's order."""
    return _likes.full_like(x, value, dtype=dtype, order="A")


# -- infinities by sign -----------------------------------------------------------------------
def isposinf(x):
    return _infinite_of_sign(x, False)


def isneginf(x):
    return _infinite_of_sign(x, True)


def _infinite_of_sign(x, negative: bool):
    """numpy's isinf(x) & signbit(x) (its ~signbit for isposinf): complex is numpy's
    TypeError (signbit has no complex loop)."""
    v = array(x)
    if v.dtype in _dtypes.COMPLEX:
        raise TypeError(
            f"This operation is not supported for {v.dtype} values because it would be ambiguous."
        )
    sign = np.signbit(v)
    return np.logical_and(np.isinf(v), sign if negative else np.logical_not(sign))


def real_if_close(a, tol=100):
    x = array(a)
    if x.dtype in _dtypes.COMPLEX:
        raise Fallback("real_if_close of complex values (numpy looks at them)")
    return x
