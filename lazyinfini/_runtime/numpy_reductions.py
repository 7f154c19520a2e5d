"""The host's reductions and running sums as the ufunc calls numpy's functions make
(library.NUMPY's custom ops).

np.sum, np.max, np.any, ... are Python wrappers (dispatch, keyword filtering, a method lookup)
around one `ufunc.reduce` call: np.max over an axis of a 40x6 array costs 31k instructions, its
reduce 22k, and a small script runs dozens of them. On an ndarray they call that reduce with
the same arguments, so calling it directly gives numpy's bits by construction (np.mean: its sum
and its division by an np.intp count). Anything else (no ndarray, keywords these do not take)
calls numpy's function.
"""

from __future__ import annotations

import numpy as np

from .._graph import Op


def _reduce(ufunc, function, dtype=None):
    """`function` (np.sum, np.max, ...) on an ndarray: `ufunc`'s reduce, over `dtype` (the
    node's where given: sum and prod accumulate in theirs; any and all in bool)."""

    def run(xp, x, axis=None, keepdims=False, **kwargs):
        if type(x) is not np.ndarray or not _DTYPE_ONLY.issuperset(kwargs):
            return function(x, axis=axis, keepdims=keepdims, **kwargs)
        return ufunc.reduce(x, axis, kwargs.get("dtype", dtype), None, keepdims=keepdims)

    return run


_DTYPE_ONLY = frozenset({"dtype"})


def _mean(xp, x, axis=None, keepdims=False, **kwargs):
    """np.mean of a float32 or float64 ndarray as numpy's _methods._mean computes it: the sum
    (add.reduce), divided by the count as an np.intp (a strong integer: the division runs in
    float64 and rounds to x's dtype), into the sum's array or as its scalar type. Anything
    else (another dtype, keywords, no elements: numpy warns) calls np.mean."""
    if type(x) is not np.ndarray or kwargs or x.dtype not in _MEAN_DTYPES:
        return np.mean(x, axis=axis, keepdims=keepdims, **kwargs)
    axes = range(x.ndim) if axis is None else axis if type(axis) is tuple else (axis,)
    count = 1
    for a in axes:
        count *= x.shape[a]
    if count == 0:
        return np.mean(x, axis=axis, keepdims=keepdims)
    total = np.add.reduce(x, axis, None, None, keepdims)
    if type(total) is np.ndarray:
        return np.true_divide(total, np.intp(count), total, casting="unsafe")
    return total.dtype.type(total / np.intp(count))


_MEAN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _accumulate(ufunc, name: str):
    """array_api_compat's cumulative_sum or cumulative_prod (`name`) on an ndarray without an
    initial row: `ufunc`'s accumulate, the one call numpy's cumsum and cumprod make (compat
    calls them; its wrapper and theirs: ~4 us of a 40x3 array's 5)."""

    def run(xp, x, axis=None, dtype=None, include_initial=False):
        if type(x) is not np.ndarray or include_initial or axis is None:
            return getattr(xp, name)(x, axis=axis, dtype=dtype, include_initial=include_initial)
        return ufunc.accumulate(x, axis, dtype)

    return run


REDUCTIONS = {
    Op.SUM: _reduce(np.add, np.sum),
    Op.PROD: _reduce(np.multiply, np.prod),
    Op.MAX: _reduce(np.maximum, np.max),
    Op.MIN: _reduce(np.minimum, np.min),
    Op.NANMAX: _reduce(np.fmax, np.nanmax),
    Op.NANMIN: _reduce(np.fmin, np.nanmin),
    Op.MEAN: _mean,
    Op.ANY: _reduce(np.logical_or, np.any, bool),
    Op.ALL: _reduce(np.logical_and, np.all, bool),
    Op.CUMULATIVE_SUM: _accumulate(np.add, "cumulative_sum"),
    Op.CUMULATIVE_PROD: _accumulate(np.multiply, "cumulative_prod"),
}
