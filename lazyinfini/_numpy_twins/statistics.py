"""numpy's reductions, cumulative sums and differences, recorded with the namespace functions.

Each twin has numpy's signature for what it supports (out= is taken aside before it is called)
and numpy's dtypes: bools sum as the default integer, integers average in float64.

Half floats' running sums and products round every partial result to the dtype, as numpy's
(the namespace's cumulative_sum accumulates them in float32 and rounds once).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtypes
from .._api import statistics as _statistics
from .._api import utility as _utility
from .._api.checks import check_int, normalize_axis
from .._api.data_types import astype
from .._api.elementwise import divide, multiply, not_equal, sqrt, subtract
from .._api.manipulation import broadcast_to, reshape
from .._api.searching import argmax as _argmax
from .._api.searching import argmin as _argmin
from .._api.searching import count_nonzero as _count_nonzero
from .._graph import Op
from .arguments import (
    NOT_GIVEN,
    Fallback,
    array,
    floating,
    given,
    promoted,
    real_only,
    summable,
)


def _dtype(dtype, x=None):
    """numpy's dtype= of a sum or product of x; a real one of complex x runs numpy's, which
    warns and sums the real parts cast in its buffers (the namespace's raises)."""
    if dtype is None:
        return None
    dtype = np.dtype(dtype)
    if x is not None and x.dtype in _dtypes.COMPLEX and dtype.kind != "c":
        raise Fallback(f"dtype={dtype} of complex input (numpy drops the imaginary parts)")
    return dtype


# -- sums and products ------------------------------------------------------------------------
def sum(a, axis=None, dtype=None, keepdims=False):
    x = summable(array(a))
    return _statistics.sum(x, axis=axis, dtype=_dtype(dtype, x), keepdims=keepdims)


def prod(a, axis=None, dtype=None, keepdims=False):
    x = summable(array(a))
    return _statistics.prod(x, axis=axis, dtype=_dtype(dtype, x), keepdims=keepdims)


def mean(a, axis=None, dtype=None, keepdims=False):
    x = array(a)
    summed = _summed_in(x, dtype)
    if summed is not None:
        # Note (numpy): its mean sums x in `summed` (cast in the reduction's buffers, summed one
        # after another: casting x first differs past 8192 values; float16's own sum differs
        # from the namespace's float32 mean), then divides by the intp count in float64
        count = math.prod(x.shape[a] for a in _statistics.reduction_axes("mean", axis, x.ndim))
        total = _statistics.sum(x, axis=axis, dtype=summed, keepdims=keepdims)
        return _divided(total, count, summed)
    return _statistics.mean(floating(x, dtype), axis=axis, keepdims=keepdims)


def _summed_in(x, dtype) -> np.dtype | None:
    """The dtype numpy's mean sums x in, where that is not the namespace's mean of x as it is
    (x's own float32 or float64, float16 without a dtype: the namespace's mean is numpy's
    there): a real float `dtype` x is cast to or summed in as float16, float64 for integers
    and booleans. None for anything else (complex, bfloat16, other dtypes: the other path)."""
    if x.dtype not in _NUMPY_REALS:
        return None
    if dtype is None:
        return _dtypes.float64 if x.dtype.kind in "iub" else None
    dtype = np.dtype(dtype)
    if dtype not in _NUMPY_FLOATS or (dtype == x.dtype and dtype != _dtypes.float16):
        return None
    return dtype


_NUMPY_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_NUMPY_REALS = (*_NUMPY_FLOATS, _dtypes.bool, *_dtypes.INTEGER)


def std(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=NOT_GIVEN):
    return _spread("std", a, axis, dtype, ddof_of(ddof, correction), keepdims)


def var(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=NOT_GIVEN):
    return _spread("var", a, axis, dtype, ddof_of(ddof, correction), keepdims)


def _spread(func: str, a, axis, dtype, ddof, keepdims):
    """numpy's var or std (`func`): the namespace's, in `dtype`, or numpy's own steps where
    `dtype` is not the data's (_narrowed_var)."""
    x = array(a)
    summed = _var_summed_in(x, dtype)
    if summed is not None:
        variance = _narrowed_var(func, x, axis, summed, ddof, keepdims)
        return sqrt(variance) if func == "std" else variance
    x = real_only(func, floating(x, dtype))
    return getattr(_statistics, func)(x, axis=axis, correction=ddof, keepdims=keepdims)


def _var_summed_in(x, dtype) -> np.dtype | None:
    """The dtype numpy's var sums x in (its mean, then the squares), where that is not the
    namespace's var of x as it is (see _summed_in): float16 data's own, float64 for integers
    and booleans, a real float `dtype` x is cast to (its deviations are then x's dtype and
    `dtype`'s common one: float64 data's squares are summed into a float32 var)."""
    if dtype is None and x.dtype == _dtypes.float16:
        return x.dtype
    return _summed_in(x, dtype)


def _narrowed_var(func: str, x, axis, dtype, ddof, keepdims):
    """Note (numpy): its var (std) of x in `dtype` (_var_summed_in) sums x in `dtype` for the
    mean, subtracts it from x and squares in their common dtype, sums the squares in `dtype`,
    and divides each sum by the intp count in float64 (an ulp apart from computing all in
    `dtype`; float16's mean summed in float32 differs more)."""
    wide = np.result_type(x.dtype, dtype)
    axes = _statistics.reduction_axes(func, axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    mean = _divided(_statistics.sum(x, axis=axis, dtype=dtype, keepdims=True), count, dtype)
    deviations = subtract(astype(x, wide), astype(mean, wide))
    # NOTE: summed in `dtype` from the wide squares, as numpy's is: its cast happens in the
    # reduction's buffers, which are summed one after another (pairwise within each)
    squares = multiply(deviations, deviations)
    total = _statistics.sum(squares, axis=axis, dtype=dtype, keepdims=keepdims)
    return _divided(total, builtins.max(count - ddof, 0), dtype)


def _divided(total, count: int, dtype: np.dtype):
    """numpy's true_divide(total, intp count, out=total): in float64, cast back to `dtype`."""
    return astype(divide(astype(total, _dtypes.float64), count), dtype)


def ddof_of(ddof, correction):
    """numpy's ddof (or correction) as the namespace's correction: a numpy number as Python's."""
    if given(correction):
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    return ddof.item() if isinstance(ddof, (np.integer, np.floating)) else ddof


# -- extremes ---------------------------------------------------------------------------------
def max(a, axis=None, keepdims=False):
    x = real_only("max", array(a))
    if x.dtype == _dtypes.bool:
        return _of_bools("max", _utility.any, x, axis, keepdims)  # NOTE: the largest bool
    return _statistics.max(x, axis=axis, keepdims=keepdims)


def min(a, axis=None, keepdims=False):
    x = real_only("min", array(a))
    if x.dtype == _dtypes.bool:
        return _of_bools("min", _utility.all, x, axis, keepdims)
    return _statistics.min(x, axis=axis, keepdims=keepdims)


def _of_bools(func: str, truth, x, axis, keepdims):
    """numpy's max (min) of bools: any (all), but an empty reduction raises ValueError, as for
    numbers (numpy's maximum has no identity; any's would give False)."""
    _statistics.check_nonempty(func, x, _statistics.reduction_axes(func, axis, x.ndim))
    return truth(x, axis=axis, keepdims=keepdims)


def ptp(a, axis=None, keepdims=False):
    return subtract(max(a, axis, keepdims), min(a, axis, keepdims))


def argmax(a, axis=None, *, keepdims=False):
    return _argmax(_ordered(array(a), "argmax"), axis=axis, keepdims=keepdims)


def argmin(a, axis=None, *, keepdims=False):
    return _argmin(_ordered(array(a), "argmin"), axis=axis, keepdims=keepdims)


def _ordered(x, func: str):
    """Bools order as 0 < 1: an integer dtype the namespace's argmax takes."""
    x = real_only(func, x)
    return astype(x, _dtypes.uint8) if x.dtype == _dtypes.bool else x


# -- truth ------------------------------------------------------------------------------------
def any(a, axis=None, keepdims=False):
    return _utility.any(array(a), axis=axis, keepdims=keepdims)


def all(a, axis=None, keepdims=False):
    return _utility.all(array(a), axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    # Note: numpy returns a Python int when axis is None; here it stays a lazy 0-d array.
    return _count_nonzero(array(a), axis=axis, keepdims=keepdims)


# -- running sums and differences -------------------------------------------------------------
def cumsum(a, axis=None, dtype=None):
    x, axis = _along(summable(array(a)), axis)
    return _running("cumulative_sum", Op.CUMULATIVE_SUM, x, axis, dtype, False)


def cumprod(a, axis=None, dtype=None):
    x, axis = _along(summable(array(a)), axis)
    return _running("cumulative_prod", Op.CUMULATIVE_PROD, x, axis, dtype, False)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    x = summable(array(x))
    return _running("cumulative_sum", Op.CUMULATIVE_SUM, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    x = summable(array(x))
    return _running("cumulative_prod", Op.CUMULATIVE_PROD, x, axis, dtype, include_initial)


def _running(func: str, op, x, axis, dtype, include_initial):
    """numpy's running sum or product: a half float's partial results rounded at each step."""
    return _statistics.record_cumulative(func, op, x, axis, _dtype(dtype, x), include_initial, True)


def _along(x, axis):
    """numpy's axis=None: the flattened array, along its only axis."""
    if axis is None:
        return reshape(x, (-1,)), 0
    return x, axis


def diff(a, n=1, axis=-1, prepend=NOT_GIVEN, append=NOT_GIVEN):
    x = array(a)
    if n == 0:
        return x
    edges = {k: _edge(v, x, axis) for k, v in (("prepend", prepend), ("append", append))}
    edges = {k: v for k, v in edges.items() if v is not None}
    x, *joined = promoted(x, *edges.values())
    if x.dtype == _dtypes.bool:  # NOTE: numpy differences booleans by not_equal
        return _bool_diff(x, n, axis, dict(zip(edges, joined, strict=True)))
    return _utility.diff(x, axis=axis, n=n, **dict(zip(edges, joined, strict=True)))


def _bool_diff(x, n, axis, edges: dict):
    axis, n = normalize_axis("diff", axis, x.ndim), check_int("diff", "n", n, minimum=0)
    return _utility.joined_differences(x, n, axis, edges, not_equal)


def _edge(value, x, axis: int):
    """prepend/append as numpy joins them: a scalar is an array (of numpy's default dtype,
    not a weak scalar) broadcast to one slice of x along axis."""
    if not given(value):
        return None
    edge = array(value)
    if edge.ndim == 0 and x.ndim > 0:
        axis = axis % x.ndim
        edge = broadcast_to(edge, x.shape[:axis] + (1,) + x.shape[axis + 1 :])
    return edge
