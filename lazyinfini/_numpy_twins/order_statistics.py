"""numpy's partition, median, quantile and percentile, recorded as numpy computes them: its
partition (a PARTITION node: numpy's introselect on the host, so -0.0 and 0.0 land where
numpy's land), the elements at the positions numpy reads, and its mean or its interpolation
(_lerp) of them, in numpy's dtypes; where a slice holds a NaN, its NaN.

The positions depend on the quantiles, which must be known when the call is recorded (a list,
a number, an ndarray); quantiles of a lazy array, weights and other methods than "linear" are
numpy's (Fallback).
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtypes
from .._api import sorting as _sorting
from .._api.checks import normalize_axis
from .._api.creation import copy_node
from .._api.data_types import astype
from .._api.elementwise import add, greater_equal, isnan, multiply, subtract, where
from .._api.manipulation import expand_dims, moveaxis, reshape
from .._api.utility import along
from .._array import Array
from .._graph import caller_source
from . import statistics
from .arguments import Fallback, array, real_only


def partition(a, kth, axis=-1, kind="introselect", order=None):
    if kind != "introselect" or order is not None or isinstance(kth, Array):
        raise Fallback("another kind than introselect, order=, or lazy kth")
    x = real_only("partition", array(a))
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis("partition", axis, x.ndim)
    return _partitioned(x, np.atleast_1d(np.asarray(kth)).tolist(), axis)


def _partitioned(x: Array, kth: list, axis: int) -> Array:
    n = x.shape[axis]
    if n == 0:  # NOTE: numpy's: an empty axis takes any kth (there is nothing to place)
        return _sorting.partition(x, (0,), axis)
    for k in kth:
        k = operator.index(k)
        if not -n <= k < n:  # NOTE: numpy names a negative kth counted from the end
            raise ValueError(f"kth(={k + n if k < 0 else k}) out of bounds ({n})")
    return _sorting.partition(x, tuple(int(k) for k in kth), axis)


def _inexact(x: Array) -> bool:
    return x.dtype in _dtypes.REAL_FLOATING


def _reduced(x: Array, axis, func: str) -> tuple[Array, int]:
    """x and the one axis numpy's call reduces (None: x raveled, axis 0)."""
    if axis is None:
        return reshape(x, (-1,)), 0
    if isinstance(axis, tuple):
        raise Fallback(f"{func} over several axes")
    return x, normalize_axis(func, axis, x.ndim)


def _kept(result: Array, ndim: int, axis, leading: int = 0) -> Array:
    """numpy's keepdims: the reduced axes back as length 1 (after `leading` quantile axes);
    `axis` is one checked already, or None."""
    axes = range(ndim) if axis is None else (axis % ndim,)
    for a in sorted(axes):
        result = expand_dims(result, axis=leading + a)
    return result


# -- median -----------------------------------------------------------------------------------
def median(a, axis=None, overwrite_input=False, keepdims=False):
    x = real_only("median", array(a))
    data, at = _reduced(x, axis, "median")
    size = data.shape[at]
    if size == 0 or x.dtype == _dtypes.bool:
        raise Fallback("a median of no values (numpy warns) or of booleans")
    half = size // 2
    kth = [half - 1, half] if size % 2 == 0 else [(size - 1) // 2]
    part = _partitioned(data, [*kth, -1] if _inexact(data) else kth, at)
    middle = part[along(at, slice(half - 1 + size % 2, half + 1))]
    result = statistics.mean(middle, at)
    if _inexact(data):
        # Note (numpy): a slice holding a NaN has it partitioned last: its median is that NaN
        last = part[along(at, -1)]
        result = where(isnan(last), last, result)
    return _kept(result, x.ndim, axis) if keepdims else result


# -- quantiles --------------------------------------------------------------------------------
def quantile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):  # fmt: skip
    q, weak = _quantiles(q, 1, "Quantiles must be in the range [0, 1]", method, weights)
    return _quantile(array(a), q, axis, keepdims, weak)


def percentile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None):  # fmt: skip
    q, weak = _quantiles(q, 100, "Percentiles must be in the range [0, 100]", method, weights)
    return _quantile(array(a), q, axis, keepdims, weak)


def _quantiles(q, scale, message: str, method, weights) -> tuple[np.ndarray, bool]:
    """numpy's quantiles from q (percentiles divided by 100) and whether q was a Python number
    (weak: its interpolation weight stays a Python float)."""
    if isinstance(q, Array) or weights is not None or method != "linear":
        raise Fallback("lazy quantiles, weights or another method than 'linear'")
    weak = type(q) in (int, float)
    q = np.true_divide(q, 100, out=...) if scale == 100 else np.asanyarray(q)
    if q.size and not (q.min() >= 0 and q.max() <= 1):
        raise ValueError(message)
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    return q, weak


def _quantile(x: Array, q: np.ndarray, axis, keepdims: bool, weak: bool) -> Array:
    if x.dtype in _dtypes.COMPLEX:
        raise TypeError("a must be an array of real numbers")
    if x.dtype == _dtypes.bool:
        raise Fallback("quantiles of booleans (numpy's interpolation subtracts them)")
    data, at = _reduced(x, axis, "quantile")
    n = data.shape[at]
    if n == 0:
        raise Fallback("quantiles of no values")
    # Note (numpy): its quantile partitions a C-ordered copy in place, seen with the axis first
    arr = moveaxis(copy_node(data, "C", caller_source()), at, 0)
    virtual = np.asanyarray((n - 1) * q)
    if np.issubdtype(virtual.dtype, np.integer):
        kth = [*virtual.ravel().tolist(), -1] if _inexact(arr) else virtual.ravel().tolist()
        part = _partitioned(arr, kth, 0)
        result = _at(part, virtual)
    else:
        previous, following = _positions(virtual, n)
        kth = np.unique(np.concatenate(([0, -1], previous.ravel(), following.ravel())))
        part = _partitioned(arr, kth.tolist(), 0)
        gamma = np.asanyarray(virtual - previous, dtype=virtual.dtype)
        gamma = float(gamma) if weak else gamma.reshape(virtual.shape + (1,) * (arr.ndim - 1))
        result = _lerp(_at(part, previous), _at(part, following), gamma)
    if _inexact(arr):
        result = _with_nans(result, part[-1], weak or q.ndim > 0)
    return _kept(result, x.ndim, axis, q.ndim) if keepdims else result


def _at(part: Array, positions: np.ndarray) -> Array:
    """part's slices (along axis 0) at `positions`, as numpy indexes them (a 0-d position is
    an integer: the axis goes)."""
    return part[int(positions)] if positions.ndim == 0 else part[positions]


def _positions(virtual: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """numpy's _get_indexes: the positions below and above each virtual index (the last one
    past the end, the first before the start)."""
    previous = np.array(np.floor(virtual))
    following = np.array(previous + 1)
    previous[virtual >= n - 1] = -1
    following[virtual >= n - 1] = -1
    previous[virtual < 0] = 0
    following[virtual < 0] = 0
    return previous.astype(np.intp), following.astype(np.intp)


def _lerp(a: Array, b: Array, t) -> Array:
    """numpy's _lerp: a + (b - a) t, and b - (b - a)(1 - t) where t >= 0.5, in the first's
    dtype."""
    difference = subtract(b, a)
    low = add(a, multiply(difference, t))
    if isinstance(t, float) and t < 0.5:  # NOTE: a Python weight picks one formula
        return low
    high = subtract(astype(b, low.dtype), astype(multiply(difference, 1 - t), low.dtype))
    return high if isinstance(t, float) else where(greater_equal(array(t), 0.5), high, low)


def _with_nans(result: Array, last: Array, kept_dtype: bool) -> Array:
    """numpy's result where a slice holds a NaN (partitioned last): that NaN."""
    if not kept_dtype and result.ndim == 0 and result.dtype != last.dtype:
        raise Fallback("a 0-d quantile whose dtype numpy sets by whether it meets a NaN")
    return where(isnan(last), astype(last, result.dtype), result)
